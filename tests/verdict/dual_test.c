/*
 * dual_test.c - SAME earned on two estimators (verdict/dual.c): the rule on
 * the median block and the fastest tenth, the weighted split of alpha, the
 * reasons that name the regimes, the rounds left out for contention, and a
 * history-mode head that waited for its CPU.
 */
#include "support.h"

#include "ab/ab.h"
#include "stats/stats.h"
#include "base/util.h"
#include "verdict/verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static pg_estimator_bounds b(double ratio, double lo, double hi, double claim_lo, double claim_hi)
{
    pg_estimator_bounds e = {ratio, lo, hi, claim_lo, claim_hi};

    return e;
}

Test(dual_rule, same_needs_both_estimators_inside_the_band)
{
    pg_estimator_bounds in = b(1.0, 0.98, 1.02, 0.97, 1.03), open = b(1.06, 1.01, 1.12, 0.99, 1.14);
    pg_decided_by by;

    cr_expect_eq(pg_verdict_rule_dual(&by, &in, &in, 0.5, 0.05, 0.05), PG_VERDICT_SAME);
    cr_expect_eq(by, PG_BY_BOTH);
    /* The median is inside, the fastest tenth is not settled: never SAME, and it says which held it open. */
    cr_expect_eq(pg_verdict_rule_dual(&by, &in, &open, 0.01, 0.05, 0.05), PG_VERDICT_UNSURE);
    cr_expect_eq(by, PG_BY_LOW);
    cr_expect_eq(pg_verdict_rule_dual(&by, &open, &in, 0.01, 0.05, 0.05), PG_VERDICT_UNSURE);
    cr_expect_eq(by, PG_BY_MEDIAN);
}

Test(dual_rule, either_estimator_shows_a_change_and_a_conflict_is_unsure)
{
    pg_estimator_bounds in = b(1.0, 0.98, 1.02, 0.97, 1.03), slower = b(1.11, 1.08, 1.14, 1.07, 1.15),
                        faster = b(0.85, 0.82, 0.88, 0.81, 0.89), near = b(1.09, 1.06, 1.12, 1.04, 1.13);
    pg_decided_by by;

    /* The user's stencil: the fastest tenth +11 % in every round, the median block in the slow regime. */
    cr_expect_eq(pg_verdict_rule_dual(&by, &in, &slower, 0.001, 0.05, 0.05), PG_VERDICT_REGRESSED);
    cr_expect_eq(by, PG_BY_LOW);
    cr_expect_eq(pg_verdict_rule_dual(&by, &slower, &slower, 0.001, 0.05, 0.05), PG_VERDICT_REGRESSED);
    cr_expect_eq(by, PG_BY_BOTH);
    cr_expect_eq(pg_verdict_rule_dual(&by, &faster, &in, 0.001, 0.05, 0.05), PG_VERDICT_IMPROVED);
    cr_expect_eq(by, PG_BY_MEDIAN);
    cr_expect_eq(pg_verdict_rule_dual(&by, &slower, &faster, 0.001, 0.05, 0.05), PG_VERDICT_UNSURE);
    cr_expect_eq(by, PG_BY_CONFLICT);
    /* A claim needs the claim interval beyond the threshold (its share of alpha), and Holm's p. */
    cr_expect_eq(pg_verdict_rule_dual(&by, &in, &near, 0.001, 0.05, 0.05), PG_VERDICT_UNSURE);
    cr_expect_eq(pg_verdict_rule_dual(&by, &slower, &slower, 0.2, 0.05, 0.05), PG_VERDICT_UNSURE);
}

Test(dual_rule, alpha_is_split_98_to_2_between_the_estimators)
{
    cr_expect_float_eq(pg_verdict_dual_p(0.049, 1), 0.049 / 0.98, 1e-12);
    cr_expect_float_eq(pg_verdict_dual_p(1, 0.0004), 0.02, 1e-12);
    cr_expect_float_eq(pg_verdict_dual_p(0.5, 0.5), 0.5 / 0.98, 1e-12);
    cr_expect_eq(pg_verdict_dual_p(1, 1), 1.0);
    /* Five rounds that all agree still settle one case on the median (wealth 21.8 at alpha 0.05 * 0.98). */
    cr_expect_eq(pg_stats_sign_cs_k(5, 0.05 * PG_MEDIAN_ALPHA_SHARE, NULL, 0), 5);
    cr_expect_eq(pg_stats_sign_cs_k(10, 0.05 / 20 * PG_MEDIAN_ALPHA_SHARE, NULL, 0), 10);
    /* The fastest tenth claims alone only on strong evidence: 11 rounds that all agree. */
    cr_expect_eq(pg_stats_sign_cs_k(10, 0.05 * PG_LOW_ALPHA_SHARE, NULL, 0), 11);
    cr_expect_eq(pg_stats_sign_cs_k(11, 0.05 * PG_LOW_ALPHA_SHARE, NULL, 0), 11);
}

