/* ab_exact.c - the A/B of two builds under a counting instrument (ab_exact.h). */
#include "ab/ab_exact.h"

#include "perfgate/errors.h"
#include "plugin/plugin.h"
#include "base/util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The directory {build} expands to for `path` (a build directory, or a library file's folder), and the library. */
static int resolve(char **dir, char **lib, const char *path, const char *which)
{
    struct stat st;
    char *abs, *slash;

    *dir = *lib = NULL;
    if (!path)
        return pg_error_set(PG_EUSAGE, "--%s is required", which);
    if (stat(path, &st) != 0)
        return pg_error_set(PG_ENOTFOUND, "--%s %s: no such file or directory", which, path);
    if (!(abs = realpath(path, NULL)))
        return pg_error_set(PG_EIO, "--%s %s: cannot resolve the path", which, path);
    if (S_ISDIR(st.st_mode)) {
        *dir = abs;
        return 0;
    }
    *lib = abs;
    slash = strrchr(abs, '/');
    *dir = pg__asprintf("%.*s", (int)(slash - abs), abs);
    return *dir ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
}

/* Measures `c` on one side: its plugin library or {build} replaced, as the interleaved A/B does. */
static int measure_side(pg_run *run, const pg_case *c, const char *dir, const char *lib, unsigned instrument,
                        const pg_meter_options *meter)
{
    pg_case side = *c;
    size_t n = 0, i;
    int err = 0;

    side.plugin = NULL;
    side.command = NULL;
    if (c->plugin && lib && !(side.plugin = pg__strdup(lib)))
        err = PG_ENOMEM;
    else if (c->plugin && !lib)
        err = pg_plugin_path(&side.plugin, c, dir);
    if (err)
        goto done;
    if (c->command) {
        while (c->command[n])
            n++;
        if (!(side.command = calloc(n + 1, sizeof(char *)))) {
            err = PG_ENOMEM;
            goto done;
        }
        for (i = 0; i < n && !err; i++)
            err = pg_plugin_subst(&side.command[i], c->command[i], c, dir);
        if (err)
            goto done;
    }
    err = pg_meter_case(run, &side, instrument, meter);

done:
    if (err == PG_ENOMEM)
        err = pg_error_set(PG_ENOMEM, "out of memory");
    free(side.plugin);
    for (i = 0; side.command && side.command[i]; i++)
        free(side.command[i]);
    free(side.command);
    return err;
}

/* A side's run, named as the interleaved A/B names its sides. */
static int side_run(pg_run **out, const char *source, const char *ref)
{
    int err = pg_run_new(out);

    if (err)
        return err;
    free((*out)->source);
    (*out)->source = pg__strdup(source);
    (*out)->ref = pg__strdup(ref);
    return (*out)->source && (*out)->ref ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
}

static int wanted(const pg_ab_options *o, const pg_case *c)
{
    size_t k;

    if (o->filter && !pg__glob(o->filter, c->key))
        return 0;
    if (!o->keys)
        return 1;
    for (k = 0; k < o->nkeys; k++)
        if (strcmp(o->keys[k], c->key) == 0)
            return 1;
    return 0;
}

int pg_ab_exact_run(pg_ab_result *out, const pg_suite_set *set, const pg_ab_options *opts, unsigned instruments,
                    const pg_meter_options *meter)
{
    static const unsigned counted[] = {PG_INSTRUMENT_INSTRUCTIONS, PG_INSTRUMENT_MEMORY};
    pg_compare_options co = PG_COMPARE_OPTIONS_INIT;
    char *dir[2] = {NULL, NULL}, *lib[2] = {NULL, NULL};
    size_t i, j, k, ncases = 0;
    int err;

    memset(out, 0, sizeof(*out));
    instruments &= PG_INSTRUMENT_INSTRUCTIONS | PG_INSTRUMENT_MEMORY;
    if (!instruments)
        return pg_error_set(PG_EUSAGE, "an exact A/B needs instructions or memory");
    if ((err = resolve(&dir[0], &lib[0], opts->base, "base")) != 0 ||
        (err = resolve(&dir[1], &lib[1], opts->head, "head")) != 0 || (err = pg_meter_ready(instruments, meter)) != 0)
        goto cleanup;
    if ((err = side_run(&out->base, "ab-base", opts->base)) != 0 ||
        (err = side_run(&out->head, "ab-head", opts->head)) != 0)
        goto cleanup;
    /* The two sides of one gate: neither pools with the runs of another (base/model.h). */
    out->base->mode = PG_MODE_INTERLEAVED_BASE;
    out->head->mode = PG_MODE_INTERLEAVED_HEAD;
    for (i = 0; i < set->count; i++)
        for (j = 0; j < set->suites[i]->ncases; j++) {
            const pg_case *c = &set->suites[i]->cases[j];
            if (!wanted(opts, c))
                continue;
            ncases++;
            for (k = 0; k < sizeof(counted) / sizeof(counted[0]); k++) {
                if (!(instruments & counted[k]))
                    continue;
                if (opts->progress)
                    fprintf(opts->progress, "perfgate: counting %s (%s) on base and head\n", c->key,
                            pg_instrument_name(counted[k]));
                if ((err = measure_side(out->base, c, dir[0], lib[0], counted[k], meter)) != 0 ||
                    (err = measure_side(out->head, c, dir[1], lib[1], counted[k], meter)) != 0)
                    goto cleanup;
            }
        }
    if (ncases == 0) {
        err = pg_error_set(PG_EUSAGE, "no benchmark case matched%s%s", opts->filter ? " the filter " : "",
                           opts->filter ? opts->filter : "");
        goto cleanup;
    }
    /* Exact counts: no drift to allow for, no test; each case's exact threshold decides (verdict_exact.h). */
    co.drift = 0;
    co.threshold = opts->threshold;
    co.alpha = opts->alpha;
    err = pg_compare(&out->cmp, out->head, (const pg_run *const *)&out->base, 1, &co);

cleanup:
    for (i = 0; i < 2; i++) {
        free(dir[i]);
        free(lib[i]);
    }
    if (err)
        pg_ab_result_clear(out);
    return err;
}
