/*
 * verdict.h - per-case verdicts between a head run and its baseline.
 *
 * A verdict is one pipeline over the comparison (verdict_model.h), each
 * stage taking its inputs as data:
 *
 *   estimate   each case from its samples (pg_verdict_estimate)
 *   decide     Holm over the tested cases, then the rule (pg_verdict_decide)
 *   suite      a move the whole suite shares is UNSURE, not this case's
 *   canary     a move the canary of the case's kind explains is UNSURE
 *   confirm    a REGRESSED (IMPROVED) case stands only if its re-measurement agrees
 *   paired     interleaved rounds replace the estimate by the paired one
 *
 * pg_compare() runs estimate to canary; pg_verdict_confirm*() and
 * pg_verdict_paired() run their stage on an existing comparison. Every
 * entry point ends in the one recount of counts and exit code.
 */
#ifndef PG_VERDICT_H
#define PG_VERDICT_H

#include <stddef.h>

#include "base/model.h"
#include "verdict/model.h"

const char *pg_verdict_name(pg_verdict v);

/** "PASS", "FAIL", "NOTHING_COMPARED", "ERROR", "ACCEPTED": the outcome's name in reports. */
const char *pg_outcome_name(pg_outcome o);

/**
 * The exit code a comparison's outcome gives: 0 PASS and ACCEPTED, 1 FAIL,
 * 3 ERROR, 4 NOTHING_COMPARED. Usage and infrastructure errors (2, 3) are the caller's
 * and win over 4.
 */
int pg_outcome_exit_code(const pg_comparison *cmp);

/** Exit code of "nothing compared": no benchmark case was decided. */
#define PG_EXIT_NOTHING_COMPARED 4
/** Exit code of a case that could not be measured (the ERROR outcome), as of an infrastructure error. */
#define PG_EXIT_CASE_ERROR 3

typedef enum pg_interval_method {
    PG_INTERVAL_MOSES = 0,   /* Hodges-Lehmann shift of log times with Moses' interval */
    PG_INTERVAL_BOOTSTRAP    /* seeded percentile bootstrap of the ratio of medians */
} pg_interval_method;

typedef struct pg_compare_options {
    unsigned version;
    double threshold;        /* <0: take each case's own (suite) value */
    double alpha;            /* <0: take each case's own (suite) value */
    int fail_on_missing;
    int fail_on_new;         /* NEW cases fail the comparison (default: reported only) */
    double drift;            /* prior run-to-run sd of log medians; <0: PG_DRIFT_PRIOR */
    double drift_df;         /* weight of that prior in degrees of freedom; <0: PG_DRIFT_PRIOR_DF */
    pg_interval_method interval;
    size_t bootstrap_reps;   /* 0: 2000 */
    /* The cases carry paired intervals of interleaved rounds: the pairing
     * cancels run-to-run drift, so no suite-wide widening or suite guard. */
    int paired;
    /* ... decided sequentially: anytime-valid intervals and p-values, rounds stopped once settled. */
    int sequential;
} pg_compare_options;

/*
 * The run-to-run drift assumed when the baseline cannot measure it: medians of
 * separate processes moved 2.2% typically and 4.7% at the 90th percentile on
 * our machines (notes/noise.md), i.e. a standard deviation near 2% per run.
 */
#define PG_DRIFT_PRIOR 0.02
#define PG_DRIFT_PRIOR_DF 6.0

#define PG_COMPARE_OPTIONS_VERSION 1
#define PG_COMPARE_OPTIONS_INIT {PG_COMPARE_OPTIONS_VERSION, -1.0, -1.0, 0, 0, -1.0, -1.0, PG_INTERVAL_MOSES, 0, 0, 0}

/** The samples of one case in one run. */
typedef struct pg_sample_set {
    const double *x;
    size_t n;
} pg_sample_set;

