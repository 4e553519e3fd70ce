/*
 * dual_test.c - the interleaved rounds on two estimators: the sequential
 * looks with the fastest tenth beside the median block, and a round kept or
 * left out by the contention its sides met (ab/rounds.c).
 */
#include "support.h"

#include "ab/ab.h"
#include "ab/internal.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void looks(pg_ab_seq *s, size_t ncases, size_t rounds)
{
    size_t r, c;

    for (r = 1; r <= rounds; r++) {
        for (c = 0; c < ncases; c++)
            if (!s[c].settled_at)
                s[c].n = r;
        cr_assert_geq(pg_ab_seq_look(s, ncases, PG_AB_MIN_ROUNDS), 0);
    }
}

Test(ab_dual, the_fast_regime_alone_slower_never_settles_same_and_regresses_on_strong_evidence)
{
    double d[20], dl[20];
    pg_ab_seq s = PG_AB_SEQ_INIT;
    size_t r;

    /* The median blocks in the slow regime (+-1 %), the fastest tenths +11 % in every round. */
    for (r = 0; r < 20; r++) {
        d[r] = 0.01 * sin(1.3 * (double)r);
        dl[r] = log(1.11) + 0.005 * cos(0.7 * (double)r);
    }
    s.d = d;
    s.dl = dl;
    looks(&s, 1, 10);
    cr_expect_eq(s.settled_at, 0, "open after 10 rounds: the median alone would have said SAME at 5");
    cr_expect_eq(s.by, PG_BY_LOW);
    looks(&s, 1, 20);
    cr_expect_eq(s.settled, PG_VERDICT_REGRESSED, "%s", pg_verdict_name(s.settled));
    cr_expect_eq(s.settled_at, 11, "the fastest tenth's share of alpha: 11 rounds that all agree");
    cr_expect_eq(s.by, PG_BY_LOW);
}

Test(ab_dual, identical_builds_settle_same_at_the_first_look_and_a_clear_change_as_before)
{
    double d[20], dl[20], up[20];
    pg_ab_seq s[2] = {PG_AB_SEQ_INIT, PG_AB_SEQ_INIT};
    pg_paired_analysis pa;
    size_t r;

    for (r = 0; r < 20; r++) {
        d[r] = 0.01 * sin(1.3 * (double)r);
        dl[r] = 0.01 * cos(0.9 * (double)r);
        up[r] = log(1.3) + d[r];
    }
    s[0].d = d;
    s[0].dl = dl;
    s[1].d = up;
    s[1].dl = up;
    looks(s, 2, 20);
    cr_expect_eq(s[0].settled, PG_VERDICT_SAME);
    cr_expect_eq(s[0].settled_at, 5);
    /* +30 % on both with Holm over 2 cases: 6 rounds, as with the median alone. */
    cr_expect_eq(s[1].settled, PG_VERDICT_REGRESSED);
    cr_expect_eq(s[1].settled_at, 6);
    memset(&pa, 0, sizeof(pa));
    pa.dual = 1;
    pg_ab_seq_to_paired(&pa, &s[1]);
    cr_expect(pa.claim_lo > 1.05 && pa.low.lo > 1.05, "bounds %g %g", pa.claim_lo, pa.low.lo);
    cr_expect_eq(pa.low.claim_lo, 0, "the fastest tenth claims nothing alone before 11 rounds");
    cr_expect_lt(pa.low_p_slower, 0.05);
}

/* ---- a round kept or left out ----------------------------------------- */

static pg_result side(double median, double waited, size_t n)
{
    pg_result r;
    size_t i;

    memset(&r, 0, sizeof(r));
    r.status = PG_STATUS_OK;
    r.key = pg__strdup("t/x@1:cpu");
    r.samples = malloc(n * sizeof(double));
    for (i = 0; i < n; i++)
        r.samples[i] = median * (1 + 0.001 * (double)(i % 5));
    r.nsamples = n;
    r.waited = waited;
    pg_assert_ok(pg_stats_summarize(&r.summary, r.samples, n));
    return r;
}

/* One round of `ac`: each side's median and the share of its wall time it waited; pg__ab_settle's answer. */
static int one_round(ab_case *ac, const pg_ab_options *o, double base, double base_wait, double head, double head_wait)
{
    pg_result r = side(base, base_wait, 20);

    pg_assert_ok(pg__ab_keep(ac, 0, &r, o));
    r = side(head, head_wait, 20);
    pg_assert_ok(pg__ab_keep(ac, 1, &r, o));
    return pg__ab_settle(ac, o);
}

