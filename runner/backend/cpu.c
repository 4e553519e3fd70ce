/*
 * cpu.c - built-in CPU kernels timed by the CPU engine at fixed threads.
 *
 * Per case: fix the thread count and affinity, set the kernel up, measure,
 * and fill the result with its samples, summary, FLOPs/bytes per iteration
 * and MFU. MFU is "CPU MFU" as the lesson defines it: achieved matmul FLOP/s
 * over an empirical ceiling - a 1024^3 sgemm timed by the same engine at the
 * same thread count, measured once per thread count per process - or over
 * --peak-gflops when given. What was applied and measured besides the
 * samples (threads, affinity, clock, stop reason, ceiling) goes into the
 * result's extra_json.
 */
#include "backend/backend.h"

#include "kernels/kernels.h"
#include "measure/measure.h"
#include "perfgate/errors.h"
#include "stats/stats.h"
#include "base/testhooks.h"
#include "base/util.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct kernel_body {
    const pg_kernel *k;
    void *state;
    double slowdown;    /* test builds: PG_TEST_SLOWDOWN factor for this case; 0 or 1: none */
    double extra_work;  /* an injected change of real work (case.h): this fraction more iterations, uncounted */
} kernel_body;

static int run_kernel(void *payload, int64_t iters)
{
    kernel_body *kb = payload;
    int64_t t0;
    int err;

    if (kb->extra_work > 0)
        iters += (int64_t)llround((double)iters * kb->extra_work);
    if (!(kb->slowdown > 1))
        return kb->k->run(kb->state, iters);
    /* Injected slowdown (testhooks.h): extra time proportional to this block's own time. */
    t0 = pg__mono_ns();
    err = kb->k->run(kb->state, iters);
    pg__test_spin((kb->slowdown - 1) * (double)(pg__mono_ns() - t0) * 1e-9);
    return err;
}

/* The case's timing settings, scaled by --quick. */
static void case_options(pg_measure_options *mo, const pg_case *c, const pg_backend_options *opts)
{
    pg_backend_measure_options(mo, c, opts);
    mo->clock = opts->cpu_clock ? &pg_clock_process_cpu : &pg_clock_monotonic;
}

#define CEILING_N 1024
#define CEILING_MAX_THREADS 1024

static double ceiling_cache[CEILING_MAX_THREADS + 1];    /* the ceiling MFU divides by now */
static double ceiling_measured[CEILING_MAX_THREADS + 1]; /* the sgemm as this process measured it */
static char ceiling_raised[CEILING_MAX_THREADS + 1]; /* a case's fastest sample beat the ceiling */
static char ceiling_stored[CEILING_MAX_THREADS + 1]; /* the ceiling is the machine's stored roof */

/* GFLOP/s of a 1024^3 sgemm at the current thread count, timed like the case but for at most
   0.5 s of sampling and at least 10 samples (it is a denominator, not a result); cached per thread
   count. A ceiling is the best the machine does, so it is the fastest sample, not the median: on a
   loaded machine the median of a few 30 ms blocks is mostly preemption, and MFU passed 100%. */
static double sgemm_ceiling_gflops(int threads, const pg_measure_options *case_mo)
{
    double *cache = ceiling_measured;
    pg_param param = {"n", "1024", 1, CEILING_N};
    pg_case c;
    pg_measure_options mo = *case_mo;
    pg_measurement m = {0};
    kernel_body kb = {0};
    double gflops = -1;

    if (threads < 1 || threads > CEILING_MAX_THREADS)
        return -1;
    if (cache[threads] != 0)
        return cache[threads];
    memset(&c, 0, sizeof(c));
    c.key = "mfu-ceiling/sgemm[n=1024]";
    c.kernel = "sgemm";
    c.params = &param;
    c.nparams = 1;
    kb.k = pg_kernel_find_for("sgemm", "cpu");
    if (!kb.k || kb.k->setup(&kb.state, &c) != 0)
        return -1;
    if (mo.min_run_time > 0.5)
        mo.min_run_time = 0.5;
    if (mo.max_run_time > 2.0)
        mo.max_run_time = 2.0;
    mo.min_samples = 10;
    mo.precision = 0;
    if (pg_measure(&m, run_kernel, &kb, &mo) == 0 && m.nsamples > 0) {
        double best = m.samples[0];
        size_t i;
        for (i = 1; i < m.nsamples; i++)
            best = m.samples[i] < best ? m.samples[i] : best;
        if (best > 0)
            gflops = 2.0 * CEILING_N * CEILING_N * CEILING_N / best * 1e-9;
    }
    kb.k->teardown(kb.state);
    free(m.samples);
    cache[threads] = gflops;
    return gflops;
}

