/*
 * cuda_measure.h - GPU sampling on the CPU engine's rules, timed on the
 * device clock.
 *
 * A GPU block is timed by two CUDA events on one stream, not by the host
 * clock: the host only queues the work. pg__gpu_measure() feeds those device
 * times to pg_measure() (measure.h) through a virtual clock that advances by
 * exactly the device time of each block, so warm-up, block sizing (a block
 * lasts >= 1 ms of device time), min/max run time, min_samples and the noise
 * warnings are the CPU engine's, unchanged. On top it adds what only a GPU
 * needs: an L2 flush before every cold sample (outside the timed interval,
 * and with one iteration per sample, since only the first iteration after a
 * flush is cold), and the SM clock read before and after every sample, with
 * samples under 75% of the default clock counted as throttled.
 *
 * The device is reached through pg_gpu_timer, so tests drive the loop with a
 * fake device exactly, as they drive the CPU loop with a fake clock.
 */
#ifndef PG_CUDA_MEASURE_H
#define PG_CUDA_MEASURE_H

#include <stddef.h>
#include <stdint.h>

/** The device operations the sampling loop needs. */
typedef struct pg_gpu_timer {
    /** Runs `iters` iterations between two device events; device seconds in *out_s. */
    int (*block)(void *payload, int64_t iters, double *out_s);
    /** Evicts the L2 cache and waits (never timed). NULL: cold samples unsupported. */
    int (*flush)(void *payload);
    /** Current SM clock in MHz (0: unknown). NULL: clocks are not read. */
    int (*sm_clock)(void *payload, unsigned *out_mhz);
    void *payload;
} pg_gpu_timer;

typedef struct pg_gpu_measure_options {
    unsigned version;
    double min_run_time;        /* seconds of sampling at least (see below for cold) */
    double max_run_time;        /* seconds at most */
    double warmup;              /* device seconds of warm-up (at least one call) */
    int64_t min_samples;
    double min_block;           /* device seconds a warm block must last; default 1 ms */
    int cold;                   /* flush L2 before each sample; one iteration per sample */
    unsigned default_clock_mhz; /* the 100% for throttle detection; 0: unknown */
    double throttle_fraction;   /* default 0.75 (nvbench's rule) */
} pg_gpu_measure_options;

#define PG_GPU_MEASURE_OPTIONS_VERSION 1
#define PG_GPU_MEASURE_OPTIONS_INIT {PG_GPU_MEASURE_OPTIONS_VERSION, 0.5, 30.0, 0.1, 10, 1e-3, 0, 0, 0.75}

typedef struct pg_gpu_measurement {
    double *samples;          /* device seconds per iteration, one per block; caller frees */
    size_t nsamples;
    int64_t number_per_run;
    double warmup_s;          /* device seconds spent warming up */
    unsigned warnings;        /* PG_WARN_* (model.h), including PG_WARN_THROTTLED */
    unsigned *clock_before;   /* SM clock (MHz) read before each sample, or NULL; caller frees */
    unsigned *clock_after;    /* ... and after it; caller frees */
    size_t throttled;         /* samples with a clock under the threshold */
    double device_s;          /* device seconds of all timed blocks */
    double wall_s;            /* wall seconds of the whole measurement */
} pg_gpu_measurement;

/**
 * Samples a GPU body.
 * Cold runs: each sample also pays a flush and clock reads on the host, so
 * the device-time budget is scaled by a probe's device/wall ratio and the
 * run lasts about min_run_time of wall time, not of device time.
 * @param[out] out samples and clocks; release with pg__gpu_measurement_clear().
 * @return 0, or the timer's error code (message set).
 */
int pg__gpu_measure(pg_gpu_measurement *out, const pg_gpu_timer *timer, const pg_gpu_measure_options *opts);

void pg__gpu_measurement_clear(pg_gpu_measurement *m);

/** A JSON object describing clocks and throttling for pg_result.extra_json (caller frees). */
char *pg__gpu_measurement_json(const pg_gpu_measurement *m, const pg_gpu_measure_options *opts);

#endif
