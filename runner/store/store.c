/*
 * store.c - the public store: picks the engine for a path and hands every
 * call to it.
 */
#include "store/store.h"

#include "store/engine.h"
#include "perfgate/errors.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void (*pg__store_after_result_hook)(size_t index) = NULL;

int pg__store_is_url(const char *path)
{
    return path && (strncmp(path, "postgresql://", 13) == 0 || strncmp(path, "postgres://", 11) == 0);
}

/* A copy of `s` with [from, to) replaced by "***". */
static char *mask(const char *s, size_t from, size_t to)
{
    return pg__asprintf("%.*s***%s", (int)from, s, s + to);
}

char *pg__store_redact(const char *path)
{
    char *out = pg__strdup(path), *next;
    const char *auth, *end, *at, *colon, *q;

    if (!out || !pg__store_is_url(path))
        return out;
    /* user:PASSWORD@host in the authority part. */
    auth = strstr(out, "://") + 3;
    end = auth + strcspn(auth, "/?#");
    at = NULL;
    for (q = auth; q < end; q++)
        if (*q == '@')
            at = q;
    colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
    if (colon) {
        next = mask(out, (size_t)(colon + 1 - out), (size_t)(at - out));
        free(out);
        if (!(out = next))
            return NULL;
    }
    /* password=..., sslpassword=... among the query parameters. */
    for (q = strchr(out, '?'); q && *q; q += strcspn(q + 1, "&") + 1) {
        const char *eq = q + 1 + strcspn(q + 1, "=&");
        size_t from = (size_t)(eq + 1 - out), to;
        if (*eq != '=' || eq - (q + 1) < 8 || strncmp(eq - 8, "password", 8) != 0)
            continue;
        to = from + strcspn(eq + 1, "&#");
        next = mask(out, from, to);
        free(out);
        if (!(out = next))
            return NULL;
        q = out + from + 3 - 1;
    }
    return out;
}

/* The engine that holds `path`: a server for postgresql:// URLs, else a SQLite file. */
static const pg_store_ops *engine_for(const char *path)
{
#if PG_HAS_POSTGRES
    if (pg__store_is_url(path))
        return &pg__store_postgres;
#else
    (void)path;
#endif
    return &pg__store_sqlite;
}

int pg_store_is_server(const char *path)
{
    return pg__store_is_url(path);
}

char *pg_store_redacted(const char *path)
{
    return pg__store_redact(path);
}

const char *pg_store_name(pg_store *store)
{
    return store->path;
}

int pg_store_schema_latest(void)
{
    return pg__store_sqlite.schema_latest;
}

const char *pg_store_path(const char *flag)
{
    const char *env;

    if (flag && *flag)
        return flag;
    env = getenv("PERFGATE_DB");
    if (env && *env)
        return env;
    return PG_STORE_DEFAULT_PATH;
}

/*
 * A database file's folder: the default one (baselines/) is made on first
 * use, as `perfgate run` in a fresh repository needs; any other missing
 * folder is the user's to make, and the message says how to choose another.
 */
static int file_folder(const char *path)
{
    char *dir = pg__strdup(path), *slash;
    struct stat st;
    int err = 0;

    if (!dir)
        return pg_error_set(PG_ENOMEM, "out of memory opening %s", path);
    slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        if (stat(dir, &st) != 0 && errno == ENOENT) {
            if (strcmp(path, PG_STORE_DEFAULT_PATH) == 0 && mkdir(dir, 0777) == 0)
                err = 0;
            else if (strcmp(path, PG_STORE_DEFAULT_PATH) == 0)
                err = pg_error_set(PG_ESTORE, "%s: cannot create the folder %s for the default database: %s; "
                                              "choose another file with --db PATH or PERFGATE_DB",
                                   path, dir, strerror(errno));
            else
                err = pg_error_set(PG_ESTORE, "%s: cannot open database: the folder %s does not exist (create it, "
                                              "or choose another file with --db PATH or PERFGATE_DB)",
                                   path, dir);
        }
    }
    free(dir);
    return err;
}

