/*
 * verdict_test.c - every verdict path of pg_compare() on synthetic runs with
 * seeded log-normal samples: REGRESSED, IMPROVED, SAME, each kind of UNSURE,
 * NEW, MISSING, ERROR, SKIPPED, failed exact checks, Holm and drift.
 */
#include "support.h"

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

/* Adds case `name` with n samples around `median` (log-normal, sd `noise`). */
static pg_result *add_case(pg_run *run, const char *name, size_t n, double median, double noise, pg_rng *g)
{
    pg_result *r;
    size_t i;

    pg_assert_ok(pg_run_add_result(&r, run));
    r->key = pg__asprintf("t/%s@1:cpu", name);
    r->suite = pg__strdup("t");
    r->name = pg__strdup(name);
    r->status = PG_STATUS_OK;
    r->samples = calloc(n ? n : 1, sizeof(double));
    r->nsamples = n;
    for (i = 0; i < n; i++)
        r->samples[i] = median * exp(noise * gauss(g));
    if (n)
        pg_assert_ok(pg_stats_summarize(&r->summary, r->samples, n));
    return r;
}

typedef struct fixture {
    pg_run *head;
    pg_run *bases[16];
    size_t nbases;
    pg_comparison *cmp;
} fixture;

static fixture fx;

static void setup(void)
{
    memset(&fx, 0, sizeof(fx));
    pg_assert_ok(pg_run_new(&fx.head));
}

static void teardown(void)
{
    size_t i;

    pg_comparison_free(fx.cmp);
    pg_run_free(fx.head);
    for (i = 0; i < fx.nbases; i++)
        pg_run_free(fx.bases[i]);
}

TestSuite(verdict, .init = setup, .fini = teardown);

/* K baseline runs of one case whose run medians wander by `drift` (sd of log medians). */
static void bases_of(const char *name, size_t k, size_t n, double noise, double drift, uint64_t seed)
{
    pg_rng g;
    size_t i;

    pg_stats_rng_seed(&g, seed);
    for (i = 0; i < k; i++) {
        if (fx.nbases <= i) {
            pg_assert_ok(pg_run_new(&fx.bases[i]));
            fx.nbases = i + 1;
        }
        add_case(fx.bases[i], name, n, 1e-3 * exp(drift * gauss(&g)), noise, &g);
    }
}

static void compare(const pg_compare_options *o)
{
    pg_comparison_free(fx.cmp);
    fx.cmp = NULL;
    pg_assert_ok(pg_compare(&fx.cmp, fx.head, (const pg_run *const *)fx.bases, fx.nbases, o));
}

static const pg_case_verdict *verdict_of(const char *name)
{
    size_t i;

    for (i = 0; i < fx.cmp->ncases; i++)
        if (strcmp(fx.cmp->cases[i].name, name) == 0)
            return &fx.cmp->cases[i];
    cr_assert_fail("no verdict for %s", name);
    return NULL;
}

