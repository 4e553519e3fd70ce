/*
 * search_test.c - the bisection's state machine against oracles whose
 * truth is known: a level per commit, and a gate that says REGRESSED only
 * beyond the threshold, SAME only inside it, UNSURE in a grey zone around
 * it (the rule's behaviour with an interval a couple of percent wide), or
 * UNSURE by "noise" on chosen steps.
 */
#include "support.h"

#include "bisect/search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define T 0.05   /* the threshold */
#define GREY 0.015 /* half the interval's width: a change within GREY of T is UNSURE */

typedef struct oracle {
    const double *level; /* log time of each commit */
    size_t n;
    size_t unsure_at;    /* this step (0-based) is UNSURE whatever the truth; SIZE_MAX: none */
    const unsigned char *fails; /* commits whose case cannot be measured; NULL */
    size_t refuted_at;   /* this step, when REGRESSED, is UNSURE with its interval beyond (not confirmed); 0: none */
} oracle;

static pg_verdict judge_beyond(const oracle *o, size_t base, size_t head, size_t step, int *beyond)
{
    double d = o->level[head] - o->level[base], t = log1p(T);

    *beyond = 0;
    if (step == o->unsure_at)
        return PG_VERDICT_UNSURE;
    if (step == o->refuted_at && o->refuted_at && d - GREY > t) {
        *beyond = 1;
        return PG_VERDICT_UNSURE;
    }
    if (o->fails && o->fails[head])
        return PG_VERDICT_ERROR;
    if (d - GREY > t)
        return PG_VERDICT_REGRESSED;
    if (d + GREY < -t)
        return PG_VERDICT_IMPROVED;
    if (fabs(d) + GREY < t)
        return PG_VERDICT_SAME;
    return PG_VERDICT_UNSURE;
}

static pg_verdict judge(const oracle *o, size_t base, size_t head, size_t step)
{
    int beyond;

    return judge_beyond(o, base, head, step, &beyond);
}

/* Runs the search to its end; returns the steps taken. */
static size_t run(pg_bisect_search *s, const oracle *o, const unsigned char *unbuilt)
{
    size_t base, head, i;
    pg_bisect_purpose purpose;

    pg_assert_ok(pg_bisect_search_init(s, o->n));
    for (i = 0; unbuilt && i <= o->n; i++)
        if (unbuilt[i])
            pg_bisect_search_skip(s, i);
    while (pg_bisect_search_next(s, &base, &head, &purpose)) {
        int beyond;
        pg_verdict v;
        cr_assert(base < head && head <= o->n, "step %zu gates %zu against %zu", s->steps, head, base);
        cr_assert(s->steps < 4 * o->n + 8, "the search does not end");
        v = judge_beyond(o, base, head, s->steps, &beyond);
        pg_bisect_search_feed(s, v, beyond);
    }
    return s->steps;
}

static double *flat(size_t n)
{
    double *l = calloc(n + 1, sizeof(*l));

    cr_assert(l);
    return l;
}

/* A step of `pct` percent at commit k (k and every later commit). */
static void step_at(double *l, size_t n, size_t k, double pct)
{
    size_t i;

    for (i = k; i <= n; i++)
        l[i] += log1p(pct / 100);
}

Test(bisect_search, sharp_change_at_every_commit_is_found_within_the_planned_steps)
{
    static const size_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 31, 32, 33, 100};
    size_t si, k;

    for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        size_t n = sizes[si];
        for (k = 1; k <= n; k++) {
            double *l = flat(n);
            oracle o = {l, n, (size_t)-1, NULL, 0};
            pg_bisect_search s;
            size_t steps;
            step_at(l, n, k, 10);
            steps = run(&s, &o, NULL);
            cr_assert_eq(s.kind, PG_BISECT_FOUND, "n %zu, change at %zu: %s", n, k, pg_bisect_kind_name(s.kind));
            cr_assert_eq(s.culprit, k, "n %zu: found %zu, not %zu", n, s.culprit, k);
            cr_assert_leq(steps, pg_bisect_planned_steps(n), "n %zu, change at %zu: %zu steps, %zu planned", n, k,
                          steps, pg_bisect_planned_steps(n));
            cr_assert_eq(s.range_lo, k - 1);
            cr_assert_eq(s.range_hi, k);
            pg_bisect_search_clear(&s);
            free(l);
        }
    }
}

Test(bisect_search, thirty_one_commits_plan_seven_steps)
{
    cr_assert_eq(pg_bisect_planned_steps(31), 7);
    cr_assert_eq(pg_bisect_planned_steps(32), 7);
    cr_assert_eq(pg_bisect_planned_steps(33), 8);
    cr_assert_eq(pg_bisect_planned_steps(1), 1);
    cr_assert_eq(pg_bisect_planned_steps(2), 3);
}

