/*
 * gbench.c - importing Google Benchmark JSON (--benchmark_format=json or
 * --benchmark_out).
 *
 * Rows are grouped by run_name: each "iteration" row (one repetition) gives
 * one sample, its real_time per iteration in seconds; "aggregate" rows (mean,
 * median, stddev, cv, ...) are recognised and only used when a case has no
 * iteration rows (--benchmark_report_aggregates_only), as a summary; BigO and
 * RMS rows are complexity fits, skipped with a note; rows with
 * error_occurred make their case an ERROR; a repetition whose real_time is
 * NaN, infinite, zero or negative is dropped with a note saying how many and
 * why; a thread count that is not a whole number from 1 up, or iterations
 * below 1, make the file invalid. The name's parts become params:
 * "BM_sgemm/64" is name BM_sgemm with arg0=64, "BM_x/n:64" has n=64.
 */
#include "import/import.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct gcase {
    char *run_name;
    int threads;
    double *samples;
    size_t n, cap;
    int64_t iterations;
    double flops, bytes;      /* per iteration, from the last row with the counter */
    char *error;
    double agg_median, agg_mean, agg_stddev;
    int have_agg;
    size_t dropped_nan, dropped_nonpositive, first_dropped;
} gcase;

/* Cases by (run_name, threads): an open-addressing table over `cases`, so a file of many rows reads in linear time. */
typedef struct gb_ctx {
    const char *path;
    pg_import_notes *notes;
    gcase *cases;
    size_t ncases, capcases;
    size_t *slots;            /* index + 1 into cases; 0 = empty */
    size_t nslots;
} gb_ctx;

static double unit_factor(const char *unit)
{
    if (!unit || strcmp(unit, "ns") == 0)
        return 1e-9;
    if (strcmp(unit, "us") == 0)
        return 1e-6;
    if (strcmp(unit, "ms") == 0)
        return 1e-3;
    if (strcmp(unit, "s") == 0)
        return 1.0;
    return -1;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);

    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int is_number_text(const char *s)
{
    char *end;

    if (!*s)
        return 0;
    (void)strtod(s, &end);
    return *end == '\0';
}

static size_t hash_case(const char *run_name, int threads)
{
    size_t h = 1469598103934665603ull;

    while (*run_name)
        h = (h ^ (unsigned char)*run_name++) * 1099511628211ull;
    return (h ^ (size_t)(unsigned)threads) * 1099511628211ull;
}

static int grow_slots(gb_ctx *c)
{
    size_t n = c->nslots ? 2 * c->nslots : 1024, i;
    size_t *slots = calloc(n, sizeof(*slots));

    if (!slots)
        return PG_ENOMEM;
    for (i = 0; i < c->ncases; i++) {
        size_t h = hash_case(c->cases[i].run_name, c->cases[i].threads) & (n - 1);
        while (slots[h])
            h = (h + 1) & (n - 1);
        slots[h] = i + 1;
    }
    free(c->slots);
    c->slots = slots;
    c->nslots = n;
    return 0;
}

static gcase *find_case(gb_ctx *c, const char *run_name, int threads)
{
    size_t h;
    gcase *p;

    if ((c->ncases + 1) * 2 > c->nslots && grow_slots(c) != 0)
        return NULL;
    for (h = hash_case(run_name, threads) & (c->nslots - 1); c->slots[h]; h = (h + 1) & (c->nslots - 1)) {
        p = &c->cases[c->slots[h] - 1];
        if (p->threads == threads && strcmp(p->run_name, run_name) == 0)
            return p;
    }
    if (c->ncases == c->capcases) {
        size_t ncap = c->capcases ? 2 * c->capcases : 64;
        if (ncap > PG_IMPORT_MAX_CASES + 1)
            ncap = PG_IMPORT_MAX_CASES + 1;
        if (c->ncases == ncap)
            return NULL;
        if (!(p = realloc(c->cases, ncap * sizeof(*p))))
            return NULL;
        c->cases = p;
        c->capcases = ncap;
    }
    p = &c->cases[c->ncases];
    memset(p, 0, sizeof(*p));
    if (!(p->run_name = pg__strdup(run_name)))
        return NULL;
    p->threads = threads;
    p->agg_median = p->agg_mean = p->agg_stddev = NAN;
    c->slots[h] = ++c->ncases;
    return p;
}

static int push_sample(gcase *c, double v)
{
    if (c->n == c->cap) {
        size_t ncap = c->cap ? 2 * c->cap : 8;
        double *p = realloc(c->samples, ncap * sizeof(*p));
        if (!p)
            return PG_ENOMEM;
        c->samples = p;
        c->cap = ncap;
    }
    c->samples[c->n++] = v;
    return 0;
}

