/*
 * estimate.c - the verdict of one case: its estimate from the samples of
 * both sides (medians, interval, p), widened by run-to-run drift, and the
 * rule that turns an estimate into SAME, REGRESSED, IMPROVED or UNSURE with
 * its reason. verdict.c runs these over a whole comparison as its first two
 * stages (docs/statistics.md, "The verdict of one case").
 */
#include "verdict/verdict.h"
#include "verdict/internal.h"

#include "measure/contention.h"

#include "perfgate/errors.h"
#include "stats/stats.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Above this many pairwise differences the bootstrap replaces Moses' interval. */
#define MOSES_MAX_PAIRS 4000000.0

void pg__verdict_set_reason(pg_case_verdict *v, char *reason)
{
    free(v->reason);
    v->reason = reason;
}

/* FNV-1a of the case key: a stable per-case bootstrap seed. */
static uint64_t key_seed(const char *key)
{
    uint64_t h = 1469598103934665603ull;

    for (; key && *key; key++)
        h = (h ^ (unsigned char)*key) * 1099511628211ull;
    return h;
}

/*
 * One side of a comparison: the logs of the positive samples of every run,
 * pooled in run order (`logs`) and sorted (`sorted`, each run sorted once
 * and the runs merged), and how noisy one run is, worst run of the side:
 * the largest IQR/median of one run's samples (`iqr_rel`) and the largest
 * robust sd of its log samples (1.4826 MAD, `log_sd`). Per run, so that
 * baseline runs at different levels do not count as noise within a run:
 * that is drift. Run medians (of the logs) go to `meds` when given.
 */
typedef struct side_logs {
    double *logs, *sorted;
    size_t n, runs;
} side_logs;

static void side_free(side_logs *sd)
{
    free(sd->logs);
    free(sd->sorted);
}

/* Merges the sorted a[0..na) and b[0..nb) into out. */
static void merge_sorted(double *out, const double *a, size_t na, const double *b, size_t nb)
{
    size_t i = 0, j = 0, k = 0;

    while (i < na && j < nb)
        out[k++] = b[j] < a[i] ? b[j++] : a[i++];
    while (i < na)
        out[k++] = a[i++];
    while (j < nb)
        out[k++] = b[j++];
}

static int side_load(side_logs *sd, double *meds, double *iqr_rel, double *log_sd, const pg_sample_set *sets,
                     size_t nsets)
{
    size_t total = 0, most = 1, i, j, nacc = 0;
    double *raw, *run, *dev, *acc2, *acc, *other;

    memset(sd, 0, sizeof(*sd));
    for (i = 0; i < nsets; i++) {
        total += sets[i].n;
        most = sets[i].n > most ? sets[i].n : most;
    }
    sd->logs = malloc((total ? total : 1) * sizeof(double));
    sd->sorted = malloc((total ? total : 1) * sizeof(double));
    acc2 = malloc((total ? total : 1) * sizeof(double));
    raw = malloc(3 * most * sizeof(double));
    if (!sd->logs || !sd->sorted || !acc2 || !raw) {
        free(acc2);
        free(raw);
        side_free(sd);
        return PG_ENOMEM;
    }
    run = raw + most;
    dev = raw + 2 * most;
    acc = sd->sorted;
    other = acc2;
    for (i = 0; i < nsets; i++) {
        size_t start = sd->n, m = 0;
        double *t;
        for (j = 0; j < sets[i].n; j++)
            if (sets[i].x[j] > 0 && isfinite(sets[i].x[j])) {
                raw[m++] = sets[i].x[j];
                sd->logs[sd->n++] = log(sets[i].x[j]);
            }
        if (m == 0)
            continue;
        /* The run's logs sorted once: its median, its MAD, and merged into the side's sorted logs. */
        memcpy(run, sd->logs + start, m * sizeof(double));
        pg_stats_sort(run, m);
        if (meds)
            meds[sd->runs] = pg_stats_quantile_sorted(run, m, 0.5);
        sd->runs++;
        if (m >= 4) {
            double med, q1, q3;
            pg_stats_sort(raw, m);
            med = pg_stats_quantile_sorted(raw, m, 0.5);
            q1 = pg_stats_quantile_sorted(raw, m, 0.25);
            q3 = pg_stats_quantile_sorted(raw, m, 0.75);
            if (med > 0) {
                *iqr_rel = fmax(*iqr_rel, (q3 - q1) / med);
                *log_sd = fmax(*log_sd, 1.4826 * pg_stats_mad_sorted(run, m, dev));
            }
        }
        merge_sorted(other, acc, nacc, run, m);
        nacc += m;
        t = acc;
        acc = other;
        other = t;
    }
    if (acc != sd->sorted)
        memcpy(sd->sorted, acc, nacc * sizeof(double));
    free(acc2);
    free(raw);
    return 0;
}

