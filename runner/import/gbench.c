/*
 * gbench.c - importing Google Benchmark JSON (--benchmark_format=json or
 * --benchmark_out).
 *
 * Rows are grouped by run_name: each "iteration" row (one repetition) gives
 * one sample, its real_time per iteration in seconds; "aggregate" rows (mean,
 * median, stddev, cv, ...) are recognised and only used when a case has no
 * iteration rows (--benchmark_report_aggregates_only), as a summary; BigO and
 * RMS rows are complexity fits, skipped with a note; rows with
 * error_occurred make their case an ERROR. The name's parts become params:
 * "BM_sgemm/64" is name BM_sgemm with arg0=64, "BM_x/n:64" has n=64.
 */
#include "import/import.h"

#include "perfgate/errors.h"
#include "util.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct gcase {
    const char *run_name;
    int threads;
    double *samples;
    size_t n, cap;
    int64_t iterations;
    double flops, bytes;      /* per iteration, from the last row with the counter */
    const char *error;
    double agg_median, agg_mean, agg_stddev;
    int have_agg;
    size_t reps;
} gcase;

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

static gcase *find_case(gcase **cases, size_t *n, const char *run_name, int threads)
{
    size_t i;
    gcase *p;

    for (i = 0; i < *n; i++)
        if (strcmp((*cases)[i].run_name, run_name) == 0 && (*cases)[i].threads == threads)
            return &(*cases)[i];
    p = realloc(*cases, (*n + 1) * sizeof(*p));
    if (!p)
        return NULL;
    *cases = p;
    memset(&p[*n], 0, sizeof(*p));
    p[*n].run_name = run_name;
    p[*n].threads = threads;
    p[*n].agg_median = p[*n].agg_mean = p[*n].agg_stddev = NAN;
    return &p[(*n)++];
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
    pg_import_param params[32];
    char *names[32];
    size_t np = 0, i;
    int arg = 0, err;

    if (!copy)
        return pg_error_set(PG_ENOMEM, "out of memory importing");
    family = strtok_r(copy, "/", &save);
    if (!family)
        family = copy;
    while ((tok = strtok_r(NULL, "/", &save)) != NULL && np < 32) {
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

int pg__import_gbench(pg_run *run, const json_t *root, const char *path, const char *suite, pg_import_notes *notes)
{
    const json_t *rows = json_object_get(root, "benchmarks");
    gcase *cases = NULL;
    size_t ncases = 0, i;
    int err = 0;

    if (!json_is_array(rows))
        return pg_error_set(PG_EFORMAT, "%s: no 'benchmarks' array: not Google Benchmark JSON", path);
    for (i = 0; i < json_array_size(rows); i++) {
        const json_t *row = json_array_get(rows, i);
        const char *name = json_string_value(json_object_get(row, "name"));
        const char *run_name = json_string_value(json_object_get(row, "run_name"));
        const char *run_type = json_string_value(json_object_get(row, "run_type"));
        const char *agg = json_string_value(json_object_get(row, "aggregate_name"));
        const json_t *thr = json_object_get(row, "threads");
        double t, cpu, f = unit_factor(json_string_value(json_object_get(row, "time_unit"))), rate;
        int threads = json_is_integer(thr) ? (int)json_integer_value(thr) : 1;
        gcase *gc;

        if (!json_is_object(row) || !name) {
            err = pg_error_set(PG_EFORMAT, "%s: benchmarks[%zu] has no 'name'", path, i);
            goto cleanup;
        }
        if (!run_name)
            run_name = name;
        /* Complexity fits: not timings. Old versions mark them only by the name. */
        if ((agg && (strcmp(agg, "BigO") == 0 || strcmp(agg, "RMS") == 0)) || ends_with(name, "_BigO") ||
            ends_with(name, "_RMS")) {
            pg__import_note(notes, "%s: skipped '%s': BigO/RMS rows are complexity fits, not timings", path, name);
            continue;
        }
        if (!run_type)
            run_type = (ends_with(name, "_mean") || ends_with(name, "_median") || ends_with(name, "_stddev") ||
                        ends_with(name, "_cv"))
                           ? "aggregate"
                           : "iteration";
        if (!(gc = find_case(&cases, &ncases, run_name, threads))) {
            err = pg_error_set(PG_ENOMEM, "out of memory importing %s", path);
            goto cleanup;
        }
        if (json_is_true(json_object_get(row, "error_occurred"))) {
            const char *msg = json_string_value(json_object_get(row, "error_message"));
            gc->error = msg && *msg ? msg : "error_occurred";
            continue;
        }
        if (f < 0) {
            err = pg_error_set(PG_EFORMAT, "%s: benchmarks[%zu] ('%s') has an unknown time_unit", path, i, name);
            goto cleanup;
        }
        if (pg__import_number(&t, json_object_get(row, "real_time")) != 0) {
            err = pg_error_set(PG_EFORMAT, "%s: benchmarks[%zu] ('%s') has no real_time", path, i, name);
            goto cleanup;
        }
        if (strcmp(run_type, "aggregate") == 0) {
            if (agg && strcmp(agg, "median") == 0)
                gc->agg_median = t * f;
            else if (agg && strcmp(agg, "mean") == 0)
                gc->agg_mean = t * f;
            else if (agg && strcmp(agg, "stddev") == 0)
                gc->agg_stddev = t * f;
            gc->have_agg = 1;
            continue;
        }
        if (!isfinite(t) || t < 0) {
            pg__import_note(notes, "%s: skipped a repetition of '%s' whose real_time is %g", path, name, t);
            continue;
        }
        if (push_sample(gc, t * f) != 0) {
            err = pg_error_set(PG_ENOMEM, "out of memory importing %s", path);
            goto cleanup;
        }
        gc->iterations = (int64_t)json_integer_value(json_object_get(row, "iterations"));
        /* Rate counters are per second of CPU time (Google Benchmark's default). */
        if (pg__import_number(&cpu, json_object_get(row, "cpu_time")) != 0 || !isfinite(cpu))
            cpu = t;
        if ((pg__import_number(&rate, json_object_get(row, "FLOPS")) == 0 ||
             pg__import_number(&rate, json_object_get(row, "flops")) == 0) &&
            isfinite(rate))
            gc->flops = rate * cpu * f;
        if (pg__import_number(&rate, json_object_get(row, "bytes_per_second")) == 0 && isfinite(rate))
            gc->bytes = rate * cpu * f;
    }

    for (i = 0; i < ncases; i++) {
        gcase *gc = &cases[i];
        pg_result *r;
        if ((err = add_case(run, suite, gc, &r)) != 0)
            goto cleanup;
        r->number_per_run = gc->iterations;
        r->flops = gc->flops;
        r->bytes = gc->bytes;
        if (gc->error) {
            r->status = PG_STATUS_ERROR;
            r->message = pg__asprintf("Google Benchmark reported an error: %s", gc->error);
        } else if (gc->n > 0) {
            if ((err = pg__import_set_samples(r, gc->samples, gc->n)) != 0)
                goto cleanup;
            gc->samples = NULL;
        } else if (gc->have_agg && isfinite(gc->agg_median)) {
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
            r->message = pg__strdup("no usable repetitions in the Google Benchmark output");
        }
    }
cleanup:
    for (i = 0; i < ncases; i++)
        free(cases[i].samples);
    free(cases);
    return err;
}
