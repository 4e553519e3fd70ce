/*
 * verdict_model.h - the comparison of a head run with its baseline, as data.
 *
 * The types every stage of the verdict (verdict.h) fills and every reporter
 * reads. It sits below verdict, canary and confirm, so that those modules
 * share these types without including each other; it declares no
 * functions.
 *
 * Verdicts: SAME, REGRESSED, IMPROVED, UNSURE (never fails the build),
 * NEW and MISSING (reported, not failed), ERROR and SKIPPED (the case did
 * not produce samples on one side).
 *
 * Outcomes, of the comparison as a whole: PASS, FAIL, ERROR when a case
 * could not be measured on either side (it crashed, timed out or failed to
 * run), and NOTHING_COMPARED when no benchmark case was decided (no
 * baseline, a baseline only from another machine, every case UNSURE or
 * SKIPPED). A comparison that decided nothing is not a pass: it would vouch
 * for what was never measured; nor is one with a case that never ran. A
 * baseline that lacks the head's cases (a first pull request that adds
 * benchmarks) is a PASS: the cases are NEW, nothing to compare them with yet.
 */
#ifndef PG_VERDICT_MODEL_H
#define PG_VERDICT_MODEL_H

#include <stddef.h>

#include "base/model.h"

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

/* What the comparison amounts to; docs/reporting.md "Outcomes". */
typedef enum pg_outcome {
    PG_OUTCOME_PASS = 0,          /* cases were decided and none failed the exit rule */
    PG_OUTCOME_FAIL,              /* a case REGRESSED or an exact check failed (exit 1) */
    PG_OUTCOME_NOTHING_COMPARED,  /* benchmark cases, none decided (exit 4): never reads as a pass */
    PG_OUTCOME_ERROR              /* a case ended in ERROR and none failed (exit 3): never reads as a pass */
} pg_outcome;

/* What a confirmation re-run of a REGRESSED or IMPROVED case said. */
typedef enum pg_confirm_state {
    PG_CONFIRM_NONE = 0,    /* not a candidate (or confirmation was off) */
    PG_CONFIRM_CONFIRMED,   /* the re-run has the same verdict: it stands */
    PG_CONFIRM_REFUTED,     /* the re-run is not: UNSURE with both measurements */
    PG_CONFIRM_NOT_RUN      /* no re-run (budget spent, or it failed): the verdict stands, said so */
} pg_confirm_state;

/* Bits of pg_canary_reading.drift. */
enum { PG_CANARY_DRIFT_COMPUTE = 1 << 0, PG_CANARY_DRIFT_MEMORY = 1 << 1 };

/** One case's change, estimated from the samples of both sides; NAN or 0 when not computed. */
typedef struct pg_estimate {
    size_t base_n, head_n;           /* samples compared (rounds, when paired) */
    size_t base_runs, head_runs;     /* runs pooled on each side */
    double base_median, head_median; /* seconds per iteration */
    double ratio;                    /* head/base of medians */
    double ci_lo, ci_hi;             /* interval of the ratio, widened by run-to-run drift */
    double p, p_adj;                 /* one-sided p-value (direction of the change); Holm-adjusted */
    double center;                   /* centre of the interval: Hodges-Lehmann shift as a ratio */
    double shift_lo, shift_hi;       /* interval of the ratio from the samples alone, before drift */
    double resolution;               /* smallest change detectable at this noise, as a fraction */
    double run_noise;                /* largest IQR/median of one run's samples, either side */
    int very_noisy;                  /* run_noise >= PG_VERY_NOISY_IQR: the drift allowed is the samples' spread */
    size_t dropped;                  /* samples of either side left out: zero, negative or not finite */
    size_t settled_at;               /* paired, sequential: rounds after which the case was settled; 0: ran to the end */
    double busy;                     /* share of the head's sampling wall time lost to waiting for a CPU or to steal
                                        (history mode; 0: none or not measured) */
} pg_estimate;

