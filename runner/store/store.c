/*
 * store.c - the public store: picks the engine for a path and hands every
 * call to it.
 */
#include "store.h"

#include "engine.h"

#include <stdlib.h>

void (*pg__store_after_result_hook)(size_t index) = NULL;

/* The engine that holds `path`; a server URL would pick another one here. */
static const pg_store_ops *engine_for(const char *path)
{
    (void)path;
    return &pg__store_sqlite;
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

int pg_store_open(pg_store **out, const char *path)
{
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

int pg_store_list_runs(pg_run_list *out, pg_store *store, const pg_run_filter *filter)
{
    return store->ops->list_runs(out, store, filter);
}

int pg_store_history_rows(pg_store *store, const char *glob, const char *branch, pg_store_history_cb cb,
                          void *payload)
{
    return store->ops->history_rows(store, glob, branch, cb, payload);
}

void pg_run_list_free(pg_run_list *list)
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
    }
    free(list->items);
    list->items = NULL;
    list->count = 0;
}