Test(bisect_search, an_unrelated_small_change_is_not_blamed)
{
    /* +2 % at commit 6 and +10 % at commit 18 (of the chain 0..31): the search follows the one case. */
    double *l = flat(31);
    oracle o = {l, 31, (size_t)-1, NULL, 0};
    pg_bisect_search s;

    step_at(l, 31, 6, 2);
    step_at(l, 31, 18, 10);
    run(&s, &o, NULL);
    cr_assert_eq(s.kind, PG_BISECT_FOUND);
    cr_assert_eq(s.culprit, 18);
    pg_bisect_search_clear(&s);
    free(l);
}

Test(bisect_search, a_flat_range_is_not_reproduced_in_one_step)
{
    double *l = flat(31);
    oracle o = {l, 31, (size_t)-1, NULL, 0};
    pg_bisect_search s;

    cr_assert_eq(run(&s, &o, NULL), 1);
    cr_assert_eq(s.kind, PG_BISECT_NOT_REPRODUCED);
    pg_bisect_search_clear(&s);
    step_at(l, 31, 9, -20); /* faster: nothing to bisect either */
    cr_assert_eq(run(&s, &o, NULL), 1);
    cr_assert_eq(s.kind, PG_BISECT_NOT_REPRODUCED);
    pg_bisect_search_clear(&s);
    free(l);
}

Test(bisect_search, unsure_ends_are_undecided_not_guessed)
{
    double *l = flat(31);
    oracle o = {l, 31, 0, NULL, 0};
    pg_bisect_search s;

    step_at(l, 31, 12, 10);
    cr_assert_eq(run(&s, &o, NULL), 1);
    cr_assert_eq(s.kind, PG_BISECT_UNDECIDED);
    cr_assert_eq(s.culprit, (size_t)-1);
    pg_bisect_search_clear(&s);
    free(l);
}

/* +10 % spread as four steps of 2.5 % at commits first..first+3: spread, never one commit. */
static void spread_case(size_t n, size_t first)
{
    double *l = flat(n);
    oracle o = {l, n, (size_t)-1, NULL, 0};
    pg_bisect_search s;
    size_t i;

    for (i = 0; i < 4; i++)
        step_at(l, n, first + i, 2.41); /* 1.0241^4 = 1.10 */
    run(&s, &o, NULL);
    cr_assert_eq(s.kind, PG_BISECT_SPREAD, "changes at %zu..%zu of %zu: %s at %zu", first, first + 3, n,
                 pg_bisect_kind_name(s.kind), s.culprit);
    /* The range it names holds at least two of the four, and reaches no further than the change that was measured. */
    cr_assert(s.range_lo + 1 <= first + 2 && s.range_hi >= first + 1, "range %zu..%zu for changes %zu..%zu",
              s.range_lo + 1, s.range_hi, first, first + 3);
    pg_bisect_search_clear(&s);
    free(l);
}

Test(bisect_search, a_change_spread_over_four_commits_is_spread_wherever_it_sits)
{
    size_t first;

    spread_case(31, 16); /* the chain of the must-show: commits 17..20 of 32 */
    for (first = 1; first + 3 <= 31; first++)
        spread_case(31, first);
}

Test(bisect_search, spread_over_commits_seventeen_to_twenty_names_them)
{
    double *l = flat(31);
    oracle o = {l, 31, (size_t)-1, NULL, 0};
    pg_bisect_search s;
    size_t i;

    for (i = 16; i < 20; i++)
        step_at(l, 31, i, 2.41);
    run(&s, &o, NULL);
    cr_assert_eq(s.kind, PG_BISECT_SPREAD);
    cr_assert_eq(s.range_lo, 15);
    cr_assert_eq(s.range_hi, 19);
    pg_bisect_search_clear(&s);
    free(l);
}

Test(bisect_search, an_unsure_step_widens_and_still_finds_the_commit)
{
    size_t at;

    /* Noise on any one halving: the other half is gated, and the change is still found. */
    for (at = 1; at < 6; at++) {
        double *l = flat(31);
        oracle o = {l, 31, at, NULL, 0};
        pg_bisect_search s;
        size_t steps;
        step_at(l, 31, 18, 10);
        steps = run(&s, &o, NULL);
        cr_assert_eq(s.kind, PG_BISECT_FOUND, "unsure at step %zu: %s", at, pg_bisect_kind_name(s.kind));
        cr_assert_eq(s.culprit, 18, "unsure at step %zu: found %zu", at, s.culprit);
        cr_assert_leq(steps, pg_bisect_planned_steps(31) + 3);
        pg_bisect_search_clear(&s);
        free(l);
    }
}