/*
 * Interleaved rounds are judged by two estimators of each round, so that
 * SAME is earned: the median block of each side (what the machine gives a
 * kernel most of the time) and its fastest tenth (PG_LOW_QUANTILE, stats.h:
 * the kernel's cost with the least of the machine's mood). SAME needs both
 * inside the band, each at alpha (a false SAME needs the estimator whose
 * truth is outside to miss: at most alpha). Either one can show REGRESSED
 * or IMPROVED, on alpha split between them (weighted Bonferroni): the
 * median block claims at PG_MEDIAN_ALPHA_SHARE of alpha, which takes the
 * rounds a single estimator took (5, 6 and 10 that all agree at 1, 2 and 20
 * cases), the fastest tenth at PG_LOW_ALPHA_SHARE, so it makes a claim alone
 * only on strong evidence (11 rounds; 16 with Holm over 20 cases); a case's
 * p for Holm is min(p_median / share, p_low / share)
 * (docs/statistics.md, "Two estimators").
 */
#define PG_LOW_ALPHA_SHARE 0.02
#define PG_MEDIAN_ALPHA_SHARE (1 - PG_LOW_ALPHA_SHARE)
typedef struct pg_estimator_bounds {
    double ratio;                    /* centre of the per-round ratios, head/base */
    double lo, hi;                   /* the interval SAME is judged on (the case's level) */
    double claim_lo, claim_hi;       /* the interval a REGRESSED or IMPROVED claim needs (its share of alpha) */
} pg_estimator_bounds;

/** Which estimator carried a paired case's verdict. */
typedef enum pg_decided_by {
    PG_BY_BOTH = 0,                  /* both agree (or one estimator alone decided the case) */
    PG_BY_MEDIAN,                    /* the median block; the fastest tenth did not show it */
    PG_BY_LOW,                       /* the fastest tenth; the median block did not show it */
    PG_BY_CONFLICT                   /* one slower, the other faster beyond the threshold */
} pg_decided_by;

/** What the rounds of a paired case looked like: regimes, transients and contention (ab/). */
typedef struct pg_round_notes {
    size_t measured;                 /* rounds measured on both sides */
    size_t contended;                /* of them left out: a side ran under half its wall time (contention.h) */
    double busiest;                  /* largest share of a side's wall time lost to waiting or steal in a round */
    double busy_mean;                /* mean of each round's larger share, over the rounds measured */
    double stolen;                   /* largest share lost to steal */
    size_t sides;                    /* sides of rounds described (two per round used) */
    size_t bimodal;                  /* of them, samples in two regimes (stats.h, pg_stats_shape) */
    double fast, slow;               /* medians, over those, of the fast and the slow regime (seconds) */
    double slow_share;               /* median share of the slow regime in them */
    size_t drifting;                 /* sides whose samples drifted by more than the threshold within the round */
    double drift;                    /* median drift of those (ratio - 1) */
    double transient;                /* the largest first-call over steady time per iteration of any process */
    size_t not_steady;               /* processes whose warm-up ended still getting faster */
} pg_round_notes;

/** A paired case's two estimators as decided (paired cases with a low estimate; `on` 0 otherwise). */
typedef struct pg_dual_view {
    int on;
    pg_decided_by by;
    pg_estimator_bounds median, low;
} pg_dual_view;

/** The run-to-run drift the interval allows for; 0 when rounds are paired. */
typedef struct pg_drift {
    double sd;                       /* spread of run medians used (sd of log medians) */
    double df;                       /* its degrees of freedom (prior plus base runs - 1) */
    double hw;                       /* half-width it adds to the interval, on the log scale */
    int measured;                    /* 1 when base runs contributed to the estimate */
} pg_drift;

/** The confirmation re-measurement of a REGRESSED or IMPROVED case; state NONE and NAN when there was none. */
typedef struct pg_confirmation {
    pg_confirm_state state;
    double ratio, lo, hi;            /* the re-run vs the baseline */
} pg_confirmation;

