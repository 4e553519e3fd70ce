/*
 * measure.h - the CPU timing engine: warm-up, block sizing, blocked sampling.
 *
 * After torch.utils.benchmark's blocked_autorange and nvbench: the clock's
 * per-read overhead and resolution are measured first; a body is warmed up
 * (time-based, at least one call); the block size (iterations per sample)
 * doubles until one block takes at least `min_block` and the clock's
 * overhead is at most 1e-4 of it (torch's _estimate_block_size rule); then
 * blocks are timed until both `min_run_time` and `min_samples` are met -
 * and, when `precision` is set, until the median's 95% confidence interval
 * is within ±precision of it - never starting a block that would end past
 * `max_run_time`. Each block gives one sample: seconds per iteration.
 * All durations are compared in whole clock nanoseconds, so a fake clock
 * drives the loop to exact, predictable block sizes and sample counts.
 */
#ifndef PG_MEASURE_H
#define PG_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "measure/contention.h"

/** A clock; tests substitute a fake one to drive the loop exactly. */
typedef struct pg_clock {
    int64_t (*now_ns)(void *payload);
    void *payload;
} pg_clock;

/** The monotonic system clock (wall time: what a user waits for). */
extern const pg_clock pg_clock_monotonic;

/** CPU time of the whole process (CLOCK_PROCESS_CPUTIME_ID): time the process was descheduled
 *  does not count, so a loaded machine's preemption stays out of the samples. It counts every
 *  thread, spinning BLAS workers included, so it suits single-threaded cases. */
extern const pg_clock pg_clock_process_cpu;

/** The body under test: run `iters` iterations; nonzero return aborts. */
typedef int (*pg_body_fn)(void *payload, int64_t iters);


typedef struct pg_measure_options {
    unsigned version;
    double min_run_time;   /* seconds of sampling at least */
    double max_run_time;   /* seconds of sampling at most: no block starts that would end past it */
    double warmup;         /* seconds of warm-up (at least one call) */
    int64_t min_samples;
    double min_block;      /* seconds a block must last; default 1 ms */
    const pg_clock *clock; /* NULL: monotonic */
    double precision;      /* adaptive stop: also wait until the median's 95% CI is within
                              ±precision (fraction) of it; 0: off */
    double max_wall_time;  /* seconds of real (monotonic) time the whole measurement may take,
                              warm-up included, whatever `clock` says; 0: off. For a clock that
                              can run slower than the time spent (a command's self-reported
                              time): the loop stops after the block that passes it. */
    int64_t start_number;  /* iterations per block to start sizing from (a block size found before in
                              this process for the same body); 0 or 1: from one. Sizing still checks it
                              (one block when it fits), so a changed machine only costs more blocks. */
    const pg_probe *probe; /* who ran the body: NULL, the calling thread (pg_thread_probe, contention.h) */
    int64_t block_unit;    /* every block a multiple of this many iterations (an injected change of whole
                              iterations per block stays exact); 0 or 1: any */
} pg_measure_options;

#define PG_MEASURE_OPTIONS_VERSION 5
#define PG_MEASURE_OPTIONS_INIT {PG_MEASURE_OPTIONS_VERSION, 0.5, 30.0, 0.1, 10, 1e-3, NULL, 0.0, 0.0, 0, NULL, 0}

/** Why sampling stopped. */
typedef enum pg_measure_stop {
    PG_STOP_MINIMUMS = 0,  /* min_run_time and min_samples met */
    PG_STOP_PRECISION,     /* ... and the precision target met */
    PG_STOP_MAX_TIME       /* the next block would have passed max_run_time */
} pg_measure_stop;

typedef struct pg_measurement {
    double *samples;       /* seconds per iteration, one per block; caller frees */
    size_t nsamples;
    int64_t number_per_run;
    double warmup_s;
    int64_t warmup_calls;  /* iterations run in the warm-up (in calls of growing size) */
    double clock_overhead_s;
    unsigned warnings;     /* PG_WARN_* (model.h) */
    double clock_resolution_s; /* smallest step the clock showed (0: none seen) */
    int64_t sizing_blocks; /* blocks timed while growing the block size (not samples) */
    double sampling_s;     /* clock time spent in sampled blocks */
    double ci_rel;         /* half-width of the median's 95% CI over the median (NAN if n < 2) */
    pg_measure_stop stop;
    double waited;         /* share of the sampled blocks' wall time the body's thread waited for a CPU (0..1) */
    double stolen;         /* share of the sampling time the hypervisor took from the CPUs used (steal) */
    int contention_known;  /* the probe could read both (0: waited and stolen are 0, unknown) */
    double transient;      /* the first warm-up call's time per iteration over the last one's (0: unknown) */
} pg_measurement;

