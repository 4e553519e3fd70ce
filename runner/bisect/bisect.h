/*
 * bisect.h - `perfgate bisect GOOD BAD`: the first commit that made a case
 * slower, found with the interleaved sequential gate at every step.
 *
 * The commits are the first-parent chain from GOOD (excluded) to BAD. Each
 * is checked out once into a git worktree of its own and built there once
 * with the user's command (cached by commit and command, as
 * ci/gh/build.sh stamps a build); each step gates one commit's build
 * against another's in interleaved rounds (gate.h) with its share of the
 * family error (search.h, pg_bisect_step_alpha), and the search
 * (search.h) says which two commits come next. Every step is written to a
 * state file as it ends, so a bisection stopped by --max-time, a crash or
 * Ctrl-C goes on where it stopped when run again with the same inputs.
 */
#ifndef PG_BISECT_H
#define PG_BISECT_H

#include <stddef.h>
#include <stdio.h>

#include "base/util.h"
#include "bisect/search.h"
#include "bisect/types.h"
#include "suite/suite.h"
#include "verdict/model.h"

/* Interleaved rounds per step at most: a step's alpha is a few thousandths, which takes more agreeing rounds. */
#define PG_BISECT_DEFAULT_ROUNDS 40

typedef void (*pg_bisect_notify_fn)(const char *line, void *payload);

typedef struct pg_bisect_options {
    unsigned version;
    const char *good, *bad;   /* revisions (anything git rev-parse takes) */
    const char *build;        /* the build command, run with bash in each commit's worktree */
    const char *build_dir;    /* where it leaves its output, relative to the worktree ({build}); NULL: "build" */
    const char *filter;       /* glob over case keys; NULL: every timed case */
    const char *repo;         /* a directory of the repository; NULL: the working directory */
    const char *work_dir;     /* worktrees, build logs and state; NULL: <git common dir>/perfgate-bisect */
    const char *state;        /* the state file; NULL: one in work_dir named by the inputs */
    int restart;              /* forget a stored state of these inputs */
    double threshold;         /* < 0: each case's own */
    double alpha;             /* the family error of the whole bisection; <= 0: 0.05 */
    int rounds;               /* interleaved rounds per step at most; <= 0: PG_BISECT_DEFAULT_ROUNDS */
    double max_time;          /* seconds for the whole bisection (builds included); <= 0: none */
    int confirm;              /* REGRESSED steps are confirmed by fresh rounds (as the gate does) */
    FILE *ab_progress;        /* the rounds' progress line; NULL: none */
    pg_bisect_notify_fn notify; /* one line per build and step; NULL: none */
    void *payload;
} pg_bisect_options;

#define PG_BISECT_OPTIONS_VERSION 1
#define PG_BISECT_OPTIONS_INIT \
    {PG_BISECT_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, -1.0, 0.05, 0, 0.0, 1, NULL, NULL, NULL}

/**
 * Bisects `set`'s timed cases (matching opts->filter) between opts->good
 * and opts->bad.
 * @param[out] out filled as far as it got, also on error; free with pg_bisect_result_clear().
 * @return 0 (out->kind says what was found, OPEN when --max-time stopped it);
 *         PG_EUSAGE / PG_EINVAL for bad revisions, options or a state of
 *         other inputs; PG_EKERNEL when GOOD or BAD does not build; a git,
 *         store or measurement error.
 */
int pg_bisect_run(pg_bisect_result *out, const pg_suite_set *set, const pg_bisect_options *opts);
void pg_bisect_result_clear(pg_bisect_result *r);

/** 0 FOUND, SPREAD, NOT_REPRODUCED, UNBUILDABLE; 4 UNDECIDED and OPEN (nothing concluded); 3 ERROR. */
int pg_bisect_exit_code(const pg_bisect_result *r);

/**
 * The result and its table of steps, as text (markdown 0) or as a
 * markdown table (1) with commits linked under `commit_url` (e.g.
 * https://github.com/O/R/commit/; NULL: not linked).
 */
int pg_bisect_format(pg_buf *out, const pg_bisect_result *r, int markdown, const char *commit_url);

/** The bisection as JSON: the state file's format. */
int pg_bisect_to_json(pg_buf *out, const pg_bisect_result *r);

/**
 * Reads a bisection's JSON (a state file, or `--json` output).
 * @param[out] out free with pg_bisect_result_clear().
 * @return 0; PG_EFORMAT naming the file for anything else.
 */
int pg_bisect_read(pg_bisect_result *out, const char *path);

#endif
