/*
 * boundary_test.c - the verdict rule at its edges, each test named after the
 * edge it pins, with the verdict derived by hand in its comment.
 *
 * The rule (verdict.h), with threshold t = 5% and alpha = 5%, up = 1 + t,
 * down = 1/(1 + t):
 *   REGRESSED  p_adj < alpha and ci_lo > up        (both strict)
 *   IMPROVED   p_adj < alpha and ci_hi < down      (both strict)
 *   SAME       down <= ci_lo and ci_hi <= up       (closed band)
 *   UNSURE     otherwise; also when an interval bound is 0 or not finite.
 * Then pg_compare() on the sample counts and values the edges of the
 * estimate see (n = 1 and 2, all-equal samples, zero/NaN/inf samples), and
 * the paired analysis of interleaved rounds (0, 1 and 2 rounds, all rounds
 * equal, the ratio-equals-1 tie).
 */
#include "support.h"

#include "ab/ab.h"
#include "stats/stats.h"
#include "base/util.h"
#include "verdict/verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define T 0.05
#define ALPHA 0.05

/* ---- pg_verdict_decide on a hand-set estimate ------------------------------ */

/* Decides one case with interval [lo, hi] and adjusted p; the caller frees v->reason. */
static pg_verdict decide(pg_case_verdict *v, double lo, double hi, double p)
{
    memset(v, 0, sizeof(*v));
    v->key = "t/k@1:cpu";
    v->threshold = T;
    v->alpha = ALPHA;
    v->est.ci_lo = v->est.shift_lo = lo;
    v->est.ci_hi = v->est.shift_hi = hi;
    v->est.ratio = v->est.center = isfinite(lo * hi) ? sqrt(lo * hi) : 1;
    v->est.p = v->est.p_adj = p;
    v->est.head_n = v->est.base_n = 10;
    v->est.resolution = 0.01;
    pg_assert_ok(pg_verdict_decide(v, 1));
    return v->verdict;
}

static double up(void)
{
    return 1 + T;
}

static double down(void)
{
    return 1 / (1 + T);
}

/* ci = [1+t, 1.2], p = 0.001: REGRESSED needs ci_lo > 1+t, and 1+t is not; SAME needs ci_hi <= 1+t, 1.2 is not: UNSURE. */
Test(verdict_edges, lower_bound_exactly_1_plus_threshold_is_not_regressed)
{
    pg_case_verdict v;

    cr_assert_eq(decide(&v, up(), 1.2, 0.001), PG_VERDICT_UNSURE, "%s", v.reason);
    free(v.reason);
}

/* ci_lo one ulp above 1+t, p = 0.001 < alpha: both strict conditions hold: REGRESSED. */
Test(verdict_edges, lower_bound_one_ulp_above_1_plus_threshold_regresses)
{
    pg_case_verdict v;

    cr_assert_eq(decide(&v, nextafter(up(), 2), 1.2, 0.001), PG_VERDICT_REGRESSED, "%s", v.reason);
    free(v.reason);
}

/* ci = [1.1, 1.2] beyond the threshold, p_adj exactly alpha: p < alpha is false, not significant: UNSURE, and the reason says so. */
Test(verdict_edges, p_exactly_alpha_is_not_significant)
{
    pg_case_verdict v;

    cr_assert_eq(decide(&v, 1.1, 1.2, ALPHA), PG_VERDICT_UNSURE);
    cr_assert(strstr(v.reason, "not significant") != NULL, "%s", v.reason);
    free(v.reason);
}

/* The same interval with p_adj one ulp below alpha: significant and beyond: REGRESSED. */
Test(verdict_edges, p_one_ulp_below_alpha_regresses)
{
    pg_case_verdict v;

    cr_assert_eq(decide(&v, 1.1, 1.2, nextafter(ALPHA, 0)), PG_VERDICT_REGRESSED, "%s", v.reason);
    free(v.reason);
}

/* Mirror of the lower-bound edge: ci = [0.8, 1/(1+t)], p = 0.001: IMPROVED needs ci_hi < 1/(1+t) strictly: UNSURE. */
Test(verdict_edges, upper_bound_exactly_1_over_1_plus_threshold_is_not_improved)
{
    pg_case_verdict v;

    cr_assert_eq(decide(&v, 0.8, down(), 0.001), PG_VERDICT_UNSURE, "%s", v.reason);
    free(v.reason);
}

