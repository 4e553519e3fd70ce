/*
 * flop_counter.h - the FLOP counter (FlopCounterMode's semantics): FLOPs of
 * every GEMM by op and by module, from the instrument hooks of a workload
 * run in-process or added from a program's counted BLAS calls. `kind: flops`
 * checks and the FLOPs of a timed case's work read it.
 */
#ifndef PG_CHECKS_FLOP_COUNTER_H
#define PG_CHECKS_FLOP_COUNTER_H

#include <stddef.h>
#include <stdint.h>

#include "base/instrument.h"

struct pg_buf;

typedef struct pg_flop_counter pg_flop_counter;

/** One row of the counter: FLOPs of `op` while `module` was executing. */
typedef struct pg_flop_row {
    const char *module;   /* "Global", "mlp", "mlp.1", ... */
    const char *op;
    int64_t flops;
} pg_flop_row;

/** @param[out] out a counter at zero; free with pg_flop_counter_free(). */
int pg_flop_counter_new(pg_flop_counter **out);
void pg_flop_counter_free(pg_flop_counter *fc);

/**
 * The instrument to install while a workload runs: each GEMM adds 2·m·n·k to
 * the total, to its op, and to every module executing (each module path on
 * the module stack, its dotted prefixes, and "Global"). `next` (may be NULL)
 * also receives every hook, e.g. the op recorder.
 */
const pg_instrument *pg_flop_counter_instrument(pg_flop_counter *fc, const pg_instrument *next);

/**
 * Adds `flops` of `op` counted elsewhere (a program's BLAS calls, count.h)
 * to the total, to "Global" and to each of `modules` once.
 * @return pg_flop_counter_status().
 */
int pg_flop_counter_add(pg_flop_counter *fc, const char *op, int64_t flops, const char *const *modules, size_t n);
/** Total FLOPs counted. */
int64_t pg_flop_counter_total(const pg_flop_counter *fc);
/** FLOPs of `op` under `module` ("Global" for all); op NULL sums the module's ops. */
int64_t pg_flop_counter_get(const pg_flop_counter *fc, const char *module, const char *op);
/** Rows in first-seen module order, ops by name. Valid until the counter is freed. */
const pg_flop_row *pg_flop_counter_rows(const pg_flop_counter *fc, size_t *out_n);
/** 0, or an error if a count overflowed int64 or module hooks did not pair up. */
int pg_flop_counter_status(const pg_flop_counter *fc);
/** Appends the per-module table (FlopCounterMode's display) to `b`. */
int pg_flop_counter_table(const pg_flop_counter *fc, struct pg_buf *b);

#endif
