/*
 * roofline.c - measuring the roofs once per run and placing each case under
 * them (roofline.h; the rule is documented in docs/measuring.md).
 */
#include "machine/roofline.h"

#include "backend/backend.h"
#include "measure/measure.h"
#include "perfgate/errors.h"
#include "base/util.h"

#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BW_PASSES 5
#define MIN_BW_BYTES (64u << 20)
#define MAX_BW_BYTES (1024ull << 20)

const char *pg_roof_bound_name(pg_roof_bound b)
{
    switch (b) {
    case PG_ROOF_COMPUTE:
        return "compute-bound";
    case PG_ROOF_MEMORY:
        return "memory-bound";
    case PG_ROOF_OVERHEAD:
        return "overhead-bound";
    default:
        return "-";
    }
}

/* ---- bandwidth ------------------------------------------------------------ */

typedef struct stream_part {
    double *a, *b, *c;
    size_t lo, hi;
    int op;            /* 0 first touch, 1 triad a = b + s*c, 2 copy a = b */
} stream_part;

/* Optimised and uninstrumented whatever the build: this measures the memory, not the compiler flags. */
#if defined(__GNUC__) && !defined(__clang__)
#define STREAM_FN __attribute__((optimize("O3"), no_sanitize("address", "undefined")))
#else
#define STREAM_FN __attribute__((no_sanitize("address", "undefined")))
#endif

STREAM_FN static void *stream_run(void *payload)
{
    stream_part *p = payload;
    double *restrict a = p->a, *restrict b = p->b, *restrict c = p->c;
    size_t i;

    if (p->op == 0) {
        for (i = p->lo; i < p->hi; i++) {
            a[i] = 0.0;
            b[i] = 1.0;
            c[i] = 2.0;
        }
    } else if (p->op == 1) {
        for (i = p->lo; i < p->hi; i++)
            a[i] = b[i] + 3.0 * c[i];
    } else {
        for (i = p->lo; i < p->hi; i++)
            a[i] = b[i];
    }
    return NULL;
}

/* One pass of `op` over the arrays split among `threads`; seconds it took. */
static double stream_pass(stream_part *parts, int threads, int op)
{
    pthread_t tid[256];
    int64_t t0;
    int i, started = 0;

    for (i = 0; i < threads; i++)
        parts[i].op = op;
    t0 = pg__mono_ns();
    for (i = 1; i < threads; i++)
        started += pthread_create(&tid[i], NULL, stream_run, &parts[i]) == 0;
    stream_run(&parts[0]);
    for (i = 1; i <= started; i++)
        pthread_join(tid[i], NULL);
    /* A thread that could not start leaves its part undone: run it here, inside the timing. */
    for (i = started + 1; i < threads; i++)
        stream_run(&parts[i]);
    return (double)(pg__mono_ns() - t0) * 1e-9;
}

static size_t llc_bytes(void)
{
    long v = sysconf(_SC_LEVEL3_CACHE_SIZE);

    if (v <= 0)
        v = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return v > 0 ? (size_t)v : (size_t)32 << 20;
}

int pg_roofline_bandwidth(double *triad_bps, double *copy_bps, int threads, size_t bytes)
{
    stream_part parts[256];
    double *a, *b, *c, best_triad = INFINITY, best_copy = INFINITY;
    size_t n, i;
    int t;

    *triad_bps = *copy_bps = 0;
    if (threads < 1)
        return pg_error_set(PG_EINVAL, "bandwidth: thread count %d is below 1", threads);
    if (threads > 256)
        threads = 256;
    if (!bytes) {
        bytes = 2 * llc_bytes();
        bytes = bytes < MIN_BW_BYTES ? MIN_BW_BYTES : bytes > MAX_BW_BYTES ? (size_t)MAX_BW_BYTES : bytes;
    }
    n = bytes / 3 / sizeof(double);
    a = malloc(n * sizeof(double));
    b = malloc(n * sizeof(double));
    c = malloc(n * sizeof(double));
    if (!a || !b || !c) {
        free(a);
        free(b);
        free(c);
        return pg_error_set(PG_ENOMEM, "out of memory for the bandwidth arrays (%zu MiB)", bytes >> 20);
    }
    for (t = 0; t < threads; t++) {
        parts[t].a = a;
        parts[t].b = b;
        parts[t].c = c;
        parts[t].lo = n * (size_t)t / (size_t)threads;
        parts[t].hi = n * (size_t)(t + 1) / (size_t)threads;
    }
    stream_pass(parts, threads, 0); /* first touch by the threads that will stream it */
    for (i = 0; i < BW_PASSES; i++) {
        double s = stream_pass(parts, threads, 1);
        best_triad = s < best_triad ? s : best_triad;
        s = stream_pass(parts, threads, 2);
        best_copy = s < best_copy ? s : best_copy;
    }
    /* STREAM's accounting: bytes the loop names (triad 3 arrays, copy 2), write-allocate not counted. */
    *triad_bps = 3.0 * (double)n * sizeof(double) / best_triad;
    *copy_bps = 2.0 * (double)n * sizeof(double) / best_copy;
    free(a);
    free(b);
    free(c);
    return 0;
}