/* ci_hi one ulp below 1/(1+t), p = 0.001: IMPROVED. */
Test(verdict_edges, upper_bound_one_ulp_below_1_over_1_plus_threshold_improves)
{
    pg_case_verdict v;

    cr_assert_eq(decide(&v, 0.8, nextafter(down(), 0), 0.001), PG_VERDICT_IMPROVED, "%s", v.reason);
    free(v.reason);
}

/* ci = [1/(1+t), 1+t] exactly, p = 0.5: the SAME band is closed at both ends: SAME, with no reason. */
Test(verdict_edges, same_band_is_closed_at_both_edges)
{
    pg_case_verdict v;

    cr_assert_eq(decide(&v, down(), up(), 0.5), PG_VERDICT_SAME, "%s", v.reason);
    cr_assert_null(v.reason);
}

/* ci = [1, 1+t one ulp up]: outside the band above, not beyond it either (ci_lo = 1): UNSURE, the interval straddles. */
Test(verdict_edges, same_upper_edge_one_ulp_out_is_unsure)
{
    pg_case_verdict v;

    cr_assert_eq(decide(&v, 1.0, nextafter(up(), 2), 0.5), PG_VERDICT_UNSURE);
    cr_assert(strstr(v.reason, "straddles") != NULL, "%s", v.reason);
    free(v.reason);
}

/* ci = [1/(1+t) one ulp down, 1]: outside the band below: UNSURE. */
Test(verdict_edges, same_lower_edge_one_ulp_out_is_unsure)
{
    pg_case_verdict v;

    cr_assert_eq(decide(&v, nextafter(down(), 0), 1.0, 0.5), PG_VERDICT_UNSURE);
    cr_assert(strstr(v.reason, "straddles") != NULL, "%s", v.reason);
    free(v.reason);
}

/*
 * ci = [1+t, 1+t] (a change of exactly the threshold, measured without
 * spread), p = 0.001: not beyond 1+t (strict), inside the closed band: SAME,
 * even though the change is significant. The threshold is the largest
 * change that passes.
 */
Test(verdict_edges, change_of_exactly_the_threshold_is_same_even_when_significant)
{
    pg_case_verdict v;

    cr_assert_eq(decide(&v, up(), up(), 0.001), PG_VERDICT_SAME, "%s", v.reason);
}

/* ci_lo = 0 (no interval at this level): UNSURE, too few samples. */
Test(verdict_edges, lower_bound_zero_is_too_few_samples)
{
    pg_case_verdict v;

    cr_assert_eq(decide(&v, 0, 2.0, 0.001), PG_VERDICT_UNSURE);
    cr_assert(strstr(v.reason, "too few samples") != NULL, "%s", v.reason);
    free(v.reason);
}

/* ci_hi = +inf: UNSURE, too few samples (an unbounded interval decides nothing). */
Test(verdict_edges, infinite_upper_bound_is_too_few_samples)
{
    pg_case_verdict v;

    cr_assert_eq(decide(&v, 1.2, INFINITY, 0.001), PG_VERDICT_UNSURE);
    cr_assert(strstr(v.reason, "too few samples") != NULL, "%s", v.reason);
    free(v.reason);
}

/* ci = [1.2, 1.3] beyond the threshold, p_adj NaN: NaN < alpha is false: never significant: UNSURE. */
Test(verdict_edges, nan_p_is_never_significant)
{
    pg_case_verdict v;

    cr_assert_eq(decide(&v, 1.2, 1.3, NAN), PG_VERDICT_UNSURE);
    cr_assert(strstr(v.reason, "not significant") != NULL, "%s", v.reason);
    free(v.reason);
}

/* ---- pg_compare on hand-made samples ---------------------------------------- */

typedef struct pair {
    pg_run *head, *base;
    pg_comparison *cmp;
} pair;

static pair px;