/*
 * The median of the raw samples exp(l) from their sorted logs, the double
 * pg_stats_median() of the raw samples gives, with two or three exp()s
 * instead of one per sample. exp() is within an ulp of the exact value, so
 * logs more than 2^-40 apart keep their order after it; only the values
 * within that of the middle ones (a run of ties, say) are exp()ed and sorted
 * to find which land in the middle. Outside exp()'s normal range, every
 * sample. `raw` holds n doubles.
 */
static double raw_median(const double *l, size_t n, double *raw)
{
    const double close = 0x1p-40;
    size_t mid = (n - 1) / 2, last = mid + 1 < n ? mid + 1 : mid, a = mid, b = last, i;

    while (a > 0 && !(l[a - 1] < l[a] - close))
        a--;
    while (b + 1 < n && !(l[b + 1] > l[b] + close))
        b++;
    if (!(l[a] > -700 && l[b] < 700) || (a > 0 && !(l[a - 1] > -700)) || (b + 1 < n && !(l[b + 1] < 700)))
        a = 0, b = n - 1;
    /* Only raw[mid] and raw[mid + 1] are read: those lie in [a, b]. */
    for (i = a; i <= b; i++)
        raw[i] = exp(l[i]);
    pg_stats_sort(raw + a, b - a + 1);
    return pg_stats_quantile_sorted(raw, n, 0.5);
}

/*
 * The interval: the samples' interval with a drift half-width `wd` added in
 * quadrature (independent components) on each side. When the median ratio
 * falls outside (bimodal samples: a phase change inside a run), the interval
 * is stretched to contain it, which only ever makes a verdict more cautious.
 */
void pg__verdict_widen(pg_case_verdict *v, double wd)
{
    double center = log(v->est.center), lo = log(v->est.shift_lo), hi = log(v->est.shift_hi);

    v->est.ci_lo = exp(center - sqrt((center - lo) * (center - lo) + wd * wd));
    v->est.ci_hi = exp(center + sqrt((hi - center) * (hi - center) + wd * wd));
    v->est.ci_lo = fmin(v->est.ci_lo, v->est.ratio);
    v->est.ci_hi = fmax(v->est.ci_hi, v->est.ratio);
    /* A slowdown must be about this large before its lower bound clears the threshold. */
    v->est.resolution = (1 + v->threshold) * exp(0.5 * (log(v->est.ci_hi) - log(v->est.ci_lo))) - 1;
}

/* Adds the spread of `n` run medians about their mean to a pooled variance (*ss, *df); 1 when it added any. */
static int add_spread(double *ss, double *df, const double *meds, size_t n)
{
    double mm;
    size_t i;

    if (n < 2)
        return 0;
    mm = pg_stats_mean(meds, n);
    for (i = 0; i < n; i++)
        *ss += (meds[i] - mm) * (meds[i] - mm);
    *df += (double)(n - 1);
    return 1;
}