/* ---- recording ------------------------------------------------------------ */

/* GFLOP/s of a result's fastest sample, 0 without FLOPs. */
static double best_gflops(const pg_result *r)
{
    double best = 0;
    size_t i;

    for (i = 0; i < r->nsamples; i++)
        if (r->samples[i] > 0 && (best == 0 || r->samples[i] < best))
            best = r->samples[i];
    return r->flops > 0 && best > 0 ? r->flops / best * 1e-9 : 0;
}

int pg_roofline_record(pg_run *run, double peak_gflops)
{
    pg_backend_options bo = PG_BACKEND_OPTIONS_INIT;
    json_t *fp, *roof, *cpu;
    int seen[1025] = {0}, t, err = 0;
    size_t i;
    char *text;

    if (!run->machine_json || !(fp = json_loads(run->machine_json, 0, NULL)))
        return 0;
    roof = json_object();
    cpu = json_object();
    bo.peak_gflops = peak_gflops;
    for (i = 0; i < run->nresults; i++) {
        const pg_result *r = &run->results[i];
        if (r->status == PG_STATUS_OK && r->device && strcmp(r->device, "cpu") == 0 && r->threads >= 1 &&
            r->threads <= 1024)
            seen[r->threads] = 1;
    }
    for (t = 1; t <= 1024 && !err; t++) {
        json_t *o;
        double peak, triad, copy, beat = 0;
        int reliable;
        const char *beat_key = NULL;
        if (!seen[t])
            continue;
        if ((err = pg_measure_set_threads(NULL, t)) != 0)
            break;
        peak = pg_backend_cpu_peak(t, &bo, &reliable);
        /* Cases measured in other processes did not raise this process's ceiling: any that beat it does. */
        for (i = 0; i < run->nresults; i++) {
            const pg_result *r = &run->results[i];
            double g = r->threads == t && r->device && strcmp(r->device, "cpu") == 0 ? best_gflops(r) : 0;
            if (g > beat) {
                beat = g;
                beat_key = r->key;
            }
        }
        if ((err = pg_roofline_bandwidth(&triad, &copy, t, 0)) != 0)
            break;
        o = json_object();
        if (peak_gflops <= 0 && beat > peak) {
            peak = beat;
            reliable = 0;
        }
        json_object_set_new(o, "peak_gflops", json_real(peak));
        json_object_set_new(o, "peak_source", json_string(peak_gflops > 0 ? "--peak-gflops"
                                                          : reliable    ? "sgemm 1024^3, fastest of its samples"
                                                                        : "a case's fastest sample"));
        json_object_set_new(o, "peak_reliable", json_boolean(reliable));
        if (!reliable && beat_key)
            json_object_set_new(o, "peak_raised_by", json_string(beat_key));
        json_object_set_new(o, "triad_gbs", json_real(triad * 1e-9));
        json_object_set_new(o, "copy_gbs", json_real(copy * 1e-9));
        json_object_set_new(o, "llc_bytes", json_integer((json_int_t)llc_bytes()));
        {
            char k[16];
            snprintf(k, sizeof(k), "%d", t);
            json_object_set_new(cpu, k, o);
        }
    }
    json_object_set_new(roof, "cpu", cpu);
    json_object_set_new(roof, "overhead_fraction", json_real(PG_ROOF_OVERHEAD_FRACTION));
    json_object_set_new(roof, "overhead_s", json_real(PG_ROOF_OVERHEAD_S));
    json_object_set_new(fp, "roofline", roof);
    text = err ? NULL : json_dumps(fp, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(fp);
    if (err)
        return err;
    if (!text)
        return pg_error_set(PG_ENOMEM, "out of memory storing the roofline");
    free(run->machine_json);
    run->machine_json = text;
    return 0;
}

/* ---- classifying ------------------------------------------------------------ */

int pg_roofline_roofs(pg_roofs *out, const char *machine_json, const char *device, int threads)
{
    json_t *fp, *o;
    char k[16];
    int rc = 1;

    memset(out, 0, sizeof(*out));
    if (!machine_json || !device || !(fp = json_loads(machine_json, 0, NULL)))
        return 1;
    snprintf(k, sizeof(k), "%d", threads);
    o = json_object_get(json_object_get(json_object_get(fp, "roofline"), device), k);
    if (o && json_number_value(json_object_get(o, "peak_gflops")) > 0 &&
        json_number_value(json_object_get(o, "triad_gbs")) > 0) {
        out->peak_flops = json_number_value(json_object_get(o, "peak_gflops")) * 1e9;
        out->bandwidth = json_number_value(json_object_get(o, "triad_gbs")) * 1e9;
        out->peak_reliable = json_is_true(json_object_get(o, "peak_reliable"));
        out->llc_bytes = json_number_value(json_object_get(o, "llc_bytes"));
        rc = 0;
    }
    json_decref(fp);
    return rc;
}

void pg_roofline_point(pg_roof_point *out, double flops, double bytes, double seconds, const pg_roofs *roofs)
{
    double t_roof;
    int cached;

    memset(out, 0, sizeof(*out));
    out->roofs = *roofs;
    out->intensity = bytes > 0 ? flops / bytes : -1;
    if (!(roofs->peak_flops > 0 && roofs->bandwidth > 0 && seconds > 0)) {
        out->why = "no roofs";
        return;
    }
    out->ridge = roofs->peak_flops / roofs->bandwidth;
    if (!(flops > 0) && !(bytes > 0)) {
        out->bound = PG_ROOF_OVERHEAD;
        out->why = "no counted work: all of it is call, dispatch and timing overhead";
        return;
    }
    if (flops > 0) {
        /* Without counted bytes, or with bytes that stay in the last-level cache between iterations, the
           memory roof does not bind: only the compute roof does. */
        cached = roofs->llc_bytes > 0 && bytes <= roofs->llc_bytes;
        out->attainable = bytes > 0 && !cached ? fmin(roofs->peak_flops, out->intensity * roofs->bandwidth)
                                               : roofs->peak_flops;
        out->achieved = flops / seconds;
    } else {
        out->attainable = roofs->bandwidth;
        out->achieved = bytes / seconds;
    }
    out->fraction = out->achieved / out->attainable;
    /* The time the roofs allow for this work: a cached GEMM's bytes cost no DRAM time. */
    t_roof = flops > 0 && out->attainable >= roofs->peak_flops ? flops / roofs->peak_flops
                                                               : fmax(flops / roofs->peak_flops, bytes / roofs->bandwidth);
    if (t_roof < PG_ROOF_OVERHEAD_S) {
        out->bound = PG_ROOF_OVERHEAD;
        out->why = "the roofs would do this work in under 1 us: fixed per-call costs dominate";
    } else if (out->fraction < PG_ROOF_OVERHEAD_FRACTION) {
        out->bound = PG_ROOF_OVERHEAD;
        out->why = "under 10% of the attainable roof: latency, dispatch or sync dominate";
    } else if (flops > 0 && (bytes <= 0 || out->intensity >= out->ridge || out->attainable >= roofs->peak_flops)) {
        out->bound = PG_ROOF_COMPUTE;
        out->why = out->intensity >= out->ridge ? "intensity at or above the ridge"
                                                : "data stays in cache: only the compute roof binds";
    } else {
        out->bound = PG_ROOF_MEMORY;
        out->why = flops > 0 ? "intensity below the ridge" : "no FLOPs: bytes moved against the bandwidth roof";
    }
}

void pg_roofline_classify(pg_roof_point *out, const pg_result *r, const char *machine_json)
{
    pg_roofs roofs;
    double best = r->summary.median;
    size_t i;

    memset(out, 0, sizeof(*out));
    out->intensity = -1;
    if (r->status != PG_STATUS_OK || !(r->summary.median > 0) ||
        pg_roofline_roofs(&roofs, machine_json, r->device, r->threads) != 0) {
        out->why = "no roofs";
        return;
    }
    /* Both roofs are best-of measurements, so the case is placed by its fastest sample too: on a loaded
       machine a median carries preemption, and would push every case towards overhead-bound. */
    for (i = 0; i < r->nsamples; i++)
        if (r->samples[i] > 0 && r->samples[i] < best)
            best = r->samples[i];
    pg_roofline_point(out, r->flops, r->bytes, best, &roofs);
}
