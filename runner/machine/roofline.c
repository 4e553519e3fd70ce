/*
 * roofline.c - measuring the machine's roofs, putting them in a run's
 * fingerprint, and placing each case under them (roofline.h; the rule is
 * documented in docs/measuring.md).
 */
#include "machine/roofline.h"

#include "backend/backend.h"
#include "measure/measure.h"
#include "perfgate/errors.h"
#include "base/util.h"

#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
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

/* The size in bytes of a sysfs cache "size" file ("32768K"); 0 when unreadable. */
static size_t sysfs_size(const char *path)
{
    FILE *f = fopen(path, "r");
    unsigned long long v = 0;
    char unit = 0;

    if (!f)
        return 0;
    if (fscanf(f, "%llu%c", &v, &unit) < 1)
        v = 0;
    fclose(f);
    return (size_t)(unit == 'K' ? v << 10 : unit == 'M' ? v << 20 : unit == 'G' ? v << 30 : v);
}

/* Reads the first line of `path` into `out` of `len` (newline dropped); 0 when read. */
static int sysfs_line(char *out, size_t len, const char *path)
{
    FILE *f = fopen(path, "r");
    int ok = f && fgets(out, (int)len, f) != NULL;

    if (f)
        fclose(f);
    if (ok)
        out[strcspn(out, "\n")] = '\0';
    return ok ? 0 : -1;
}

/* The highest-level data or unified cache of `cpu` in sysfs: its size and the CPUs sharing it. */
static size_t cpu_llc(int cpu, char *shared, size_t len)
{
    char path[128], type[32], level[8];
    size_t best = 0;
    int i, top = 0;

    for (i = 0; i < 16; i++) {
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, i);
        if (sysfs_line(level, sizeof(level), path) != 0)
            break;
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu, i);
        if (sysfs_line(type, sizeof(type), path) != 0 || strcmp(type, "Instruction") == 0 || atoi(level) < top)
            continue;
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/size", cpu, i);
        best = sysfs_size(path);
        top = atoi(level);
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, i);
        if (sysfs_line(shared, len, path) != 0)
            snprintf(shared, len, "cpu%d", cpu);
    }
    return best;
}

size_t pg_roofline_llc_bytes(void)
{
    cpu_set_t set;
    char seen[16][256], shared[256];
    size_t total = 0, nseen = 0, j, size;
    int cpu;
    long v;

    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
            if (!CPU_ISSET(cpu, &set) || !(size = cpu_llc(cpu, shared, sizeof(shared))))
                continue;
            for (j = 0; j < nseen && strcmp(seen[j], shared) != 0; j++)
                ;
            if (j < nseen)
                continue;
            total += size;
            if (nseen < 16)
                snprintf(seen[nseen++], sizeof(seen[0]), "%s", shared);
        }
    }
    if (total)
        return total;
    v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (v <= 0)
        v = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return v > 0 ? (size_t)v : (size_t)32 << 20;
}