int pg_verdict_estimate(pg_case_verdict *v, const pg_sample_set *head, size_t nhead, const pg_sample_set *base,
                        size_t nbase, const pg_compare_options *opts)
{
    pg_compare_options dflt = PG_COMPARE_OPTIONS_INIT;
    double *lh, *lb, *meds = NULL, *hmeds = NULL, *raw_h = NULL, *raw_b = NULL;
    size_t nh = 0, nb = 0, hr = 0, br = 0, i;
    double level, center, lo, hi, prior, prior_df, s2, df, wd, tq, log_sd = 0;
    side_logs sh_side, sb_side;
    pg_shift sh;
    pg_mwu m;
    int err = PG_ENOMEM;

    if (!opts)
        opts = &dflt;
    v->est.ratio = v->est.ci_lo = v->est.ci_hi = v->est.p = v->est.shift_lo = v->est.shift_hi = v->est.center = NAN;
    v->est.resolution = NAN;
    v->est.run_noise = 0;
    v->est.very_noisy = 0;
    level = 1 - v->alpha;
    memset(&sh_side, 0, sizeof(sh_side));
    memset(&sb_side, 0, sizeof(sb_side));
    meds = malloc((nbase ? nbase : 1) * sizeof(*meds));
    hmeds = malloc((nhead ? nhead : 1) * sizeof(*hmeds));
    if (!meds || !hmeds || side_load(&sh_side, hmeds, &v->est.run_noise, &log_sd, head, nhead) != 0 ||
        side_load(&sb_side, meds, &v->est.run_noise, &log_sd, base, nbase) != 0)
        goto nomem;
    /* The logs sorted: Mann-Whitney and Hodges-Lehmann sort their own copies, which are then in order already. */
    lh = sh_side.sorted;
    lb = sb_side.sorted;
    nh = sh_side.n;
    nb = sb_side.n;
    hr = sh_side.runs;
    br = sb_side.runs;
    v->est.head_n = nh;
    v->est.base_n = nb;
    v->est.head_runs = hr;
    v->est.base_runs = br;
    v->est.dropped = 0;
    for (i = 0; i < nhead; i++)
        v->est.dropped += head[i].n;
    for (i = 0; i < nbase; i++)
        v->est.dropped += base[i].n;
    v->est.dropped -= nh + nb;
    if (nh == 0 || nb == 0) {
        err = pg_error_set(PG_EINVAL, "%s: no positive samples on the %s side", v->key ? v->key : "case",
                           nh == 0 ? "head" : "base");
        goto cleanup;
    }
    /* Medians of the raw samples, as every report shows them (the log of an even-n midpoint differs). */
    if ((raw_h = malloc(nh * sizeof(*raw_h))) == NULL || (raw_b = malloc(nb * sizeof(*raw_b))) == NULL)
        goto nomem;
    v->est.very_noisy = v->est.run_noise >= PG_VERY_NOISY_IQR;
    v->est.head_median = raw_median(lh, nh, raw_h);
    v->est.base_median = raw_median(lb, nb, raw_b);
    v->est.ratio = v->est.head_median / v->est.base_median;

    /* One-sided Mann-Whitney in the direction the medians moved. */
    if ((err = pg_stats_mwu(&m, lh, nh, lb, nb, v->est.ratio >= 1 ? PG_ALT_GREATER : PG_ALT_LESS, PG_MWU_AUTO)) != 0)
        goto cleanup;
    v->est.p = m.p;

    /* The interval from the samples alone, on log times. */
    if (opts->interval == PG_INTERVAL_BOOTSTRAP || (double)nh * (double)nb > MOSES_MAX_PAIRS) {
        double blo, bhi;
        /* Resampling draws by position: the samples in run order, as stored. */
        for (i = 0; i < nh; i++)
            raw_h[i] = exp(sh_side.logs[i]);
        for (i = 0; i < nb; i++)
            raw_b[i] = exp(sb_side.logs[i]);
        if ((err = pg_stats_bootstrap_ratio(&blo, &bhi, raw_h, nh, raw_b, nb, level,
                                            opts->bootstrap_reps ? opts->bootstrap_reps : 2000, key_seed(v->key))) != 0)
            goto cleanup;
        center = log(v->est.ratio);
        lo = log(blo);
        hi = log(bhi);
    } else {
        if ((err = pg_stats_hodges_lehmann(&sh, lh, nh, lb, nb, level)) != 0)
            goto cleanup;
        center = sh.estimate;
        lo = sh.lo;
        hi = sh.hi;
    }
    v->est.center = exp(center);
    v->est.shift_lo = exp(lo);
    v->est.shift_hi = exp(hi);

    /*
     * Run-to-run drift: the sd of log run medians, pooled with the prior
     * (a scaled inverse chi-square with prior_df degrees of freedom), so one
     * or two baseline runs lean on what our machines showed and many runs
     * speak for themselves. The head and the baseline each carry their own
     * run offsets: the variance of their difference is s^2 (1/H + 1/K).
     * Several head runs (a confirmation's fresh processes) add their spread
     * about their own mean: a case whose processes land in different modes
     * (saxpy at 0.6 or 1.05 us per process) shows it there too.
     */
    prior = opts->drift >= 0 ? opts->drift : PG_DRIFT_PRIOR;
    /*
     * A run whose samples spread this widely is not a steady state with
     * independent samples but a sequence of phases (notes/noise.md): its
     * median moves between processes about as far as its samples spread
     * (saxpy: -51.7% between two runs of one build). So for a very noisy
     * case the prior drift is at least the robust sd of its log samples,
     * and such a case fails only on a change well beyond that.
     */
    if (v->est.very_noisy)
        prior = fmax(prior, log_sd);
    prior_df = opts->drift_df >= 0 ? opts->drift_df : PG_DRIFT_PRIOR_DF;
    s2 = prior * prior * prior_df;
    df = prior_df;
    v->drift.measured = 0;
    v->drift.measured = add_spread(&s2, &df, meds, br) | add_spread(&s2, &df, hmeds, hr);
    s2 = df > 0 ? s2 / df : 0;
    v->drift.sd = sqrt(s2);
    v->drift.df = df;
    tq = df > 0 ? pg_stats_t_ppf(1 - v->alpha / 2, df) : pg_stats_norm_ppf(1 - v->alpha / 2);
    wd = tq * v->drift.sd * sqrt(1.0 / (double)hr + 1.0 / (double)br);
    v->drift.hw = wd;
    pg__verdict_widen(v, wd);
    err = 0;
    goto cleanup;

nomem:
    err = pg_error_set(PG_ENOMEM, "out of memory comparing %s", v->key ? v->key : "a case");
cleanup:
    side_free(&sh_side);
    side_free(&sb_side);
    free(meds);
    free(hmeds);
    free(raw_h);
    free(raw_b);
    return err;
}

