/* cuda_measure.c - GPU sampling: the CPU engine's rules on a device-event clock. */
#include "backend/cuda_measure.h"

#include "measure/measure.h"
#include "base/model.h"
#include "perfgate/errors.h"
#include "stats/stats.h"
#include "base/util.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The body pg_measure() drives, and the virtual clock it reads. */
typedef struct gpu_body {
    const pg_gpu_timer *timer;
    int cold;
    int64_t now_ns;       /* advances only by device time of timed blocks */
    double device_s;
    unsigned *before, *after; /* SM clock around every call, in call order */
    size_t ncalls, cap;
} gpu_body;

static int64_t device_now(void *payload)
{
    return ((const gpu_body *)payload)->now_ns;
}

static int record_clocks(gpu_body *b, unsigned c0, unsigned c1)
{
    if (b->ncalls == b->cap) {
        size_t ncap = b->cap ? 2 * b->cap : 256;
        unsigned *nb = realloc(b->before, ncap * sizeof(*nb));
        unsigned *na;

        if (!nb)
            return pg_error_set(PG_ENOMEM, "out of memory recording SM clocks");
        b->before = nb;
        na = realloc(b->after, ncap * sizeof(*na));
        if (!na)
            return pg_error_set(PG_ENOMEM, "out of memory recording SM clocks");
        b->after = na;
        b->cap = ncap;
    }
    b->before[b->ncalls] = c0;
    b->after[b->ncalls] = c1;
    b->ncalls++;
    return 0;
}

static int run_block(void *payload, int64_t iters)
{
    gpu_body *b = payload;
    const pg_gpu_timer *t = b->timer;
    unsigned c0 = 0, c1 = 0;
    double s = 0;
    int err;

    /* The flush and the clock reads happen before the first event and after
     * the second, so none of them is inside the measured interval. */
    if (b->cold && (err = t->flush(t->payload)) != 0)
        return err;
    if (t->sm_clock && (err = t->sm_clock(t->payload, &c0)) != 0)
        return err;
    if ((err = t->block(t->payload, iters, &s)) != 0)
        return err;
    if (t->sm_clock && (err = t->sm_clock(t->payload, &c1)) != 0)
        return err;
    if (!(s >= 0) || !isfinite(s))
        return pg_error_set(PG_EDEVICE, "device timer returned an invalid time (%g s)", s);
    b->now_ns += (int64_t)llround(s * 1e9);
    b->device_s += s;
    return record_clocks(b, c0, c1);
}

/* Cold samples carry a flush and clock reads that the device clock does not
 * see; this finds how much wall time one sample really costs. */
static int cold_budget_ratio(double *out, gpu_body *b)
{
    int64_t w0, w1;
    double d0;
    int i, err;

    *out = 1.0;
    /* The first call may pay for lazy initialisation: probe twice, keep the second. */
    for (i = 0; i < 2; i++) {
        d0 = b->device_s;
        w0 = pg__mono_ns();
        if ((err = run_block(b, 1)) != 0)
            return err;
        w1 = pg__mono_ns();
        if (w1 > w0 && b->device_s - d0 > 0)
            *out = (b->device_s - d0) / ((double)(w1 - w0) * 1e-9);
    }
    if (*out > 1.0)
        *out = 1.0;
    if (*out < 1e-6)
        *out = 1e-6;
    return 0;
}

static int is_throttled(unsigned before, unsigned after, unsigned dflt, double frac)
{
    double limit = frac * (double)dflt;

    if (dflt == 0)
        return 0;
    return (before > 0 && (double)before < limit) || (after > 0 && (double)after < limit);
}