/* ---- a paired comparison on two estimators ------------------------------ */

static pg_result *add(pg_run *run, const char *name, const double *x, size_t n)
{
    pg_result *r;

    pg_assert_ok(pg_run_add_result(&r, run));
    r->key = pg__asprintf("t/%s@1:cpu", name);
    r->suite = pg__strdup("t");
    r->name = pg__strdup(name);
    r->status = PG_STATUS_OK;
    r->samples = malloc(n * sizeof(double));
    memcpy(r->samples, x, n * sizeof(double));
    r->nsamples = n;
    pg_assert_ok(pg_stats_summarize(&r->summary, r->samples, n));
    return r;
}

/*
 * Rounds of the user's stencil: both sides' median blocks in the slow regime
 * (480 us, a wobble of its own per side), the head's fastest tenth 11 % above
 * the base's (352 against 391 us): what the gate saw.
 */
static void stencil_rounds(double *bm, double *hm, double *bl, double *hl, size_t n, double change)
{
    size_t i;

    for (i = 0; i < n; i++) {
        double w = 1 + 0.01 * sin(1.7 * (double)i), u = 1 + 0.01 * cos(2.3 * (double)i);
        bm[i] = 480e-6 * w;
        hm[i] = 480e-6 * u;
        bl[i] = 352e-6 * u;
        hl[i] = 352e-6 * change * w;
    }
}

static pg_comparison *paired(pg_run **head, pg_run **base, const double *bm, const double *hm, const double *bl,
                             const double *hl, size_t n, const pg_round_notes *notes)
{
    pg_compare_options co = PG_COMPARE_OPTIONS_INIT;
    pg_paired_analysis pa;
    pg_comparison *cmp;

    pg_assert_ok(pg_run_new(head));
    pg_assert_ok(pg_run_new(base));
    add(*base, "stencil", bm, n);
    add(*head, "stencil", hm, n);
    pg_assert_ok(pg_ab_paired_analyse_dual(&pa, bm, hm, bl, hl, n, 0.05));
    if (notes)
        pa.notes = *notes;
    co.drift = 0;
    pg_assert_ok(pg_compare(&cmp, *head, (const pg_run *const *)base, 1, &co));
    pg_assert_ok(pg_verdict_paired(cmp, *head, &pa, &co));
    return cmp;
}