/* How to get more samples where they came from: an imported run's harness has its own knob. */
static const char *more_samples(const pg_case_verdict *v)
{
    const char *s = v->source ? v->source : "";

    if (strcmp(s, "google-benchmark") == 0)
        return "run more repetitions (--benchmark_repetitions) before importing";
    if (strcmp(s, "hyperfine") == 0)
        return "let hyperfine run more times (--runs or --min-runs) before importing";
    if (strcmp(s, "pytest-benchmark") == 0)
        return "take more rounds (--benchmark-min-rounds) before importing";
    return "take more samples (raise min_samples or min_run_time)";
}

/* 1 when the interval is mostly the drift allowed between runs, not the spread of this case's samples. */
static int drift_dominates(const pg_case_verdict *v)
{
    double total = log(v->est.ci_hi) - log(v->est.ci_lo), samples = log(v->est.shift_hi) - log(v->est.shift_lo);

    return !v->paired && isfinite(samples) && samples < 0.7 * total;
}

/* The advice for an UNSURE case: which component of the interval dominates. */
static const char *advice(const pg_case_verdict *v, char *buf, size_t len)
{
    if (v->paired)
        return "run more rounds (--rounds) or use a quieter machine";
    if (!drift_dominates(v)) {
        snprintf(buf, len, "%s, or use a quieter machine", more_samples(v));
        return buf;
    }
    if (v->drift.measured)
        return "the machine drifts between runs: pool more baseline runs or use a quieter machine";
    return "one baseline run cannot measure run-to-run drift: pool runs with --base last:5";
}

/* The UNSURE reason of a very noisy case: what the run flagged, what it can resolve, what would help. */
static char *too_noisy(const pg_case_verdict *v, const char *th)
{
    const char *fix = v->source && strcmp(v->source, "perfgate") != 0 ? more_samples(v)
                                                                          : "lengthen min_run_time, gate interleaved "
                                                                            "with --base-build";

    return pg__asprintf("very noisy (IQR %.0f%% of the median within a run): resolves ~%.0f%% here, too noisy for "
                        "%s; %s, or use a quieter runner",
                        100 * v->est.run_noise, 100 * v->est.resolution, th, fix);
}

/* An interval wider than the threshold because of the drift allowed between runs, not this case's noise. */
static char *drift_wide(const pg_case_verdict *v, const char *th)
{
    double pct = 100 * (exp(v->drift.hw) - 1);

    if (!v->drift.measured)
        return pg__asprintf("undecided at %s: the interval is mostly the run-to-run drift assumed for %zu baseline "
                            "run%s (+-%.0f%%), not noise in this case; store more baseline runs and compare with "
                            "--base last:5, or gate interleaved with --base-build",
                            th, v->est.base_runs, v->est.base_runs == 1 ? "" : "s", pct);
    return pg__asprintf("undecided at %s: this machine's run medians drift +-%.0f%% between runs, more than the "
                        "samples' spread; pool more baseline runs (--base last:K), gate interleaved with "
                        "--base-build, or use a quieter machine", th, pct);
}

