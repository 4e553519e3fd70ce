/*
 * measure.h - the CPU timing engine: warm-up, block sizing, blocked sampling.
 *
 * After torch.utils.benchmark's blocked_autorange and nvbench: a body is
 * warmed up (time-based, at least one call), the block size (iterations per
 * sample) is grown until one block takes at least `min_block` and the
 * clock's overhead is at most 1e-4 of it, then blocks are timed until both
 * `min_run_time` and `min_samples` are met, capped by `max_run_time`. Each
 * block gives one sample: seconds per iteration.
 */
#ifndef PG_MEASURE_H
#define PG_MEASURE_H

#include <stddef.h>
#include <stdint.h>

/** A clock; tests substitute a fake one to drive the loop exactly. */
typedef struct pg_clock {
    int64_t (*now_ns)(void *payload);
    void *payload;
} pg_clock;

/** The monotonic system clock. */
extern const pg_clock pg_clock_monotonic;

/** The body under test: run `iters` iterations; nonzero return aborts. */
typedef int (*pg_body_fn)(void *payload, int64_t iters);

typedef struct pg_measure_options {
    unsigned version;
    double min_run_time;   /* seconds of sampling at least */
    double max_run_time;   /* seconds of sampling at most (hard cap) */
    double warmup;         /* seconds of warm-up (at least one call) */
    int64_t min_samples;
    double min_block;      /* seconds a block must last; default 1 ms */
    const pg_clock *clock; /* NULL: monotonic */
} pg_measure_options;

#define PG_MEASURE_OPTIONS_VERSION 1
#define PG_MEASURE_OPTIONS_INIT {PG_MEASURE_OPTIONS_VERSION, 0.5, 30.0, 0.1, 10, 1e-3, NULL}

typedef struct pg_measurement {
    double *samples;       /* seconds per iteration, one per block; caller frees */
    size_t nsamples;
    int64_t number_per_run;
    double warmup_s;
    int64_t warmup_calls;
    double clock_overhead_s;
    unsigned warnings;     /* PG_WARN_* from model.h */
} pg_measurement;

/** Estimates the clock's per-call overhead in seconds (median of pairs). */
double pg_measure_clock_overhead(const pg_clock *clock);

/**
 * Runs the sampling loop.
 * @param[out] out samples and block size; free out->samples.
 * @return 0, or the body's error code.
 */
int pg_measure(pg_measurement *out, pg_body_fn body, void *payload, const pg_measure_options *opts);

/** Fixes BLAS/OpenMP thread counts and the CPU affinity for a case. */
int pg_measure_set_threads(int threads);

#endif
