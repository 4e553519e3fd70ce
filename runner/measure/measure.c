/*
 * measure.c - the CPU timing engine (see measure.h): clock calibration,
 * warm-up, block sizing, blocked sampling with stopping rules, and fixing
 * the thread count and CPU affinity of a case.
 */
#include "measure/measure.h"
#include "measure/contention.h"

#include "base/model.h"
#include "perfgate/errors.h"
#include "stats/stats.h"
#include "base/util.h"

#include <cblas.h>
#include <dirent.h>
#include <dlfcn.h>
#include <malloc.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t mono_now(void *payload)
{
    (void)payload;
    return pg__mono_ns();
}

const pg_clock pg_clock_monotonic = {mono_now, NULL};

static int64_t process_cpu_now(void *payload)
{
    struct timespec ts;

    (void)payload;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

const pg_clock pg_clock_process_cpu = {process_cpu_now, NULL};

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

double pg_measure_clock_resolution(const pg_clock *clock)
{
    int64_t prev = clock->now_ns(clock->payload), best = 0;
    int i, steps = 0;

    /* A coarse clock repeats values; the smallest visible step is its resolution. */
    for (i = 0; i < 4096 && steps < 64; i++) {
        int64_t t = clock->now_ns(clock->payload);
        if (t > prev) {
            if (best == 0 || t - prev < best)
                best = t - prev;
            steps++;
        }
        prev = t;
    }
    return (double)best * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

double pg_measure_median_ci_rel(const double *x, size_t n)
{
    double *s, med, half;
    long lo, hi;

    if (n < 2 || !(s = malloc(n * sizeof(*s))))
        return NAN;
    memcpy(s, x, n * sizeof(*s));
    qsort(s, n, sizeof(*s), cmp_double);
    med = pg_stats_quantile_sorted(s, n, 0.5);
    /* Ranks of the order-statistic interval: the number of samples below the true median is
       Binomial(n, 1/2), about n/2 ± 1.96·sqrt(n)/2 (1-based ranks, clamped to the data). */
    half = 1.959964 * sqrt((double)n) / 2.0;
    lo = (long)floor((double)n / 2.0 - half);
    hi = (long)ceil((double)n / 2.0 + half) + 1;
    if (lo < 1)
        lo = 1;
    if (hi > (long)n)
        hi = (long)n;
    half = (s[hi - 1] - s[lo - 1]) / 2.0;
    free(s);
    return med > 0 ? half / med : NAN;
}

static int64_t to_ns(double seconds)
{
    return seconds > 0 ? (int64_t)llround(seconds * 1e9) : 0;
}

static int timed_block(int64_t *out_ns, const pg_clock *clk, pg_body_fn body, void *payload, int64_t n)
{
    int64_t t0 = clk->now_ns(clk->payload);
    int err = body(payload, n);
    int64_t t1 = clk->now_ns(clk->payload);

    *out_ns = t1 - t0;
    return err;
}


static int push_sample(pg_measurement *out, size_t *cap, double v)
{
    if (out->nsamples == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        double *p = realloc(out->samples, ncap * sizeof(*p));
        if (!p)
            return pg_error_set(PG_ENOMEM, "out of memory storing %zu samples", out->nsamples);
        out->samples = p;
        *cap = ncap;
    }
    out->samples[out->nsamples++] = v;
    return 0;
}

/* Warm-up: first calls pay for lazy initialisation, page faults and cold caches; they are never
   samples. Time-based, and at least one iteration however long it takes. Calls grow (doubling,
   never past the time left) so that a body with a per-call cost of its own - a plugin's loop form
   hands each call to another thread - is not called once per iteration. Then until steady: a
   process whose last call still ran faster per iteration than the one before has not reached the
   state its samples should measure, so calls of that size go on (at most twice the warm-up more). */
int pg_measure_warm(pg_warm *out, pg_body_fn body, void *payload, const pg_clock *clk, double seconds,
                    int64_t wall_end)
{
    int64_t warm_ns = to_ns(seconds), warm_iters = 1, start, elapsed, t, cap;
    double prev = 0, per = 0;
    pg_warm w;
    int err, steady_phase = 0;

    memset(&w, 0, sizeof(w));
    if (!clk)
        clk = &pg_clock_monotonic;
    cap = 3 * warm_ns;
    start = clk->now_ns(clk->payload);
    for (;;) {
        int64_t t0 = clk->now_ns(clk->payload), left, fit, n = warm_iters;
        if ((err = body(payload, n)) != 0)
            return err;
        w.calls += n;
        t = clk->now_ns(clk->payload) - t0;
        elapsed = clk->now_ns(clk->payload) - start;
        prev = per;
        per = (double)t * 1e-9 / (double)n;
        if (w.calls == n)
            w.first = per;
        w.steady = prev > 0 && per >= (1 - PG_WARM_STEADY) * prev;
        if (wall_end && pg__mono_ns() >= wall_end)
            break;
        if (elapsed >= warm_ns) {
            /* The budget is spent: on while the calls still get faster, with calls of the size reached. */
            if (w.steady || prev == 0 || elapsed >= cap)
                break;
            if (!steady_phase)
                warm_iters = n;
            steady_phase = 1;
            continue;
        }
        left = warm_ns - elapsed;
        fit = t > 0 ? (int64_t)((double)left / ((double)t / (double)n)) : 2 * n;
        warm_iters = fit < 1 ? 1 : fit < 2 * n ? fit : 2 * n;
    }
    /* One call is its own steady state: there is nothing to compare it with. */
    if (prev == 0)
        w.steady = 1;
    w.last = per;
    w.spent_s = (double)elapsed * 1e-9;
    if (out)
        *out = w;
    return 0;
}

/* Real time and waiting around the sampled blocks (the probe), and the CPUs' steal around the sampling. */
typedef struct block_probe {
    const pg_probe *probe;
    int ok;                   /* every read so far worked */
    int64_t real, waited;     /* totals over the sampled blocks */
    int64_t r0, w0;
    cpu_set_t cpus;
    double steal0;
    int64_t t_start;
} block_probe;

static void probe_begin(block_probe *bp, const pg_probe *probe)
{
    memset(bp, 0, sizeof(*bp));
    bp->probe = probe;
    bp->ok = probe != NULL;
    bp->steal0 = -1;
    if (sched_getaffinity(0, sizeof(bp->cpus), &bp->cpus) == 0)
        bp->steal0 = pg_cpu_steal_s(&bp->cpus);
    bp->t_start = pg__mono_ns();
}

static void probe_before(block_probe *bp)
{
    if (bp->ok && bp->probe->read(bp->probe->payload, &bp->r0, &bp->w0) != 0)
        bp->ok = 0;
}

static void probe_after(block_probe *bp)
{
    int64_t r1, w1;

    if (bp->ok && bp->probe->read(bp->probe->payload, &r1, &w1) != 0)
        bp->ok = 0;
    if (bp->ok) {
        bp->real += r1 - bp->r0;
        bp->waited += w1 - bp->w0;
    }
}

/* The shares of the sampling's wall time the body's thread waited for a CPU, and that steal took. */
static void probe_end(block_probe *bp, pg_measurement *out)
{
    double wall = (double)(pg__mono_ns() - bp->t_start) * 1e-9, steal1;
    int ncpus = CPU_COUNT(&bp->cpus);

    /* Under a millisecond of blocks (a fake clock's, or one tiny block) a share says nothing. */
    out->contention_known = bp->ok && bp->real >= 1000000;
    if (out->contention_known)
        out->waited = fmin(1, fmax(0, (double)bp->waited / (double)bp->real));
    /* Steal comes in clock ticks (10 ms): one tick may straddle the sampling's start or end, so it is taken off,
       and a sampling shorter than a tick never looks stolen. */
    if (bp->steal0 >= 0 && wall > 0 && ncpus > 0 && (steal1 = pg_cpu_steal_s(&bp->cpus)) >= 0)
        out->stolen = fmin(1, fmax(0, (steal1 - bp->steal0 - 1.0 / (double)sysconf(_SC_CLK_TCK)) / (wall * ncpus)));
}

int pg_measure(pg_measurement *out, pg_body_fn body, void *payload, const pg_measure_options *opts)
{
    pg_measure_options dflt = PG_MEASURE_OPTIONS_INIT;
    const pg_clock *clk;
    int64_t number = 1, elapsed, t = 0, sizing = 0, unit = 1;
    int64_t min_block_ns, min_run_ns, max_run_ns, wall_end = 0;
    size_t cap = 0, next_ci = 0;
    double overhead_ns, precision;
    pg_thread_probe self;
    block_probe bp;
    pg_warm warm;
    int err, met = 0, own_probe = 0;

    memset(out, 0, sizeof(*out));
    out->ci_rel = NAN;
    if (!opts)
        opts = &dflt;
    precision = opts->version >= 2 ? opts->precision : 0;
    if (opts->version >= 3 && opts->max_wall_time > 0)
        wall_end = pg__mono_ns() + to_ns(opts->max_wall_time);
    clk = opts->clock ? opts->clock : &pg_clock_monotonic;
    min_block_ns = to_ns(opts->min_block);
    min_run_ns = to_ns(opts->min_run_time);
    max_run_ns = to_ns(opts->max_run_time);
    out->clock_overhead_s = pg_measure_clock_overhead(clk);
    out->clock_resolution_s = pg_measure_clock_resolution(clk);
    overhead_ns = out->clock_overhead_s * 1e9;
    if (opts->version >= 5 && opts->block_unit > 1)
        unit = opts->block_unit;
    number = unit;
    if (opts->version >= 4 && opts->start_number > number)
        number = (opts->start_number + unit - 1) / unit * unit;

    if ((err = pg_measure_warm(&warm, body, payload, clk, opts->warmup, wall_end)) != 0)
        goto fail;
    out->warmup_s = warm.spent_s;
    out->warmup_calls = warm.calls;
    out->transient = warm.last > 0 ? warm.first / warm.last : 0;
    if (!warm.steady)
        out->warnings |= PG_WARN_NOT_STEADY;

    /* Block size: double until a block dwarfs the clock - at least min_block long, with the
       clock's own overhead at most 1e-4 of it. These blocks are not samples. */
    for (;;) {
        if ((err = timed_block(&t, clk, body, payload, number)) != 0)
            goto fail;
        out->sizing_blocks++;
        sizing += t;
        if ((t >= min_block_ns && overhead_ns <= 1e-4 * (double)t) || sizing >= max_run_ns ||
            number >= ((int64_t)1 << 40) || (wall_end && pg__mono_ns() >= wall_end))
            break;
        number *= 2;
    }
    out->number_per_run = number;

    /* Who ran the blocks: the caller's probe (the thread a plugin's loop runs on), else this thread. */
    if (!(opts->version >= 5 && opts->probe)) {
        own_probe = pg_thread_probe_open(&self, 0, NULL) == 0;
        probe_begin(&bp, own_probe ? &self.probe : NULL);
    } else {
        probe_begin(&bp, opts->probe);
    }
    /* Sampling: at least one block; stop once the minimums (and the precision target) are met,
       or before a block that would end past max_run_time, predicted from the last block. */
    elapsed = 0;
    for (;;) {
        probe_before(&bp);
        err = timed_block(&t, clk, body, payload, number);
        probe_after(&bp);
        if (err)
            goto fail;
        elapsed += t;
        if ((err = push_sample(out, &cap, (double)t * 1e-9 / (double)number)) != 0)
            goto fail;
        met = elapsed >= min_run_ns && (int64_t)out->nsamples >= opts->min_samples;
        if (met && precision <= 0) {
            out->stop = PG_STOP_MINIMUMS;
            break;
        }
        /* The CI needs a sort: check it on a geometric schedule, not after every block. */
        if (met && out->nsamples >= next_ci) {
            next_ci = out->nsamples + (out->nsamples / 16 > 1 ? out->nsamples / 16 : 1);
            if (pg_measure_median_ci_rel(out->samples, out->nsamples) <= precision) {
                out->stop = PG_STOP_PRECISION;
                break;
            }
        }
        if (elapsed + t > max_run_ns || (wall_end && pg__mono_ns() >= wall_end)) {
            out->stop = PG_STOP_MAX_TIME;
            break;
        }
    }
    probe_end(&bp, out);
    if (own_probe)
        pg_thread_probe_close(&self);
    own_probe = 0;
    out->sampling_s = (double)elapsed * 1e-9;
    out->ci_rel = pg_measure_median_ci_rel(out->samples, out->nsamples);
    if (out->stop == PG_STOP_MAX_TIME)
        out->warnings |= PG_WARN_MAX_TIME;
    if ((int64_t)out->nsamples < opts->min_samples)
        out->warnings |= PG_WARN_FEW_SAMPLES;
    if (out->waited + out->stolen >= PG_CONTENDED_SHARE)
        out->warnings |= PG_WARN_CONTENDED;
    {
        pg_summary s;
        /* torch's Measurement: IQR/median >= 10% and >= 25% flag system fluctuation. */
        if (pg_stats_summarize(&s, out->samples, out->nsamples) == 0 && s.median > 0) {
            if (s.iqr / s.median >= 0.10)
                out->warnings |= PG_WARN_NOISY;
            if (s.iqr / s.median >= PG_VERY_NOISY_IQR)
                out->warnings |= PG_WARN_VERY_NOISY;
        }
    }
    return 0;

fail:
    if (own_probe)
        pg_thread_probe_close(&self);
    free(out->samples);
    out->samples = NULL;
    out->nsamples = 0;
    return err;
}

/* ---- threads ------------------------------------------------------------- */

static void cpuset_text(char *out, size_t len, const cpu_set_t *set)
{
    size_t at = 0;
    int cpu, first = -1;

    out[0] = '\0';
    for (cpu = 0; cpu <= CPU_SETSIZE; cpu++) {
        int in = cpu < CPU_SETSIZE && CPU_ISSET(cpu, set);
        if (in && first < 0)
            first = cpu;
        if (!in && first >= 0) {
            int n;
            if (cpu - 1 == first)
                n = snprintf(out + at, len - at, "%s%d", at ? "," : "", first);
            else
                n = snprintf(out + at, len - at, "%s%d-%d", at ? "," : "", first, cpu - 1);
            if (n < 0 || (size_t)n >= len - at)
                return;
            at += (size_t)n;
            first = -1;
        }
    }
}

/* Applies `want` to every thread of the process: BLAS pools started before the case exist
   already and do not inherit a mask set later on the main thread. */
static int pin_all_threads(const cpu_set_t *want)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int ok = 1;

    if (!d)
        return sched_setaffinity(0, sizeof(*want), want) == 0;
    while ((e = readdir(d)) != NULL) {
        pid_t tid;
        if (e->d_name[0] == '.')
            continue;
        tid = (pid_t)atol(e->d_name);
        if (sched_setaffinity(tid, sizeof(*want), want) != 0)
            ok = 0;
    }
    closedir(d);
    return ok;
}

void pg_measure_stable_layout(void)
{
    static int done;

    /*
     * Buffers of 4 KiB and more come from mmap: page-aligned (plus malloc's
     * fixed header) in every process, whatever the heap went through before.
     * From the heap, their offsets modulo the page size depend on everything
     * the process allocated earlier (a gate loads baselines first, a run does
     * not), and a power-of-two GEMM or a streaming kernel can be 30-60 %
     * slower or faster from that alone (4K aliasing, cache sets): a per-process
     * difference no statistics can tell from a change.
     */
    if (!done) {
        mallopt(M_MMAP_THRESHOLD, 4096);
        done = 1;
    }
}

/* The mask the process started with: later cases may want more CPUs than an earlier one. */
static cpu_set_t allowed;
static int have_allowed, first;

void pg_measure_shift_cpus(int by)
{
    int cpu, steps = 0;

    if (!have_allowed || by <= 0)
        return;
    /* The next allowed CPU after `first`, `by` times, wrapping around. */
    for (cpu = (first + 1) % CPU_SETSIZE; cpu != first; cpu = (cpu + 1) % CPU_SETSIZE)
        if (CPU_ISSET(cpu, &allowed) && ++steps == by) {
            first = cpu;
            return;
        }
}

void pg_measure_reset_cpus(void)
{
    have_allowed = 0;
}

int pg_measure_set_threads(pg_thread_state *out, int threads)
{
    pg_thread_state st;
    cpu_set_t want;
    char num[16];
    void (*omp_set)(int);
    int (*omp_get)(void);
    int cpu, i, picked = 0;

    if (threads < 1)
        return pg_error_set(PG_EINVAL, "thread count must be at least 1, got %d", threads);
    memset(&st, 0, sizeof(st));
    st.requested = threads;
    openblas_set_num_threads(threads);
    st.blas_threads = openblas_get_num_threads();
    /* OpenMP: the variable covers a runtime that starts later (a plugin's); a loaded runtime is
       told directly. Looked up at run time so perfgate itself need not link one. */
    snprintf(num, sizeof(num), "%d", threads);
    setenv("OMP_NUM_THREADS", num, 1);
    st.omp_threads = threads;
    *(void **)&omp_set = dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    *(void **)&omp_get = dlsym(RTLD_DEFAULT, "omp_get_max_threads");
    if (omp_set) {
        omp_set(threads);
        st.omp_runtime = 1;
        if (omp_get)
            st.omp_threads = omp_get();
    }
    if (!have_allowed && sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
        have_allowed = 1;
        /* Start at the CPU the scheduler first ran us on, not at CPU 0: every perfgate process
           on a shared machine would otherwise stack onto the same first CPUs. The choice is
           made once, so every case of a process runs on the same CPUs. */
        first = sched_getcpu();
        if (first < 0 || first >= CPU_SETSIZE || !CPU_ISSET(first, &allowed))
            first = 0;
    }
    if (have_allowed) {
        CPU_ZERO(&want);
        /* The allowed CPUs in order from `first`, wrapping around. */
        for (i = 0; i < CPU_SETSIZE && picked < threads; i++) {
            cpu = (first + i) % CPU_SETSIZE;
            if (CPU_ISSET(cpu, &allowed)) {
                CPU_SET(cpu, &want);
                picked++;
            }
        }
        if (picked > 0) {
            st.pinned = pin_all_threads(&want);
            cpuset_text(st.affinity, sizeof(st.affinity), &want);
        }
    }
    if (out)
        *out = st;
    return 0;
}

void pg_result_take(pg_result *out, pg_measurement *m)
{
    out->status = PG_STATUS_OK;
    out->samples = m->samples;
    m->samples = NULL;
    out->nsamples = m->nsamples;
    out->number_per_run = m->number_per_run;
    out->warmup_s = m->warmup_s;
    out->warnings = m->warnings;
    out->waited = m->waited;
    out->stolen = m->stolen;
    out->transient = m->transient;
}