size_t pg_roofline_bandwidth_bytes(size_t llc)
{
    size_t bytes = llc > MAX_BW_BYTES / 4 ? (size_t)MAX_BW_BYTES : 4 * llc;

    return bytes < MIN_BW_BYTES ? MIN_BW_BYTES : bytes;
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
    if (!bytes)
        bytes = pg_roofline_bandwidth_bytes(pg_roofline_llc_bytes());
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

int pg_roof_table_put(pg_roof_table *t, const pg_roof_entry *e)
{
    pg_roof_entry *grown;
    size_t i;

    for (i = 0; i < t->n; i++)
        if (t->items[i].threads == e->threads && strcmp(t->items[i].device, e->device) == 0) {
            t->items[i] = *e;
            return 0;
        }
    if (!(grown = realloc(t->items, (t->n + 1) * sizeof(*grown))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    t->items = grown;
    t->items[t->n++] = *e;
    return 0;
}

const pg_roof_entry *pg_roof_table_find(const pg_roof_table *t, const char *device, int threads)
{
    size_t i;

    for (i = 0; t && i < t->n; i++)
        if (t->items[i].threads == threads && strcmp(t->items[i].device, device) == 0)
            return &t->items[i];
    return NULL;
}

void pg_roof_table_clear(pg_roof_table *t)
{
    if (!t)
        return;
    free(t->items);
    t->items = NULL;
    t->n = 0;
}

void pg_roofline_blas(char *out, size_t len, const char *machine_json)
{
    json_t *fp = machine_json ? json_loads(machine_json, 0, NULL) : NULL;
    const char *v = json_string_value(json_object_get(fp, "openblas_version"));

    snprintf(out, len, "%s", v ? v : "");
    json_decref(fp);
}

int pg_roofline_measure(pg_roof_entry *out, int threads)
{
    double triad, copy;
    size_t llc = pg_roofline_llc_bytes();
    int err;

    memset(out, 0, sizeof(*out));
    snprintf(out->device, sizeof(out->device), "cpu");
    out->threads = threads;
    if ((err = pg_measure_set_threads(NULL, threads)) != 0 ||
        (err = pg_roofline_bandwidth(&triad, &copy, threads, pg_roofline_bandwidth_bytes(llc))) != 0)
        return err;
    out->peak_gflops = pg_backend_cpu_ceiling(threads);
    if (!(out->peak_gflops > 0))
        return pg_error_set(PG_EKERNEL, "the sgemm 1024^3 ceiling at %d thread%s could not be measured", threads,
                            threads == 1 ? "" : "s");
    out->triad_gbs = triad * 1e-9;
    out->copy_gbs = copy * 1e-9;
    out->llc_bytes = (double)llc;
    out->measured_at = pg__now_unix();
    out->fresh = 1;
    return 0;
}

/* The roofs at `t` for `run` into `o`: the known entry, else measured and added to `known`. */
static int roofs_at(json_t *o, pg_run *run, int t, double peak_gflops, pg_roof_table *known, const char *blas)
{
    const pg_roof_entry *k = pg_roof_table_find(known, "cpu", t);
    pg_roof_entry e;
    double peak, beat = 0;
    const char *beat_key = NULL;
    int reliable = 1, err;
    size_t i;

    if (k && strcmp(k->blas, blas) == 0) {
        e = *k;
    } else if ((err = pg_roofline_measure(&e, t)) != 0) {
        return err;
    } else {
        snprintf(e.blas, sizeof(e.blas), "%s", blas);
        if (known && (err = pg_roof_table_put(known, &e)) != 0)
            return err;
    }
    peak = peak_gflops > 0 ? peak_gflops : e.peak_gflops;
    /* A case that beats the machine's ceiling raises it for this run only: the stored roof stays as measured. */
    for (i = 0; i < run->nresults; i++) {
        const pg_result *r = &run->results[i];
        double g = r->threads == t && r->device && strcmp(r->device, "cpu") == 0 ? best_gflops(r) : 0;
        if (g > beat) {
            beat = g;
            beat_key = r->key;
        }
    }
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
    json_object_set_new(o, "triad_gbs", json_real(e.triad_gbs));
    json_object_set_new(o, "copy_gbs", json_real(e.copy_gbs));
    json_object_set_new(o, "llc_bytes", json_integer((json_int_t)e.llc_bytes));
    json_object_set_new(o, "measured_at", json_integer((json_int_t)e.measured_at));
    /* false: measured by this run; true: the machine's roofs as an earlier run or the doctor stored them. */
    json_object_set_new(o, "reused", json_boolean(!e.fresh));
    return 0;
}

int pg_roofline_record(pg_run *run, double peak_gflops, pg_roof_table *known)
{
    json_t *fp, *roof, *cpu;
    int seen[1025] = {0}, t, err = 0;
    size_t i;
    char *text, blas[64];

    if (!run->machine_json || !(fp = json_loads(run->machine_json, 0, NULL)))
        return 0;
    pg_roofline_blas(blas, sizeof(blas), run->machine_json);
    roof = json_object();
    cpu = json_object();
    for (i = 0; i < run->nresults; i++) {
        const pg_result *r = &run->results[i];
        if (r->status == PG_STATUS_OK && r->device && strcmp(r->device, "cpu") == 0 && r->threads >= 1 &&
            r->threads <= 1024)
            seen[r->threads] = 1;
    }
    for (t = 1; t <= 1024 && !err; t++) {
        json_t *o;
        char k[16];
        if (!seen[t])
            continue;
        o = json_object();
        if ((err = roofs_at(o, run, t, peak_gflops, known, blas)) != 0) {
            json_decref(o);
            break;
        }
        snprintf(k, sizeof(k), "%d", t);
        json_object_set_new(cpu, k, o);
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