static void setup(void)
{
    memset(&px, 0, sizeof(px));
    pg_assert_ok(pg_run_new(&px.head));
    pg_assert_ok(pg_run_new(&px.base));
}

static void teardown(void)
{
    pg_comparison_free(px.cmp);
    pg_run_free(px.head);
    pg_run_free(px.base);
}

/* Adds case t/k to `run` with exactly these samples (seconds). */
static void add(pg_run *run, const double *x, size_t n)
{
    pg_result *r;

    pg_assert_ok(pg_run_add_result(&r, run));
    r->key = pg__strdup("t/k@1:cpu");
    r->suite = pg__strdup("t");
    r->name = pg__strdup("k");
    r->status = PG_STATUS_OK;
    r->samples = calloc(n ? n : 1, sizeof(double));
    r->nsamples = n;
    if (n) {
        memcpy(r->samples, x, n * sizeof(double));
        pg_assert_ok(pg_stats_summarize(&r->summary, r->samples, n));
    }
}

/* Compares head with base at t = alpha = 5%; `drift` < 0 keeps the default prior. */
static const pg_case_verdict *compare(const double *h, size_t nh, const double *b, size_t nb, double drift)
{
    pg_compare_options o = PG_COMPARE_OPTIONS_INIT;

    add(px.head, h, nh);
    add(px.base, b, nb);
    o.threshold = T;
    o.alpha = ALPHA;
    o.drift = drift;
    pg_assert_ok(pg_compare(&px.cmp, px.head, (const pg_run *const *)&px.base, 1, &o));
    cr_assert_eq(px.cmp->ncases, 1);
    return &px.cmp->cases[0];
}

static void fill(double *x, size_t n, double v)
{
    size_t i;

    for (i = 0; i < n; i++)
        x[i] = v;
}

TestSuite(compare_edges, .init = setup, .fini = teardown);

/*
 * n = 1 against n = 1 (a plain Google Benchmark import), head 50% slower:
 * one pair gives a one-sided p of 1/2 at best, and a two-sided 95% interval
 * needs a tail probability P(U <= k) <= 2.5% that one pair cannot reach
 * (the smallest is 1/C(2,1) = 1/2): UNSURE, too few samples; exit 4, never 1.
 */