Test(verdict, regressed_when_significant_and_beyond_threshold)
{
    pg_rng g;
    const pg_case_verdict *v;

    pg_stats_rng_seed(&g, 1);
    bases_of("a", 5, 40, 0.01, 0.002, 11);
    add_case(fx.head, "a", 40, 1.2e-3, 0.01, &g);
    compare(NULL);
    v = verdict_of("a");
    cr_assert_eq(v->verdict, PG_VERDICT_REGRESSED, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_assert_eq(fx.cmp->exit_code, 1);
    cr_assert(v->est.p_adj < 0.05 && v->est.ci_lo > 1.05 && v->est.ci_hi > v->est.ratio && v->est.ci_lo < v->est.ratio,
              "p_adj %g [%g, %g] ratio %g", v->est.p_adj, v->est.ci_lo, v->est.ci_hi, v->est.ratio);
    cr_assert(fabs(v->est.ratio - 1.2) < 0.02, "ratio %g", v->est.ratio);
    cr_assert_eq(v->est.base_runs, 5);
    cr_assert_eq(v->est.base_n, 200);
    cr_assert_eq(v->est.head_n, 40);
    cr_assert(v->drift.measured);
    cr_assert(v->est.resolution > 0.05 && v->est.resolution < 0.2, "resolution %g", v->est.resolution);
    cr_assert(strstr(v->reason, "Holm") != NULL, "%s", v->reason);
    cr_assert(strstr(fx.cmp->method, "Mann-Whitney") != NULL, "%s", fx.cmp->method);
}

Test(verdict, improved_is_symmetric_and_passes)
{
    pg_rng g;
    const pg_case_verdict *v;

    pg_stats_rng_seed(&g, 2);
    bases_of("a", 5, 40, 0.01, 0.002, 12);
    add_case(fx.head, "a", 40, 0.8e-3, 0.01, &g);
    compare(NULL);
    v = verdict_of("a");
    cr_assert_eq(v->verdict, PG_VERDICT_IMPROVED, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_assert(v->est.ci_hi < 1 / 1.05);
    cr_assert_eq(fx.cmp->exit_code, 0);
}

Test(verdict, same_when_the_interval_lies_within_the_threshold)
{
    pg_compare_options o = PG_COMPARE_OPTIONS_INIT;
    pg_rng g;
    const pg_case_verdict *v;

    /* A quiet machine: a small prior and baseline runs that agree. */
    o.drift = 0.005;
    pg_stats_rng_seed(&g, 3);
    bases_of("a", 8, 40, 0.01, 0.002, 13);
    add_case(fx.head, "a", 40, 1.01e-3, 0.01, &g);
    compare(&o);
    v = verdict_of("a");
    cr_assert_eq(v->verdict, PG_VERDICT_SAME, "%s: %s [%g, %g]", pg_verdict_name(v->verdict), v->reason, v->est.ci_lo,
                 v->est.ci_hi);
    cr_assert(v->est.ci_lo >= 1 / 1.05 && v->est.ci_hi <= 1.05);
    cr_assert_eq(fx.cmp->exit_code, 0);
}

Test(verdict, unsure_when_the_interval_straddles_the_threshold)
{
    pg_compare_options o = PG_COMPARE_OPTIONS_INIT;
    pg_rng g;
    const pg_case_verdict *v;

    o.drift = 0.005;
    pg_stats_rng_seed(&g, 4);
    bases_of("a", 8, 30, 0.05, 0.002, 14);
    add_case(fx.head, "a", 30, 1.06e-3, 0.05, &g);
    compare(&o);
    v = verdict_of("a");
    cr_assert_eq(v->verdict, PG_VERDICT_UNSURE, "%s [%g, %g]", pg_verdict_name(v->verdict), v->est.ci_lo, v->est.ci_hi);
    cr_assert(v->est.ci_lo < 1.05 && v->est.ci_hi > 1.05);
    cr_assert(v->reason && strstr(v->reason, "straddles") && strstr(v->reason, "more samples"), "%s", v->reason);
    cr_assert_eq(fx.cmp->exit_code, 0, "UNSURE never fails the build");
}

Test(verdict, one_baseline_run_leans_on_the_drift_prior)
{
    pg_rng g;
    const pg_case_verdict *v;

    /* +8% with tight samples would fail a test that trusts one process; one run cannot tell drift from change. */
    pg_stats_rng_seed(&g, 5);
    bases_of("a", 1, 60, 0.005, 0, 15);
    add_case(fx.head, "a", 60, 1.08e-3, 0.005, &g);
    compare(NULL);
    v = verdict_of("a");
    cr_assert_lt(v->est.p_adj, 1e-6, "the samples alone are clear: p %g", v->est.p_adj);
    cr_assert_lt(v->est.shift_lo, v->est.ratio);
    cr_assert_gt(v->est.shift_lo, 1.05, "the samples-only interval clears the threshold: %g", v->est.shift_lo);
    cr_assert_eq(v->verdict, PG_VERDICT_UNSURE, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_assert(!v->drift.measured);
    cr_assert(fabs(v->drift.sd - PG_DRIFT_PRIOR) < 1e-12);
    cr_assert(strstr(v->reason, "last:5") != NULL, "%s", v->reason);
}

Test(verdict, wandering_machine_does_not_fail_at_the_threshold)
{
    pg_compare_options o = PG_COMPARE_OPTIONS_INIT;
    pg_rng g;
    const pg_case_verdict *v;
    double wide;

    /* Baseline runs whose medians wander 3% between processes; the head lands 7% above their centre. */
    pg_stats_rng_seed(&g, 6);
    bases_of("a", 6, 40, 0.01, 0.03, 16);
    add_case(fx.head, "a", 40, 1.07e-3, 0.01, &g);
    compare(&o);
    v = verdict_of("a");
    cr_assert(v->drift.measured);
    cr_assert_gt(v->drift.sd, 0.02, "measured drift %g", v->drift.sd);
    cr_assert_neq(v->verdict, PG_VERDICT_REGRESSED, "[%g, %g]", v->est.ci_lo, v->est.ci_hi);
    wide = log(v->est.ci_hi / v->est.ci_lo);

    /* The same head against calm baseline runs: a narrower interval. */
    teardown();
    setup();
    pg_stats_rng_seed(&g, 6);
    bases_of("a", 6, 40, 0.01, 0.001, 16);
    add_case(fx.head, "a", 40, 1.07e-3, 0.01, &g);
    o.drift = 0.005;
    compare(&o);
    v = verdict_of("a");
    cr_assert_lt(log(v->est.ci_hi / v->est.ci_lo), wide);
}

Test(verdict, too_few_samples_is_unsure)
{
    pg_rng g;
    const pg_case_verdict *v;

    pg_stats_rng_seed(&g, 7);
    bases_of("a", 1, 3, 0.01, 0, 17);
    add_case(fx.head, "a", 3, 2e-3, 0.01, &g);
    compare(NULL);
    v = verdict_of("a");
    cr_assert_eq(v->verdict, PG_VERDICT_UNSURE);
    cr_assert(strstr(v->reason, "too few samples") != NULL, "%s", v->reason);
    cr_assert_eq(fx.cmp->exit_code, 0);
}

Test(verdict, holm_turns_a_lone_significant_case_unsure_among_many)
{
    pg_compare_options o = PG_COMPARE_OPTIONS_INIT;
    pg_rng g;
    char name[16];
    const pg_case_verdict *v;
    int i;

    /* 5 vs 5 fully separated: exact one-sided p = 1/252 = 0.004; Holm over 20 cases makes it 0.08. */
    o.drift = 0.001;
    pg_stats_rng_seed(&g, 8);
    bases_of("hot", 1, 5, 0.01, 0, 18);
    add_case(fx.head, "hot", 5, 1.5e-3, 0.01, &g);
    compare(&o);
    v = verdict_of("hot");
    cr_assert_eq(v->verdict, PG_VERDICT_REGRESSED, "alone: %s %s", pg_verdict_name(v->verdict), v->reason);
    cr_assert(fabs(v->est.p - 1.0 / 252) < 1e-12, "p %g", v->est.p);

    for (i = 0; i < 19; i++) {
        snprintf(name, sizeof(name), "c%02d", i);
        add_case(fx.bases[0], name, 5, 1e-3, 0.01, &g);
        add_case(fx.head, name, 5, 1e-3, 0.01, &g);
    }
    compare(&o);
    v = verdict_of("hot");
    cr_assert(fabs(v->est.p_adj - 20.0 / 252) < 1e-12, "p_adj %g", v->est.p_adj);
    cr_assert_eq(v->verdict, PG_VERDICT_UNSURE, "%s", pg_verdict_name(v->verdict));
    cr_assert(strstr(v->reason, "not significant after Holm") != NULL, "%s", v->reason);
    cr_assert_eq(fx.cmp->counts[PG_VERDICT_REGRESSED], 0);
    cr_assert_eq(fx.cmp->exit_code, 0);
}

Test(verdict, new_and_missing_are_reported_not_failed_unless_asked)
{
    pg_compare_options o = PG_COMPARE_OPTIONS_INIT;
    pg_rng g;

    pg_stats_rng_seed(&g, 9);
    bases_of("old", 1, 20, 0.01, 0, 19);
    add_case(fx.head, "fresh", 20, 1e-3, 0.01, &g);
    compare(&o);
    cr_assert_eq(verdict_of("fresh")->verdict, PG_VERDICT_NEW);
    cr_assert_eq(verdict_of("old")->verdict, PG_VERDICT_MISSING);
    cr_assert_eq(fx.cmp->counts[PG_VERDICT_NEW], 1);
    cr_assert_eq(fx.cmp->counts[PG_VERDICT_MISSING], 1);
    cr_assert_eq(fx.cmp->exit_code, 0);
    o.fail_on_missing = 1;
    compare(&o);
    cr_assert_eq(fx.cmp->exit_code, 1);
    o.fail_on_missing = 0;
    o.fail_on_new = 1;
    compare(&o);
    cr_assert_eq(fx.cmp->exit_code, 1);
}

Test(verdict, first_run_without_baseline_passes)
{
    pg_rng g;

    pg_stats_rng_seed(&g, 10);
    add_case(fx.head, "a", 20, 1e-3, 0.01, &g);
    compare(NULL);
    cr_assert_eq(verdict_of("a")->verdict, PG_VERDICT_NEW);
    cr_assert_str_eq(verdict_of("a")->reason, "no baseline yet");
    cr_assert_eq(fx.cmp->exit_code, 0);
}

Test(verdict, errors_and_skips_never_regress)
{
    pg_rng g;
    pg_result *r;

    pg_stats_rng_seed(&g, 11);
    bases_of("broken", 1, 20, 0.01, 0, 20);
    bases_of("gpu", 1, 20, 0.01, 0, 21);
    r = add_case(fx.head, "broken", 0, 1e-3, 0.01, &g);
    r->status = PG_STATUS_ERROR;
    r->message = pg__strdup("kernel crashed");
    r = add_case(fx.head, "gpu", 0, 1e-3, 0.01, &g);
    r->status = PG_STATUS_SKIPPED;
    r->message = pg__strdup("no CUDA device");
    compare(NULL);
    cr_assert_eq(verdict_of("broken")->verdict, PG_VERDICT_ERROR);
    cr_assert_str_eq(verdict_of("broken")->reason, "kernel crashed");
    cr_assert_eq(verdict_of("gpu")->verdict, PG_VERDICT_SKIPPED);
    cr_assert_eq(fx.cmp->exit_code, 0);
}

Test(verdict, a_failed_exact_check_exits_1)
{
    pg_rng g;
    pg_check_result *c;

    pg_stats_rng_seed(&g, 12);
    bases_of("a", 1, 20, 0.01, 0, 22);
    add_case(fx.head, "a", 20, 1e-3, 0.01, &g);
    pg_assert_ok(pg_run_add_check(&c, fx.head));
    c->suite = pg__strdup("t");
    c->name = pg__strdup("flops");
    c->kind = pg__strdup("flops");
    c->passed = 0;
    compare(NULL);
    cr_assert_eq(fx.cmp->checks_failed, 1);
    cr_assert_eq(fx.cmp->counts[PG_VERDICT_REGRESSED], 0);
    cr_assert_eq(fx.cmp->exit_code, 1);
}

Test(verdict, suite_threshold_and_command_line_override)
{
    pg_compare_options o = PG_COMPARE_OPTIONS_INIT;
    pg_rng g;
    pg_result *r;

    pg_stats_rng_seed(&g, 13);
    bases_of("a", 5, 40, 0.01, 0.002, 23);
    r = add_case(fx.head, "a", 40, 1.2e-3, 0.01, &g);
    r->threshold = 0.5; /* the suite tolerates +50% */
    compare(&o);
    cr_assert_eq(verdict_of("a")->threshold, 0.5);
    cr_assert_neq(verdict_of("a")->verdict, PG_VERDICT_REGRESSED);
    o.threshold = 0.05;
    compare(&o);
    cr_assert_eq(verdict_of("a")->verdict, PG_VERDICT_REGRESSED);
    o.alpha = 1e-300; /* nothing can be that significant */
    compare(&o);
    cr_assert_eq(verdict_of("a")->verdict, PG_VERDICT_UNSURE);
}

Test(verdict, bootstrap_interval_is_reproducible)
{
    pg_compare_options o = PG_COMPARE_OPTIONS_INIT;
    pg_rng g;
    double lo, hi;

    o.interval = PG_INTERVAL_BOOTSTRAP;
    pg_stats_rng_seed(&g, 14);
    bases_of("a", 3, 30, 0.02, 0.002, 24);
    add_case(fx.head, "a", 30, 1.3e-3, 0.02, &g);
    compare(&o);
    lo = verdict_of("a")->est.shift_lo;
    hi = verdict_of("a")->est.shift_hi;
    cr_assert(lo < verdict_of("a")->est.ratio && hi > verdict_of("a")->est.ratio);
    compare(&o);
    cr_assert_eq(verdict_of("a")->est.shift_lo, lo);
    cr_assert_eq(verdict_of("a")->est.shift_hi, hi);
    cr_assert(strstr(fx.cmp->method, "bootstrap") != NULL);
}

Test(verdict, a_case_can_be_estimated_again_with_more_head_runs)
{
    pg_rng g;
    pg_case_verdict *v;
    pg_run *extra;
    pg_result *r2;
    pg_sample_set heads[2], bases[5];
    size_t i;

    /* Confirmation re-runs call the per-case estimate again with every head run. */
    pg_stats_rng_seed(&g, 15);
    bases_of("a", 5, 40, 0.01, 0.002, 25);
    add_case(fx.head, "a", 40, 1.2e-3, 0.01, &g);
    compare(NULL);
    v = &fx.cmp->cases[0];
    cr_assert_eq(v->est.head_runs, 1);
    pg_assert_ok(pg_run_new(&extra));
    r2 = add_case(extra, "a", 40, 1.2e-3, 0.01, &g);
    heads[0] = (pg_sample_set){fx.head->results[0].samples, fx.head->results[0].nsamples};
    heads[1] = (pg_sample_set){r2->samples, r2->nsamples};
    for (i = 0; i < 5; i++)
        bases[i] = (pg_sample_set){fx.bases[i]->results[0].samples, fx.bases[i]->results[0].nsamples};
    pg_assert_ok(pg_verdict_estimate(v, heads, 2, bases, 5, NULL));
    pg_assert_ok(pg_comparison_adjust(fx.cmp, NULL));
    cr_assert_eq(v->est.head_runs, 2);
    cr_assert_eq(v->est.head_n, 80);
    cr_assert_eq(v->verdict, PG_VERDICT_REGRESSED);
    cr_assert_eq(fx.cmp->exit_code, 1);
    pg_run_free(extra);
}

Test(verdict, a_suite_wide_shift_is_a_machine_phase_not_a_regression)
{
    pg_rng g;
    char name[16];
    const pg_case_verdict *v;
    int i;

    /* Every case of the head run 40% slower, as in a machine phase: no case can claim it. */
    pg_stats_rng_seed(&g, 16);
    for (i = 0; i < 10; i++) {
        snprintf(name, sizeof(name), "c%02d", i);
        bases_of(name, 5, 40, 0.01, 0.002, 100 + (uint64_t)i);
        add_case(fx.head, name, 40, 1.4e-3, 0.01, &g);
    }
    compare(NULL);
    cr_assert(fabs(fx.cmp->suite.shift - 1.4) < 0.03, "suite shift %g", fx.cmp->suite.shift);
    cr_assert_eq(fx.cmp->counts[PG_VERDICT_REGRESSED], 0);
    v = verdict_of("c03");
    cr_assert_eq(v->verdict, PG_VERDICT_UNSURE);
    cr_assert(strstr(v->reason, "whole suite moved +") != NULL, "%s", v->reason);
    cr_assert_eq(fx.cmp->exit_code, 0);
}

Test(verdict, one_case_regressing_among_steady_ones_still_fails)
{
    pg_rng g;
    char name[16];
    int i;

    pg_stats_rng_seed(&g, 17);
    for (i = 0; i < 10; i++) {
        snprintf(name, sizeof(name), "c%02d", i);
        bases_of(name, 5, 40, 0.01, 0.002, 200 + (uint64_t)i);
        add_case(fx.head, name, 40, i == 3 ? 1.4e-3 : 1e-3, 0.01, &g);
    }
    compare(NULL);
    cr_assert(fabs(fx.cmp->suite.shift - 1.0) < 0.02, "suite shift %g", fx.cmp->suite.shift);
    cr_assert_lt(fx.cmp->suite.spread, 0.02);
    cr_assert_eq(verdict_of("c03")->verdict, PG_VERDICT_REGRESSED, "%s", verdict_of("c03")->reason);
    cr_assert_eq(fx.cmp->counts[PG_VERDICT_REGRESSED], 1);
    cr_assert_eq(fx.cmp->exit_code, 1);
}

Test(verdict, the_interval_always_contains_the_ratio_of_medians)
{
    pg_compare_options o = PG_COMPARE_OPTIONS_INIT;
    pg_result *r;
    pg_rng g;
    const pg_case_verdict *v;
    size_t i;

    /* Bimodal head samples (a phase change inside the run): medians and the Hodges-Lehmann shift disagree. */
    o.drift = 0.001;
    pg_stats_rng_seed(&g, 18);
    bases_of("a", 1, 21, 0.001, 0, 30);
    r = add_case(fx.head, "a", 21, 1e-3, 0.001, &g);
    for (i = 0; i < 11; i++)
        r->samples[i] *= 2;
    pg_assert_ok(pg_stats_summarize(&r->summary, r->samples, r->nsamples));
    compare(&o);
    v = verdict_of("a");
    cr_assert(v->est.ci_lo <= v->est.ratio && v->est.ratio <= v->est.ci_hi, "%g not in [%g, %g]", v->est.ratio,
              v->est.ci_lo, v->est.ci_hi);
}

/* One baseline run and a head of case a, n samples each at log sd `noise`, compared with the defaults. */
static const pg_case_verdict *one_run_each(double head_median, size_t n, double noise, uint64_t seed)
{
    pg_rng g;

    pg_stats_rng_seed(&g, seed);
    bases_of("a", 1, n, noise, 0, seed + 10);
    add_case(fx.head, "a", n, head_median, noise, &g);
    compare(NULL);
    return verdict_of("a");
}

Test(verdict, a_very_noisy_case_with_a_large_apparent_change_is_unsure)
{
    const pg_case_verdict *v;

    /*
     * Samples spread like a run in phases (log sd 0.25: IQR/median ~34%): with
     * 200 samples a side the samples' interval alone is tight, and +40% would
     * clear the threshold under a 2% drift prior. The run flagged itself as
     * too noisy for that: its median moves between processes as far as its
     * samples spread.
     */
    v = one_run_each(1.4e-3, 200, 0.25, 21);
    cr_assert(v->est.very_noisy && v->est.run_noise >= PG_VERY_NOISY_IQR, "run noise %g", v->est.run_noise);
    cr_assert_gt(v->est.shift_lo, 1.05, "the samples-only interval clears the threshold: %g", v->est.shift_lo);
    cr_assert_eq(v->verdict, PG_VERDICT_UNSURE, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_assert_gt(v->drift.sd, 0.2, "the drift allowed is the samples' spread: %g", v->drift.sd);
    cr_assert_gt(v->est.resolution, 0.4, "resolution %g", v->est.resolution);
    cr_assert(strstr(v->reason, "very noisy (IQR 3") && strstr(v->reason, "too noisy for 5%") &&
                  strstr(v->reason, "min_run_time") && strstr(v->reason, "--base-build") &&
                  strstr(v->reason, "quieter runner"),
              "%s", v->reason);
    cr_assert_eq(fx.cmp->exit_code, 0);

    /* The same change faster: never a claimed improvement either. */
    teardown();
    setup();
    v = one_run_each(0.6e-3, 200, 0.25, 22);
    cr_assert_lt(v->est.shift_hi, 1 / 1.05, "the samples-only interval clears the threshold: %g", v->est.shift_hi);
    cr_assert_eq(v->verdict, PG_VERDICT_UNSURE, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_assert(strstr(v->reason, "very noisy") != NULL, "%s", v->reason);
}

Test(verdict, a_clean_large_change_still_fails_where_resolution_exceeds_the_threshold)
{
    /* Resolution ~13% (one baseline run, the 2% prior): +30% still clears the threshold. */
    const pg_case_verdict *v = one_run_each(1.3e-3, 30, 0.03, 23);

    cr_assert(!v->est.very_noisy, "run noise %g", v->est.run_noise);
    cr_assert(v->est.resolution > 0.05 && v->est.resolution < 0.2, "resolution %g", v->est.resolution);
    cr_assert_eq(v->verdict, PG_VERDICT_REGRESSED, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_assert_eq(fx.cmp->exit_code, 1);
}

/* Too few samples in an imported run: the advice names the harness's own knob, never perfgate's min_samples. */
Test(verdict, the_advice_names_the_knob_of_the_run_s_harness)
{
    static const char *const sources[][2] = {
        {"google-benchmark", "--benchmark_repetitions"},
        {"hyperfine", "--runs or --min-runs"},
        {"pytest-benchmark", "--benchmark-min-rounds"},
        {"perfgate", "raise min_samples"},
    };
    size_t s;

    for (s = 0; s < sizeof(sources) / sizeof(sources[0]); s++) {
        pg_rng g;
        const pg_case_verdict *v;

        teardown();
        setup();
        free(fx.head->source);
        fx.head->source = pg__strdup(sources[s][0]);
        pg_stats_rng_seed(&g, 7);
        bases_of("a", 1, 3, 0.01, 0, 17);
        add_case(fx.head, "a", 3, 2e-3, 0.01, &g);
        compare(NULL);
        v = verdict_of("a");
        cr_assert_eq(v->verdict, PG_VERDICT_UNSURE);
        cr_assert(strstr(v->reason, "too few samples") && strstr(v->reason, sources[s][1]), "%s: %s", sources[s][0],
                  v->reason);
        if (s < 3)
            cr_assert(strstr(v->reason, "min_samples") == NULL, "%s", v->reason);
    }
}

/* Unchanged code, tight samples, one baseline run: the width is the drift prior, said so, never "too noisy". */
Test(verdict, a_width_from_the_drift_prior_of_one_run_is_named_as_such)
{
    pg_rng g;
    const pg_case_verdict *v;

    pg_stats_rng_seed(&g, 5);
    bases_of("a", 1, 60, 0.003, 0, 15);
    add_case(fx.head, "a", 60, 1.0e-3, 0.003, &g);
    compare(NULL);
    v = verdict_of("a");
    cr_assert_eq(v->verdict, PG_VERDICT_UNSURE, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_assert(strstr(v->reason, "too noisy") == NULL, "%s", v->reason);
    cr_assert(strstr(v->reason, "run-to-run drift assumed for 1 baseline run") != NULL, "%s", v->reason);
    cr_assert(strstr(v->reason, "--base last:5") && strstr(v->reason, "--base-build"), "%s", v->reason);
}

/* Positive finite samples of the sets, as logs (l) and as exp of the logs (raw), in run order. */
static size_t pooled(double *l, double *raw, const pg_sample_set *sets, size_t n)
{
    size_t i, j, k = 0;

    for (i = 0; i < n; i++)
        for (j = 0; j < sets[i].n; j++)
            if (sets[i].x[j] > 0 && isfinite(sets[i].x[j])) {
                l[k] = log(sets[i].x[j]);
                raw[k] = exp(l[k]);
                k++;
            }
    return k;
}

/* The worst run's IQR/median by the summary's definition. */
static double worst_iqr(const pg_sample_set *sets, size_t n)
{
    double worst = 0, x[64];
    size_t i, j, m;
    pg_summary s;

    for (i = 0; i < n; i++) {
        for (j = m = 0; j < sets[i].n; j++)
            if (sets[i].x[j] > 0 && isfinite(sets[i].x[j]))
                x[m++] = sets[i].x[j];
        if (m >= 4 && pg_stats_summarize(&s, x, m) == 0 && s.median > 0)
            worst = fmax(worst, s.iqr / s.median);
    }
    return worst;
}

/*
 * The estimate sorts each run once and shares the sorted logs, and takes
 * the raw medians with a few exp()s: its numbers must be the very doubles
 * the plain definitions give, on awkward samples too (ties, values a few
 * ulps apart, subnormal and huge times, broken samples).
 */
Test(verdict, estimate_statistics_are_the_doubles_of_their_definitions)
{
    static double x[7][40];
    double lh[80], rh[80], lb[200], rb[200];
    pg_rng g;
    size_t trial;

    pg_stats_rng_seed(&g, 31);
    for (trial = 0; trial < 400; trial++) {
        pg_sample_set heads[2], bases[5];
        size_t nhead = 1 + trial % 2, nbase = 1 + trial % 5, i, j, kind = trial % 5, nh, nb;
        pg_case_verdict v;
        pg_mwu m;
        pg_shift sh;
        memset(&v, 0, sizeof(v));
        v.key = "awkward";
        v.threshold = 0.05;
        v.alpha = 0.05;
        for (i = 0; i < nhead + nbase; i++) {
            size_t n = 1 + (size_t)(pg_stats_rng_next(&g) % 40);
            for (j = 0; j < n; j++) {
                double u = (double)(pg_stats_rng_next(&g) >> 11) * 0x1p-53;
                uint64_t k = pg_stats_rng_next(&g) % 4;
                x[i][j] = kind == 0   ? 1e-3 * exp(0.05 * gauss(&g))
                          : kind == 1 ? 1e-3 * (double)(1 + k)                           /* ties */
                          : kind == 2 ? 1e-3 * (1 + (double)k * 0x1p-50)                 /* ulps apart */
                          : kind == 3 ? (k == 0 ? 1e-310 : k == 1 ? 3e-305 : k == 2 ? 1e300 : 1.5e308 * u)
                                      : (k == 0 ? 0.0 : k == 1 ? -1e-3 : k == 2 ? NAN : 2e-3 * (1 + u));
            }
            if (i < nhead)
                heads[i] = (pg_sample_set){x[i], n};
            else
                bases[i - nhead] = (pg_sample_set){x[i], n};
        }
        nh = pooled(lh, rh, heads, nhead);
        nb = pooled(lb, rb, bases, nbase);
        if (nh == 0 || nb == 0) {
            cr_assert_eq(pg_verdict_estimate(&v, heads, nhead, bases, nbase, NULL), PG_EINVAL);
            free(v.reason);
            continue;
        }
        cr_assert_eq(pg_verdict_estimate(&v, heads, nhead, bases, nbase, NULL), 0, "trial %zu", trial);
        cr_assert_eq(v.est.head_median, pg_stats_median(rh, nh), "trial %zu (kind %zu): head median %.17g vs %.17g",
                     trial, kind, v.est.head_median, pg_stats_median(rh, nh));
        cr_assert_eq(v.est.base_median, pg_stats_median(rb, nb), "trial %zu (kind %zu): base median", trial, kind);
        cr_assert_eq(v.est.run_noise, fmax(worst_iqr(heads, nhead), worst_iqr(bases, nbase)), "trial %zu", trial);
        pg_assert_ok(pg_stats_mwu(&m, lh, nh, lb, nb, v.est.ratio >= 1 ? PG_ALT_GREATER : PG_ALT_LESS, PG_MWU_AUTO));
        cr_assert_eq(v.est.p, m.p, "trial %zu: p", trial);
        if (pg_stats_hodges_lehmann(&sh, lh, nh, lb, nb, 0.95) == 0) {
            cr_assert_eq(v.est.center, exp(sh.estimate), "trial %zu: shift", trial);
            cr_assert_eq(v.est.shift_lo, exp(sh.lo), "trial %zu: lower bound", trial);
            cr_assert_eq(v.est.shift_hi, exp(sh.hi), "trial %zu: upper bound", trial);
        }
        free(v.reason);
    }
}
