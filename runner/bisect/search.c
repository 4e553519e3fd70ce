/*
 * search.c - the bisection's state machine (search.h).
 */
#include "bisect/search.h"

#include "perfgate/errors.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int pg_bisect_search_init(pg_bisect_search *s, size_t n)
{
    memset(s, 0, sizeof(*s));
    if (n < 1)
        return pg_error_set(PG_EINVAL, "nothing to bisect: no commit between GOOD and BAD");
    if (!(s->skipped = calloc(n + 1, 1)))
        return pg_error_set(PG_ENOMEM, "out of memory");
    s->n = n;
    s->lo = 0;
    s->hi = n;
    s->direct = PG_BISECT_NONE;
    s->span_lo = 0;
    s->span_hi = n;
    s->span_step = PG_BISECT_NONE;
    s->m = PG_BISECT_NONE;
    s->phase = PG_BISECT_ENDS;
    s->culprit = PG_BISECT_NONE;
    s->result_step = PG_BISECT_NONE;
    return 0;
}

void pg_bisect_search_clear(pg_bisect_search *s)
{
    free(s->skipped);
    memset(s, 0, sizeof(*s));
}

void pg_bisect_search_skip(pg_bisect_search *s, size_t c)
{
    if (c <= s->n)
        s->skipped[c] = 1;
}

/* The commit strictly between lo and hi nearest their middle that was not passed over; NONE when there is none. */
static size_t midpoint(const pg_bisect_search *s)
{
    size_t mid = s->lo + (s->hi - s->lo) / 2, d;

    for (d = 0; d < s->hi - s->lo; d++) {
        if (mid >= d && mid - d > s->lo && !s->skipped[mid - d])
            return mid - d;
        if (mid + d < s->hi && mid + d > s->lo && !s->skipped[mid + d])
            return mid + d;
    }
    return PG_BISECT_NONE;
}

/* Done: what was found, the step it quotes and the commits lo+1..hi it names. */
static void finish(pg_bisect_search *s, pg_bisect_kind kind, size_t step, size_t lo, size_t hi)
{
    s->phase = PG_BISECT_DONE;
    s->kind = kind;
    s->result_step = step;
    s->range_lo = lo;
    s->range_hi = hi;
    if (kind == PG_BISECT_FOUND)
        s->culprit = s->hi;
}

/* Where a halving goes when lo and hi cannot be split further. */
static void settle_range(pg_bisect_search *s)
{
    if (s->direct == s->lo)
        finish(s, s->hi - s->lo == 1 ? PG_BISECT_FOUND : PG_BISECT_UNBUILDABLE, s->direct_step, s->lo, s->hi);
    else
        s->phase = PG_BISECT_PARENT;
}

int pg_bisect_search_next(pg_bisect_search *s, size_t *base, size_t *head, pg_bisect_purpose *purpose)
{
    if (s->phase == PG_BISECT_HALVE) {
        s->m = s->hi - s->lo > 1 ? midpoint(s) : PG_BISECT_NONE;
        if (s->m == PG_BISECT_NONE)
            settle_range(s);
    }
    switch (s->phase) {
    case PG_BISECT_ENDS:
        *base = 0;
        *head = s->n;
        break;
    case PG_BISECT_HALVE:
        *base = s->lo;
        *head = s->m;
        break;
    case PG_BISECT_WIDEN:
        *base = s->m;
        *head = s->hi;
        break;
    case PG_BISECT_PARENT:
        *base = s->lo;
        *head = s->hi;
        break;
    default:
        return 0;
    }
    *purpose = s->phase;
    return 1;
}

static int decided(pg_verdict v)
{
    return v == PG_VERDICT_REGRESSED || v == PG_VERDICT_SAME || v == PG_VERDICT_IMPROVED || v == PG_VERDICT_UNSURE;
}

/* A step found `head` slower than `base`: the narrowest such pair is what a spread change is quoted over. */
static void regressed(pg_bisect_search *s, size_t base, size_t head, size_t step)
{
    if (s->span_step == PG_BISECT_NONE || head - base < s->span_hi - s->span_lo) {
        s->span_lo = base;
        s->span_hi = head;
        s->span_step = step;
    }
    s->hi = head;
    s->direct = base;
    s->direct_step = step;
}

