/*
 * store.h - baselines and history: runs saved, listed, loaded, merged,
 * pruned and checked.
 *
 * Only the store speaks SQL: callers see runs and listings, never the
 * schema or the connection. The engine today is one SQLite file (WAL mode,
 * a busy timeout, foreign keys on; the schema version lives in PRAGMA
 * user_version and is migrated forward on open). A run is written in one
 * transaction, so a process killed half-way leaves no partial run. Samples
 * are stored raw as little-endian float64 blobs.
 *
 * Merge copies every run of the inputs into the output once (runs are keyed
 * by uuid, so merging again adds nothing). Prune drops the raw samples of
 * old runs (their summaries stay, so history stays) or deletes old runs
 * whole; pinned baselines are never pruned. Check runs the engine's
 * integrity and foreign-key checks and compares the schema version.
 */
#ifndef PG_STORE_H
#define PG_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef struct pg_store pg_store;

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

/** One stored ok result with a positive median, as the history reads it. */
typedef struct pg_store_history_row {
    const char *key;
    int64_t run_id;
    const char *commit;
    const char *branch;
    int64_t started_at;
    double median, q1, q3;
} pg_store_history_row;

/** Called once a row; a non-zero return stops the query and is returned. */
typedef int (*pg_store_history_cb)(const pg_store_history_row *row, void *payload);

/**
 * Feeds `cb` every ok result with a positive median whose case key matches
 * the glob `glob` (NULL: all) on branch `branch` (NULL: all), ordered by
 * case key, then run id. The row and its strings live until `cb` returns.
 */
int pg_store_history_rows(pg_store *store, const char *glob, const char *branch, pg_store_history_cb cb,
                          void *payload);

/** Test hook: called after each result row is written inside save_run. */
extern void (*pg__store_after_result_hook)(size_t index);

typedef struct pg_merge_stats {
    size_t inputs;
    size_t runs_seen;
    size_t runs_added;
} pg_merge_stats;

/** Merges the runs of each input file into `out`. Inputs are opened read-only in effect. */
int pg_store_merge(pg_merge_stats *stats, pg_store *out, const char *const *inputs, size_t ninputs);

typedef struct pg_prune_options {
    unsigned version;
    size_t keep_runs;        /* keep the newest N runs untouched (0: not a criterion) */
    int64_t older_than;      /* prune runs started more than this many seconds ago (0: not a criterion) */
    int keep_summaries;      /* drop samples only, keep runs and summaries */
    int64_t now;             /* reference time; 0: the current time */
} pg_prune_options;

#define PG_PRUNE_OPTIONS_VERSION 1
#define PG_PRUNE_OPTIONS_INIT {PG_PRUNE_OPTIONS_VERSION, 0, 0, 0, 0}

typedef struct pg_prune_stats {
    size_t runs_pruned;      /* runs whose samples were dropped or that were deleted */
    size_t runs_kept;
    int64_t bytes_before, bytes_after;
} pg_prune_stats;

/** Prunes and then compacts the file (VACUUM). */
int pg_store_prune(pg_prune_stats *stats, pg_store *store, const pg_prune_options *opts);

typedef struct pg_check_report {
    int ok;
    int schema_version, schema_latest;
    int64_t runs, results, results_with_samples, checks, bytes;
    char message[512];       /* first problem found, or "ok" */
} pg_check_report;

/** Checks integrity, foreign keys and schema version of an open store. */
int pg_store_check(pg_check_report *out, pg_store *store);

/** Size of the database file in bytes (main file plus WAL), or -1. */
int64_t pg_store_file_size(pg_store *store);

#endif
