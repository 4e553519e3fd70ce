/*
 * verdict.h - per-case verdicts between a head run and its baseline.
 *
 * Verdicts: SAME, REGRESSED, IMPROVED, UNSURE (never fails the build),
 * NEW and MISSING (reported, not failed), ERROR and SKIPPED (the case did
 * not produce samples on one side).
 */
#ifndef PG_VERDICT_H
#define PG_VERDICT_H

#include <stddef.h>

#include "model.h"

typedef enum pg_verdict {
    PG_VERDICT_SAME = 0,
    PG_VERDICT_REGRESSED,
    PG_VERDICT_IMPROVED,
    PG_VERDICT_UNSURE,
    PG_VERDICT_NEW,
    PG_VERDICT_MISSING,
    PG_VERDICT_ERROR,
    PG_VERDICT_SKIPPED,
    PG_VERDICT__COUNT
} pg_verdict;

const char *pg_verdict_name(pg_verdict v);

typedef struct pg_case_verdict {
    char *key;
    char *suite;
    char *name;
    const pg_result *head;   /* NULL for MISSING; points into the head run */
    const pg_result *base;   /* NULL for NEW; points into the first base run */
    size_t base_n, head_n;   /* samples compared */
    double base_median, head_median; /* seconds per iteration */
    double ratio;            /* head/base of medians */
    double ci_lo, ci_hi;     /* interval of the ratio */
    double p, p_adj;         /* one-sided p-value (direction of the change), adjusted */
    double threshold, alpha;
    double resolution;       /* smallest change detectable at this noise, as a fraction */
    pg_verdict verdict;
    char *reason;            /* one line; always set for UNSURE, ERROR, SKIPPED */
    /* Added by the statistics (issue 6); NAN or 0 when not computed. */
    size_t base_runs, head_runs; /* runs pooled on each side */
    double shift_lo, shift_hi;   /* interval of the ratio from the samples alone, before drift */
    double drift;                /* run-to-run spread of medians used (sd of log medians) */
    double drift_df;             /* its degrees of freedom (prior plus base runs - 1) */
    int drift_measured;          /* 1 when base runs contributed to the drift estimate */
    double estimate;             /* centre of the interval: Hodges-Lehmann shift as a ratio */
    double drift_hw;             /* half-width the drift model adds, on the log scale */
    /* Added by issue 11 (confirm.h): the confirmation re-measurement; 0/NAN when none. */
    int confirm;                 /* PG_CONFIRM_*: 0 not re-measured */
    double confirm_ratio, confirm_lo, confirm_hi; /* the re-run vs the baseline */
    /* Added by issues 10/11: decided on paired interleaved rounds (ab.h); base_n = head_n = rounds. */
    int paired;
} pg_case_verdict;

typedef struct pg_comparison {
    pg_case_verdict *cases;
    size_t ncases;
    size_t counts[PG_VERDICT__COUNT];
    size_t checks_total, checks_failed;
    const pg_run *head;      /* not owned */
    const pg_run *base;      /* first base run, not owned; NULL when none */
    size_t nbases;
    char *method;            /* one line naming the decision rule */
    int exit_code;           /* 0 pass, 1 regression or failed check */
    /* Added by issue 6: how the whole suite moved (NAN with fewer than 8 compared cases). */
    double suite_shift;      /* median ratio over the compared cases */
    double suite_spread;     /* robust sd (1.4826 MAD) of their log ratios */
    /* Added by issue 11 (canary.h): head/base ratio of each canary, NAN when not measured on both sides. */
    double canary_compute, canary_memory;
    unsigned canary_drift;   /* PG_CANARY_DRIFT_* bits: which canaries moved beyond their own noise */
} pg_comparison;

typedef enum pg_interval_method {
    PG_INTERVAL_MOSES = 0,   /* Hodges-Lehmann shift of log times with Moses' interval */
    PG_INTERVAL_BOOTSTRAP    /* seeded percentile bootstrap of the ratio of medians */
} pg_interval_method;

