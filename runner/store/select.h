/*
 * select.h - choosing the runs to compare: the head and its baseline, and
 * named baseline sets (`perfgate baseline pin`).
 *
 * Selectors: a run id ("42"), "latest" (newest run), "commit:SHA" (newest
 * run of that commit), "branch:NAME" (newest run on that branch),
 * "last:K" (pool the newest K runs of the head's branch, or
 * "last:K:BRANCH"), "pin:NAME" (every run pinned under NAME).
 * Timings only compare on one machine: a baseline run with another machine
 * fingerprint is refused (PG_EMACHINE) unless allow_other_machine is set;
 * pools and default selections only take runs of the head's machine. Nor
 * do runs measured otherwise (pg_run_mode: a plain run, either side of an
 * interleaved gate, counts alone): every selection takes only runs of the
 * head's mode, says in `skipped` which it left out, and refuses a run
 * named by id or pin that was measured otherwise (PG_EUSAGE).
 */
#ifndef PG_SELECT_H
#define PG_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

typedef struct pg_selection {
    int64_t *ids;     /* newest first */
    size_t count;
    char *described;  /* "run 12 (main @ abc1234, 2 h old)" for logs; NULL when nothing was found */
    char *searched;   /* what was looked for, also when nothing was found: "the pull request's base commit
                         1a2b3c4d5e6f, then the newest run of branch 'main', on machine 0123456789ab" */
    char *elsewhere;  /* runs that matched but were measured on another machine, and were therefore left out:
                         "3 runs of branch 'main' from another machine (cpu 'X', fingerprint 89abcdef0123)";
                         NULL when none */
    char *skipped;    /* runs that matched but were measured otherwise than the head (base/model.h, pg_run_mode),
                         and were therefore left out: "1 run of branch 'main' measured otherwise (1 interleaved-head),
                         which does not pool with this plain run"; NULL when none */
} pg_selection;

void pg_selection_clear(pg_selection *sel);

typedef struct pg_select_options {
    unsigned version;
    int allow_other_machine;    /* take runs measured on another machine */
    const char *event_path;     /* GitHub event JSON; NULL: $GITHUB_EVENT_PATH */
    const char *default_branch; /* NULL: $GITHUB_BASE_REF, the event's default_branch, else "main" */
    const char *event_name;     /* GitHub event name; NULL: $GITHUB_EVENT_NAME */
    int own_branch;             /* the head's branch was named explicitly (--branch): pool its own runs */
} pg_select_options;

#define PG_SELECT_OPTIONS_VERSION 1
#define PG_SELECT_OPTIONS_INIT {PG_SELECT_OPTIONS_VERSION, 0, NULL, NULL, NULL, 0}

/** Runs of its own branch the default selection pools, so run-to-run drift is measured. */
#define PG_SELECT_DEFAULT_POOL 5

/** Resolves the head selector (NULL or "latest": the newest run). */
int pg_select_head(int64_t *out_id, pg_store *store, const char *selector);

/**
 * Resolves a baseline selector relative to the head run `head_id`.
 * NULL means the default baseline, always on the head's machine:
 * - a pull request (the event names its base commit): the newest run of
 *   that commit on the base branch (another branch holding the same commit
 *   is another gate's history), else the newest run on the default branch;
 * - a `schedule` or `workflow_dispatch` event, a branch named explicitly
 *   (opts->own_branch), or outside CI (no event file): the previous
 *   PG_SELECT_DEFAULT_POOL runs of the head's own branch, pooled; outside
 *   CI a branch without earlier runs falls back to the newest run on the
 *   default branch;
 * - other CI events (a push): the newest run on the default branch.
 * Runs never include the head itself. An empty selection is not an error
 * (a first run has no baseline): out->searched says what was looked for and
 * out->elsewhere which runs exist on other machines.
 * @param[out] out the runs; free with pg_selection_clear().
 * @param opts NULL: PG_SELECT_OPTIONS_INIT (other machines refused).
 */
int pg_select_base(pg_selection *out, pg_store *store, const char *selector, int64_t head_id,
                   const pg_select_options *opts);

/** Adds run `run_id` to the named baseline set `name` (idempotent). */
int pg_baseline_pin(pg_store *store, const char *name, int64_t run_id);

/**
 * Removes run `run_id` from set `name`, or the whole set when run_id is 0.
 * @param[out] out_removed number of pins removed (may be NULL).
 */
int pg_baseline_unpin(size_t *out_removed, pg_store *store, const char *name, int64_t run_id);

/** Lists pins (of `name`, or all when NULL) by name, newest run first. */
int pg_baseline_list_get(pg_baseline_list *out, pg_store *store, const char *name);
void pg_baseline_list_clear(pg_baseline_list *list);

#endif