/* Splits "BM_x/64/n:8/threads:2/real_time" into the family and params. */
static int add_case(pg_run *run, const char *suite, const gcase *gc, pg_result **out)
{
    char *copy = pg__strdup(gc->run_name), *tok, *save = NULL, *family;
    pg_import_param params[PG_IMPORT_MAX_PARAMS];
    char *names[PG_IMPORT_MAX_PARAMS];
    size_t np = 0, i;
    int arg = 0, err;

    if (!copy)
        return pg_error_set(PG_ENOMEM, "out of memory importing");
    family = strtok_r(copy, "/", &save);
    if (!family)
        family = copy;
    while ((tok = strtok_r(NULL, "/", &save)) != NULL && np < PG_IMPORT_MAX_PARAMS) {
        char *colon = strchr(tok, ':');
        names[np] = NULL;
        if (colon) {
            *colon = '\0';
            if (strcmp(tok, "threads") == 0)
                continue; /* the row's threads field says it */
            params[np].name = tok;
            params[np].value = colon + 1;
        } else if (is_number_text(tok)) {
            names[np] = pg__asprintf("arg%d", arg++);
            params[np].name = names[np];
            params[np].value = tok;
        } else {
            /* Flags such as real_time or manual_time. */
            params[np].name = tok;
            params[np].value = "true";
        }
        params[np].is_number = is_number_text(params[np].value);
        np++;
    }
    err = pg__import_add(out, run, suite, family, params, np, gc->threads);
    for (i = 0; i < np; i++)
        free(names[i]);
    free(copy);
    return err;
}

static int one_row(void *ctx, const json_t *row, size_t i, const char *where)
{
    gb_ctx *c = ctx;
    const char *name = json_string_value(json_object_get(row, "name"));
    const char *run_name = json_string_value(json_object_get(row, "run_name"));
    const char *run_type = json_string_value(json_object_get(row, "run_type"));
    const char *agg = json_string_value(json_object_get(row, "aggregate_name"));
    const json_t *thr = json_object_get(row, "threads");
    const json_t *iters = json_object_get(row, "iterations");
    double t, cpu, f = unit_factor(json_string_value(json_object_get(row, "time_unit"))), rate;
    int threads = 1;
    gcase *gc;

    if (!json_is_object(row) || !name)
        return pg_error_set(PG_EFORMAT, "%s: benchmarks[%zu] has no 'name'", where, i);
    if (!run_name)
        run_name = name;
    /* Complexity fits: not timings. Old versions mark them only by the name. */
    if ((agg && (strcmp(agg, "BigO") == 0 || strcmp(agg, "RMS") == 0)) || ends_with(name, "_BigO") ||
        ends_with(name, "_RMS")) {
        pg__import_note(c->notes, "%s: skipped '%s': BigO/RMS rows are complexity fits, not timings", c->path,
                        name);
        return 0;
    }
    if (thr) {
        /* A thread count is a whole number a machine can run; anything else is not Google Benchmark's output. */
        if (!json_is_integer(thr) || json_integer_value(thr) < 1 || json_integer_value(thr) > PG_IMPORT_MAX_THREADS) {
            char *text = json_dumps(thr, JSON_ENCODE_ANY | JSON_REAL_PRECISION(6));
            int err = pg_error_set(PG_EFORMAT, "%s: benchmarks[%zu] ('%s') has threads %s: not a thread count "
                                               "(1 to %d)", where, i, name, text ? text : "?",
                                   PG_IMPORT_MAX_THREADS);
            free(text);
            return err;
        }
        threads = (int)json_integer_value(thr);
    }
    if (!run_type)
        run_type = (ends_with(name, "_mean") || ends_with(name, "_median") || ends_with(name, "_stddev") ||
                    ends_with(name, "_cv"))
                       ? "aggregate"
                       : "iteration";
    if (!(gc = find_case(c, run_name, threads))) {
        if (c->ncases > PG_IMPORT_MAX_CASES)
            return pg_error_set(PG_EFORMAT, "%s: more than %d cases in one import; split the file", c->path,
                                PG_IMPORT_MAX_CASES);
        return pg_error_set(PG_ENOMEM, "out of memory importing %s", c->path);
    }
    if (json_is_true(json_object_get(row, "error_occurred"))) {
        const char *msg = json_string_value(json_object_get(row, "error_message"));
        if (!gc->error && !(gc->error = pg__strdup(msg && *msg ? msg : "error_occurred")))
            return pg_error_set(PG_ENOMEM, "out of memory importing %s", c->path);
        return 0;
    }
    if (f < 0)
        return pg_error_set(PG_EFORMAT, "%s: benchmarks[%zu] ('%s') has an unknown time_unit", where, i, name);
    if (pg__import_number(&t, json_object_get(row, "real_time")) != 0)
        return pg_error_set(PG_EFORMAT, "%s: benchmarks[%zu] ('%s') has no real_time", where, i, name);
    if (strcmp(run_type, "aggregate") == 0) {
        if (!(isfinite(t) && t >= 0))
            return 0; /* an aggregate of dropped repetitions; the repetitions say why */
        if (agg && strcmp(agg, "median") == 0)
            gc->agg_median = t * f;
        else if (agg && strcmp(agg, "mean") == 0)
            gc->agg_mean = t * f;
        else if (agg && strcmp(agg, "stddev") == 0)
            gc->agg_stddev = t * f;
        gc->have_agg = 1;
        return 0;
    }
    if (iters && !(json_is_integer(iters) && json_integer_value(iters) >= 1))
        return pg_error_set(PG_EFORMAT, "%s: benchmarks[%zu] ('%s') has iterations that are not a whole number of "
                                        "at least 1", where, i, name);
    if (!isfinite(t) || t <= 0) {
        if (gc->dropped_nan + gc->dropped_nonpositive == 0)
            gc->first_dropped = gc->n + 1;
        if (!isfinite(t))
            gc->dropped_nan++;
        else
            gc->dropped_nonpositive++;
        return 0;
    }
    if (push_sample(gc, t * f) != 0)
        return pg_error_set(PG_ENOMEM, "out of memory importing %s", c->path);
    gc->iterations = iters ? (int64_t)json_integer_value(iters) : 1;
    /* Rate counters are per second of CPU time (Google Benchmark's default). */
    if (pg__import_number(&cpu, json_object_get(row, "cpu_time")) != 0 || !isfinite(cpu) || cpu < 0)
        cpu = t;
    if ((pg__import_number(&rate, json_object_get(row, "FLOPS")) == 0 ||
         pg__import_number(&rate, json_object_get(row, "flops")) == 0) &&
        isfinite(rate) && rate >= 0)
        gc->flops = rate * cpu * f;
    if (pg__import_number(&rate, json_object_get(row, "bytes_per_second")) == 0 && isfinite(rate) && rate >= 0)
        gc->bytes = rate * cpu * f;
    return 0;
}

