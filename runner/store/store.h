/*
 * store.h - baselines and history: runs saved, listed, loaded, merged,
 * pruned and checked.
 *
 * Only the store speaks SQL: callers see runs and listings, never the
 * schema or the connection. A path is a SQLite file (the default) or, when
 * built with libpq, a postgresql:// URL naming a shared server (engine.h).
 * The SQLite engine is one file (WAL mode,
 * a busy timeout, foreign keys on; the schema version lives in PRAGMA
 * user_version and is migrated forward on open). A run is written in one
 * transaction, so a process killed half-way leaves no partial run. Samples
 * are stored raw as little-endian float64 blobs.
 *
 * Merge copies every run of the inputs into the output once, in place and
 * one run per transaction (runs are keyed by uuid, so merging again adds
 * nothing). Prune drops the raw samples of
 * old runs (their summaries stay, so history stays) or deletes old runs
 * whole; pinned baselines are never pruned. Check runs the engine's
 * integrity and foreign-key checks and compares the schema version.
 */
#ifndef PG_STORE_H
#define PG_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "machine/roofline.h"
#include "store/types.h"

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

/**
 * Opens the database at `path` to read only: a SQLite file is opened
 * read-only and nothing is written to it or beside it (no journal mode is
 * set), so a file in a read-only folder reads; a file that does not exist
 * reads as an empty store and is not created; a file of an older schema is
 * migrated first when it may be written, else refused. A server URL is
 * opened as pg_store_open() does.
 * @return as pg_store_open(); PG_ESCHEMA also for an older read-only file.
 */
int pg_store_open_read(pg_store **out, const char *path);

/** Resolves the database path: `flag` if set, else $PERFGATE_DB, else the default. */
const char *pg_store_path(const char *flag);

/** Whether `path` is a server URL (postgresql://... or postgres://...) rather than a file. */
int pg_store_is_server(const char *path);

/** The path or URL of an open store as messages may show it: a URL's password masked. */
const char *pg_store_name(pg_store *store);

/** `path` as messages may show it, without opening it: a URL's password masked (caller frees; NULL when out of memory). */
char *pg_store_redacted(const char *path);

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

/**
 * Stores the gate's decision on run d->run_id (stored before), with its
 * cases, in one transaction. A run is decided once: when it already has a
 * decision (a merge brought it in before), that one is kept and 0 returned.
 */
int pg_store_save_decision(pg_store *store, const pg_decision *d);

/**
 * Reads the decision stored for run `run_id`.
 * @param[out] out free with pg_decision_clear().
 * @return 0; PG_ENOTFOUND when the run has none (a run of `perfgate run`, or
 *         stored by a perfgate that kept no decisions).
 */
int pg_store_load_decision(pg_decision *out, pg_store *store, int64_t run_id);

/** Lists runs newest first. Free with pg_run_list_clear(). */
int pg_store_list_runs(pg_run_list *out, pg_store *store, const pg_run_filter *filter);
void pg_run_list_clear(pg_run_list *list);

/**
 * Feeds `cb` every ok result with a positive median whose case key matches
 * the glob `glob` (NULL: all) on branch `branch` (NULL: all), ordered by
 * case key, then run id. The row and its strings live until `cb` returns.
 */
int pg_store_history_rows(pg_store *store, const char *glob, const char *branch, pg_store_history_cb cb,
                          void *payload);

/**
 * The roofs stored for the machine `machine_hash` (roofline.h): measured
 * once per machine, device and thread count, and reused by every run.
 * @param[out] out empty when none; free with pg_roof_table_clear().
 */
int pg_store_roofs_load(pg_roof_table *out, pg_store *store, const char *machine_hash);

/**
 * Stores the fresh entries of `roofs` (those measured by this process) for
 * `machine_hash`, each replacing the stored roof of its device and thread
 * count, and marks them stored.
 */
int pg_store_roofs_save(pg_store *store, const char *machine_hash, pg_roof_table *roofs);

/** Test hook: called after each result row is written inside save_run. */
extern void (*pg__store_after_result_hook)(size_t index);

/** Merges the runs of each input file into `out`, with their decisions. Inputs are opened read-only in effect. */
int pg_store_merge(pg_merge_stats *stats, pg_store *out, const char *const *inputs, size_t ninputs);

/**
 * A fast check that the database is not damaged, for a workflow about to
 * trust it (SQLite: PRAGMA quick_check). @return 0, or PG_ESTORE (exit 3)
 * naming the damage and what to do.
 */
int pg_store_quick_check(pg_store *store);

/**
 * Merges the inputs into the database `out_path` (created when absent) in
 * place: each run in one transaction of its own, beside any gate writing
 * runs into the same file meanwhile, whose runs are never lost (the file is
 * never replaced by a copy). A damaged output (quick check) is refused
 * before anything is written. A merge that fails or is killed leaves whole
 * runs only, never a partial one, and no temporary file; run it again to
 * add the rest (runs are keyed by uuid). Inputs are opened read-only.
 */
int pg_store_merge_file(pg_merge_stats *stats, const char *out_path, const char *const *inputs, size_t ninputs);

/** Prunes and then compacts the file (VACUUM). */
int pg_store_prune(pg_prune_stats *stats, pg_store *store, const pg_prune_options *opts);

/** Checks integrity, foreign keys and schema version of an open store. */
int pg_store_check(pg_check_report *out, pg_store *store);

/** Size of the database file in bytes (main file plus WAL), or -1. */
int64_t pg_store_file_size(pg_store *store);

#endif