static double case_mfu(const pg_result *out, int threads, double *ceiling, const char **source);

/* The process's own sgemm ceiling at `threads`, measured on first use with `opts`' clock and scale. */
static double measured_ceiling(int threads, const pg_backend_options *opts)
{
    pg_measure_options mo = PG_MEASURE_OPTIONS_INIT;

    mo.clock = opts->cpu_clock ? &pg_clock_process_cpu : &pg_clock_monotonic;
    mo.min_run_time *= opts->time_scale < 1 ? opts->time_scale : 1.0;
    mo.warmup *= opts->time_scale < 1 ? opts->time_scale : 1.0;
    return sgemm_ceiling_gflops(threads, &mo);
}

double pg_backend_cpu_peak(int threads, const pg_backend_options *opts, int *reliable)
{
    *reliable = 1;
    if (opts->peak_gflops > 0)
        return opts->peak_gflops;
    if (threads < 1 || threads > CEILING_MAX_THREADS)
        return -1;
    if (ceiling_cache[threads] == 0)
        ceiling_cache[threads] = measured_ceiling(threads, opts);
    *reliable = !ceiling_raised[threads];
    return ceiling_cache[threads];
}

double pg_backend_cpu_ceiling(int threads)
{
    pg_backend_options bo = PG_BACKEND_OPTIONS_INIT;

    return threads >= 1 && threads <= CEILING_MAX_THREADS ? measured_ceiling(threads, &bo) : -1;
}

void pg_backend_cpu_stored_peak(int threads, double gflops)
{
    if (threads < 1 || threads > CEILING_MAX_THREADS || !(gflops > 0) || ceiling_cache[threads] != 0)
        return;
    ceiling_cache[threads] = gflops;
    ceiling_stored[threads] = 1;
}

double pg_backend_cpu_known_peak(int threads, const pg_backend_options *opts)
{
    if (opts->peak_gflops > 0)
        return opts->peak_gflops;
    return threads >= 1 && threads <= CEILING_MAX_THREADS && ceiling_cache[threads] > 0 ? ceiling_cache[threads] : 0;
}

const char *pg_backend_cpu_peak_source(int threads, const pg_backend_options *opts)
{
    int in = threads >= 1 && threads <= CEILING_MAX_THREADS;

    if (opts->peak_gflops > 0)
        return "--peak-gflops";
    if (in && ceiling_raised[threads])
        return "raised to a case's fastest sample, which beat the sgemm 1024^3 ceiling (unreliable)";
    return in && ceiling_stored[threads] ? "the machine's stored roof: sgemm 1024^3 at the same threads, fastest of its samples"
                                         : "sgemm 1024^3 at the same threads, fastest of its samples";
}

void pg__backend_cpu_mfu(pg_result *out, int threads, const pg_backend_options *opts, double *ceiling,
                         const char **source)
{
    int reliable;

    *ceiling = -1;
    *source = NULL;
    /* MFU only where there are matmul FLOPs: zero-FLOP kernels report bytes/s instead. */
    if (!(out->flops > 0 && out->summary.median > 0))
        return;
    *ceiling = pg_backend_cpu_peak(threads, opts, &reliable);
    *source = pg_backend_cpu_peak_source(threads, opts);
    if (*ceiling > 0)
        out->mfu = opts->peak_gflops > 0 ? out->flops / out->summary.median * 1e-9 / *ceiling
                                         : case_mfu(out, threads, ceiling, source);
}

/* MFU of `out` against `ceiling` GFLOP/s. The ceiling is a few samples of one GEMM, so a case can
   beat it; then the ceiling was not the machine's best: it is raised to the case's own fastest sample
   (for this case and every later one at these threads) and flagged unreliable, so a median-based MFU
   never passes 100%. */
