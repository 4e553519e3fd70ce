/*
 * types.h - the data the store hands out: run listings, pins, history rows,
 * maintenance figures. Below both the public calls (store.h, select.h) and
 * the engines (engine.h), so that neither needs the other's header.
 */
#ifndef PG_STORE_TYPES_H
#define PG_STORE_TYPES_H

#include <stddef.h>
#include <stdint.h>

/** An open store; opaque (engine.h). */
typedef struct pg_store pg_store;

/** One line of a run listing. Strings are owned by the list. */
typedef struct pg_run_info {
    int64_t id;
    char *uuid;
    char *commit;
    char *branch;
    char *suite_set;
    char *machine_hash;
    char *source;
    char *mode;              /* how it was measured: pg_run_mode_name() */
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
    const char *mode;          /* only runs measured this way (pg_run_mode_name()) */
    const char *uuid;          /* only the run with this uuid */
    int64_t before_id;         /* only runs with id < before_id */
    size_t limit;              /* 0: no limit */
} pg_run_filter;

/** One stored ok result with a positive median, as the history reads it. */
typedef struct pg_store_history_row {
    const char *key;
    int64_t run_id;
    const char *commit;
    const char *branch;
    int64_t started_at;
    double median, q1, q3;
    const char *verdict;       /* what the gate decided for this case in this run (stored decision); NULL: none */
} pg_store_history_row;

/** Called once a row; a non-zero return stops the query and is returned. */
typedef int (*pg_store_history_cb)(const pg_store_history_row *row, void *payload);

/*
 * A gate's decision as the store keeps it (baselines/README.md, "Decisions"):
 * the outcome and, per case, the verdict with its estimate, as data. Filled
 * from a comparison and turned back into one by gate/decision.c; the store
 * only writes and reads it. Numbers are NAN when there is none; strings are
 * owned, NULL when there is none.
 */
typedef struct pg_decision_case {
    char *key;
    char *verdict;             /* SAME, REGRESSED, IMPROVED, UNSURE, NEW, MISSING, ERROR, SKIPPED */
    char *reason;
    char *method;              /* how this case was tested: unpaired, paired, exact; NULL: not tested */
    double ratio, ci_lo, ci_hi, p, p_adj;
    int64_t rounds;            /* interleaved rounds the case took; 0 when not paired */
    char *confirm;             /* the re-run's word: confirmed, refuted, not_run; NULL: none was due */
    char *detail;              /* JSON object: everything else the verdict holds */
} pg_decision_case;

typedef struct pg_decision {
    int64_t run_id;            /* the run decided */
    int64_t made_at;           /* unix seconds */
    char *outcome;             /* PASS, FAIL, NOTHING_COMPARED, ERROR */
    int exit_code;
    char *reason;              /* the outcome's reason */
    char *method;              /* the decision rule, one line */
    char *baseline;            /* what it was compared with: runs (stored), build (interleaved), none */
    char *base_ids;            /* "12,11": the baseline runs' ids when decided, newest first */
    char *base_uuids;          /* the same runs by uuid (space-separated): what survives a merge */
    char *base_described;      /* how the baseline was chosen, and what selection left out */
    char *base_build;          /* interleaved: the base build's path */
    char *base_commit;         /* ... its commit, when the build says (.perfgate-build-sha) */
    char *base_hash;           /* ... sha256 over the files it supplied (plugins, programs) */
    int confirmed;             /* REGRESSED (and IMPROVED) cases were re-measured before deciding */
    double suite_shift;        /* the suite guard: median ratio of every compared case */
    double suite_spread;       /* ... and the robust spread of their log ratios */
    char *canary;              /* the canaries' line, NULL when none was measured */
    char *detail;              /* JSON object: everything else the comparison holds */
    pg_decision_case *cases;
    size_t ncases;
} pg_decision;

void pg_decision_clear(pg_decision *d);

typedef struct pg_merge_stats {
    size_t inputs;
    size_t runs_seen;
    size_t runs_added;
} pg_merge_stats;

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

typedef struct pg_check_report {
    int ok;
    int schema_version, schema_latest;
    int64_t runs, results, results_with_samples, checks, decisions, bytes;
    char message[512];       /* first problem found, or "ok" */
} pg_check_report;

typedef struct pg_baseline_entry {
    char *name;
    int64_t run_id;
    int64_t pinned_at;
    char *commit;
    char *branch;
} pg_baseline_entry;

typedef struct pg_baseline_list {
    pg_baseline_entry *items;
    size_t count;
} pg_baseline_list;

#endif