Test(dual_paired, a_change_in_the_fast_regime_only_is_never_same_and_names_the_regimes)
{
    double bm[20], hm[20], bl[20], hl[20];
    pg_round_notes notes = {0};
    pg_run *head, *base;
    pg_comparison *cmp;
    const pg_case_verdict *v;

    stencil_rounds(bm, hm, bl, hl, 20, 1.11);
    notes.measured = notes.sides = 40;
    notes.bimodal = 28;
    notes.fast = 375e-6;
    notes.slow = 480e-6;
    notes.slow_share = 0.6;
    cmp = paired(&head, &base, bm, hm, bl, hl, 20, &notes);
    v = &cmp->cases[0];
    cr_assert(v->dual.on);
    cr_expect_eq(v->verdict, PG_VERDICT_REGRESSED, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_expect_eq(v->dual.by, PG_BY_LOW);
    /* What the reports show is the estimator that decided: +11 %, not the median's 0. */
    cr_expect(fabs(v->est.ratio - 1.11) < 0.02, "shown %g", v->est.ratio);
    cr_expect(fabs(v->dual.median.ratio - 1) < 0.02, "median %g", v->dual.median.ratio);
    cr_expect(strstr(v->reason, "in the fastest tenth of each round only") != NULL, "%s", v->reason);
    cr_expect(strstr(v->reason, "a fast (~375 us) and a slow (~480 us) regime") != NULL ||
                  strstr(v->reason, "a fast (~375 µs) and a slow (~480 µs) regime") != NULL,
              "%s", v->reason);
    cr_expect(strstr(cmp->method, "two estimators per round") != NULL, "%s", cmp->method);
    pg_comparison_free(cmp);
    pg_run_free(head);
    pg_run_free(base);
}

Test(dual_paired, identical_builds_earn_same_on_both_with_the_regime_line)
{
    double bm[20], hm[20], bl[20], hl[20];
    pg_run *head, *base;
    pg_comparison *cmp;
    const pg_case_verdict *v;

    stencil_rounds(bm, hm, bl, hl, 20, 1.0);
    cmp = paired(&head, &base, bm, hm, bl, hl, 20, NULL);
    v = &cmp->cases[0];
    cr_expect_eq(v->verdict, PG_VERDICT_SAME, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_expect_eq(v->dual.by, PG_BY_BOTH);
    cr_expect(v->regime && strstr(v->regime, "one regime") != NULL, "%s", v->regime ? v->regime : "(none)");
    cr_expect(strstr(v->reason, "the fastest tenth of each round") != NULL, "%s", v->reason);
    pg_comparison_free(cmp);
    pg_run_free(head);
    pg_run_free(base);
}

Test(dual_paired, a_case_whose_every_round_was_left_out_is_unsure_because_the_machine_was_busy)
{
    pg_compare_options co = PG_COMPARE_OPTIONS_INIT;
    pg_paired_analysis pa;
    pg_run *head, *base;
    pg_result *r;
    pg_comparison *cmp;

    pg_assert_ok(pg_run_new(&head));
    pg_assert_ok(pg_run_new(&base));
    /* Measured, no round kept: both results OK without samples, as the A/B leaves them. */
    pg_assert_ok(pg_run_add_result(&r, base));
    r->key = pg__strdup("t/busy@1:cpu");
    r->suite = pg__strdup("t");
    r->name = pg__strdup("busy");
    pg_assert_ok(pg_run_add_result(&r, head));
    r->key = pg__strdup("t/busy@1:cpu");
    r->suite = pg__strdup("t");
    r->name = pg__strdup("busy");
    pg_assert_ok(pg_ab_paired_analyse(&pa, NULL, NULL, 0, 0.95));
    pa.notes.measured = pa.notes.contended = 20;
    pa.notes.busy_mean = 0.62;
    co.drift = 0;
    pg_assert_ok(pg_compare(&cmp, head, (const pg_run *const *)&base, 1, &co));
    pg_assert_ok(pg_verdict_paired(cmp, head, &pa, &co));
    cr_expect_eq(cmp->cases[0].verdict, PG_VERDICT_UNSURE);
    cr_expect(strstr(cmp->cases[0].reason, "this process ran 38% of the wall time") != NULL, "%s", cmp->cases[0].reason);
    cr_expect(strstr(cmp->cases[0].reason, "the machine was busy") != NULL, "%s", cmp->cases[0].reason);
    cr_expect_eq(cmp->outcome, PG_OUTCOME_NOTHING_COMPARED);
    pg_comparison_free(cmp);
    pg_run_free(head);
    pg_run_free(base);
}

Test(dual_history, a_head_that_waited_for_its_cpu_is_never_a_verdict)
{
    double x[30], y[30];
    pg_run *head, *base;
    pg_comparison *cmp;
    pg_result *h;
    size_t i;

    for (i = 0; i < 30; i++) {
        x[i] = 1e-3 * (1 + 0.001 * (double)(i % 5));
        y[i] = 1.5e-3 * (1 + 0.001 * (double)(i % 5));
    }
    pg_assert_ok(pg_run_new(&head));
    pg_assert_ok(pg_run_new(&base));
    add(base, "waited", x, 30);
    h = add(head, "waited", y, 30);
    h->waited = 0.30;
    h->stolen = 0.02;
    pg_assert_ok(pg_compare(&cmp, head, (const pg_run *const *)&base, 1, NULL));
    cr_expect_eq(cmp->cases[0].verdict, PG_VERDICT_UNSURE, "%s", pg_verdict_name(cmp->cases[0].verdict));
    cr_expect(strstr(cmp->cases[0].reason, "this process ran 68% of the wall time while sampling") != NULL, "%s",
              cmp->cases[0].reason);
    pg_comparison_free(cmp);
    /* The same head with its CPU to itself: +50 %, REGRESSED. */
    h->waited = h->stolen = 0;
    pg_assert_ok(pg_compare(&cmp, head, (const pg_run *const *)&base, 1, NULL));
    cr_expect_eq(cmp->cases[0].verdict, PG_VERDICT_REGRESSED, "%s", cmp->cases[0].reason);
    pg_comparison_free(cmp);
    pg_run_free(head);
    pg_run_free(base);
}

Test(dual_history, a_head_whose_samples_hold_two_regimes_says_which_its_median_measured)
{
    double x[60], y[60];
    pg_run *head, *base;
    pg_comparison *cmp;
    size_t i;

    for (i = 0; i < 60; i++) {
        x[i] = 1e-3 * (1 + 0.001 * (double)(i % 5));
        /* 24 of 60 blocks in a slow regime 28 % above the fast one. */
        y[i] = (i % 5 < 2 ? 1.28e-3 : 1e-3) * (1 + 0.001 * (double)(i % 7));
    }
    pg_assert_ok(pg_run_new(&head));
    pg_assert_ok(pg_run_new(&base));
    add(base, "modes", x, 60);
    add(head, "modes", y, 60);
    pg_assert_ok(pg_compare(&cmp, head, (const pg_run *const *)&base, 1, NULL));
    cr_assert(cmp->cases[0].regime != NULL);
    cr_expect(strstr(cmp->cases[0].regime, "40% of them slow): its median measured the fast one") != NULL, "%s",
              cmp->cases[0].regime);
    cr_expect(strstr(cmp->cases[0].reason, cmp->cases[0].regime) != NULL, "%s", cmp->cases[0].reason);
    pg_comparison_free(cmp);
    pg_run_free(head);
    pg_run_free(base);
}
