/*
 * select.h - choosing the runs to compare: the head and its baseline.
 *
 * Selectors: a run id ("42"), "latest" (newest run), "commit:SHA" (newest
 * run of that commit), "branch:NAME" (newest run on that branch),
 * "last:K" (pool the newest K runs of the head's branch, or
 * "last:K:BRANCH").
 */
#ifndef PG_SELECT_H
#define PG_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

typedef struct pg_selection {
    int64_t *ids;     /* newest first */
    size_t count;
    char *described;  /* "run 12 (main @ abc1234, 2 h old)" for logs */
} pg_selection;

void pg_selection_free(pg_selection *sel);

/** Resolves the head selector (NULL or "latest": the newest run). */
int pg_select_head(int64_t *out_id, pg_store *store, const char *selector);

/**
 * Resolves a baseline selector relative to the head run `head_id`.
 * NULL means: the newest earlier run on the head's branch and machine.
 * Runs never include the head itself. An empty selection is not an error
 * (a first run has no baseline).
 */
int pg_select_base(pg_selection *out, pg_store *store, const char *selector, int64_t head_id);

#endif
