/*
 * engine.h - the seam between the public store and the database engine
 * that holds the runs. Private to runner/store/.
 *
 * The pg_store_* and pg_baseline_* functions keep what is the same for every
 * engine (argument checks, selection policy, merging through the public
 * calls) and reach the database only through a pg_store_ops table, so an
 * engine is one file that fills the table and owns its SQL. SQLite is the
 * embedded default; PostgreSQL (optional at build time) is the second table.
 */
#ifndef PG_STORE_ENGINE_H
#define PG_STORE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "machine/roofline.h"
#include "store/types.h"

typedef struct pg_store_ops pg_store_ops;

/*
 * Every engine's handle starts with this, so the public functions can
 * dispatch; the engine allocates the whole handle in open() and frees it in
 * close().
 */
struct pg_store {
    const pg_store_ops *ops;
    char *path; /* as given to pg_store_open() with any password masked: safe for messages */
};

struct pg_store_ops {
    const char *name;
    int schema_latest;
    /* Opens (creating and migrating) `path`; *out is NULL on failure. */
    int (*open)(pg_store **out, const char *path);
    /* Opens `path` to read only, writing nothing to it (pg_store_open_read()). */
    int (*open_read)(pg_store **out, const char *path);
    void (*close)(pg_store *store);
    int (*schema_version)(pg_store *store);
    /* As pg_store_save_run(); *out_added (may be NULL) says whether a row was written. */
    int (*save_run)(int *out_added, pg_store *store, pg_run *run);
    int (*load_run)(pg_run **out, pg_store *store, int64_t run_id);
    /* As pg_store_save_decision(); the run exists. *out_added (may be NULL) says whether a row was written. */
    int (*save_decision)(int *out_added, pg_store *store, const pg_decision *d);
    /* As pg_store_load_decision(): PG_ENOTFOUND when the run has none. */
    int (*load_decision)(pg_decision *out, pg_store *store, int64_t run_id);
    int (*list_runs)(pg_run_list *out, pg_store *store, const pg_run_filter *filter);
    /* The run is known to exist; pinned_at is the caller's clock. */
    int (*pin)(pg_store *store, const char *name, int64_t run_id, int64_t pinned_at);
    int (*unpin)(size_t *out_removed, pg_store *store, const char *name, int64_t run_id);
    int (*list_pins)(pg_baseline_list *out, pg_store *store, const char *name);
    int (*history_rows)(pg_store *store, const char *glob, const char *branch, pg_store_history_cb cb,
                        void *payload);
    /* Selects, drops and compacts; the caller checked the options and measures the file. */
    int (*prune)(pg_prune_stats *stats, pg_store *store, const pg_prune_options *opts);
    int (*check)(pg_check_report *out, pg_store *store);
    /* A fast structural check (may be NULL: none); PG_ESTORE with the damage named. */
    int (*quick_check)(pg_store *store);
    /* The file behind the store, absolute where the engine knows it; NULL if none. */
    const char *(*filename)(pg_store *store);
    /* Every roof stored for `machine_hash`; one entry written, replacing its device and thread count. */
    int (*roofs_load)(pg_roof_table *out, pg_store *store, const char *machine_hash);
    int (*roofs_save)(pg_store *store, const char *machine_hash, const pg_roof_entry *e);
};

/** The SQLite engine (sqlite.c, sqlite_runs.c). */
extern const pg_store_ops pg__store_sqlite;

#include "perfgate/config.h"
#if PG_HAS_POSTGRES
/** The PostgreSQL engine (postgres.c, postgres_runs.c), built when libpq is found. */
extern const pg_store_ops pg__store_postgres;
#endif

/** Whether `path` names a server (postgresql:// or postgres://) rather than a file. */
int pg__store_is_url(const char *path);

/** A copy of `path` with the password of a URL masked (caller frees; NULL when out of memory). */
char *pg__store_redact(const char *path);

#endif
