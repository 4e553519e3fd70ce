/*
 * pytest.c - importing pytest-benchmark's JSON (--benchmark-json, or a file
 * saved under .benchmarks/ by --benchmark-save / --benchmark-autosave).
 *
 * Each entry of benchmarks[] is one case: the name without its "[id]" part,
 * with `params` (or the id as param "id"). stats.data[] (seconds per
 * iteration, one per round) are the samples when present (JSON export, or
 * saves with --benchmark-save-data); without them the case keeps the stored
 * summary only, marked {"summary_only": true} in its extra JSON, with a note.
 */
#include "import/import.h"

#include "perfgate/errors.h"
#include "util.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double stat_of(const json_t *stats, const char *key)
{
    double v;

    return pg__import_number(&v, json_object_get(stats, key)) == 0 ? v : NAN;
}

int pg__import_pytest(pg_run *run, const json_t *root, const char *path, const char *suite, pg_import_notes *notes)
{
    const json_t *benches = json_object_get(root, "benchmarks");
    size_t i, k;
    int err = 0;

    if (!json_is_array(benches))
        return pg_error_set(PG_EFORMAT, "%s: no 'benchmarks' array: not pytest-benchmark JSON", path);
    for (i = 0; i < json_array_size(benches); i++) {
        const json_t *b = json_array_get(benches, i);
        const char *full = json_string_value(json_object_get(b, "name"));
        const json_t *params = json_object_get(b, "params");
        const json_t *stats = json_object_get(b, "stats");
        const json_t *data = json_object_get(stats, "data");
        const json_t *iters = json_object_get(stats, "iterations");
        pg_import_param ps[32];
        char *texts[32], *name = NULL, *bracket;
        const char *pkey;
        const json_t *pval;
        size_t np = 0;
        pg_result *r;

        if (!full || !json_is_object(stats))
            return pg_error_set(PG_EFORMAT, "%s: benchmarks[%zu] needs 'name' and 'stats'", path, i);
        name = pg__strdup(full);
        if (!name)
            return pg_error_set(PG_ENOMEM, "out of memory importing %s", path);
        bracket = strchr(name, '[');
        if (json_is_object(params)) {
            json_object_foreach((json_t *)params, pkey, pval) {
                if (np >= 32)
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
        err = pg__import_add(&r, run, suite, name, ps, np, 1);
        for (k = 0; k < np; k++)
            free(texts[k]);
        free(name);
        if (err)
            return err;
        r->number_per_run = json_is_integer(iters) ? (int64_t)json_integer_value(iters) : 1;
        if (json_is_array(data) && json_array_size(data) > 0) {
            double *samples = malloc(json_array_size(data) * sizeof(*samples));
            if (!samples)
                return pg_error_set(PG_ENOMEM, "out of memory importing %s", path);
            for (k = 0; k < json_array_size(data); k++) {
                if (pg__import_number(&samples[k], json_array_get(data, k)) != 0 || !isfinite(samples[k])) {
                    free(samples);
                    return pg_error_set(PG_EFORMAT, "%s: benchmarks[%zu].stats.data[%zu] is not a finite number",
                                        path, i, k);
                }
            }
            if ((err = pg__import_set_samples(r, samples, json_array_size(data))) != 0) {
                free(samples);
                return err;
            }
            continue;
        }
        r->summary.median = stat_of(stats, "median");
        if (!isfinite(r->summary.median)) {
            r->status = PG_STATUS_ERROR;
            r->message = pg__strdup("pytest-benchmark stored neither stats.data nor a median");
            continue;
        }
        r->summary.n = (size_t)stat_of(stats, "rounds");
        r->summary.q1 = stat_of(stats, "q1");
        r->summary.q3 = stat_of(stats, "q3");
        r->summary.iqr = stat_of(stats, "iqr");
        r->summary.mean = stat_of(stats, "mean");
        r->summary.stddev = stat_of(stats, "stddev");
        r->summary.min = stat_of(stats, "min");
        r->summary.max = stat_of(stats, "max");
        r->warnings |= PG_WARN_FEW_SAMPLES;
        r->extra_json = pg__strdup("{\"summary_only\":true}");
        pg__import_note(notes, "%s: '%s' has no stats.data: stored its summary only (save with "
                               "--benchmark-save-data to keep the samples)", path, full);
    }
    return 0;
}
