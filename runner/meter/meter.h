/*
 * meter.h - the counting instruments: instructions and simulated cycles
 * (Callgrind), and exact heap allocations (an interposed allocator).
 *
 * Each measures one case in separate child processes of its own program,
 * `perfgate-meter` (meter_child.c), built beside perfgate without
 * sanitizers. Collection covers exactly the measured region: a built-in
 * kernel's run() of the measured iterations, a plugin's timed region (its
 * iterate call or pg_keep_running() loop, less what pg_pause_timing()
 * excludes), or a command's whole process. A case is measured at least
 * twice, in two processes: instructions count one iteration after a
 * warm-up iteration (counts are exact per iteration, and Valgrind makes
 * every iteration cost thousands of native ones), memory two. Counts that differ
 * between the measurements make the case nondeterministic (said in the
 * result, never gated as exact).
 *
 * Results carry the instrument in their key, `KEY#METRIC` (metric
 * `instructions`, `est_cycles`, `bytes_per_iter`, `allocs_per_iter`,
 * `peak`), so they sit beside the case's time in the store, the history
 * and every report; a sample is one measurement's (one region's) count per iteration.
 */
#ifndef PG_METER_H
#define PG_METER_H

#include <stdint.h>

#include "base/case.h"
#include "base/model.h"

/** What the allocation counter read (memshim.c); counts of the region. */
typedef struct pg_meter_memory {
    int64_t bytes;      /* requested bytes of every allocation */
    int64_t allocs;     /* allocations (malloc, calloc, realloc, aligned forms) */
    int64_t peak;       /* most bytes allocated in the region and not yet freed */
    int64_t live_end;   /* bytes allocated in the region still live at its end */
    int overflow;       /* more live blocks than the counter's table holds: figures incomplete */
} pg_meter_memory;

/** Options of the counting instruments. Initialise with PG_METER_OPTIONS_INIT. */
typedef struct pg_meter_options {
    unsigned version;
    const char *program;   /* the perfgate-meter program; NULL: $PERFGATE_METER, else beside this executable */
    const char *shim;      /* the allocation counter library; NULL: $PERFGATE_MEMSHIM, else beside the program */
    int processes;         /* separate processes per case; 0: 2 */
    int64_t iterations;    /* iterations inside one measured region; 0: 1 for instructions, 2 for memory */
    double timeout;        /* seconds one process may run; 0: the case's timeout, else 600 */
    int regions;           /* measured regions per process, each a sample (instructions, not commands); 0: 1 */
} pg_meter_options;

/* The most measured regions one process runs. */
#define PG_METER_MAX_REGIONS 16

#define PG_METER_OPTIONS_VERSION 2
#define PG_METER_OPTIONS_INIT {PG_METER_OPTIONS_VERSION, NULL, NULL, 0, 0, 0.0, 0}

/**
 * Says whether `instruments` (PG_INSTRUMENT_* bits) can run here: Valgrind
 * on PATH (or $PERFGATE_VALGRIND) for instructions, the meter program and
 * the counter library for either.
 * @return 0, or PG_EUSAGE with a message saying what is missing and how to
 *         get it (the command exits 2).
 */
int pg_meter_ready(unsigned instruments, const pg_meter_options *opts);

/**
 * Measures case `c` with one counting instrument (PG_INSTRUMENT_INSTRUCTIONS
 * or PG_INSTRUMENT_MEMORY) and appends its results to `run`: instructions
 * and est_cycles, or bytes_per_iter, allocs_per_iter and peak. A case the
 * instrument cannot measure (more than one thread, a GPU case) gets SKIPPED
 * results with the reason; one that fails, ERROR results.
 * @return 0, or an error that must stop the run (PG_ENOMEM, PG_EIO).
 */
int pg_meter_case(pg_run *run, const pg_case *c, unsigned instrument, const pg_meter_options *opts);

/**
 * The metric a counted result holds and whether it is one (exact metrics go
 * through the deterministic verdict): 1 for instructions, est_cycles,
 * bytes_per_iter, allocs_per_iter and peak; 0 for time and anything else.
 */
int pg_meter_is_exact(const char *metric);

/**
 * Gives a run whose every result is counted the fingerprint of what changes
 * counts instead of the machine's: architecture, the ISA extensions Valgrind
 * passes on (AVX-512 it does not), libc and OpenBLAS versions, the pinned
 * OpenBLAS kernel, the Valgrind version, the compiler and perfgate version.
 * CPU model, frequency and core count are left out, so two hosted runners
 * of one image compare. A run with any timed result keeps its machine's.
 * The machine's own fingerprint stays inside, as "measured_on".
 * @return 0, or PG_ENOMEM.
 */
int pg_meter_fingerprint_run(pg_run *run);

/** The perfgate-meter program's main (meter/main.c). @return its exit code. */
int pg_meter_child_main(int argc, char **argv);

#endif
