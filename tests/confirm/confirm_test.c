/*
 * confirm_test.c - the confirmation stage (pg_verdict_confirm*(), verdict.h;
 * confirm.h) on seeded samples, no timing: a REGRESSED (or IMPROVED) case
 * keeps its verdict only when its re-run against the same baseline gives it
 * too; otherwise UNSURE with both measurements; a case the budget did not
 * reach keeps its verdict and says so.
 */
#include "fixture.h"
#include "support.h"

#include "ab/ab.h"
#include "stats/stats.h"
#include "base/util.h"
#include "verdict/verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double gauss(pg_rng *g)
{
    double u1 = ((double)(pg_stats_rng_next(g) >> 11) + 0.5) * 0x1.0p-53;
    double u2 = ((double)(pg_stats_rng_next(g) >> 11) + 0.5) * 0x1.0p-53;

    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static void add(pg_run *run, const char *name, double median, uint64_t seed)
{
    size_t i, n = 30;
    pg_result *r = pg_test_add_result(run, "s", name, n);
    pg_rng g;

    pg_stats_rng_seed(&g, seed);
    for (i = 0; i < n; i++)
        r->samples[i] = median * exp(0.01 * gauss(&g));
    pg_assert_ok(pg_stats_summarize(&r->summary, r->samples, n));
}

static pg_run *head, *base, *rerun;
static pg_comparison *cmp;

/* base: a and b at 1 ms; head: a +30%, b unchanged (first measurement). */
static void setup(void)
{
    const pg_run *bases[1];

    pg_assert_ok(pg_run_new(&base));
    pg_assert_ok(pg_run_new(&head));
    pg_assert_ok(pg_run_new(&rerun));
    add(base, "a", 1e-3, 1);
    add(base, "b", 1e-3, 2);
    add(head, "a", 1.30e-3, 3);
    add(head, "b", 1e-3, 4);
    bases[0] = base;
    pg_assert_ok(pg_compare(&cmp, head, bases, 1, NULL));
    cr_assert_eq(cmp->cases[0].verdict, PG_VERDICT_REGRESSED, "%s", cmp->cases[0].reason);
    cr_assert_eq(cmp->exit_code, 1);
}

static void teardown(void)
{
    pg_comparison_free(cmp);
    pg_run_free(head);
    pg_run_free(base);
    pg_run_free(rerun);
    /* A test's own .fini calls this too; a second call must find nothing left. */
    cmp = NULL;
    head = base = rerun = NULL;
}

TestSuite(confirm, .init = setup, .fini = teardown);

static void apply(void)
{
    const pg_run *bases[1] = {base};

    pg_assert_ok(pg_verdict_confirm(cmp, rerun, bases, 1, NULL));
}

Test(confirm, rerun_that_regresses_too_confirms)
{
    const pg_case_verdict *a = &cmp->cases[0];

    add(rerun, "a", 1.28e-3, 5);
    apply();
    cr_expect_eq(a->verdict, PG_VERDICT_REGRESSED);
    cr_expect_eq(a->confirm.state, PG_CONFIRM_CONFIRMED);
    cr_expect(fabs(a->confirm.ratio - 1.28) < 0.02, "re-run ratio %g", a->confirm.ratio);
    cr_expect(strstr(a->reason, "confirmed by a re-run: first run +29.8%") != NULL, "%s", a->reason);
    cr_expect(strstr(a->reason, "re-run +2") != NULL, "%s", a->reason);
    cr_expect_eq(cmp->exit_code, 1);
    cr_expect_eq(cmp->cases[1].confirm.state, PG_CONFIRM_NONE, "only REGRESSED and IMPROVED cases are re-measured");
}

Test(confirm, rerun_back_at_baseline_refutes)
{
    const pg_case_verdict *a = &cmp->cases[0];

    add(rerun, "a", 1.0e-3, 6);
    apply();
    cr_expect_eq(a->verdict, PG_VERDICT_UNSURE);
    cr_expect_eq(a->confirm.state, PG_CONFIRM_REFUTED);
    cr_expect(strstr(a->reason, "not confirmed by a re-run") != NULL, "%s", a->reason);
    cr_expect(strstr(a->reason, "first run +29.8%") != NULL && strstr(a->reason, "re-run -0.1%") != NULL, "%s",
              a->reason);
    cr_expect_eq(cmp->counts[PG_VERDICT_REGRESSED], 0);
    cr_expect_eq(cmp->counts[PG_VERDICT_UNSURE], 1 + (cmp->cases[1].verdict == PG_VERDICT_UNSURE));
    cr_expect_eq(cmp->exit_code, 0);
}

Test(confirm, no_rerun_keeps_the_verdict_and_says_so)
{
    const pg_case_verdict *a = &cmp->cases[0];

    apply();
    cr_expect_eq(a->verdict, PG_VERDICT_REGRESSED);
    cr_expect_eq(a->confirm.state, PG_CONFIRM_NOT_RUN);
    cr_expect(strstr(a->reason, "not confirmed: no re-run within --confirm-budget") != NULL, "%s", a->reason);
    cr_expect_eq(cmp->exit_code, 1);
}

Test(confirm, failed_rerun_keeps_the_verdict)
{
    pg_result *r;
    const pg_case_verdict *a = &cmp->cases[0];

    pg_assert_ok(pg_run_add_result(&r, rerun));
    r->key = pg__strdup("s/a@1:cpu");
    r->status = PG_STATUS_ERROR;
    apply();
    cr_expect_eq(a->verdict, PG_VERDICT_REGRESSED);
    cr_expect(strstr(a->reason, "the re-run produced no samples") != NULL, "%s", a->reason);
}

/*
 * Interleaved gates: the re-run is a fresh paired comparison of case a (30
 * rounds, base 1 ms against `head_median`), decided on its rounds the way
 * the gate decides one (pg_compare() without drift, then the paired stage).
 */
/* A fresh paired comparison of case `name`: base 1 ms against `head_median`, as the gate decides its re-run. */
static pg_comparison *paired_rerun(const char *name, double head_median, pg_run **again_base, pg_run **again_head)
{
    pg_compare_options o = PG_COMPARE_OPTIONS_INIT;
    pg_comparison *again;
    pg_paired_analysis pa;
    const pg_run *bases[1];

    pg_assert_ok(pg_run_new(again_base));
    pg_assert_ok(pg_run_new(again_head));
    add(*again_base, name, 1e-3, 11);
    add(*again_head, name, head_median, 12);
    bases[0] = *again_base;
    o.drift = 0;
    pg_assert_ok(pg_compare(&again, *again_head, bases, 1, &o));
    pg_assert_ok(pg_ab_paired_analyse(&pa, (*again_base)->results[0].samples, (*again_head)->results[0].samples,
                                      (*again_head)->results[0].nsamples, 0.95));
    pg_assert_ok(pg_verdict_paired(again, *again_head, &pa, &o));
    cr_assert(again->cases[0].paired, "the re-run was not decided on its paired rounds");
    return again;
}

static void confirm_paired_with(double head_median)
{
    pg_run *again_base, *again_head;
    pg_comparison *again = paired_rerun("a", head_median, &again_base, &again_head);

    pg_assert_ok(pg_verdict_confirm_paired(cmp, again));
    pg_comparison_free(again);
    pg_run_free(again_base);
    pg_run_free(again_head);
}

Test(confirm, paired_confirmation_keeps_only_what_the_fresh_rounds_regress_too)
{
    /* The fresh rounds see case a +30% again. */
    confirm_paired_with(1.30e-3);
    cr_assert_eq(cmp->cases[0].verdict, PG_VERDICT_REGRESSED);
    cr_assert_eq(cmp->cases[0].confirm.state, PG_CONFIRM_CONFIRMED);
    cr_assert(fabs(cmp->cases[0].confirm.ratio - 1.30) < 0.02, "%g", cmp->cases[0].confirm.ratio);
    cr_assert(strstr(cmp->cases[0].reason, "confirmed by a re-run: first run +") != NULL, "%s",
              cmp->cases[0].reason);
    cr_assert_eq(cmp->exit_code, 1);
    /* b was never REGRESSED: untouched. */
    cr_assert_eq(cmp->cases[1].confirm.state, PG_CONFIRM_NONE);
}

Test(confirm, paired_confirmation_refutes_a_one_off)
{
    /* The fresh rounds see no change in a: the first measurement was a phase. */
    confirm_paired_with(1e-3);
    cr_assert_eq(cmp->cases[0].verdict, PG_VERDICT_UNSURE);
    cr_assert_eq(cmp->cases[0].confirm.state, PG_CONFIRM_REFUTED);
    cr_assert(strstr(cmp->cases[0].reason, "not confirmed by a re-run") != NULL, "%s", cmp->cases[0].reason);
    cr_assert(strstr(cmp->cases[0].reason, "re-run +0.") != NULL || strstr(cmp->cases[0].reason, "re-run -0.") != NULL,
              "%s", cmp->cases[0].reason);
    cr_assert_eq(cmp->exit_code, 0);
}

Test(confirm, paired_confirmation_without_a_rerun_keeps_the_verdict)
{
    pg_assert_ok(pg_verdict_confirm_paired(cmp, NULL));
    cr_assert_eq(cmp->cases[0].verdict, PG_VERDICT_REGRESSED);
    cr_assert_eq(cmp->cases[0].confirm.state, PG_CONFIRM_NOT_RUN);
    cr_assert(strstr(cmp->cases[0].reason, "no re-run") != NULL, "%s", cmp->cases[0].reason);
}

/* An IMPROVED case c (base 1 ms, head 0.7 ms) in a comparison of its own, confirmed by a re-run at `again`. */
static pg_run *imp_runs[3];
static pg_comparison *imp;

static const pg_case_verdict *confirm_improved(double again)
{
    const pg_run *bases[1];
    size_t i;

    for (i = 0; i < 3; i++)
        pg_assert_ok(pg_run_new(&imp_runs[i]));
    add(imp_runs[0], "c", 1e-3, 21);
    add(imp_runs[1], "c", 0.7e-3, 22);
    add(imp_runs[2], "c", again, 23);
    bases[0] = imp_runs[0];
    pg_assert_ok(pg_compare(&imp, imp_runs[1], bases, 1, NULL));
    cr_assert_eq(imp->cases[0].verdict, PG_VERDICT_IMPROVED, "%s", imp->cases[0].reason);
    pg_assert_ok(pg_verdict_confirm(imp, imp_runs[2], bases, 1, NULL));
    return &imp->cases[0];
}

static void improved_teardown(void)
{
    size_t i;

    pg_comparison_free(imp);
    imp = NULL;
    for (i = 0; i < 3; i++) {
        pg_run_free(imp_runs[i]);
        imp_runs[i] = NULL;
    }
    teardown();
}

Test(confirm, an_improvement_a_rerun_refutes_is_unsure, .fini = improved_teardown)
{
    const pg_case_verdict *c = confirm_improved(1.0e-3);

    cr_expect_eq(c->verdict, PG_VERDICT_UNSURE);
    cr_expect_eq(c->confirm.state, PG_CONFIRM_REFUTED);
    cr_expect(strstr(c->reason, "not confirmed by a re-run") != NULL, "%s", c->reason);
    cr_expect(strstr(c->reason, "first run -29.3%") != NULL && strstr(c->reason, "re-run +0.3%") != NULL, "%s",
              c->reason);
    cr_expect_eq(imp->counts[PG_VERDICT_IMPROVED], 0);
    cr_expect_eq(imp->exit_code, 0);
}

Test(confirm, an_improvement_a_rerun_repeats_stands, .fini = improved_teardown)
{
    const pg_case_verdict *c = confirm_improved(0.72e-3);

    cr_expect_eq(c->verdict, PG_VERDICT_IMPROVED);
    cr_expect_eq(c->confirm.state, PG_CONFIRM_CONFIRMED);
    cr_expect(strstr(c->reason, "confirmed by a re-run: first run -29.3%") != NULL, "%s", c->reason);
}

/*
 * An interleaved gate's IMPROVED case is re-measured in fresh rounds too: a
 * process-level effect (where the memory landed in that pair of processes)
 * can make a slower head look faster, and an unconfirmed IMPROVED would hide
 * the slowdown. The fresh rounds of c see no change: UNSURE, refuted.
 */
Test(confirm, paired_confirmation_refutes_an_improvement_too, .fini = improved_teardown)
{
    pg_run *again_base, *again_head;
    pg_comparison *again;
    const pg_run *bases[1];
    const pg_case_verdict *c = confirm_improved(0.7e-3);

    cr_assert_eq(c->confirm.state, PG_CONFIRM_CONFIRMED);
    /* A fresh comparison of its own, as the gate makes it: the first verdict IMPROVED, then the paired re-run. */
    pg_comparison_free(imp);
    bases[0] = imp_runs[0];
    pg_assert_ok(pg_compare(&imp, imp_runs[1], bases, 1, NULL));
    cr_assert_eq(imp->cases[0].verdict, PG_VERDICT_IMPROVED);
    again = paired_rerun("c", 1e-3, &again_base, &again_head);
    pg_assert_ok(pg_verdict_confirm_paired(imp, again));
    cr_expect_eq(imp->cases[0].verdict, PG_VERDICT_UNSURE, "%s", imp->cases[0].reason);
    cr_expect_eq(imp->cases[0].confirm.state, PG_CONFIRM_REFUTED);
    cr_expect(strstr(imp->cases[0].reason, "not confirmed by a re-run") != NULL &&
                  strstr(imp->cases[0].reason, "first run -29.3%") != NULL,
              "%s", imp->cases[0].reason);
    cr_expect_eq(imp->counts[PG_VERDICT_IMPROVED], 0);
    pg_comparison_free(again);
    pg_run_free(again_base);
    pg_run_free(again_head);
}

/* ---- several fresh processes (history mode's confirmation) ------------------- */

/* Three re-runs of case a at the given medians, one run each (one process each). */
static void confirm_processes(const double median[3], pg_run *runs[3])
{
    const pg_run *bases[1] = {base};
    int i;

    for (i = 0; i < 3; i++) {
        pg_assert_ok(pg_run_new(&runs[i]));
        add(runs[i], "a", median[i], 40 + (uint64_t)i);
    }
    pg_assert_ok(pg_verdict_confirm_processes(cmp, (const pg_run *const *)runs, 3, bases, 1, NULL));
}

static void free_runs(pg_run *runs[3])
{
    int i;

    for (i = 0; i < 3; i++)
        pg_run_free(runs[i]);
}

Test(confirm, every_fresh_process_regressing_confirms)
{
    const double m[3] = {1.31e-3, 1.29e-3, 1.30e-3};
    const pg_case_verdict *a = &cmp->cases[0];
    pg_run *runs[3];

    confirm_processes(m, runs);
    cr_expect_eq(a->verdict, PG_VERDICT_REGRESSED, "%s", a->reason);
    cr_expect_eq(a->confirm.state, PG_CONFIRM_CONFIRMED);
    cr_expect(strstr(a->reason, "confirmed by 3 re-runs in fresh processes: first run +29.8%") != NULL, "%s", a->reason);
    cr_expect(strstr(a->reason, "all 4 processes pooled +") != NULL, "%s", a->reason);
    cr_expect_eq(cmp->exit_code, 1);
    free_runs(runs);
}

/*
 * A process that lands in a mode of its own (saxpy at 0.6 or 1.05 us per
 * process): the first run and two re-runs in the slow mode, one re-run back at
 * the baseline's. The verdict does not stand on the processes that share a mode.
 */
Test(confirm, a_fresh_process_in_the_baseline_mode_refutes_the_others)
{
    const double m[3] = {1.30e-3, 1.0e-3, 1.31e-3};
    const pg_case_verdict *a = &cmp->cases[0];
    pg_run *runs[3];

    confirm_processes(m, runs);
    cr_expect_eq(a->verdict, PG_VERDICT_UNSURE);
    cr_expect_eq(a->confirm.state, PG_CONFIRM_REFUTED);
    cr_expect(strstr(a->reason, "not confirmed by 3 re-runs in fresh processes") != NULL, "%s", a->reason);
    cr_expect(strstr(a->reason, "(not REGRESSED)") != NULL, "%s", a->reason);
    cr_expect_eq(cmp->exit_code, 0);
    free_runs(runs);
}

Test(confirm, the_head_processes_spread_widens_the_pooled_interval)
{
    pg_case_verdict t;
    pg_sample_set h[4], b[1];
    pg_run *runs[4];
    double hw_one;
    int i;
    const double m[4] = {1.30e-3, 1.10e-3, 1.45e-3, 1.20e-3};

    /* The same samples as one head run, or as four processes whose medians spread: drift measured on the head. */
    for (i = 0; i < 4; i++) {
        pg_assert_ok(pg_run_new(&runs[i]));
        add(runs[i], "a", m[i], 60 + (uint64_t)i);
        h[i] = (pg_sample_set){runs[i]->results[0].samples, runs[i]->results[0].nsamples};
    }
    b[0] = (pg_sample_set){base->results[0].samples, base->results[0].nsamples};
    memset(&t, 0, sizeof(t));
    t.key = "s/a";
    t.threshold = t.alpha = 0.05;
    pg_assert_ok(pg_verdict_estimate(&t, h, 1, b, 1, NULL));
    hw_one = t.drift.hw;
    cr_expect(!t.drift.measured);
    cr_expect_float_eq(t.drift.sd, PG_DRIFT_PRIOR, 1e-12, "one run of each side: the prior alone");
    pg_assert_ok(pg_verdict_estimate(&t, h, 4, b, 1, NULL));
    cr_expect(t.drift.measured, "four head processes measure the drift");
    cr_expect_gt(t.drift.sd, 2 * PG_DRIFT_PRIOR, "the head's processes spread %g", t.drift.sd);
    /* More processes shrink sqrt(1/H + 1/K), yet the drift they show widens the interval. */
    cr_expect_gt(t.drift.hw, hw_one, "drift half-width one process %g, four %g", hw_one, t.drift.hw);
    for (i = 0; i < 4; i++)
        pg_run_free(runs[i]);
}
