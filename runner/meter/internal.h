/*
 * internal.h - what the files of the counting instruments share: finding
 * their programs and reading a Callgrind output file.
 */
#ifndef PG_METER_INTERNAL_H
#define PG_METER_INTERNAL_H

#include <stdint.h>

/* meter.h defines it; meter.c includes this header, so no include back. */
struct pg_meter_options;

/** perfgate-meter: the options' path, beside perfgate, or in the build tree (caller frees; NULL: not found). */
char *pg__meter_find_program(const struct pg_meter_options *o);

/** The allocation counter's library for `program` (caller frees; NULL: not found). */
char *pg__meter_find_shim(const struct pg_meter_options *o, const char *program);

/** Valgrind: $PERFGATE_VALGRIND or valgrind on PATH (caller frees; NULL: not found). */
char *pg__meter_find_valgrind(void);

/** The OpenBLAS kernel counted processes are pinned to: OPENBLAS_CORETYPE, else one Valgrind runs (NULL on other CPUs). */
const char *pg__meter_pinned_coretype(void);

/**
 * Why a counted process died of SIGILL, and what to do, as a phrase that
 * follows the process's name ("died of SIGILL ..."; caller frees): under Valgrind, that Valgrind cannot run this CPU's
 * instructions (AVX-512 where the CPU has it, which -march=native code
 * uses) and to build for x86-64-v3; run natively (the preload library),
 * that the program was built for a CPU with instructions this one lacks.
 */
char *pg__meter_sigill_why(int under_valgrind);

/** `valgrind --version` of the program at `vg` (caller frees; NULL when it cannot be run). */
char *pg__meter_valgrind_version(const char *vg);

/* Callgrind's events with --cache-sim=yes, in its order. */
enum { PG_CG_IR, PG_CG_DR, PG_CG_DW, PG_CG_I1MR, PG_CG_D1MR, PG_CG_D1MW, PG_CG_ILMR, PG_CG_DLMR, PG_CG_DLMW,
       PG_CG__COUNT };

typedef struct pg__callgrind {
    int64_t ev[PG_CG__COUNT];
    int cache_sim;      /* the file had the cache events */
} pg__callgrind;

/**
 * Reads the `summary:` (or `totals:`) line of a Callgrind output file,
 * mapping its `events:` line onto PG_CG_*; absent events are 0.
 * @return 0, PG_EIO when the file cannot be read, PG_EFORMAT when it has no
 *         events or summary line.
 */
int pg__callgrind_read(pg__callgrind *out, const char *path);

/**
 * Estimated cycles, iai-callgrind's model: L1 hits + 5 * LL hits + 35 * RAM
 * hits, where L1 hits = Ir + Dr + Dw - (I1mr + D1mr + D1mw), LL hits =
 * (I1mr + D1mr + D1mw) - (ILmr + DLmr + DLmw) and RAM hits = ILmr + DLmr + DLmw.
 */
int64_t pg__callgrind_cycles(const pg__callgrind *c);

#endif
