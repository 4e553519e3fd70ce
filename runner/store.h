/*
 * store.h - baselines and history in one SQLite file.
 *
 * WAL mode, a busy timeout, foreign keys on. The schema version lives in
 * PRAGMA user_version and is migrated forward on open. A run is written in
 * one transaction, so a process killed half-way leaves no partial run.
 * Samples are stored raw as little-endian float64 blobs.
 */
#ifndef PG_STORE_H
#define PG_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef struct pg_store pg_store;
struct sqlite3;

/** The default database path, relative to the working directory. */
#define PG_STORE_DEFAULT_PATH "baselines/perfgate.db"

/** The schema version this build writes. */
int pg_store_schema_latest(void);

/**
 * Opens (creating if absent) and migrates the database at `path`.
 * @param[out] out the store; free with pg_store_close().
 * @return 0, PG_ESTORE when the file cannot be opened or is not a database,
 *         PG_ESCHEMA when it was written by a newer perfgate.
 */
int pg_store_open(pg_store **out, const char *path);

/** Resolves the database path: `flag` if set, else $PERFGATE_DB, else the default. */
const char *pg_store_path(const char *flag);

void pg_store_close(pg_store *store);

/** Current user_version of the open database. */
int pg_store_schema_version(pg_store *store);

/**
 * Writes `run` with its results, samples and checks in one transaction and
 * sets run->id. A run whose uuid is already stored is left alone (returns 0
 * and sets run->id to the stored id), which makes merges idempotent.
 */
int pg_store_save_run(pg_store *store, pg_run *run);

/** Reads a whole run back, samples included. PG_ENOTFOUND if absent. */
int pg_store_load_run(pg_run **out, pg_store *store, int64_t run_id);

/** One line of a run listing. Strings are owned by the list. */
typedef struct pg_run_info {
    int64_t id;
    char *uuid;
    char *commit;
    char *branch;
    char *suite_set;
    char *machine_hash;
    char *source;
    int64_t started_at;
    int64_t nresults;
    int64_t nchecks;
} pg_run_info;

typedef struct pg_run_list {
    pg_run_info *items;
    size_t count;
} pg_run_list;

/** Filter for pg_store_list_runs(); NULL/0 fields do not filter. */
typedef struct pg_run_filter {
    const char *branch;
    const char *commit;        /* full SHA or a prefix of at least 4 chars */
    const char *machine_hash;
    int64_t before_id;         /* only runs with id < before_id */
    size_t limit;              /* 0: no limit */
} pg_run_filter;

/** Lists runs newest first. Free with pg_run_list_free(). */
int pg_store_list_runs(pg_run_list *out, pg_store *store, const pg_run_filter *filter);
void pg_run_list_free(pg_run_list *list);

/** The underlying connection, for modules that add their own queries. */
struct sqlite3 *pg__store_db(pg_store *store);

/** Test hook: called after each result row is written inside save_run. */
extern void (*pg__store_after_result_hook)(size_t index);

#endif
