/*
 * hyperfine.c - importing hyperfine's --export-json.
 *
 * Each entry of results[] is one case: its times[] (seconds per run) are the
 * samples, its `parameters` (from -L/-P) the params, its `command` the name.
 * Runs with a non-zero exit code (hyperfine -i) make the case an ERROR: a
 * failed run is never a sample. A time that is not a positive number, an
 * empty times[] or an exit_codes[] of another length makes the file invalid.
 * One command listed twice (hyperfine 'cmd' 'cmd') gives two cases told apart
 * by a parameter `index`, their position in results[].
 */
#include "import/import.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct hf_ctx {
    pg_run *run;
    const char *suite;
} hf_ctx;

static int one_result(void *ctx, const json_t *res, size_t i, const char *where)
{
    hf_ctx *c = ctx;
    const char *cmd = json_string_value(json_object_get(res, "command"));
    const json_t *times = json_object_get(res, "times");
    const json_t *params = json_object_get(res, "parameters");
    const json_t *codes = json_object_get(res, "exit_codes");
    pg_import_param ps[PG_IMPORT_MAX_PARAMS];
    const char *pkey;
    const json_t *pval;
    size_t np = 0, bad_exit = 0, n, k;
    double *samples = NULL, user, sys;
    pg_result *r;
    int err;

    if (!cmd || !json_is_array(times))
        return pg_error_set(PG_EFORMAT, "%s: results[%zu] needs 'command' and a 'times' array (hyperfine "
                                        "1.x --export-json)", where, i);
    n = json_array_size(times);
    if (n == 0)
        return pg_error_set(PG_EFORMAT, "%s: results[%zu] ('%s') has an empty 'times': no run to import", where, i,
                            cmd);
    if (codes && !json_is_null(codes)) {
        if (!json_is_array(codes) || json_array_size(codes) != n)
            return pg_error_set(PG_EFORMAT, "%s: results[%zu] ('%s') has %zu times but %zu exit_codes; each run "
                                            "needs both", where, i, cmd, n,
                                json_is_array(codes) ? json_array_size(codes) : 0);
        for (k = 0; k < n; k++) {
            const json_t *code = json_array_get(codes, k);
            if (!json_is_integer(code) && !json_is_null(code))
                return pg_error_set(PG_EFORMAT, "%s: results[%zu].exit_codes[%zu] is not an integer", where, i, k);
            /* null: hyperfine could not read a code (the run was killed by a signal) */
            bad_exit += !json_is_integer(code) || json_integer_value(code) != 0;
        }
    }
    if (json_is_object(params)) {
        json_object_foreach((json_t *)params, pkey, pval) {
            char *end;
            if (!json_is_string(pval))
                return pg_error_set(PG_EFORMAT, "%s: results[%zu].parameters.%s is not a string", where, i, pkey);
            if (np == PG_IMPORT_MAX_PARAMS)
                return pg_error_set(PG_EFORMAT, "%s: results[%zu] has more than %d parameters", where, i,
                                    PG_IMPORT_MAX_PARAMS);
            ps[np].name = pkey;
            ps[np].value = json_string_value(pval);
            (void)strtod(ps[np].value, &end);
            ps[np].is_number = *ps[np].value && *end == '\0';
            np++;
        }
    }
    samples = malloc(n * sizeof(*samples));
    if (!samples)
        return pg_error_set(PG_ENOMEM, "out of memory importing %s", where);
    for (k = 0; k < n; k++) {
        int why = pg__import_time(&samples[k], json_array_get(times, k));
        if (why != 0) {
            free(samples);
            return pg_error_set(PG_EFORMAT, "%s: results[%zu].times[%zu] ('%s') %s", where, i, k, cmd,
                                pg__import_time_problem(why));
        }
    }
    if ((err = pg__import_add(&r, c->run, c->suite, cmd, ps, np, 1)) != 0) {
        free(samples);
        return err;
    }
    r->number_per_run = 1;
    if (bad_exit) {
        free(samples);
        r->status = PG_STATUS_ERROR;
        r->message = pg__asprintf("%zu of hyperfine's %zu runs exited non-zero (hyperfine -i); failed runs are "
                                  "never samples", bad_exit, n);
        return 0;
    }
    if ((err = pg__import_set_samples(r, samples, n)) != 0) {
        free(samples);
        return err;
    }
    if (pg__import_number(&user, json_object_get(res, "user")) == 0 &&
        pg__import_number(&sys, json_object_get(res, "system")) == 0 && isfinite(user) && isfinite(sys) &&
        user >= 0 && sys >= 0)
        r->extra_json = pg__asprintf("{\"user_s\":%.9g,\"system_s\":%.9g}", user, sys);
    return 0;
}

int pg__import_hyperfine(pg_run *run, FILE *f, const char *path, const char *suite, pg_import_notes *notes)
{
    hf_ctx c = {run, suite};
    size_t before = run->nresults, i, n, changed = 0;
    char **index = NULL;
    int err;

    err = pg__import_walk(f, path, "hyperfine", "results",
                          "no 'results' array: not hyperfine --export-json output", one_result, &c);
    if (err)
        return err;
    n = run->nresults - before;
    if (n && !(index = calloc(n, sizeof(*index))))
        return pg_error_set(PG_ENOMEM, "out of memory importing %s", path);
    for (i = 0; i < n; i++)
        if (!(index[i] = pg__asprintf("%zu", i)))
            err = pg_error_set(PG_ENOMEM, "out of memory importing %s", path);
    if (!err)
        err = pg__import_disambiguate(run, before, "index", index, &changed);
    if (!err && changed)
        pg__import_note(notes, "%s: %zu cases share a command and parameters; each carries its position in "
                               "results[] as the parameter 'index'", path, changed);
    for (i = 0; i < n; i++)
        free(index[i]);
    free(index);
    return err;
}
