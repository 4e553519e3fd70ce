/* load.c - loading suites for a command, printing every diagnostic. */
#include "cli/cli.h"

#include "store/store.h"
#include "suite/suite.h"

#include "perfgate/errors.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pg_store *pg_cli_open_existing(const char *path)
{
    pg_store *store = NULL;

    /* A server is not contacted for this: an unreachable one would hold a run that stores nothing. */
    if (pg_store_is_server(path) || access(path, F_OK) != 0)
        return NULL;
    if (pg_store_open(&store, path) != 0)
        return NULL;
    return store;
}

int pg_cli_open_db(struct pg_store **out, const char *flag, const char *command)
{
    const char *path = pg_store_path(flag);
    int err;

    *out = NULL;
    /* Reading a history that is not there is a mistake: no empty database is made for it. */
    if (!pg_store_is_server(path) && access(path, F_OK) != 0) {
        fprintf(stderr, "perfgate %s: no database at %s (--db, PERFGATE_DB)\n", command, path);
        return 2;
    }
    return (err = pg_store_open(out, path)) != 0 ? pg_cli_fail(err) : 0;
}

int pg_cli_load_suites(pg_suite_set *set, char **paths, int n)
{
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_diags diags = {0};
    size_t i;
    int err = pg_suite_set_load(set, (const char *const *)paths, (size_t)n, &so, &diags);

    if (err) {
        for (i = 0; i < diags.count; i++)
            fprintf(stderr, "%s\n", diags.lines[i]);
        if (diags.count == 0)
            fprintf(stderr, "perfgate: %s\n", pg_error_last());
    }
    pg_diags_clear(&diags);
    return err;
}

int pg_cli_instruments(unsigned *out, const char *list)
{
    unsigned bits = 0;
    const char *p = list;

    while (p && *p) {
        size_t len = strcspn(p, ",");
        char name[32];
        unsigned bit = 0;
        if (len < sizeof(name)) {
            memcpy(name, p, len);
            name[len] = '\0';
            bit = pg_instrument_parse(name);
        }
        if (!bit) {
            fprintf(stderr, "perfgate: --instrument: unknown instrument '%.*s'; use time, instructions or memory, "
                            "comma-separated\n",
                    (int)len, p);
            return 2;
        }
        bits |= bit;
        p += len + (p[len] == ',');
    }
    if (!bits) {
        fprintf(stderr, "perfgate: --instrument wants time, instructions or memory, comma-separated\n");
        return 2;
    }
    if (out)
        *out = bits;
    return 0;
}