Test(bisect_search, an_unconfirmed_half_is_looked_into_and_still_needs_its_own_claim)
{
    size_t at;

    /* A halving's rounds said REGRESSED and its confirmation did not, and the other half is UNSURE by noise. */
    for (at = 1; at < 6; at++) {
        double *l = flat(31);
        oracle o = {l, 31, at + 1, NULL, at};
        pg_bisect_search s;
        step_at(l, 31, 18, 10);
        run(&s, &o, NULL);
        cr_assert_eq(s.kind, PG_BISECT_FOUND, "refuted at step %zu: %s", at, pg_bisect_kind_name(s.kind));
        cr_assert_eq(s.culprit, 18, "refuted at step %zu: found %zu", at, s.culprit);
        pg_bisect_search_clear(&s);
        free(l);
    }
}

Test(bisect_search, midpoints_that_do_not_build_are_passed_over)
{
    double *l = flat(31);
    unsigned char unbuilt[32] = {0}, fails[32] = {0};
    oracle o = {l, 31, (size_t)-1, NULL, 0};
    pg_bisect_search s;

    step_at(l, 31, 18, 10);
    unbuilt[15] = unbuilt[22] = unbuilt[20] = 1; /* the midpoints it would take */
    run(&s, &o, unbuilt);
    cr_assert_eq(s.kind, PG_BISECT_FOUND);
    cr_assert_eq(s.culprit, 18);
    pg_bisect_search_clear(&s);
    /* A midpoint whose case cannot be measured is passed over the same way. */
    fails[15] = fails[23] = 1;
    o.fails = fails;
    run(&s, &o, NULL);
    cr_assert_eq(s.kind, PG_BISECT_FOUND);
    cr_assert_eq(s.culprit, 18);
    pg_bisect_search_clear(&s);
    free(l);
}

Test(bisect_search, a_culprit_behind_commits_that_do_not_build_is_a_range)
{
    double *l = flat(31);
    unsigned char unbuilt[32] = {0};
    oracle o = {l, 31, (size_t)-1, NULL, 0};
    pg_bisect_search s;

    step_at(l, 31, 18, 10);
    unbuilt[17] = unbuilt[18] = 1; /* 17, 18 do not build: the change is in 17..19 */
    run(&s, &o, unbuilt);
    cr_assert_eq(s.kind, PG_BISECT_UNBUILDABLE, "%s", pg_bisect_kind_name(s.kind));
    cr_assert_eq(s.range_lo, 16);
    cr_assert_eq(s.range_hi, 19);
    pg_bisect_search_clear(&s);
    free(l);
}

Test(bisect_search, the_step_shares_never_sum_beyond_alpha)
{
    static const size_t sizes[] = {1, 2, 31, 1000, 1000000};
    size_t si, k;

    for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        size_t planned = pg_bisect_planned_steps(sizes[si]);
        double sum = 0;
        for (k = 1; k <= 2000; k++)
            sum += pg_bisect_step_alpha(0.05, sizes[si], k);
        cr_assert_leq(sum, 0.05 * (1 + 1e-12), "n %zu: %.17g", sizes[si], sum); /* alpha, but for rounding */
        cr_assert_float_eq(pg_bisect_step_alpha(0.05, sizes[si], 1), 0.05 / (double)(planned + 1), 1e-15);
        cr_assert_float_eq(pg_bisect_step_alpha(0.05, sizes[si], planned + 2), 0.05 / (double)(planned + 1) / 4, 1e-15);
    }
}

Test(bisect_search, the_same_verdicts_replay_the_same_steps)
{
    double *l = flat(31);
    oracle o = {l, 31, 3, NULL, 0};
    pg_bisect_search a, b;
    size_t ba, ha, bb, hb;
    pg_bisect_purpose pa, pb;

    step_at(l, 31, 22, 10);
    pg_assert_ok(pg_bisect_search_init(&a, 31));
    pg_assert_ok(pg_bisect_search_init(&b, 31));
    while (pg_bisect_search_next(&a, &ba, &ha, &pa)) {
        pg_verdict v = judge(&o, ba, ha, a.steps);
        cr_assert(pg_bisect_search_next(&b, &bb, &hb, &pb));
        cr_assert(ba == bb && ha == hb && pa == pb);
        pg_bisect_search_feed(&a, v, 0);
        pg_bisect_search_feed(&b, v, 0);
    }
    cr_assert(!pg_bisect_search_next(&b, &bb, &hb, &pb));
    cr_assert_eq(a.culprit, 22);
    pg_bisect_search_clear(&a);
    pg_bisect_search_clear(&b);
    free(l);
}