typedef struct pg_compare_options {
    unsigned version;
    double threshold;        /* <0: take each case's own (suite) value */
    double alpha;            /* <0: take each case's own (suite) value */
    int fail_on_missing;
    /* Added by issue 6. */
    int fail_on_new;         /* NEW cases fail the comparison (default: reported only) */
    double drift;            /* prior run-to-run sd of log medians; <0: PG_DRIFT_PRIOR */
    double drift_df;         /* weight of that prior in degrees of freedom; <0: PG_DRIFT_PRIOR_DF */
    pg_interval_method interval;
    size_t bootstrap_reps;   /* 0: 2000 */
    /* Added by issues 10/11: the cases carry paired intervals of interleaved rounds
     * (ab.h): no suite-wide widening or suite guard, a paired method line. */
    int paired;
} pg_compare_options;

/*
 * The run-to-run drift assumed when the baseline cannot measure it: medians of
 * separate processes moved 2.2% typically and 4.7% at the 90th percentile on
 * our machines (notes/noise.md), i.e. a standard deviation near 2% per run.
 */
#define PG_DRIFT_PRIOR 0.02
#define PG_DRIFT_PRIOR_DF 6.0

#define PG_COMPARE_OPTIONS_VERSION 1
#define PG_COMPARE_OPTIONS_INIT {PG_COMPARE_OPTIONS_VERSION, -1.0, -1.0, 0, 0, -1.0, -1.0, PG_INTERVAL_MOSES, 0, 0}

/** The samples of one case in one run. */
typedef struct pg_sample_set {
    const double *x;
    size_t n;
} pg_sample_set;

/**
 * Estimates one case's change from its raw samples: fills base/head
 * medians and counts, ratio, the interval (samples widened by run-to-run
 * drift), the one-sided Mann-Whitney p in the direction of the change, the
 * resolution and the drift fields. v->threshold, v->alpha and v->key (the
 * bootstrap seed) must be set. Leaves p_adj and the verdict alone, so it can
 * be called again with more runs (confirmation re-runs) before
 * pg_comparison_adjust().
 * @param head one entry per head run; @param base one entry per baseline run.
 * @return 0; PG_EINVAL when a side has no positive samples; PG_ENOMEM.
 */
int pg_verdict_estimate(pg_case_verdict *v, const pg_sample_set *head, size_t nhead, const pg_sample_set *base,
                        size_t nbase, const pg_compare_options *opts);

/**
 * Applies the decision rule to an estimated case, given its adjusted p
 * (v->p_adj) and the number of tested cases (for the reason): REGRESSED when
 * p_adj < alpha and ci_lo > 1 + threshold; IMPROVED when p_adj < alpha and
 * ci_hi < 1/(1 + threshold); SAME when the interval lies within
 * [1/(1+threshold), 1+threshold]; UNSURE otherwise, with the reason and advice.
 * Replaces v->reason.
 */
int pg_verdict_decide(pg_case_verdict *v, size_t ntested);

/**
 * Re-runs Holm's adjustment over every case with a p-value, decides each of
 * them again and recomputes counts and the exit code. With 8 or more
 * compared cases it also looks at the suite as a whole: the spread of all
 * cases' log ratios is an estimate of this run's drift (the interval takes
 * the larger of it and the model's), and a case is not REGRESSED (IMPROVED)
 * when the whole suite moved that way and the case did not clearly move
 * beyond it: that is a machine phase until a re-run says otherwise.
 * Then the canary rule (canary.h): a case whose change the shift of the
 * canary of its kind explains becomes UNSURE ("machine drift: ...").
 * pg_compare() calls it; call it again after re-estimating cases.
 */
int pg_comparison_adjust(pg_comparison *cmp, const pg_compare_options *opts);

/**
 * Recomputes cmp->counts and cmp->exit_code from the cases' verdicts as they
 * stand (after a step such as confirmation changed some of them).
 */
void pg__comparison_recount(pg_comparison *cmp, const pg_compare_options *opts);

/**
 * Compares `head` with the pooled baseline runs `bases` (may be empty: the
 * first run passes with every case NEW). Failed exact checks of the head
 * run count towards the exit code.
 * @param[out] out free with pg_comparison_free().
 */
int pg_compare(pg_comparison **out, const pg_run *head, const pg_run *const *bases, size_t nbases,
               const pg_compare_options *opts);
void pg_comparison_free(pg_comparison *cmp);

#endif