static double case_mfu(const pg_result *out, int threads, double *ceiling, const char **source)
{
    double best = out->samples && out->nsamples ? out->samples[0] : 0, g;
    size_t i;

    for (i = 1; i < out->nsamples; i++)
        best = out->samples[i] < best ? out->samples[i] : best;
    g = best > 0 ? out->flops / best * 1e-9 : 0;
    if (g > *ceiling && threads >= 1 && threads <= CEILING_MAX_THREADS) {
        *ceiling = g;
        ceiling_cache[threads] = g;
        ceiling_raised[threads] = 1;
        *source = "raised to this case's fastest sample, which beat the sgemm 1024^3 ceiling (unreliable)";
    }
    return out->flops / out->summary.median * 1e-9 / *ceiling;
}

static const char *stop_name(pg_measure_stop s)
{
    switch (s) {
    case PG_STOP_PRECISION:
        return "precision";
    case PG_STOP_MAX_TIME:
        return "max_run_time";
    default:
        return "minimums";
    }
}

static char *details_json(const pg_measurement *m, const pg_thread_state *ts, double ceiling, const char *source,
                          int cpu_clock)
{
    json_t *o = json_object(), *t = json_object();
    char *s;

    json_object_set_new(t, "requested", json_integer(ts->requested));
    json_object_set_new(t, "blas", json_integer(ts->blas_threads));
    json_object_set_new(t, "omp", json_integer(ts->omp_threads));
    json_object_set_new(t, "omp_runtime", json_boolean(ts->omp_runtime));
    json_object_set_new(t, "affinity", json_string(ts->affinity));
    json_object_set_new(t, "pinned", json_boolean(ts->pinned));
    json_object_set_new(o, "threads", t);
    json_object_set_new(o, "clock", json_string(cpu_clock ? "process_cpu" : "monotonic"));
    json_object_set_new(o, "warmup_calls", json_integer(m->warmup_calls));
    json_object_set_new(o, "clock_overhead_ns", json_real(m->clock_overhead_s * 1e9));
    json_object_set_new(o, "clock_resolution_ns", json_real(m->clock_resolution_s * 1e9));
    json_object_set_new(o, "sizing_blocks", json_integer(m->sizing_blocks));
    json_object_set_new(o, "sampling_s", json_real(m->sampling_s));
    json_object_set_new(o, "stop", json_string(stop_name(m->stop)));
    if (isfinite(m->ci_rel))
        json_object_set_new(o, "median_ci95_rel", json_real(m->ci_rel));
    if (ceiling > 0) {
        json_object_set_new(o, "mfu_ceiling_gflops", json_real(ceiling));
        json_object_set_new(o, "mfu_ceiling_source", json_string(source));
    }
    s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    return s;
}

int pg_backend_cpu_case(pg_result *out, const pg_case *c, const pg_backend_options *opts)
{
    pg_measure_options mo;
    pg_measurement m = {0};
    pg_thread_state ts;
    kernel_body kb = {0};
    double ceiling = -1;
    const char *source = NULL;
    int err;

    out->mfu = -1;
    kb.k = pg_kernel_find_for(c->kernel, "cpu");
    kb.slowdown = pg__test_slowdown(c->key);
    kb.extra_work = c->extra_work;
    if (!kb.k)
        return pg__result_error(out, "unknown kernel");
    if ((err = pg_measure_set_threads(&ts, c->threads)) != 0 || (err = kb.k->setup(&kb.state, c)) != 0)
        return pg__result_error(out, pg_error_last());
    case_options(&mo, c, opts);
    err = pg_measure(&m, run_kernel, &kb, &mo);
    kb.k->teardown(kb.state);
    if (err)
        return pg__result_error(out, pg_error_last());
    pg_result_take(out, &m);
    out->flops = kb.k->flops ? kb.k->flops(c) : 0;
    out->bytes = kb.k->bytes ? kb.k->bytes(c) : 0;
    if ((err = pg_stats_summarize(&out->summary, out->samples, out->nsamples)) != 0)
        return err;
    pg__backend_cpu_mfu(out, c->threads, opts, &ceiling, &source);
    free(out->extra_json);
    out->extra_json = details_json(&m, &ts, ceiling, source, opts->cpu_clock);
    return 0;
}