int pg__gpu_measure(pg_gpu_measurement *out, const pg_gpu_timer *timer, const pg_gpu_measure_options *opts)
{
    pg_gpu_measure_options dflt = PG_GPU_MEASURE_OPTIONS_INIT;
    pg_measure_options mo = PG_MEASURE_OPTIONS_INIT;
    pg_measurement m = {0};
    pg_clock clock;
    gpu_body b = {0};
    double ratio = 1.0, frac;
    int64_t wall0 = pg__mono_ns();
    size_t i, first;
    int err;

    memset(out, 0, sizeof(*out));
    if (!opts)
        opts = &dflt;
    if (opts->cold && !timer->flush)
        return pg_error_set(PG_EINVAL, "cold samples need an L2 flush, which this device timer lacks");
    b.timer = timer;
    b.cold = opts->cold;
    clock.now_ns = device_now;
    clock.payload = &b;

    if (opts->cold && (err = cold_budget_ratio(&ratio, &b)) != 0)
        goto cleanup;
    mo.min_run_time = opts->min_run_time * ratio;
    mo.max_run_time = opts->max_run_time * ratio;
    mo.warmup = opts->warmup * ratio;
    mo.min_samples = opts->min_samples;
    /* A cold block is one iteration: a min_block of 0 stops the sizing at 1. */
    mo.min_block = opts->cold ? 0.0 : opts->min_block;
    mo.clock = &clock;
    if ((err = pg_measure(&m, run_block, &b, &mo)) != 0)
        goto cleanup;

    out->samples = m.samples;
    m.samples = NULL;
    out->nsamples = m.nsamples;
    out->number_per_run = m.number_per_run;
    out->warmup_s = m.warmup_s;
    out->warnings = m.warnings;
    out->device_s = b.device_s;

    /* The samples are the last nsamples calls pg_measure made. */
    if (timer->sm_clock && out->nsamples > 0 && b.ncalls >= out->nsamples) {
        first = b.ncalls - out->nsamples;
        out->clock_before = malloc(out->nsamples * sizeof(unsigned));
        out->clock_after = malloc(out->nsamples * sizeof(unsigned));
        if (!out->clock_before || !out->clock_after) {
            err = pg_error_set(PG_ENOMEM, "out of memory keeping SM clocks");
            goto cleanup;
        }
        memcpy(out->clock_before, b.before + first, out->nsamples * sizeof(unsigned));
        memcpy(out->clock_after, b.after + first, out->nsamples * sizeof(unsigned));
        frac = opts->throttle_fraction > 0 ? opts->throttle_fraction : 0.75;
        for (i = 0; i < out->nsamples; i++)
            out->throttled += (size_t)is_throttled(out->clock_before[i], out->clock_after[i],
                                                   opts->default_clock_mhz, frac);
        if (out->throttled)
            out->warnings |= PG_WARN_THROTTLED;
    }
    err = 0;

cleanup:
    out->wall_s = (double)(pg__mono_ns() - wall0) * 1e-9;
    free(m.samples);
    free(b.before);
    free(b.after);
    if (err)
        pg__gpu_measurement_clear(out);
    return err;
}

void pg__gpu_measurement_clear(pg_gpu_measurement *m)
{
    if (!m)
        return;
    free(m->samples);
    free(m->clock_before);
    free(m->clock_after);
    m->samples = NULL;
    m->clock_before = m->clock_after = NULL;
    m->nsamples = 0;
}

static json_t *clock_stats(const unsigned *c, size_t n)
{
    double *x = malloc((n ? n : 1) * sizeof(*x));
    size_t i, k = 0;
    pg_summary s;
    json_t *o;

    if (!x)
        return json_null();
    for (i = 0; i < n; i++)
        if (c[i] > 0)
            x[k++] = c[i];
    if (k == 0 || pg_stats_summarize(&s, x, k) != 0) {
        free(x);
        return json_null();
    }
    o = json_pack("{s:f, s:f, s:f}", "min", s.min, "median", s.median, "max", s.max);
    free(x);
    return o ? o : json_null();
}

char *pg__gpu_measurement_json(const pg_gpu_measurement *m, const pg_gpu_measure_options *opts)
{
    json_t *o = json_object();
    char *text;

    if (!o)
        return NULL;
    json_object_set_new(o, "timer", json_string("cuda_events"));
    json_object_set_new(o, "cold", json_boolean(opts && opts->cold));
    json_object_set_new(o, "device_time_s", json_real(m->device_s));
    json_object_set_new(o, "wall_time_s", json_real(m->wall_s));
    json_object_set_new(o, "sm_clock_default_mhz",
                        opts && opts->default_clock_mhz ? json_integer(opts->default_clock_mhz) : json_null());
    json_object_set_new(o, "sm_clock_before_mhz",
                        m->clock_before ? clock_stats(m->clock_before, m->nsamples) : json_null());
    json_object_set_new(o, "sm_clock_after_mhz",
                        m->clock_after ? clock_stats(m->clock_after, m->nsamples) : json_null());
    json_object_set_new(o, "throttled_samples", json_integer((json_int_t)m->throttled));
    text = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(o);
    return text;
}
