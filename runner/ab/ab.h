/*
 * ab.h - interleaved A/B runs: the same suite against two builds in one job.
 *
 * Randomised multiple interleaved trials (Abedi & Brecht, ICPE 2017): over R
 * rounds, each case is measured once per build per round, base and head
 * back to back in an order drawn at random each time, so drift and phases of
 * a shared machine hit both sides alike. A round of one side is a short
 * measurement by the usual backend and contributes one sample: its median
 * block (or, on request, its fastest block). Plugin cases run both sides of a
 * round in lockstep (two child processes taking turns block by block: worker
 * processes kept across rounds, exec.h), so even a phase shorter than a round
 * hits both; commands run one side after the other (fresh processes each). The two
 * sides become two runs, compared by pg_compare() (verdict.h) like any base
 * and head; since rounds pair the sides, each case is then decided on the
 * paired analysis of its per-round ratios (ab/paired.c) by the paired stage
 * of the verdict, pg_verdict_paired().
 *
 * A build is a path: a plugin library file (it replaces every plugin case's
 * library), or a build directory substituted for `{build}` in plugin paths
 * and command arguments.
 */
#ifndef PG_AB_H
#define PG_AB_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "base/model.h"
#include "stats/stats.h"
#include "suite/suite.h"
#include "verdict/verdict.h"

/* Rounds by default: see docs/plugins.md ("perfgate ab") for the power calculation. */
#define PG_AB_DEFAULT_ROUNDS 20

typedef struct pg_ab_options {
    unsigned version;
    const char *base;         /* library file or build directory */
    const char *head;
    int rounds;               /* R, the most rounds a case gets; <= 0: PG_AB_DEFAULT_ROUNDS */
    uint64_t seed;            /* order of the sides; 0: from the clock (reported in the result) */
    double round_time;        /* seconds sampled per side per round; <= 0: PERFGATE_ROUND_TIME, else
                                 min_run_time/4, at least 20 ms */
    int64_t round_samples;    /* samples per side per round at least; <= 0: 5 */
    const char *filter;       /* glob over case keys; NULL: all */
    FILE *progress;           /* progress lines, or NULL */
    int round_min;            /* a round's value: 0 its median block (default), 1 its fastest block */
    int sequential;           /* plugin cases: one side after the other per round, not in lockstep */
    const char *const *keys;  /* only these case keys (exact), e.g. a confirmation; NULL: all (after filter) */
    size_t nkeys;
    double threshold, alpha;  /* override each case's (suite) values; < 0: keep them */
    int fixed;                /* every case all `rounds` (the fixed-count rule), no sequential stopping */
    double max_time;          /* seconds for all rounds; <= 0: no limit. Rounds stop when spent */
    int fresh;                /* plugin cases: fresh processes every round even where workers were asked
                                 for (also PERFGATE_FRESH_PROCESSES=1) */
    int worker_rounds;        /* > 0: workers, each pair serving this many rounds; <= 0: PERFGATE_WORKER_ROUNDS,
                                 else no workers (fresh processes every round, the default) */
    /* Called with every side of every round as measured (its blocks in r->samples), before the round is
       kept or left out: for audits and for bench/ tools that record the rounds' samples. NULL: none. */
    void (*on_round)(const char *key, int round, int head, const pg_result *r, void *payload);
    void *payload;
    /* An injected change of real work (`perfgate doctor --sensitivity`): the head side runs each block's
       iterations (1 + extra_work) times and counts them once (base/case.h); blocks are multiples of the
       smallest iteration count that makes it exact. With it, base and head may be NULL: both sides are
       the suite as written. 0: none. */
    double extra_work;
} pg_ab_options;

#define PG_AB_OPTIONS_VERSION 5
#define PG_AB_OPTIONS_INIT {PG_AB_OPTIONS_VERSION, NULL, NULL, 0, 0, 0, 0, NULL, NULL, 0, 0, NULL, 0, -1.0, -1.0, 0, \
                            0, 0, 0, NULL, NULL, 0.0}

/**
 * The iterations per block that make an injected change of `extra` (a
 * fraction) a whole number of them: the smallest u <= 1000 with u * extra
 * whole, else 1000 (the change is then rounded to 0.1 %). *whole gets u * extra.
 */
int64_t pg_ab_extra_unit(double extra, int64_t *whole);

/*
 * Plugin cases are measured in two fresh processes (one per build) every
 * round. Worker processes kept across rounds (worker_rounds, or
 * PERFGATE_WORKER_ROUNDS=K) are cheaper per round but found a +10 % change
 * in fewer calm gates (docs/statistics.md, "Workers against fresh
 * processes"), so they are off unless asked for.
 */

typedef struct pg_ab_result {
    pg_run *base;             /* one result per case: per-round medians as samples */
    pg_run *head;
    pg_comparison *cmp;       /* pg_compare(head, {base}) */
    pg_paired_analysis *paired; /* per case of cmp->cases order: paired[i] belongs to head->results[i] */
    int rounds;               /* the most rounds any case was measured in (kept or left out for contention) */
    int max_rounds;           /* the maximum allowed (--rounds) */
    int sequential;           /* cases stopped once settled (pg_ab_seq_look) */
    int time_out;             /* max_time ran out before every open case had max_rounds */
    int busy_stop;            /* stopped early: every open case's rounds were all left out (the machine was busy) */
    uint64_t seed;
    int *order_head_first;    /* max_rounds x cases: 1 when head ran first (for audits and tests) */
    unsigned worker_processes; /* worker processes started (0: fresh processes each round, or no plugin case) */
    unsigned workers_replaced; /* rounds measured again after a worker died or broke the protocol */
} pg_ab_result;