Test(ab_dual, a_case_whose_first_rounds_were_all_left_out_is_starved)
{
    pg_ab_options o = PG_AB_OPTIONS_INIT;
    pg_case c = {.key = "t/x@1:cpu"};
    ab_case ac;
    int i;

    pg_assert_ok(pg__ab_case_init(&ac, &c, 0.05, 20));
    /* Busy rounds (a side waited for a CPU 90 % of its wall time): starved only from the PG_AB_BUSY_ROUNDS-th on. */
    for (i = 0; i < PG_AB_BUSY_ROUNDS; i++) {
        cr_expect_not(pg__ab_case_starved(&ac), "after %d busy rounds", i);
        cr_expect_eq(one_round(&ac, &o, 1e-3, 0.9, 1e-3, 0.0), 0);
    }
    cr_expect(pg__ab_case_starved(&ac));
    /* One round kept: the case is measurable after all, never starved again. */
    cr_expect_eq(one_round(&ac, &o, 1e-3, 0.0, 1e-3, 0.1), 1);
    cr_expect_not(pg__ab_case_starved(&ac));
    pg__ab_case_clear(&ac);
}

Test(ab_dual, a_round_whose_side_lost_half_its_wall_time_is_left_out_and_noted)
{
    pg_ab_options o = PG_AB_OPTIONS_INIT;
    pg_case c;
    ab_case ac;
    pg_result r;
    pg_round_notes notes;

    memset(&c, 0, sizeof(c));
    c.key = "t/x@1:cpu";
    pg_assert_ok(pg__ab_case_init(&ac, &c, 0.05, 4));
    /* A clean round: kept, both estimators' log ratios recorded. */
    r = side(1e-3, 0.01, 20);
    pg_assert_ok(pg__ab_keep(&ac, 0, &r, &o));
    r = side(1.1e-3, 0.02, 20);
    pg_assert_ok(pg__ab_keep(&ac, 1, &r, &o));
    cr_expect_eq(pg__ab_settle(&ac, &o), 1);
    cr_expect_eq(ac.n[1], 1);
    cr_expect(fabs(ac.d[0] - log(1.1)) < 1e-3 && fabs(ac.dl[0] - log(1.1)) < 1e-3, "%g %g", ac.d[0], ac.dl[0]);
    /* The head waited for a CPU 60 % of its wall time: measured, left out, counted. */
    r = side(1e-3, 0.0, 20);
    pg_assert_ok(pg__ab_keep(&ac, 0, &r, &o));
    r = side(2e-3, 0.6, 20);
    pg_assert_ok(pg__ab_keep(&ac, 1, &r, &o));
    cr_expect_eq(pg__ab_settle(&ac, &o), 0);
    cr_expect_eq(ac.n[1], 1, "the busy round is not among the rounds compared");
    cr_expect(!ac.failed[0] && !ac.failed[1]);
    pg__ab_notes(&notes, &ac);
    cr_expect_eq(notes.measured, 2);
    cr_expect_eq(notes.contended, 1);
    cr_expect_float_eq(notes.busiest, 0.6, 1e-12);
    cr_expect_float_eq(notes.busy_mean, (0.02 + 0.6) / 2, 1e-12);
    cr_expect_eq(notes.sides, 2, "only the kept round's sides are described");
    /* A side without a positive time is a failed side, never a value. */
    r = side(1e-3, 0.0, 20);
    r.samples[3] = 0;
    pg_assert_ok(pg__ab_keep(&ac, 0, &r, &o));
    r = side(1e-3, 0.0, 20);
    pg_assert_ok(pg__ab_keep(&ac, 1, &r, &o));
    cr_expect_eq(pg__ab_settle(&ac, &o), 0);
    cr_expect(ac.failed[0]);
    pg__ab_case_clear(&ac);
}

/*
 * A case with a round left out for contention has fewer rounds at a look than
 * the others: it is in Holm's family all the same (p = 1 until its first look),
 * or the family would be smaller at the look than in the final comparison.
 */
Test(ab_dual, a_case_not_yet_looked_at_counts_in_holms_family)
{
    double up[10], d[10];
    pg_ab_seq s[2] = {PG_AB_SEQ_INIT, PG_AB_SEQ_INIT};
    size_t r;

    for (r = 0; r < 10; r++) {
        up[r] = log(1.3) + 0.01 * sin((double)r);
        d[r] = 0.01 * cos((double)r);
    }
    s[0].d = s[0].dl = up;
    s[1].d = s[1].dl = d;
    s[0].n = 5;
    s[1].n = 4; /* a round left out: not looked at yet */
    cr_assert_geq(pg_ab_seq_look(s, 2, PG_AB_MIN_ROUNDS), 0);
    /* Alone, five rounds that all agree are REGRESSED (p 0.047 < 0.05); with the other case in the family, 0.094. */
    cr_expect_eq(s[0].settled_at, 0, "settled %s with a family of one", pg_verdict_name(s[0].settled));
    s[0].n = 7;
    s[1].n = 6;
    cr_assert_geq(pg_ab_seq_look(s, 2, PG_AB_MIN_ROUNDS), 0);
    cr_expect_eq(s[0].settled, PG_VERDICT_REGRESSED);
}