/* One note per case that lost repetitions: how many, which kind of value, and what was kept. */
static void note_dropped(gb_ctx *c, const gcase *gc)
{
    size_t dropped = gc->dropped_nan + gc->dropped_nonpositive;

    if (!dropped)
        return;
    pg__import_note(c->notes, "%s: dropped %zu of %zu repetitions of '%s' (first: repetition %zu): real_time was "
                              "%s, which is not a measurement; %zu kept",
                    c->path, dropped, dropped + gc->n, gc->run_name, gc->first_dropped,
                    gc->dropped_nan && gc->dropped_nonpositive ? "NaN, Infinity, zero or negative"
                    : gc->dropped_nan                          ? "NaN or Infinity"
                                                               : "zero or negative",
                    gc->n);
}

int pg__import_gbench(pg_run *run, FILE *f, const char *path, const char *suite, pg_import_notes *notes)
{
    gb_ctx c = {path, notes, NULL, 0, 0, NULL, 0};
    size_t i;
    int err;

    err = pg__import_walk(f, path, "Google Benchmark", "benchmarks", "no 'benchmarks' array: not Google Benchmark JSON",
                          one_row, &c);
    for (i = 0; !err && i < c.ncases; i++) {
        gcase *gc = &c.cases[i];
        pg_result *r;
        if ((err = add_case(run, suite, gc, &r)) != 0)
            break;
        r->number_per_run = gc->iterations;
        r->flops = gc->flops;
        r->bytes = gc->bytes;
        note_dropped(&c, gc);
        if (gc->error) {
            r->status = PG_STATUS_ERROR;
            r->message = pg__asprintf("Google Benchmark reported an error: %s", gc->error);
        } else if (gc->n > 0) {
            if ((err = pg__import_set_samples(r, gc->samples, gc->n)) != 0)
                break;
            gc->samples = NULL;
        } else if (gc->have_agg && isfinite(gc->agg_median) && gc->agg_median > 0) {
            /* Aggregates only: a summary without samples, marked so. */
            r->summary.n = 1;
            r->summary.median = r->summary.q1 = r->summary.q3 = gc->agg_median;
            r->summary.mean = isfinite(gc->agg_mean) ? gc->agg_mean : gc->agg_median;
            r->summary.stddev = isfinite(gc->agg_stddev) ? gc->agg_stddev : 0;
            r->summary.min = r->summary.max = gc->agg_median;
            r->warnings |= PG_WARN_FEW_SAMPLES;
            r->extra_json = pg__strdup("{\"summary_only\":true}");
            pg__import_note(notes, "%s: '%s' has only aggregate rows: stored its median as a summary, no samples",
                            path, gc->run_name);
        } else {
            r->status = PG_STATUS_ERROR;
            r->message = gc->dropped_nan + gc->dropped_nonpositive
                             ? pg__asprintf("all %zu repetitions had a real_time that is not a measurement (NaN, "
                                            "Infinity, zero or negative)", gc->dropped_nan + gc->dropped_nonpositive)
                             : pg__strdup("no usable repetitions in the Google Benchmark output");
        }
    }
    for (i = 0; i < c.ncases; i++) {
        free(c.cases[i].samples);
        free(c.cases[i].run_name);
        free(c.cases[i].error);
    }
    free(c.cases);
    free(c.slots);
    return err;
}