Test(compare_edges, one_sample_each_is_too_few_samples)
{
    const double h[] = {1.5e-3}, b[] = {1.0e-3};
    const pg_case_verdict *v = compare(h, 1, b, 1, 0);

    cr_assert_eq(v->verdict, PG_VERDICT_UNSURE, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_assert(strstr(v->reason, "too few samples (1 vs 1)") != NULL, "%s", v->reason);
    cr_assert_eq(pg_outcome_exit_code(px.cmp), 4);
}

/* n = 2 against 2, head 50% slower: 4 pairs, smallest one-sided p 1/C(4,2) = 1/6 > 5%, no 95% interval: UNSURE. */
Test(compare_edges, two_samples_each_is_too_few_samples)
{
    const double h[] = {1.5e-3, 1.51e-3}, b[] = {1.0e-3, 1.01e-3};
    const pg_case_verdict *v = compare(h, 2, b, 2, 0);

    cr_assert_eq(v->verdict, PG_VERDICT_UNSURE, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_assert(strstr(v->reason, "too few samples (2 vs 2)") != NULL, "%s", v->reason);
}

/*
 * One head sample against 30 base samples, head 50% slower: the one-sided
 * exact p can reach 1/31 = 3.2%, but a two-sided 95% interval needs
 * P(U = 0) = 1/31 <= 2.5%, which fails: no interval: UNSURE.
 */
Test(compare_edges, one_head_sample_against_many_is_too_few_samples)
{
    double b[30];
    const double h[] = {1.5e-3};
    size_t i;
    const pg_case_verdict *v;

    for (i = 0; i < 30; i++)
        b[i] = 1.0e-3 * (1 + 0.001 * (double)i);
    v = compare(h, 1, b, 30, 0);
    cr_assert_eq(v->verdict, PG_VERDICT_UNSURE, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_assert(strstr(v->reason, "too few samples (1 vs 30)") != NULL, "%s", v->reason);
}

/* Ten equal samples on each side, the same value, no drift: every pairwise log difference is 0, ci = [1, 1]: SAME. */
Test(compare_edges, all_equal_samples_on_both_sides_are_same)
{
    double h[10], b[10];
    const pg_case_verdict *v;

    fill(h, 10, 1e-3);
    fill(b, 10, 1e-3);
    v = compare(h, 10, b, 10, 0);
    cr_assert_eq(v->verdict, PG_VERDICT_SAME, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_assert_float_eq(v->est.ci_lo, 1.0, 1e-12);
    cr_assert_float_eq(v->est.ci_hi, 1.0, 1e-12);
}

/*
 * The same ten equal samples with the default drift prior (sd 2%, 6 df) and
 * one run each side: the interval is [1, 1] widened by
 * t(0.975, 6) * 0.02 * sqrt(1/1 + 1/1) = 2.447 * 0.02 * 1.414 = 0.0692 on
 * the log scale, i.e. [0.933, 1.072], which pokes out of [0.952, 1.05]:
 * UNSURE. One run per side cannot tell code from machine drift.
 */
Test(compare_edges, all_equal_samples_one_run_each_lean_on_the_drift_prior)
{
    double h[10], b[10];
    const pg_case_verdict *v;

    fill(h, 10, 1e-3);
    fill(b, 10, 1e-3);
    v = compare(h, 10, b, 10, -1);
    cr_assert_eq(v->verdict, PG_VERDICT_UNSURE, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_assert_float_eq(log(v->est.ci_hi), 2.446912 * 0.02 * sqrt(2.0), 1e-5);
    cr_assert(strstr(v->reason, "drift assumed for 1 baseline run") != NULL, "%s", v->reason);
}

/*
 * Ten equal samples each side, head all 10% slower, no drift: every pairwise
 * shift is log 1.1, ci = [1.1, 1.1]; the sides separate completely, so the
 * one-sided Mann-Whitney p is about 1/C(20,10) = 5.4e-6 (normal approximation
 * with ties: ~1e-5): p < 5% and 1.1 > 1.05: REGRESSED.
 */
Test(compare_edges, all_equal_samples_ten_percent_apart_regress)
{
    double h[10], b[10];
    const pg_case_verdict *v;

    fill(h, 10, 1.1e-3);
    fill(b, 10, 1.0e-3);
    v = compare(h, 10, b, 10, 0);
    cr_assert_eq(v->verdict, PG_VERDICT_REGRESSED, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_assert_float_eq(v->est.ci_lo, 1.1, 1e-9);
    cr_assert(v->est.p < 1e-4, "p = %g", v->est.p);
}

/*
 * Head: nine samples of 1 ms plus 0, NaN, +inf and -1 ms; base: ten of 1 ms;
 * no drift. The four broken samples are left out (head_n 9, dropped 4), the
 * rest are all equal: SAME, and the verdict's reason says that 4 samples
 * were left out rather than dropping them silently.
 */
Test(compare_edges, zero_nan_inf_and_negative_samples_are_left_out_visibly)
{
    double h[13], b[10];
    const pg_case_verdict *v;

    fill(h, 9, 1e-3);
    h[9] = 0;
    h[10] = NAN;
    h[11] = INFINITY;
    h[12] = -1e-3;
    fill(b, 10, 1e-3);
    v = compare(h, 13, b, 10, 0);
    cr_assert_eq(v->verdict, PG_VERDICT_SAME, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_assert_eq(v->est.head_n, 9);
    cr_assert_eq(v->est.dropped, 4);
    cr_assert(v->reason && strstr(v->reason, "4 samples left out (zero, negative or not finite)"), "%s",
              v->reason ? v->reason : "(no reason)");
}

/* Every head sample zero: nothing positive to compare: UNSURE with that reason, exit 4 (never a pass). */
Test(compare_edges, all_zero_samples_are_nothing_to_compare)
{
    double h[5], b[5];
    const pg_case_verdict *v;

    fill(h, 5, 0);
    fill(b, 5, 1e-3);
    v = compare(h, 5, b, 5, 0);
    cr_assert_eq(v->verdict, PG_VERDICT_UNSURE, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_assert(strstr(v->reason, "no positive samples") != NULL, "%s", v->reason);
    cr_assert_eq(pg_outcome_exit_code(px.cmp), 4);
}

/* ---- the paired analysis of interleaved rounds ------------------------------ */

TestSuite(paired_edges, .init = setup, .fini = teardown);

/*
 * Decides case t/k on `n` interleaved rounds (base[i], head[i]) the way an
 * A/B gate does: pg_compare() without drift, then the paired stage.
 */
static const pg_case_verdict *paired(const double *b, const double *h, size_t n, pg_paired_analysis *pa)
{
    pg_compare_options o = PG_COMPARE_OPTIONS_INIT;

    add(px.head, h, n);
    add(px.base, b, n);
    o.threshold = T;
    o.alpha = ALPHA;
    o.drift = 0;
    pg_assert_ok(pg_compare(&px.cmp, px.head, (const pg_run *const *)&px.base, 1, &o));
    pg_assert_ok(pg_ab_paired_analyse(pa, b, h, n, 1 - ALPHA));
    pg_assert_ok(pg_verdict_paired(px.cmp, px.head, pa, &o));
    return &px.cmp->cases[0];
}

/* Zero rounds: no paired view at all (n 0, ratio and interval NaN); the case has no samples: UNSURE, exit 4. */
Test(paired_edges, zero_rounds_decide_nothing)
{
    pg_paired_analysis pa;
    const pg_case_verdict *v = paired(NULL, NULL, 0, &pa);

    cr_assert_eq(pa.n, 0);
    cr_assert(isnan(pa.ratio) && isnan(pa.ci_lo) && isnan(pa.ci_hi));
    cr_assert_eq(v->verdict, PG_VERDICT_UNSURE, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_assert_eq(pg_outcome_exit_code(px.cmp), 4);
}

/* One round, head 20% slower: signed-rank p = 1/2, no 95% interval from one difference: UNSURE, too few rounds (1). */
Test(paired_edges, one_round_is_too_few_rounds)
{
    const double b[] = {1.0}, h[] = {1.2};
    pg_paired_analysis pa;
    const pg_case_verdict *v = paired(b, h, 1, &pa);

    cr_assert_eq(v->verdict, PG_VERDICT_UNSURE, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_assert(v->paired);
    cr_assert(strstr(v->reason, "too few rounds (1)") != NULL, "%s", v->reason);
}

/*
 * Two rounds, both 20% slower. The two |differences| tie, so the signed-rank
 * p is the normal approximation with the tie correction (as scipy's):
 * W+ = 3, mean 1.5, sd = sqrt((2*3*5 - 0.5*(2^3 - 2))/24) = sqrt(9/8), z = sqrt 2,
 * p = P(Z > sqrt 2) = 0.0786 > 5%; and a 95% Tukey interval needs 6 rounds:
 * UNSURE, too few rounds (2).
 */
Test(paired_edges, two_rounds_are_too_few_rounds)
{
    const double b[] = {1.0, 1.0}, h[] = {1.2, 1.2};
    pg_paired_analysis pa;
    const pg_case_verdict *v = paired(b, h, 2, &pa);

    cr_assert_float_eq(pa.p_slower, 0.5 * erfc(1.0), 1e-7);
    cr_assert_eq(v->verdict, PG_VERDICT_UNSURE, "%s: %s", pg_verdict_name(v->verdict), v->reason);
    cr_assert(strstr(v->reason, "too few rounds (2)") != NULL, "%s", v->reason);
}

/* Ten rounds, head equal to base in every one: every difference 0, ratio 1, ci = [1, 1]: SAME. */
Test(paired_edges, all_rounds_equal_and_unchanged_are_same)
{
    double b[10], h[10];
    pg_paired_analysis pa;
    const pg_case_verdict *v;

    fill(b, 10, 1.0);
    fill(h, 10, 1.0);
    v = paired(b, h, 10, &pa);
    cr_assert_float_eq(pa.ratio, 1.0, 1e-12);
    cr_assert_eq(v->verdict, PG_VERDICT_SAME, "%s: %s", pg_verdict_name(v->verdict), v->reason);
}

/*
 * Ten rounds, head exactly 10% slower in every one: all ten differences are
 * log 1.1, so every Walsh average is too: ratio and ci = [1.1, 1.1]. All ten
 * |differences| tie: W+ = 55, mean 27.5, sd = sqrt((10*11*21 - 0.5*990)/24)
 * = sqrt(75.625), z = 27.5/sqrt(75.625) = sqrt 10, p = P(Z > sqrt 10) =
 * 0.00078 < 5% (the exact sign-test p would be 2^-10 = 0.00098); 1.1 > 1.05:
 * REGRESSED.
 */
Test(paired_edges, all_rounds_equal_and_ten_percent_slower_regress)
{
    double b[10], h[10];
    pg_paired_analysis pa;
    const pg_case_verdict *v;

    fill(b, 10, 1.0);
    fill(h, 10, 1.1);
    v = paired(b, h, 10, &pa);
    cr_assert_float_eq(pa.ci_lo, 1.1, 1e-9);
    cr_assert_float_eq(pa.p_slower, 0.5 * erfc(sqrt(5.0)), 1e-9);
    cr_assert_eq(v->verdict, PG_VERDICT_REGRESSED, "%s: %s", pg_verdict_name(v->verdict), v->reason);
}

/* Ten rounds alternating head `r` times slower (base 1, head r) and r times faster (base r, head 1). */
static const pg_case_verdict *alternating(double r, pg_paired_analysis *pa)
{
    double b[10], h[10];
    size_t i;

    for (i = 0; i < 10; i++) {
        b[i] = i % 2 ? r : 1.0;
        h[i] = i % 2 ? 1.0 : r;
    }
    return paired(b, h, 10, pa);
}

/*
 * The ratio = 1 tie: ten rounds alternating head 2% slower and 2% faster.
 * Walsh averages: 15 of about +a, 15 of about -a, 25 of about 0 (a = log
 * 1.02; log(1/1.02) differs from -a in the last bit); their median is within
 * an ulp of 0, so the ratio is exactly 1 and the slower side's p is the one
 * taken (not significant: the signs balance). Tukey's 95% interval for
 * n = 10 runs from the 9th to the 47th Walsh average: [-a, +a] = [0.980,
 * 1.020], inside [0.952, 1.05]: SAME.
 */
Test(paired_edges, ratio_equals_1_tie_within_the_band_is_same)
{
    pg_paired_analysis pa;
    const pg_case_verdict *v = alternating(1.02, &pa);

    cr_assert(pa.ratio == 1.0, "ratio %.17g", pa.ratio);
    cr_assert_float_eq(pa.ci_lo, 1 / 1.02, 1e-9);
    cr_assert_float_eq(pa.ci_hi, 1.02, 1e-9);
    cr_assert(v->est.p == pa.p_slower && v->est.p >= ALPHA, "p %g, p_slower %g", v->est.p, pa.p_slower);
    cr_assert_eq(v->verdict, PG_VERDICT_SAME, "%s: %s", pg_verdict_name(v->verdict), v->reason);
}

/*
 * An exact tie, wider than the band: rounds alternate head twice as slow and
 * twice as fast (log 2 and log 1/2 = -log 2 exactly). W+ = 5 * 5.5 = 27.5,
 * its null mean: z = 0, p_slower = 0.5; the median Walsh average is 0:
 * ratio exactly 1; ci = [1/2, 2], beyond the band on both sides and not
 * significant: UNSURE, never REGRESSED or IMPROVED.
 */
Test(paired_edges, ratio_equals_1_tie_wider_than_the_band_is_unsure)
{
    pg_paired_analysis pa;
    const pg_case_verdict *v = alternating(2.0, &pa);

    cr_assert(pa.ratio == 1.0, "ratio %.17g", pa.ratio);
    cr_assert(pa.p_slower == 0.5, "p_slower %.17g", pa.p_slower);
    cr_assert_float_eq(pa.ci_lo, 0.5, 1e-12);
    cr_assert_float_eq(pa.ci_hi, 2.0, 1e-12);
    cr_assert_eq(v->verdict, PG_VERDICT_UNSURE, "%s: %s", pg_verdict_name(v->verdict), v->reason);
}
