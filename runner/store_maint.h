/*
 * store_maint.h - database maintenance: merge, prune, check.
 *
 * Merge copies every run of the inputs into the output once (runs are keyed
 * by uuid, so merging again adds nothing). Prune drops the raw samples of
 * old runs (their summaries stay, so history stays) or deletes old runs
 * whole; pinned baselines are never pruned. Check runs SQLite's integrity
 * and foreign-key checks and compares the schema version.
 */
#ifndef PG_STORE_MAINT_H
#define PG_STORE_MAINT_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

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