/**
 * Runs the A/B of `set` between opts->base and opts->head.
 * @param[out] out filled; free with pg_ab_result_clear().
 * @return 0; PG_EINVAL when a build path does not exist; an infrastructure
 *         error that stopped the run. A case that fails on either side is an
 *         ERROR verdict, the others go on.
 */
int pg_ab_run(pg_ab_result *out, const pg_suite_set *set, const pg_ab_options *opts);
void pg_ab_result_clear(pg_ab_result *r);

/**
 * The paired analysis of `n` rounds (base[i], head[i] > 0), with a two-sided
 * interval at level `conf` (e.g. 0.95): Wilcoxon signed-rank test and
 * Hodges-Lehmann/Tukey interval of log(head/base) (stats.h).
 */
int pg_ab_paired_analyse(pg_paired_analysis *out, const double *base, const double *head, size_t n, double conf);

/**
 * The same on two estimators of each round (verdict/model.h, "Two
 * estimators"): the median blocks (base, head) and the fastest tenths
 * (base_low, head_low). Each gets its interval at 1 - alpha (SAME is judged
 * on it), which is also the median's claim interval; the fastest tenth's
 * claim interval is at 1 - 2 * PG_LOW_ALPHA_SHARE * alpha; both get their
 * signed-rank p-values; out->dual = 1.
 */
int pg_ab_paired_analyse_dual(pg_paired_analysis *out, const double *base, const double *head, const double *base_low,
                              const double *head_low, size_t n, double alpha);

/*
 * Sequential decisions: a case is looked at after every round from
 * PG_AB_MIN_ROUNDS on, and stops being measured once its verdict is settled
 * (REGRESSED, SAME or IMPROVED). The interval is an anytime-valid confidence
 * sequence for the median per-round log ratio (pg_stats_sign_cs), the
 * p-values anytime-valid (1 / the largest wealth so far), Holm over every
 * case's current p at each look: a claim made at any look is as sound as one
 * made at a fixed count (docs/statistics.md, "Sequential decisions").
 */
#define PG_AB_MIN_ROUNDS PG_PAIRED_MIN_ROUNDS

/**
 * One case of a sequential gate. The caller fills d (and dl, for two
 * estimators), n, threshold and alpha; pg_ab_seq_look() the rest. With dl,
 * each estimator has a sequence at alpha (SAME) and one at its share of
 * alpha (its claims), and the case's p for Holm is pg_verdict_dual_p() of
 * their anytime p-values (verdict/model.h, "Two estimators").
 */
typedef struct pg_ab_seq {
    const double *d;          /* per-round log(head/base) of the median blocks so far */
    size_t n;
    double threshold, alpha;
    int failed;               /* left out (a side failed): never looked at */
    double p_slower, p_faster; /* anytime p-values; 1 before the first look */
    pg_sign_cs cs;            /* the confidence sequence at the last look */
    pg_verdict settled;       /* REGRESSED, SAME or IMPROVED once settled; UNSURE while open */
    size_t settled_at;        /* rounds when settled; 0 while open */
    const double *dl;         /* per-round log(head/base) of the fastest tenths; NULL: the median alone */
    pg_sign_cs claim;         /* with dl: the median's sequence at its share of alpha */
    pg_sign_cs low_cs, low_claim; /* with dl: the fastest tenth's at alpha and at its share */
    double low_p_slower, low_p_faster;
    pg_decided_by by;         /* with dl: which estimator settled it (or keeps it open) */
} pg_ab_seq;

#define PG_AB_SEQ_CS_INIT {0, 0, -INFINITY, INFINITY, 1, 1}
#define PG_AB_SEQ_INIT                                                                                             \
    {NULL, 0, 0.05, 0.05, 0, 1.0, 1.0, PG_AB_SEQ_CS_INIT, PG_VERDICT_UNSURE, 0, NULL, PG_AB_SEQ_CS_INIT,        \
     PG_AB_SEQ_CS_INIT, PG_AB_SEQ_CS_INIT, 1.0, 1.0, PG_BY_BOTH}

/**
 * One look at every case: the confidence sequence and anytime p-values of
 * each open case with at least `min_rounds` rounds, Holm over all cases'
 * p-values, and the rule (pg_verdict_rule) on each; a case whose rule gives
 * REGRESSED, SAME or IMPROVED is settled and is not looked at again.
 * @return the number of cases still open, or a negative PG_E* code.
 */
int pg_ab_seq_look(pg_ab_seq *cases, size_t ncases, size_t min_rounds);

/** Puts a case's sequential outcome into its paired analysis: the sequence as the interval, the anytime p-values. */
void pg_ab_seq_to_paired(pg_paired_analysis *out, const pg_ab_seq *s);

#endif
