/*
 * pytest.c - importing pytest-benchmark's JSON (--benchmark-json, or a file
 * saved under .benchmarks/ by --benchmark-save / --benchmark-autosave).
 *
 * Each entry of benchmarks[] is one case: the name without its "[id]" part,
 * with `params` (or the id as param "id"). stats.data[] (seconds per
 * iteration, one per round) are the samples when present (JSON export, or
 * saves with --benchmark-save-data); without them the case keeps the stored
 * summary only, marked {"summary_only": true} in its extra JSON, with a note.
 * A time that is not a positive number or an iteration count below 1 makes
 * the file invalid. One test name in two modules (or classes) gives two cases
 * told apart by a parameter `fullname`, pytest's node id without its "[id]".
 */
#include "import/import.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double stat_of(const json_t *stats, const char *key)
{
    double v;

    return pg__import_number(&v, json_object_get(stats, key)) == 0 ? v : NAN;
}

typedef struct py_ctx {
    pg_run *run;
    const char *path, *suite;
    pg_import_notes *notes;
    char **fullnames; /* per case added, for telling duplicates apart */
    size_t n, cap;
} py_ctx;

static int keep_fullname(py_ctx *c, const char *fullname)
{
    char *copy = NULL, *bracket;

    if (c->n == c->cap) {
        size_t ncap = c->cap ? 2 * c->cap : 64;
        char **p = realloc(c->fullnames, ncap * sizeof(*p));
        if (!p)
            return pg_error_set(PG_ENOMEM, "out of memory importing %s", c->path);
        c->fullnames = p;
        c->cap = ncap;
    }
    if (fullname && (copy = pg__strdup(fullname)) != NULL && (bracket = strchr(copy, '[')) != NULL)
        *bracket = '\0';
    c->fullnames[c->n++] = copy;
    return 0;
}

static int one_bench(void *ctx, const json_t *b, size_t i, const char *where)
{
    py_ctx *c = ctx;
    const char *full = json_string_value(json_object_get(b, "name"));
    const json_t *params = json_object_get(b, "params");
    const json_t *stats = json_object_get(b, "stats");
    const json_t *data = json_object_get(stats, "data");
    const json_t *iters = json_object_get(stats, "iterations");
    pg_import_param ps[PG_IMPORT_MAX_PARAMS];
    char *texts[PG_IMPORT_MAX_PARAMS], *name = NULL, *bracket;
    const char *pkey;
    const json_t *pval;
    size_t np = 0, k, n;
    double *samples = NULL;
    pg_result *r;
    int err;

    if (!full || !json_is_object(stats))
        return pg_error_set(PG_EFORMAT, "%s: benchmarks[%zu] needs 'name' and 'stats'", where, i);
    if (iters && !(json_is_integer(iters) && json_integer_value(iters) >= 1))
        return pg_error_set(PG_EFORMAT, "%s: benchmarks[%zu].stats.iterations ('%s') is not a whole number of at "
                                        "least 1", where, i, full);
    n = json_is_array(data) ? json_array_size(data) : 0;
    if (n) {
        if (!(samples = malloc(n * sizeof(*samples))))
            return pg_error_set(PG_ENOMEM, "out of memory importing %s", c->path);
        for (k = 0; k < n; k++) {
            int why = pg__import_time(&samples[k], json_array_get(data, k));
            if (why != 0) {
                free(samples);
                return pg_error_set(PG_EFORMAT, "%s: benchmarks[%zu].stats.data[%zu] ('%s') %s", where, i, k, full,
                                    pg__import_time_problem(why));
            }
        }
    }
    if (!(name = pg__strdup(full))) {
        free(samples);
        return pg_error_set(PG_ENOMEM, "out of memory importing %s", c->path);
    }
    bracket = strchr(name, '[');
    if (json_is_object(params)) {
        json_object_foreach((json_t *)params, pkey, pval) {
            if (np >= PG_IMPORT_MAX_PARAMS)
                break;
            ps[np].name = pkey;
            ps[np].is_number = json_is_number(pval);
            texts[np] = json_is_string(pval) ? pg__strdup(json_string_value(pval))
                                             : json_dumps(pval, JSON_ENCODE_ANY | JSON_COMPACT);
            ps[np].value = texts[np] ? texts[np] : "";
            np++;
        }
    } else if (bracket) {
        size_t len = strlen(bracket + 1);
        texts[np] = pg__asprintf("%.*s", (int)(len > 0 && bracket[len] == ']' ? len - 1 : len), bracket + 1);
        ps[np].name = "id";
        ps[np].value = texts[np] ? texts[np] : "";
        ps[np].is_number = 0;
        np++;
    }
    if (bracket)
        *bracket = '\0';
    err = pg__import_add(&r, c->run, c->suite, name, ps, np, 1);
    for (k = 0; k < np; k++)
        free(texts[k]);
    free(name);
    if (!err)
        err = keep_fullname(c, json_string_value(json_object_get(b, "fullname")));
    if (err) {
        free(samples);
        return err;
    }
    r->number_per_run = iters ? (int64_t)json_integer_value(iters) : 1;
    if (n) {
        if ((err = pg__import_set_samples(r, samples, n)) != 0)
            free(samples);
        return err;
    }
    r->summary.median = stat_of(stats, "median");
    if (!(isfinite(r->summary.median) && r->summary.median > 0)) {
        if (json_object_get(stats, "median"))
            return pg_error_set(PG_EFORMAT, "%s: benchmarks[%zu].stats.median ('%s') is not a positive time", where,
                                i, full);
        r->status = PG_STATUS_ERROR;
        r->message = pg__strdup("pytest-benchmark stored neither stats.data nor a median");
        return 0;
    }
    r->summary.n = stat_of(stats, "rounds") >= 1 ? (size_t)stat_of(stats, "rounds") : 1;
    r->summary.q1 = stat_of(stats, "q1");
    r->summary.q3 = stat_of(stats, "q3");
    r->summary.iqr = stat_of(stats, "iqr");
    r->summary.mean = stat_of(stats, "mean");
    r->summary.stddev = stat_of(stats, "stddev");
    r->summary.min = stat_of(stats, "min");
    r->summary.max = stat_of(stats, "max");
    r->warnings |= PG_WARN_FEW_SAMPLES;
    r->extra_json = pg__strdup("{\"summary_only\":true}");
    pg__import_note(c->notes, "%s: '%s' has no stats.data: stored its summary only (save with "
                              "--benchmark-save-data to keep the samples)", c->path, full);
    return 0;
}

int pg__import_pytest(pg_run *run, FILE *f, const char *path, const char *suite, pg_import_notes *notes)
{
    py_ctx c = {run, path, suite, notes, NULL, 0, 0};
    size_t before = run->nresults, changed = 0, i;
    int err;

    err = pg__import_walk(f, path, "pytest-benchmark", "benchmarks", "no 'benchmarks' array: not pytest-benchmark JSON",
                          one_bench, &c);
    if (!err)
        err = pg__import_disambiguate(run, before, "fullname", c.fullnames, &changed);
    if (!err && changed)
        pg__import_note(notes, "%s: %zu cases share a test name and parameters; each carries pytest's node id as "
                               "the parameter 'fullname'", path, changed);
    for (i = 0; i < c.n; i++)
        free(c.fullnames[i]);
    free(c.fullnames);
    return err;
}
