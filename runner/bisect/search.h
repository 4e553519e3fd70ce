/*
 * search.h - the bisection as a state machine: which two commits the next
 * step gates, and what each verdict teaches. No I/O: bisect.c measures,
 * and a resumed bisection replays its stored verdicts through the same
 * machine, so it takes exactly the steps it took before.
 *
 * Commits are numbered 0 (GOOD) to n (BAD) along the first-parent chain.
 * The search keeps lo (a commit not slower than the ones before it, as far
 * as the steps know) and hi (one slower than a commit at or before lo, by
 * more than the threshold):
 *
 *   ends     BAD against GOOD. REGRESSED: search; SAME or IMPROVED: not
 *            reproduced; UNSURE: undecided (nothing is guessed).
 *   halve    the midpoint m against lo. REGRESSED: hi = m; SAME or
 *            IMPROVED: lo = m; UNSURE: widen.
 *   widen    hi against m (the other half). REGRESSED: lo = m; SAME or
 *            IMPROVED: hi = m; UNSURE again: when one half's interval lay
 *            beyond the threshold (REGRESSED at first, not confirmed), the
 *            search goes on in that half, the older one first; otherwise
 *            neither half holds the change alone: spread over lo+1..hi.
 *   parent   when lo and hi are adjacent but hi was last found slower
 *            against an older commit: hi against lo, its parent. REGRESSED:
 *            first bad commit hi; otherwise spread.
 *
 * A midpoint that does not build or cannot be measured is passed over for
 * the nearest other one; a range with none left is reported as such.
 *
 * Only REGRESSED steps make claims: a first bad commit is named only after
 * it was REGRESSED against its parent in a step of its own, so a half
 * entered on an unconfirmed interval costs steps, never a wrong commit.
 */
#ifndef PG_BISECT_SEARCH_H
#define PG_BISECT_SEARCH_H

#include <stddef.h>

#include "verdict/model.h"

#define PG_BISECT_NONE ((size_t)-1)

typedef enum pg_bisect_kind {
    PG_BISECT_OPEN = 0,       /* not finished (stopped by --max-time; resumable) */
    PG_BISECT_FOUND,          /* the first bad commit: `culprit`, against its parent */
    PG_BISECT_SPREAD,         /* the change between span_lo and span_hi is spread over span_lo+1..span_hi */
    PG_BISECT_NOT_REPRODUCED, /* BAD is not slower than GOOD beyond the threshold (SAME or IMPROVED) */
    PG_BISECT_UNDECIDED,      /* BAD against GOOD is UNSURE: nothing to search */
    PG_BISECT_UNBUILDABLE,    /* the change is in span_lo+1..span_hi, whose inner commits do not build */
    PG_BISECT_ERROR           /* an end could not be measured */
} pg_bisect_kind;

typedef enum pg_bisect_purpose {
    PG_BISECT_ENDS = 0,
    PG_BISECT_HALVE,
    PG_BISECT_WIDEN,
    PG_BISECT_PARENT,
    PG_BISECT_DONE
} pg_bisect_purpose;

typedef struct pg_bisect_search {
    size_t n;                 /* commits after GOOD */
    size_t lo, hi;
    size_t direct;            /* hi was found REGRESSED against this commit in a step of its own; NONE: not */
    size_t direct_step;       /* that step (0-based) */
    size_t span_lo, span_hi;  /* the narrowest pair found REGRESSED, and its step */
    size_t span_step;
    size_t m;                 /* the midpoint of the step in progress */
    int half_beyond;          /* the halving at m was UNSURE with its interval beyond the threshold */
    pg_bisect_purpose phase;
    unsigned char *skipped;   /* n + 1 flags: commits that do not build or cannot be measured */
    size_t steps;             /* verdicts fed */
    pg_bisect_kind kind;      /* what was found once phase is DONE */
    size_t culprit;           /* FOUND: the commit */
    size_t result_step;       /* the step whose interval the result quotes */
    size_t range_lo, range_hi; /* the commits the result names are range_lo+1..range_hi */
} pg_bisect_search;

/** Starts a search over commits 0..n (n >= 1). @return 0 or PG_ENOMEM. */
int pg_bisect_search_init(pg_bisect_search *s, size_t n);
void pg_bisect_search_clear(pg_bisect_search *s);

/**
 * The next step: head gated against base.
 * @return 1 with *base, *head and *purpose set; 0 when the search is done (s->kind).
 */
int pg_bisect_search_next(pg_bisect_search *s, size_t *base, size_t *head, pg_bisect_purpose *purpose);

/**
 * The verdict of the step pg_bisect_search_next() gave. A verdict other
 * than REGRESSED, SAME, IMPROVED or UNSURE (the case could not be measured)
 * passes over a midpoint; at the ends it ends the search (ERROR).
 * `beyond`: an UNSURE step whose interval lay wholly beyond the threshold
 * (its rounds said REGRESSED and the confirmation did not), which tells a
 * widening which half to go on in.
 */
void pg_bisect_search_feed(pg_bisect_search *s, pg_verdict v, int beyond);

/** Commit `c` does not build: never a midpoint. */
void pg_bisect_search_skip(pg_bisect_search *s, size_t c);

/**
 * The steps a search over n commits plans: the ends, ceil(log2 n) halvings
 * and one step against the parent (1 when n is 1).
 */
size_t pg_bisect_planned_steps(size_t n);

/**
 * The family error's share of step k (1-based) over n commits (weighted
 * Bonferroni): each of the S planned steps gets alpha / (S + 1), and the
 * j-th step beyond them (a widening costs one) alpha / (S + 1) / 2^j, so
 * the shares sum to at most alpha however many steps are taken.
 */
double pg_bisect_step_alpha(double alpha, size_t n, size_t k);

const char *pg_bisect_purpose_name(pg_bisect_purpose p);
const char *pg_bisect_kind_name(pg_bisect_kind k);

#endif