typedef struct pg_case_verdict {
    char *key;
    char *suite;
    char *name;
    const pg_result *head;           /* NULL for MISSING; points into the head run */
    const pg_result *base;           /* NULL for NEW; points into the first base run */
    double threshold, alpha;
    pg_verdict verdict;
    char *reason;                    /* one line; always set for UNSURE, ERROR, SKIPPED */
    pg_estimate est;
    pg_drift drift;
    pg_confirmation confirm;
    int paired;                      /* decided on paired interleaved rounds: est.base_n = est.head_n = rounds */
    pg_dual_view dual;               /* paired: both estimators; est shows the one that decided (the median's
                                        unless by is PG_BY_LOW) */
    pg_round_notes rounds;           /* paired: what the rounds looked like */
    char *regime;                    /* paired: one line saying which regime the verdict measured; NULL: none */
    const char *source;              /* the head run's harness ("perfgate", "google-benchmark"...), for advice
                                        naming its own knob; not owned, NULL when unknown */
} pg_case_verdict;

/* Interleaved gates look at a case after every round from this many on (ab.h). */
#define PG_PAIRED_MIN_ROUNDS 5

/** The paired analysis of one case's interleaved rounds: per-round log(head/base). */
typedef struct pg_paired_analysis {
    size_t n;                        /* rounds with both sides measured */
    double ratio;                    /* exp(Hodges-Lehmann centre of the per-round log ratios) */
    double ci_lo, ci_hi;             /* Tukey's distribution-free interval of that centre (Walsh averages) */
    double confidence;               /* the interval's level */
    double p_slower, p_faster;       /* one-sided Wilcoxon signed-rank p-values */
    size_t head_slower;              /* rounds where head was slower */
    int sequential;                  /* interval and p-values are anytime-valid (the rounds stopped when settled) */
    size_t settled_at;               /* rounds after which the verdict was settled; 0: it ran to the maximum */
    /* Two estimators (pg_ab_paired_analyse_dual): `dual` 0 when only the median blocks were given. */
    int dual;
    double claim_lo, claim_hi;       /* the median's interval for a REGRESSED or IMPROVED claim (its share of alpha) */
    pg_estimator_bounds low;         /* the fastest tenth's per-round ratios */
    double low_p_slower, low_p_faster;
    pg_decided_by by;                /* sequential: which estimator settled it */
    pg_round_notes notes;
} pg_paired_analysis;

/** How the whole suite moved: NAN with fewer than 8 compared cases. */
typedef struct pg_suite_move {
    double shift;                    /* median ratio over the compared cases */
    double spread;                   /* robust sd (1.4826 MAD) of their log ratios */
} pg_suite_move;

/** The reference workloads of a comparison (canary.h). */
typedef struct pg_canary_reading {
    double compute, memory;          /* head/base ratio of each canary; NAN when not measured on both sides */
    unsigned drift;                  /* PG_CANARY_DRIFT_* bits: which canaries moved beyond their own noise */
    char *summary;                   /* one line for every report, NULL when neither canary was measured on both
                                        sides; owned by the comparison */
} pg_canary_reading;

/** The base build an interleaved gate measured, as its decision names it; every field NULL otherwise. */
typedef struct pg_base_build {
    char *path;                      /* as measured (absolute) */
    char *commit;                    /* the build's commit when it records one (.perfgate-build-sha); NULL */
    char *sha256;                    /* over the files it supplied to the cases (plugin libraries, programs) */
} pg_base_build;

typedef struct pg_comparison {
    pg_case_verdict *cases;
    size_t ncases;
    size_t counts[PG_VERDICT__COUNT];
    size_t checks_total, checks_failed;
    const pg_run *head;              /* not owned */
    const pg_run *base;              /* first base run, not owned; NULL when none */
    size_t nbases;
    char *method;                    /* one line naming the decision rule */
    int exit_code;                   /* the exit rule: 0 pass, 1 regression or failed check */
    pg_outcome outcome;              /* FAIL when exit_code is 1; else ERROR, PASS or NOTHING_COMPARED */
    char *outcome_reason;            /* one line: what to do (NOTHING_COMPARED), which case failed to run
                                        (ERROR), "N new cases..." (a PASS of new cases alone); owned */
    int fail_on_missing, fail_on_new; /* the exit rule it was compared under, for every later recount */
    pg_suite_move suite;
    pg_canary_reading canary;
    pg_base_build build;             /* interleaved: the base build measured; owned */
} pg_comparison;

#endif
