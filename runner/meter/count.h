/*
 * count.h - the FLOPs of a program perfgate did not write: run it under the
 * BLAS-counting preload library (count/count.c) and read what it counted.
 *
 * Used by `perfgate count`, by `count: blas` command cases (FLOP/s and MFU
 * of a timed program) and by flops checks whose workload is a command.
 */
#ifndef PG_COUNT_H
#define PG_COUNT_H

#include <stddef.h>
#include <stdint.h>

/** One distinct call site: op, calling function, range path, shape, summed over processes. */
typedef struct pg_count_row {
    char *op;         /* "sgemm", "dgemv", ... */
    char *function;   /* the caller's symbol, "file+0xOFF", or "?" */
    char *range;      /* "outer/inner", or "" outside every range */
    char *shape;      /* "[64,32]x[32,48]" */
    int64_t calls;
    int64_t flops;
} pg_count_row;

typedef struct pg_counts {
    pg_count_row *rows;
    size_t n;
    int64_t total;      /* FLOPs of every row */
    int64_t calls;
    int processes;      /* processes that wrote counts (a program and the children it started) */
} pg_counts;

void pg_counts_clear(pg_counts *c);

/**
 * Where libperfgate_count.so is: $PERFGATE_COUNT_LIB, else beside the
 * perfgate executable, else the companions' directory of an installed tree
 * (lib/perfgate/), else, for a program in the build tree, there.
 * @return 0 with a malloc'd path, or PG_ENOTFOUND naming the places tried.
 */
int pg_count_library(char **out);

/* Where a counted program's output goes (pg_count_run's `output`). */
enum {
    PG_COUNT_SHOW = 0,            /* where perfgate's goes */
    PG_COUNT_QUIET = 1,           /* nowhere (/dev/null) */
    PG_COUNT_STDOUT_TO_STDERR = 2 /* its stdout to perfgate's stderr: perfgate's stdout stays its own */
};

/**
 * Runs `argv` (argv[0] looked up in PATH) under the preload library and
 * reads its counts. Output goes as `output` says (PG_COUNT_SHOW, _QUIET,
 * _STDOUT_TO_STDERR). A program that exits non-zero, dies, outlives `timeout_s` or
 * writes no counts (a static or setuid binary ignores LD_PRELOAD) is an
 * error with a one-line message.
 */
int pg_count_run(pg_counts *out, char *const argv[], double timeout_s, int output);

/** pg_count_run() with `env` (NULL-terminated "NAME=VALUE"; NULL: perfgate's own) as the program's environment. */
int pg_count_run_env(pg_counts *out, char *const argv[], char *const env[], double timeout_s, int output);

/** FLOPs summed over rows whose `field` ("op", "function", "range") equals `name` (range: or lies under it). */
int64_t pg_counts_sum(const pg_counts *c, const char *field, const char *name);

/** Appends the per-function and per-op tables (the `perfgate count` display). */
struct pg_buf;
int pg_counts_table(const pg_counts *c, struct pg_buf *b);

#endif