/**
 * The estimate stage for one case: fills v->est (medians and counts, ratio,
 * the interval from the samples widened by run-to-run drift, the one-sided
 * Mann-Whitney p in the direction of the change, the resolution, the run
 * noise) and v->drift. A very noisy case (one run's IQR/median at least
 * PG_VERY_NOISY_IQR) takes the robust sd of its log samples as its prior
 * drift when that exceeds the usual one. v->threshold, v->alpha and v->key (the bootstrap seed) must be
 * set. Leaves est.p_adj and the verdict alone, so it can be called again
 * with more runs before pg_comparison_adjust().
 * @param head one entry per head run; @param base one entry per baseline run.
 * @return 0; PG_EINVAL when a side has no positive samples; PG_ENOMEM.
 */
int pg_verdict_estimate(pg_case_verdict *v, const pg_sample_set *head, size_t nhead, const pg_sample_set *base,
                        size_t nbase, const pg_compare_options *opts);

/**
 * The decision rule for an estimated case, given its adjusted p
 * (v->est.p_adj) and the number of tested cases (for the reason): REGRESSED
 * when p_adj < alpha and ci_lo > 1 + threshold; IMPROVED when p_adj < alpha
 * and ci_hi < 1/(1 + threshold); SAME when the interval lies within
 * [1/(1+threshold), 1+threshold]; UNSURE otherwise, with the reason and
 * advice. Replaces v->reason.
 */
int pg_verdict_decide(pg_case_verdict *v, size_t ntested);

/**
 * The rule alone, on an interval of the ratio and its adjusted p: REGRESSED
 * when p_adj < alpha and ci_lo > 1 + threshold; IMPROVED when p_adj < alpha
 * and ci_hi < 1/(1 + threshold); SAME when [ci_lo, ci_hi] lies within
 * [1/(1 + threshold), 1 + threshold]; UNSURE otherwise (and when the
 * interval is not finite and positive).
 */
pg_verdict pg_verdict_rule(double ci_lo, double ci_hi, double p_adj, double threshold, double alpha);

/**
 * The rule on two estimators of a paired case (model.h, "Two estimators"):
 * REGRESSED (IMPROVED) when p_adj < alpha and either estimator's claim
 * interval lies beyond the threshold, unless the other's lies beyond it the
 * other way (UNSURE, PG_BY_CONFLICT); SAME only when both intervals lo..hi
 * lie within [1/(1 + threshold), 1 + threshold]; UNSURE otherwise. *by says
 * which estimator decided, or which one kept the case from SAME.
 */
/** A paired case's p for Holm from its two estimators' p-values (model.h, PG_LOW_ALPHA_SHARE). */
double pg_verdict_dual_p(double p_median, double p_low);

pg_verdict pg_verdict_rule_dual(pg_decided_by *by, const pg_estimator_bounds *median, const pg_estimator_bounds *low,
                                double p_adj, double threshold, double alpha);

/**
 * Runs the pipeline from the decision on: Holm's adjustment over every case
 * with a p-value and the rule for each; with 8 or more compared cases the
 * suite stage (the spread of all cases' log ratios estimates this run's
 * drift, and a REGRESSED or IMPROVED case that did not clearly move beyond
 * what the whole suite shares is UNSURE: a machine phase until a re-run says
 * otherwise); then the canary stage (a case whose change the shift of the
 * canary of its kind explains becomes UNSURE, "machine drift: ..."); then
 * the recount. pg_compare() calls it; call it again after re-estimating.
 * @return 0 or PG_ENOMEM.
 */
int pg_comparison_adjust(pg_comparison *cmp, const pg_compare_options *opts);

/**
 * Compares `head` with the pooled baseline runs `bases` (may be empty: the
 * first run passes with every case NEW). Failed exact checks of the head
 * run count towards the exit code; opts->fail_on_missing and fail_on_new are
 * kept in the comparison for every later stage's recount.
 * @param[out] out free with pg_comparison_free().
 */
int pg_compare(pg_comparison **out, const pg_run *head, const pg_run *const *bases, size_t nbases,
               const pg_compare_options *opts);
void pg_comparison_free(pg_comparison *cmp);

