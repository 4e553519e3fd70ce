/*
 * exec.h - drives the cases and checks of loaded suites into a run.
 */
#ifndef PG_EXEC_H
#define PG_EXEC_H

#include <stdint.h>
#include <stdio.h>

#include "machine/roofline.h"
#include "meter/meter.h"
#include "base/model.h"
#include "measure/progress.h"
#include "suite/suite.h"

typedef struct pg_exec_options {
    unsigned version;
    const char *filter;      /* glob over case keys and check names; NULL: all */
    /* What goes to `progress_out` while the run goes on (progress.h): nothing, the terminal's line, or a
     * line per finished case and check; the caller picks it with pg_progress_mode_for(). */
    pg_progress_mode progress;
    FILE *progress_out;
    double time_scale;       /* multiplies min/max run time (e.g. --quick); 1.0 */
    double peak_tflops;      /* GPU MFU denominator (--peak-tflops); 0: a measured GEMM ceiling */
    const char *trace_dir;   /* exact checks export their recordings here; NULL: none */
    double peak_gflops;      /* CPU MFU denominator (--peak-gflops); 0: measure a 1024^3 sgemm ceiling */
    double precision;        /* adaptive stop: median CI half-width target (--precision); 0: off */
    int cpu_clock;           /* CPU cases: time with process CPU time instead of wall time (--clock cpu) */
    /* Reference workloads (canary.h) in rounds between the cases: a machine phase shows in them too. */
    int canary;              /* 1: measure the canaries before the first case, every `canary_every`, after the last */
    size_t canary_every;     /* cases between canary rounds; 0: 5 */
    /* The exact checks only: an interleaved gate measures the cases itself. */
    int checks_only;
    /* After the cases: put the roofs at each thread count in the fingerprint (roofline.h), from `roofs`
     * where it has them, else measured. */
    int roofline;
    /* What the cases are measured with (PG_INSTRUMENT_* bits, --instrument); 0: each case's own setting. */
    unsigned instruments;
    const pg_meter_options *meter; /* the counting instruments' options; NULL: PG_METER_OPTIONS_INIT */
    /* The machine's roofs as stored (store.h); their peaks are the MFU ceilings, and the roofs measured by
     * this run are added as fresh entries for the caller to store. NULL: none known, none kept. */
    pg_roof_table *roofs;
} pg_exec_options;

#define PG_EXEC_OPTIONS_VERSION 1
#define PG_EXEC_OPTIONS_INIT {PG_EXEC_OPTIONS_VERSION, NULL, PG_PROGRESS_NONE, NULL, 1.0, 0, NULL, 0.0, 0.0, 0, 0, 0, 0, \
                              0, 0, NULL, NULL}

/** The instruments case `c` is measured with under `opts` (never 0). */
unsigned pg_exec_instruments(const pg_case *c, const pg_exec_options *opts);

/**
 * Checks that every counting instrument the selected cases of `set` use can
 * run here (meter.h, pg_meter_ready()).
 * @return 0, or PG_EUSAGE naming what is missing.
 */
int pg_exec_ready(const pg_suite_set *set, const pg_exec_options *opts);

/**
 * Runs every check and benchmark case of `set`, appending results to `run`.
 * A failing case becomes an error result; the rest still run. With
 * opts->canary the canary cases are measured in rounds between the cases
 * and stored (samples pooled over the rounds) as results of suite "canary".
 * @return 0, or an infrastructure error that stopped the whole run.
 */
int pg_exec_run(pg_run *run, const pg_suite_set *set, const pg_exec_options *opts);

/**
 * Measures one case into `out` (fills identity, samples, summary, flops,
 * status). `opts` NULL: PG_EXEC_OPTIONS_INIT.
 * @return 0 (a failed case is an ERROR in `out`), or an error that must stop the run.
 */
int pg_exec_case(pg_result *out, const pg_case *c, const pg_exec_options *opts);

/**
 * Measures `c` again in a fresh child process on other CPUs than this
 * process uses (confirmation re-runs: an independent second measurement,
 * not one that shares this process's CPU or memory placement).
 * @return as pg_exec_case().
 */
int pg_exec_case_fresh(pg_result *out, const pg_case *c, const pg_exec_options *opts);

/** One lockstep round of a pair (pg_exec_case_pair). */
typedef struct pg_exec_pair_round {
    uint64_t seed;            /* the order of the sides' blocks */
    const uint64_t *cpus;     /* the round's CPUs (PG_CHILD_CPU_WORDS words, child.h); NULL: this thread's */
    int64_t start_number;     /* iterations per block to start sizing from (a block size this case had in an
                                 earlier round); 0: from one */
    const uint64_t *setup_cpus; /* where the processes set up and warm up (as cpus); NULL: where they start */
} pg_exec_pair_round;

/**
 * Measures two variants of one plugin case in lockstep (plugin.h,
 * pg_plugin_run_pair): c[0] and c[1] differ only in their library, and
 * both must be plugin cases (asserted). Each sets up and warms up on its
 * own, then both take turns on the round's CPUs, blocks of the two
 * alternating in an order drawn from its seed.
 * @return as pg_exec_case().
 */
int pg_exec_case_pair(pg_result out[2], const pg_case *const c[2], const pg_exec_options *opts,
                      const pg_exec_pair_round *round);

/**
 * pg_exec_case_pair() in two steps, so that the next pair can set up while
 * one takes its turns (plugin.h, pg_plugin_pair_start): start forks both
 * processes (`busy`: a pair started earlier and not finished); finish
 * measures, fills out[] and frees the pair; cancel kills one not finished.
 * @return as pg_exec_case().
 */
typedef struct pg_exec_pair pg_exec_pair;
int pg_exec_pair_start(pg_exec_pair **out, const pg_case *const c[2], const pg_exec_options *opts,
                       const pg_exec_pair_round *round, const pg_exec_pair *busy);
int pg_exec_pair_finish(pg_result out[2], pg_exec_pair *p);
void pg_exec_pair_cancel(pg_exec_pair *p);

/*
 * Worker processes for interleaved rounds: one per build, kept across
 * rounds, each measuring plugin cases in lockstep with the other on request
 * (plugin.h, pg_plugin_worker_pair). A round costs the sampling and a brief
 * re-warm instead of two process starts, library loads, block sizings and
 * full warm-ups.
 */
typedef struct pg_exec_workers pg_exec_workers;

/**
 * Workers for cases cases[0][i] (as the base build measures case i) and
 * cases[1][i] (the head build), i < n; plugin cases only, others NULL. The
 * tables must outlive the workers. Nothing starts until the first pair.
 */
int pg_exec_workers_new(pg_exec_workers **out, const pg_case *const *const cases[2], size_t n,
                        const pg_exec_options *opts);

/**
 * Measures case `i` on both builds in lockstep on this thread's CPUs,
 * starting the workers first when none runs. When a worker died or broke the
 * protocol (not a timeout: that is the case's ERROR, as for fresh processes),
 * both are stopped, out[] is left empty and `*replaced` says what happened
 * (caller frees): measure the round again, e.g. by pg_exec_case_pair().
 * @return as pg_exec_case_pair().
 */
int pg_exec_workers_pair(pg_result out[2], pg_exec_workers *w, size_t i, uint64_t seed, char **replaced);

/** Stops both workers: the next pair starts fresh processes (a new memory layout). */
void pg_exec_workers_recycle(pg_exec_workers *w);

/** How many worker processes were started so far. */
unsigned pg_exec_workers_started(const pg_exec_workers *w);

void pg_exec_workers_free(pg_exec_workers *w);

#endif
