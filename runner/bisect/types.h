/*
 * types.h - a bisection as data: its chain of commits, its steps and its
 * result. Below bisect.h and internal.h alike, so that the files of
 * runner/bisect/ share them without including each other.
 */
#ifndef PG_BISECT_TYPES_H
#define PG_BISECT_TYPES_H

#include <stddef.h>

#include "bisect/search.h"
#include "verdict/model.h"

/** One commit of the chain. */
typedef struct pg_bisect_commit {
    char *sha;
    char *subject;            /* its first line (the author's words: escape them wherever shown) */
} pg_bisect_commit;

/** One step: head gated against base. */
typedef struct pg_bisect_step {
    pg_bisect_purpose purpose;
    size_t base, head;        /* commit indices, 0 = GOOD */
    char *key;                /* the case followed (at the ends: the one that decided) */
    pg_verdict verdict;
    double ratio, ci_lo, ci_hi; /* head/base */
    double p;                 /* Holm-adjusted, anytime-valid */
    double alpha;             /* this step's share of the family error */
    double threshold;
    int rounds;               /* interleaved rounds the case took */
    double seconds;           /* the step's wall time, builds included */
    char *reason;             /* the verdict's reason, one line */
} pg_bisect_step;

/** A commit that did not build (never a midpoint). */
typedef struct pg_bisect_unbuilt {
    size_t commit;
    char *why;                /* one line, with the log's path */
} pg_bisect_unbuilt;

typedef struct pg_bisect_result {
    pg_bisect_commit *commits; /* 0 (GOOD) .. n (BAD) */
    size_t ncommits;
    char *good_rev, *bad_rev; /* as given */
    char *build, *build_dir, *filter;
    double threshold, alpha;  /* as given (threshold < 0: the cases' own) */
    char **cases;             /* the timed cases the filter selected, sorted */
    size_t ncases;
    char *identity;           /* hex digest of the inputs above: a state of other inputs is not resumed */
    char *key;                /* the case followed; NULL before the first step decided one */
    char **also;              /* other cases REGRESSED at the ends: bisect them with --filter */
    size_t nalso;
    pg_bisect_step *steps;
    size_t nsteps;
    pg_bisect_unbuilt *unbuilt;
    size_t nunbuilt;
    size_t resumed;           /* steps taken from the state file */
    size_t planned;           /* pg_bisect_planned_steps(n) */
    pg_bisect_kind kind;
    size_t culprit;           /* FOUND: the commit */
    size_t span_lo, span_hi;  /* SPREAD, UNBUILDABLE, OPEN: commits span_lo+1..span_hi; FOUND: the parent, culprit */
    size_t result_step;       /* the step the result quotes; PG_BISECT_NONE: none */
    char *text;               /* the result in one line */
    double seconds;           /* this invocation's wall time */
    char *state_path;         /* where the state was kept */
} pg_bisect_result;

#endif