pg_verdict pg_verdict_rule(double ci_lo, double ci_hi, double p_adj, double threshold, double alpha)
{
    double up = 1 + threshold, down = 1 / (1 + threshold);
    int significant = isfinite(p_adj) && p_adj < alpha;

    if (!isfinite(ci_lo) || !isfinite(ci_hi) || ci_lo <= 0)
        return PG_VERDICT_UNSURE;
    if (significant && ci_lo > up)
        return PG_VERDICT_REGRESSED;
    if (significant && ci_hi < down)
        return PG_VERDICT_IMPROVED;
    if (ci_lo >= down && ci_hi <= up)
        return PG_VERDICT_SAME;
    return PG_VERDICT_UNSURE;
}

int pg_verdict_decide(pg_case_verdict *v, size_t ntested)
{
    if (v->dual.on)
        return pg__verdict_decide_dual(v, ntested);
    v->verdict = pg_verdict_rule(v->est.ci_lo, v->est.ci_hi, v->est.p_adj, v->threshold, v->alpha);
    if (v->est.busy >= PG_CONTENDED_SHARE && v->verdict != PG_VERDICT_UNSURE) {
        /* Not paired: waiting for a CPU is in the head's times and not in the baseline's. Never a verdict. */
        v->verdict = PG_VERDICT_UNSURE;
        pg__verdict_set_reason(v, pg__asprintf("this process ran %.0f%% of the wall time while sampling: the machine "
                                               "was busy (it waited for a CPU%s); re-run on an idle runner, or gate "
                                               "interleaved with --base-build",
                                               100 * (1 - v->est.busy), " or lost it to steal"));
        return 0;
    }
    return pg__verdict_explain(v, ntested);
}

int pg__verdict_explain(pg_case_verdict *v, size_t ntested)
{
    double up = 1 + v->threshold, down = 1 / (1 + v->threshold);
    char th[32], adv[160];
    char *reason = NULL;

    snprintf(th, sizeof(th), "%.3g%%", 100 * v->threshold);
    if (!isfinite(v->est.ci_lo) || !isfinite(v->est.ci_hi) || v->est.ci_lo <= 0) {
        reason = v->paired ? pg__asprintf("too few rounds (%zu) for a %.0f%% interval; run more (--rounds)",
                                          v->est.head_n, 100 * (1 - v->alpha))
                           : pg__asprintf("too few samples (%zu vs %zu) for a %.0f%% interval; %s",
                                          v->est.head_n, v->est.base_n, 100 * (1 - v->alpha), more_samples(v));
    } else if (v->verdict == PG_VERDICT_REGRESSED) {
        reason = pg__asprintf("slower beyond %s (Holm p=%.2g over %zu cases)", th, v->est.p_adj, ntested);
    } else if (v->verdict == PG_VERDICT_IMPROVED) {
        reason = pg__asprintf("faster beyond %s (Holm p=%.2g over %zu cases)", th, v->est.p_adj, ntested);
    } else if (v->verdict == PG_VERDICT_UNSURE) {
        if (v->est.very_noisy && !v->paired)
            reason = too_noisy(v, th);
        else if (v->est.ci_lo > up || v->est.ci_hi < down)
            reason = pg__asprintf("beyond %s but not significant after Holm over %zu cases (p=%.2g); %s", th,
                                  ntested, v->est.p_adj, advice(v, adv, sizeof(adv)));
        else if (log(v->est.ci_hi) - log(v->est.ci_lo) > 2 * log(up) && drift_dominates(v))
            reason = drift_wide(v, th);
        else if (log(v->est.ci_hi) - log(v->est.ci_lo) > 2 * log(up))
            reason = pg__asprintf("too noisy for %s: resolves ~%.0f%% here; %s", th, 100 * v->est.resolution,
                                  advice(v, adv, sizeof(adv)));
        else
            reason = pg__asprintf("interval straddles the %s threshold; %s", th, advice(v, adv, sizeof(adv)));
    }
    if (v->est.dropped) {
        /* A time of zero, a negative one or NaN is a broken measurement: say it was not used. */
        char *with = pg__asprintf("%s%s%zu sample%s left out (zero, negative or not finite)", reason ? reason : "",
                                  reason ? "; " : "", v->est.dropped, v->est.dropped == 1 ? "" : "s");
        free(reason);
        reason = with;
    }
    pg__verdict_set_reason(v, reason);
    return 0;
}