/**
 * The confirmation stage with a re-run: every REGRESSED or IMPROVED case of
 * `cmp` found in `rerun` (looked up by key) is estimated against the same baseline runs
 * (`bases`, as given to pg_compare()) on its own, at the case's alpha (a
 * single hypothesis: the one the first measurement raised), and decided by
 * the usual rule; the case keeps its verdict only when the re-run gives it
 * too (confirm.h). Fills v->confirm, rewrites the reason to show both
 * measurements and recounts. `rerun` may be NULL (no re-run was made).
 * @return 0 or PG_ENOMEM.
 */
int pg_verdict_confirm(pg_comparison *cmp, const pg_run *rerun, const pg_run *const *bases, size_t nbases,
                       const pg_compare_options *opts);

/**
 * The confirmation stage with re-runs in several fresh processes (history
 * mode: a process can sit in a mode of its own for all its samples): each
 * REGRESSED or IMPROVED case keeps its verdict only when every re-run
 * decided alone gives it, and the head's processes pooled (the first run
 * with the re-runs, the drift between processes measured on both sides)
 * give it too (pg_confirm_settle_processes, confirm.h). `reruns` holds
 * `nreruns` runs, one per fresh process; a case none of them measured keeps
 * its verdict, said so. Recounts.
 * @return 0 or PG_ENOMEM.
 */
int pg_verdict_confirm_processes(pg_comparison *cmp, const pg_run *const *reruns, size_t nreruns,
                                 const pg_run *const *bases, size_t nbases, const pg_compare_options *opts);

/**
 * 1 when a confirmation re-run has something to settle for `v`: a timed
 * REGRESSED (IMPROVED too with `improved_too`); a counted metric never.
 */
int pg_verdict_to_confirm(const pg_case_verdict *v, int improved_too);

/**
 * The confirmation stage for interleaved gates: `again` is a fresh
 * interleaved comparison of (at least) the REGRESSED and IMPROVED cases of
 * `cmp`, decided on its own rounds; a case keeps its verdict only when
 * `again` gives it too. `again` may be NULL (no re-run was made).
 * @return 0 or PG_ENOMEM.
 */
int pg_verdict_confirm_paired(pg_comparison *cmp, const pg_comparison *again);

/**
 * The paired stage: for every head result i with paired[i].n > 0 whose case
 * was tested, the ratio, interval and one-sided p become the paired ones (no
 * run-to-run drift: the pairing cancels it), then pg_comparison_adjust()
 * runs with opts->paired set (no suite-wide widening or suite stage).
 * @param paired one entry per result of `head`, in its order.
 * @return 0 or PG_ENOMEM.
 */
int pg_verdict_paired(pg_comparison *cmp, const pg_run *head, const pg_paired_analysis *paired,
                      const pg_compare_options *opts);

/**
 * Accepts the REGRESSED cases of `cmp` whose key matches `glob` (NULL:
 * every one) on purpose: each keeps its verdict and gets `why` as its
 * acceptance (one line: "accepted by label perf-accepted, applied by
 * @alice"), and fails the comparison no more. With every regression
 * accepted, nothing else failing and no case in ERROR, the outcome is
 * ACCEPTED (exit 0). `by` (may be NULL) names who, kept in
 * cmp->accepted_by for the outcome's reason. Cases accepted already keep
 * their first acceptance.
 * @return the number of cases accepted now (>= 0), or PG_ENOMEM.
 */
int pg_comparison_accept(pg_comparison *cmp, const char *glob, pg_accept_source from, const char *by,
                         const char *why);

/**
 * Takes back every acceptance that came `from` there (a report's claims of
 * a label, which only the API can vouch for) and recounts when there was
 * one. @return the number of cases taken back.
 */
size_t pg_comparison_unaccept(pg_comparison *cmp, pg_accept_source from);

/** "label", "suite"; NULL for none. */
const char *pg_accept_source_name(pg_accept_source from);

/** Frees a diagnosis and everything it holds; NULL does nothing. */
void pg_diagnosis_free(struct pg_diagnosis *d);

/**
 * Points `cmp` at `run` as its head (a run whose results were swapped in from
 * the run it was compared on, so the cases' result pointers stay valid),
 * takes its exact checks and recounts.
 */
void pg_comparison_rebind_head(pg_comparison *cmp, const pg_run *run);

#endif
