/* measure.c - the CPU timing engine. */
#include "measure.h"

#include "model.h"
#include "perfgate/errors.h"
#include "stats.h"
#include "util.h"

#include <cblas.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

static int64_t mono_now(void *payload)
{
    (void)payload;
    return pg__mono_ns();
}

const pg_clock pg_clock_monotonic = {mono_now, NULL};

double pg_measure_clock_overhead(const pg_clock *clock)
{
    double d[64];
    int i;

    for (i = 0; i < 64; i++) {
        int64_t a = clock->now_ns(clock->payload);
        int64_t b = clock->now_ns(clock->payload);
        d[i] = (double)(b - a) * 1e-9;
    }
    return pg_stats_median(d, 64);
}

static int timed_block(double *out_s, const pg_clock *clk, pg_body_fn body, void *payload, int64_t n)
{
    int64_t t0 = clk->now_ns(clk->payload);
    int err = body(payload, n);
    int64_t t1 = clk->now_ns(clk->payload);

    *out_s = (double)(t1 - t0) * 1e-9;
    return err;
}

int pg_measure(pg_measurement *out, pg_body_fn body, void *payload, const pg_measure_options *opts)
{
    pg_measure_options dflt = PG_MEASURE_OPTIONS_INIT;
    const pg_clock *clk;
    double t, spent = 0, overhead;
    int64_t number = 1, start;
    size_t cap = 0;
    int err;

    memset(out, 0, sizeof(*out));
    if (!opts)
        opts = &dflt;
    clk = opts->clock ? opts->clock : &pg_clock_monotonic;
    overhead = pg_measure_clock_overhead(clk);
    out->clock_overhead_s = overhead;

    /* Warm-up: first calls pay for lazy initialisation; they are never samples. */
    start = clk->now_ns(clk->payload);
    do {
        if ((err = body(payload, 1)) != 0)
            return err;
        out->warmup_calls++;
    } while ((double)(clk->now_ns(clk->payload) - start) * 1e-9 < opts->warmup);
    out->warmup_s = (double)(clk->now_ns(clk->payload) - start) * 1e-9;

    /* Block size: grow until a block is long enough to dwarf the clock. */
    for (;;) {
        if ((err = timed_block(&t, clk, body, payload, number)) != 0)
            return err;
        spent += t;
        if ((t >= opts->min_block && overhead <= 1e-4 * t) || number >= ((int64_t)1 << 40) ||
            spent >= opts->max_run_time)
            break;
        number *= 2;
    }
    out->number_per_run = number;

    /* Sampling: blocks until both minimums are met, never past the cap. */
    spent = 0;
    while ((spent < opts->min_run_time || (int64_t)out->nsamples < opts->min_samples) &&
           spent < opts->max_run_time) {
        if (out->nsamples == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            double *p = realloc(out->samples, ncap * sizeof(*p));
            if (!p) {
                free(out->samples);
                out->samples = NULL;
                return pg_error_set(PG_ENOMEM, "out of memory storing samples");
            }
            out->samples = p;
            cap = ncap;
        }
        if ((err = timed_block(&t, clk, body, payload, number)) != 0)
            return err;
        spent += t;
        out->samples[out->nsamples++] = t / (double)number;
    }
    if ((int64_t)out->nsamples < opts->min_samples)
        out->warnings |= PG_WARN_MAX_TIME | PG_WARN_FEW_SAMPLES;
    if (out->nsamples > 0) {
        pg_summary s;
        if (pg_stats_summarize(&s, out->samples, out->nsamples) == 0 && s.median > 0) {
            if (s.iqr / s.median >= 0.10)
                out->warnings |= PG_WARN_NOISY;
            if (s.iqr / s.median >= 0.25)
                out->warnings |= PG_WARN_VERY_NOISY;
        }
    }
    return 0;
}

int pg_measure_set_threads(int threads)
{
    /* The mask the process started with: later cases may want more CPUs. */
    static cpu_set_t allowed;
    static int have_allowed;
    cpu_set_t want;
    int cpu, picked = 0;

    if (threads < 1)
        return pg_error_set(PG_EINVAL, "thread count must be at least 1, got %d", threads);
    openblas_set_num_threads(threads);
    /* Pin to the first `threads` CPUs we are allowed on, so runs are comparable. */
    if (!have_allowed && sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
        have_allowed = 1;
    if (have_allowed) {
        CPU_ZERO(&want);
        for (cpu = 0; cpu < CPU_SETSIZE && picked < threads; cpu++)
            if (CPU_ISSET(cpu, &allowed)) {
                CPU_SET(cpu, &want);
                picked++;
            }
        if (picked > 0)
            sched_setaffinity(0, sizeof(want), &want);
    }
    return 0;
}