/** Estimates the clock's per-call overhead in seconds (median of 64 back-to-back pairs). */
double pg_measure_clock_overhead(const pg_clock *clock);

/** The smallest nonzero step between consecutive reads of `clock` over a short spin, in seconds
 *  (0 when the clock never moved). */
double pg_measure_clock_resolution(const pg_clock *clock);

/**
 * Half-width of a distribution-free 95% confidence interval for the median
 * (order statistics at ranks n/2 ± 1.96·sqrt(n)/2), relative to the median.
 * @return the relative half-width, or NAN when n < 2 or the median is 0.
 */
double pg_measure_median_ci_rel(const double *x, size_t n);

/** What a warm-up did (pg_measure_warm). */
typedef struct pg_warm {
    double spent_s;        /* clock time spent */
    int64_t calls;         /* iterations run */
    double first;          /* the first call's time per iteration (seconds; cold caches, lazy set-up) */
    double last;           /* the last call's (the steady state, unless `steady` is 0) */
    int steady;            /* the last two calls agreed within PG_WARM_STEADY; 0: still getting faster at the cap */
} pg_warm;

/* Calls whose time per iteration improves by more than this are not yet steady. */
#define PG_WARM_STEADY 0.03

/**
 * The warm-up pg_measure() runs first, alone: calls of `body` growing from
 * one iteration until `seconds` of `clock` (NULL: monotonic) have passed,
 * at least one call, or until the monotonic `wall_end` (ns; 0: none). Then
 * until steady: while the last call ran more than PG_WARM_STEADY faster per
 * iteration than the one before (a process's first milliseconds: caches,
 * page tables, clocks still settling), calls of the last size go on, for
 * at most twice `seconds` more. `out` may be NULL.
 * @return 0, or the body's error code.
 */
int pg_measure_warm(pg_warm *out, pg_body_fn body, void *payload, const pg_clock *clock, double seconds,
                    int64_t wall_end);

/**
 * Runs the sampling loop.
 * @param[out] out samples and block size; free out->samples (also on error).
 * @return 0, or the body's error code.
 */
int pg_measure(pg_measurement *out, pg_body_fn body, void *payload, const pg_measure_options *opts);

/** Thread settings applied to a case, as recorded with its result. */
typedef struct pg_thread_state {
    int requested;
    int blas_threads;      /* openblas_get_num_threads() after setting */
    int omp_threads;       /* OMP_NUM_THREADS as set (and omp_get_max_threads() if a runtime is loaded) */
    int omp_runtime;       /* an OpenMP runtime is loaded in the process */
    int pinned;            /* the affinity mask was applied to every thread */
    char affinity[128];    /* CPUs in the mask, e.g. "0" or "0-3" */
} pg_thread_state;

/**
 * Fixes the thread count for a case: OpenBLAS (openblas_set_num_threads),
 * OpenMP (OMP_NUM_THREADS, and omp_set_num_threads when a runtime is
 * loaded), and the CPU affinity of every thread of the process to
 * `threads` of the CPUs it was allowed at start: in order from the CPU it
 * first ran on, chosen once per process, so all its cases share CPUs and
 * concurrent perfgate processes do not all stack onto CPU 0.
 * @param[out] out what was applied; NULL when the caller does not need it.
 * @return 0, or PG_EINVAL when `threads` is below 1.
 */
int pg_measure_set_threads(pg_thread_state *out, int threads);

/**
 * Makes the memory layout of the buffers a case allocates the same in every
 * process (allocations of 4 KiB and more are page-aligned mappings), so that
 * two processes measuring the same code see the same alignment. Called by
 * the executor before the first case; idempotent.
 */
void pg_measure_stable_layout(void);

/**
 * Moves this process's choice of CPUs `by` allowed CPUs on (the next case's
 * pg_measure_set_threads() pins there): a re-measurement in a child
 * process then runs on other CPUs than the first measurement did. Does
 * nothing before the first choice or with one allowed CPU.
 */
void pg_measure_shift_cpus(int by);

/**
 * Forgets the CPUs pg_measure_set_threads() chose: its next call starts
 * again from the process's affinity mask as it is then (a worker process
 * re-pinned for another round).
 */
void pg_measure_reset_cpus(void);

/**
 * Moves the samples and block size of `m` into `out` and marks it OK;
 * m->samples becomes NULL (the result owns the samples).
 */
void pg_result_take(pg_result *out, pg_measurement *m);

#endif