static void feed_halve(pg_bisect_search *s, pg_verdict v, int beyond, size_t step)
{
    if (!decided(v)) {
        /* The midpoint could not be measured: another one, as if it did not build. */
        s->skipped[s->m] = 1;
    } else if (v == PG_VERDICT_REGRESSED) {
        regressed(s, s->lo, s->m, step);
    } else if (v == PG_VERDICT_UNSURE) {
        s->phase = PG_BISECT_WIDEN;
        s->half_beyond = beyond;
    } else {
        s->lo = s->m;
    }
}

static void feed_widen(pg_bisect_search *s, pg_verdict v, int beyond, size_t step)
{
    s->phase = PG_BISECT_HALVE;
    if (!decided(v)) {
        s->skipped[s->m] = 1;
    } else if (v == PG_VERDICT_REGRESSED) {
        size_t hi = s->hi;
        s->lo = s->m;
        regressed(s, s->m, hi, step);
    } else if (v == PG_VERDICT_UNSURE && (s->half_beyond || beyond)) {
        /* A half whose interval lay beyond the threshold, unconfirmed: looked into, claiming nothing yet. */
        if (s->half_beyond)
            s->hi = s->m;
        else
            s->lo = s->m;
        s->direct = PG_BISECT_NONE;
    } else if (v == PG_VERDICT_UNSURE) {
        /* Neither half moved beyond the threshold alone, while the whole range did. */
        finish(s, PG_BISECT_SPREAD, s->span_step, s->lo, s->hi);
    } else {
        /* hi is like m: what made hi slower than an older commit made m slower too. */
        s->hi = s->m;
        s->direct = PG_BISECT_NONE;
    }
}

void pg_bisect_search_feed(pg_bisect_search *s, pg_verdict v, int beyond)
{
    size_t step = s->steps++;

    switch (s->phase) {
    case PG_BISECT_ENDS:
        if (v == PG_VERDICT_REGRESSED) {
            regressed(s, 0, s->n, step);
            s->phase = PG_BISECT_HALVE;
        } else if (v == PG_VERDICT_SAME || v == PG_VERDICT_IMPROVED) {
            finish(s, PG_BISECT_NOT_REPRODUCED, step, 0, s->n);
        } else {
            finish(s, v == PG_VERDICT_UNSURE ? PG_BISECT_UNDECIDED : PG_BISECT_ERROR, step, 0, s->n);
        }
        break;
    case PG_BISECT_HALVE:
        feed_halve(s, v, beyond, step);
        break;
    case PG_BISECT_WIDEN:
        feed_widen(s, v, beyond, step);
        break;
    case PG_BISECT_PARENT:
        if (v == PG_VERDICT_REGRESSED) {
            regressed(s, s->lo, s->hi, step);
            finish(s, s->hi - s->lo == 1 ? PG_BISECT_FOUND : PG_BISECT_UNBUILDABLE, step, s->lo, s->hi);
        } else if (decided(v)) {
            /* hi is not slower than its parent, yet slower than an older commit: spread from there. */
            finish(s, PG_BISECT_SPREAD, s->span_step, s->span_lo, s->hi);
        } else {
            finish(s, PG_BISECT_ERROR, step, s->lo, s->hi);
        }
        break;
    default:
        break;
    }
}

size_t pg_bisect_planned_steps(size_t n)
{
    size_t halvings = 0;

    while (((size_t)1 << halvings) < n)
        halvings++;
    return n <= 1 ? 1 : 2 + halvings;
}

double pg_bisect_step_alpha(double alpha, size_t n, size_t k)
{
    size_t planned = pg_bisect_planned_steps(n);
    double share = alpha / (double)(planned + 1);

    if (k <= planned)
        return share;
    return ldexp(share, -(int)(k - planned > 1000 ? 1000 : k - planned));
}

const char *pg_bisect_purpose_name(pg_bisect_purpose p)
{
    static const char *const names[] = {"ends", "halve", "widen", "parent", "done"};

    return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "?";
}

const char *pg_bisect_kind_name(pg_bisect_kind k)
{
    static const char *const names[] = {"open",      "found",       "spread", "not_reproduced",
                                        "undecided", "unbuildable", "error"};

    return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}
