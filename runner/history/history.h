/*
 * history.h - a case's medians over commits, and where they stepped.
 *
 * Change points come from a penalised L1 piecewise-constant fit (asv's step
 * detection idea) on log medians, solved exactly by dynamic programming,
 * then each step is kept only when a one-sided Mann-Whitney test between
 * the two neighbouring segments is significant and the step is at least
 * the minimum effect. See docs/history.md.
 */
#ifndef PG_HISTORY_H
#define PG_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

typedef struct pg_history_point {
    int64_t run_id;         /* newest run of this commit */
    const char *commit;     /* owned by the history (its `strings`) */
    const char *branch;
    int64_t started_at;
    double median;          /* seconds; median over the commit's runs */
    double q1, q3;          /* of the newest run */
    size_t runs;            /* runs aggregated into this point */
    const char *verdict;    /* what the gate decided for the case at this commit (the decision stored with its
                               newest run that has one: SAME, REGRESSED...); NULL when no gate decided it */
} pg_history_point;

typedef struct pg_change_point {
    size_t index;           /* first point after the step */
    double before, after;   /* segment medians, seconds */
    double ratio;           /* after / before */
    double p;               /* one-sided Mann-Whitney p between the segments */
} pg_change_point;

typedef struct pg_history {
    char *key;
    pg_history_point *points;
    size_t npoints;
    pg_change_point *changes;
    size_t nchanges;
    void *strings;          /* its points' commits and branches, shared (counted) with the other histories of one load */
} pg_history;

typedef struct pg_history_options {
    unsigned version;
    double penalty;         /* multiplies sigma * ln(n); default 3 */
    double min_effect;      /* smallest step reported, fraction; default 0.02 */
    double alpha;           /* per-step test level; default 0.001 */
    size_t min_segment;     /* points on each side of a step; default 3 */
} pg_history_options;

#define PG_HISTORY_OPTIONS_VERSION 1
#define PG_HISTORY_OPTIONS_INIT {PG_HISTORY_OPTIONS_VERSION, 3.0, 0.02, 0.001, 3}

/**
 * Loads the history of every case whose key matches `glob` (NULL: all),
 * oldest first, optionally on one branch and limited to the newest `last`
 * commits (0: all), and detects change points in each.
 * @param[out] out array of histories; free with pg_history_free_all().
 */
int pg_history_load(pg_history **out, size_t *out_count, pg_store *store, const char *glob,
                    const char *branch, size_t last, const pg_history_options *opts);
void pg_history_free_all(pg_history *h, size_t count);

/**
 * Detects steps in the series `y` (positive values, e.g. medians).
 * @param[out] out change points, oldest first (caller frees); *out_count may be 0.
 */
int pg_history_detect(pg_change_point **out, size_t *out_count, const double *y, size_t n,
                      const pg_history_options *opts);

#endif