int pg_store_open_read(pg_store **out, const char *path)
{
    int err;

    if (pg__store_is_url(path))
        return pg_store_open(out, path);
    if ((err = pg__store_sqlite.open_read(out, path)) != 0)
        *out = NULL;
    return err;
}

int pg_store_open(pg_store **out, const char *path)
{
    int err;

#if !PG_HAS_POSTGRES
    if (pg__store_is_url(path)) {
        *out = NULL;
        return pg_error_set(PG_ESTORE,
                            "this perfgate was built without PostgreSQL support: rebuild it with libpq (Debian: "
                            "libpq-dev) installed to use a postgresql:// database");
    }
#endif
    if (!pg__store_is_url(path) && (err = file_folder(path)) != 0) {
        *out = NULL;
        return err;
    }
    return engine_for(path)->open(out, path);
}

void pg_store_close(pg_store *store)
{
    if (store)
        store->ops->close(store);
}

int pg_store_schema_version(pg_store *store)
{
    return store->ops->schema_version(store);
}

int pg_store_save_run(pg_store *store, pg_run *run)
{
    return store->ops->save_run(NULL, store, run);
}

int pg_store_load_run(pg_run **out, pg_store *store, int64_t run_id)
{
    return store->ops->load_run(out, store, run_id);
}

int pg_store_save_decision(pg_store *store, const pg_decision *d)
{
    return store->ops->save_decision(NULL, store, d);
}

int pg_store_load_decision(pg_decision *out, pg_store *store, int64_t run_id)
{
    return store->ops->load_decision(out, store, run_id);
}

void pg_decision_clear(pg_decision *d)
{
    size_t i;

    if (!d)
        return;
    for (i = 0; i < d->ncases; i++) {
        pg_decision_case *c = &d->cases[i];
        free(c->key);
        free(c->verdict);
        free(c->reason);
        free(c->method);
        free(c->confirm);
        free(c->detail);
    }
    free(d->cases);
    free(d->outcome);
    free(d->reason);
    free(d->method);
    free(d->baseline);
    free(d->base_ids);
    free(d->base_uuids);
    free(d->base_described);
    free(d->base_build);
    free(d->base_commit);
    free(d->base_hash);
    free(d->canary);
    free(d->detail);
    memset(d, 0, sizeof(*d));
}

int pg_store_list_runs(pg_run_list *out, pg_store *store, const pg_run_filter *filter)
{
    return store->ops->list_runs(out, store, filter);
}

int pg_store_history_rows(pg_store *store, const char *glob, const char *branch, pg_store_history_cb cb,
                          void *payload)
{
    return store->ops->history_rows(store, glob, branch, cb, payload);
}

int pg_store_roofs_load(pg_roof_table *out, pg_store *store, const char *machine_hash)
{
    return store->ops->roofs_load(out, store, machine_hash);
}

int pg_store_roofs_save(pg_store *store, const char *machine_hash, pg_roof_table *roofs)
{
    size_t i;
    int err;

    for (i = 0; roofs && i < roofs->n; i++) {
        if (!roofs->items[i].fresh)
            continue;
        if ((err = store->ops->roofs_save(store, machine_hash, &roofs->items[i])) != 0)
            return err;
        roofs->items[i].fresh = 0;
    }
    return 0;
}

void pg_run_list_clear(pg_run_list *list)
{
    size_t i;

    if (!list)
        return;
    for (i = 0; i < list->count; i++) {
        free(list->items[i].uuid);
        free(list->items[i].commit);
        free(list->items[i].branch);
        free(list->items[i].suite_set);
        free(list->items[i].machine_hash);
        free(list->items[i].source);
        free(list->items[i].mode);
    }
    free(list->items);
    list->items = NULL;
    list->count = 0;
}
