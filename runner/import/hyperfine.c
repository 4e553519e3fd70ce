/*
 * hyperfine.c - importing hyperfine's --export-json.
 *
 * Each entry of results[] is one case: its times[] (seconds per run) are the
 * samples, its `parameters` (from -L/-P) the params, its `command` the name.
 * Runs with a non-zero exit code (hyperfine -i) make the case an ERROR: a
 * failed run is never a sample.
 */
#include "import/import.h"

#include "perfgate/errors.h"
#include "util.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int pg__import_hyperfine(pg_run *run, const json_t *root, const char *path, const char *suite,
                         pg_import_notes *notes)
{
    const json_t *results = json_object_get(root, "results");
    size_t i, k;
    int err = 0;

    (void)notes;
    if (!json_is_array(results))
        return pg_error_set(PG_EFORMAT, "%s: no 'results' array: not hyperfine --export-json output", path);
    for (i = 0; i < json_array_size(results); i++) {
        const json_t *res = json_array_get(results, i);
        const char *cmd = json_string_value(json_object_get(res, "command"));
        const json_t *times = json_object_get(res, "times");
        const json_t *params = json_object_get(res, "parameters");
        const json_t *codes = json_object_get(res, "exit_codes");
        pg_import_param ps[32];
        const char *pkey;
        const json_t *pval;
        size_t np = 0, bad_exit = 0;
        double *samples = NULL, user, sys;
        pg_result *r;

        if (!cmd || !json_is_array(times)) {
            return pg_error_set(PG_EFORMAT, "%s: results[%zu] needs 'command' and a 'times' array (hyperfine "
                                            "1.x --export-json)", path, i);
        }
        if (json_is_object(params)) {
            json_object_foreach((json_t *)params, pkey, pval) {
                char *end;
                if (np >= 32 || !json_is_string(pval))
                    continue;
                ps[np].name = pkey;
                ps[np].value = json_string_value(pval);
                (void)strtod(ps[np].value, &end);
                ps[np].is_number = *ps[np].value && *end == '\0';
                np++;
            }
        }
        if ((err = pg__import_add(&r, run, suite, cmd, ps, np, 1)) != 0)
            return err;
        r->number_per_run = 1;
        for (k = 0; json_is_array(codes) && k < json_array_size(codes); k++)
            bad_exit += json_integer_value(json_array_get(codes, k)) != 0;
        if (bad_exit) {
            r->status = PG_STATUS_ERROR;
            r->message = pg__asprintf("%zu of hyperfine's runs exited non-zero (hyperfine -i); failed runs are "
                                      "never samples", bad_exit);
            continue;
        }
        samples = malloc((json_array_size(times) + 1) * sizeof(*samples));
        if (!samples)
            return pg_error_set(PG_ENOMEM, "out of memory importing %s", path);
        for (k = 0; k < json_array_size(times); k++) {
            if (pg__import_number(&samples[k], json_array_get(times, k)) != 0 || !isfinite(samples[k])) {
                free(samples);
                return pg_error_set(PG_EFORMAT, "%s: results[%zu].times[%zu] is not a finite number", path, i, k);
            }
        }
        if ((err = pg__import_set_samples(r, samples, json_array_size(times))) != 0) {
            free(samples);
            return err;
        }
        if (pg__import_number(&user, json_object_get(res, "user")) == 0 &&
            pg__import_number(&sys, json_object_get(res, "system")) == 0)
            r->extra_json = pg__asprintf("{\"user_s\":%.9g,\"system_s\":%.9g}", user, sys);
    }
    return 0;
}
