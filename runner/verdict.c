/*
 * verdict.c - per-case verdicts between a head run and its baseline.
 *
 * The model (docs/statistics.md): log t = case level + run offset + sample
 * noise. Samples of one process say nothing about the run offset, so the
 * interval from the samples (Hodges-Lehmann/Moses on log times) is widened by
 * the spread of run medians, measured on the baseline runs and shrunk
 * towards a prior from our machines. A case fails only when the change is
 * both significant after Holm's correction and surely beyond the threshold.
 */
#include "verdict.h"
#include "canary.h"

#include "perfgate/errors.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Above this many pairwise differences the bootstrap replaces Moses' interval. */
#define MOSES_MAX_PAIRS 4000000.0

static const char *const verdict_names[PG_VERDICT__COUNT] = {
    "SAME", "REGRESSED", "IMPROVED", "UNSURE", "NEW", "MISSING", "ERROR", "SKIPPED"};

const char *pg_verdict_name(pg_verdict v)
{
    return (unsigned)v < PG_VERDICT__COUNT ? verdict_names[v] : "UNKNOWN";
}

static int push(pg_comparison *c, pg_case_verdict **out)
{
    pg_case_verdict *p = realloc(c->cases, (c->ncases + 1) * sizeof(*p));

    if (!p)
        return pg_error_set(PG_ENOMEM, "out of memory comparing runs");
    c->cases = p;
    memset(&p[c->ncases], 0, sizeof(*p));
    *out = &p[c->ncases++];
    return 0;
}

static void set_reason(pg_case_verdict *v, char *reason)
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

/* Logs of the positive samples of every run, pooled; run medians in `meds`. */
static double *pool_logs(size_t *out_n, double *meds, size_t *out_runs, const pg_sample_set *sets, size_t nsets)
{
    size_t total = 0, i, j, n = 0, runs = 0;
    double *v;

    for (i = 0; i < nsets; i++)
        total += sets[i].n;
    v = malloc((total ? total : 1) * sizeof(*v));
    if (!v)
        return NULL;
    for (i = 0; i < nsets; i++) {
        size_t start = n;
        for (j = 0; j < sets[i].n; j++)
            if (sets[i].x[j] > 0 && isfinite(sets[i].x[j]))
                v[n++] = log(sets[i].x[j]);
        if (n > start && meds)
            meds[runs] = pg_stats_median(v + start, n - start);
        runs += n > start;
    }
    *out_n = n;
    *out_runs = runs;
    return v;
}

/*
 * The interval: the samples' interval with a drift half-width `wd` added in
 * quadrature (independent components) on each side. When the median ratio
 * falls outside (bimodal samples: a phase change inside a run), the interval
 * is stretched to contain it, which only ever makes a verdict more cautious.
 */
static void widen(pg_case_verdict *v, double wd)
{
    double center = log(v->estimate), lo = log(v->shift_lo), hi = log(v->shift_hi);

    v->ci_lo = exp(center - sqrt((center - lo) * (center - lo) + wd * wd));
    v->ci_hi = exp(center + sqrt((hi - center) * (hi - center) + wd * wd));
    v->ci_lo = fmin(v->ci_lo, v->ratio);
    v->ci_hi = fmax(v->ci_hi, v->ratio);
    /* A slowdown must be about this large before its lower bound clears the threshold. */
    v->resolution = (1 + v->threshold) * exp(0.5 * (log(v->ci_hi) - log(v->ci_lo))) - 1;
}

int pg_verdict_estimate(pg_case_verdict *v, const pg_sample_set *head, size_t nhead, const pg_sample_set *base,
                        size_t nbase, const pg_compare_options *opts)
{
    pg_compare_options dflt = PG_COMPARE_OPTIONS_INIT;
    double *lh = NULL, *lb = NULL, *meds = NULL, *raw_h = NULL, *raw_b = NULL;
    size_t nh = 0, nb = 0, hr = 0, br = 0, i;
    double level, center, lo, hi, prior, prior_df, s2, df, wd, tq;
    pg_shift sh;
    pg_mwu m;
    int err = PG_ENOMEM;

    if (!opts)
        opts = &dflt;
    v->ratio = v->ci_lo = v->ci_hi = v->p = v->shift_lo = v->shift_hi = v->estimate = NAN;
    v->resolution = NAN;
    level = 1 - v->alpha;
    meds = malloc((nbase ? nbase : 1) * sizeof(*meds));
    if (!meds || !(lh = pool_logs(&nh, NULL, &hr, head, nhead)) || !(lb = pool_logs(&nb, meds, &br, base, nbase)))
        goto nomem;
    v->head_n = nh;
    v->base_n = nb;
    v->head_runs = hr;
    v->base_runs = br;
    if (nh == 0 || nb == 0) {
        err = pg_error_set(PG_EINVAL, "%s: no positive samples on the %s side", v->key ? v->key : "case",
                           nh == 0 ? "head" : "base");
        goto cleanup;
    }
    /* Medians of the raw samples, as every report shows them (the log of an even-n midpoint differs). */
    if ((raw_h = malloc(nh * sizeof(*raw_h))) == NULL || (raw_b = malloc(nb * sizeof(*raw_b))) == NULL)
        goto nomem;
    for (i = 0; i < nh; i++)
        raw_h[i] = exp(lh[i]);
    for (i = 0; i < nb; i++)
        raw_b[i] = exp(lb[i]);
    v->head_median = pg_stats_median(raw_h, nh);
    v->base_median = pg_stats_median(raw_b, nb);
    v->ratio = v->head_median / v->base_median;

    /* One-sided Mann-Whitney in the direction the medians moved. */
    if ((err = pg_stats_mwu(&m, lh, nh, lb, nb, v->ratio >= 1 ? PG_ALT_GREATER : PG_ALT_LESS, PG_MWU_AUTO)) != 0)
        goto cleanup;
    v->p = m.p;

    /* The interval from the samples alone, on log times. */
    if (opts->interval == PG_INTERVAL_BOOTSTRAP || (double)nh * (double)nb > MOSES_MAX_PAIRS) {
        double blo, bhi;
        if ((err = pg_stats_bootstrap_ratio(&blo, &bhi, raw_h, nh, raw_b, nb, level,
                                            opts->bootstrap_reps ? opts->bootstrap_reps : 2000, key_seed(v->key))) != 0)
            goto cleanup;
        center = log(v->ratio);
        lo = log(blo);
        hi = log(bhi);
    } else {
        if ((err = pg_stats_hodges_lehmann(&sh, lh, nh, lb, nb, level)) != 0)
            goto cleanup;
        center = sh.estimate;
        lo = sh.lo;
        hi = sh.hi;
    }
    v->estimate = exp(center);
    v->shift_lo = exp(lo);
    v->shift_hi = exp(hi);

    /*
     * Run-to-run drift: the sd of log run medians, pooled with the prior
     * (a scaled inverse chi-square with prior_df degrees of freedom), so one
     * or two baseline runs lean on what our machines showed and many runs
     * speak for themselves. The head and the baseline each carry their own
     * run offsets: the variance of their difference is s^2 (1/H + 1/K).
     */
    prior = opts->drift >= 0 ? opts->drift : PG_DRIFT_PRIOR;
    prior_df = opts->drift_df >= 0 ? opts->drift_df : PG_DRIFT_PRIOR_DF;
    s2 = prior * prior * prior_df;
    df = prior_df;
    v->drift_measured = 0;
    if (br >= 2) {
        double mm = pg_stats_mean(meds, br), ss = 0;
        for (i = 0; i < br; i++)
            ss += (meds[i] - mm) * (meds[i] - mm);
        s2 += ss;
        df += (double)(br - 1);
        v->drift_measured = 1;
    }
    s2 = df > 0 ? s2 / df : 0;
    v->drift = sqrt(s2);
    v->drift_df = df;
    tq = df > 0 ? pg_stats_t_ppf(1 - v->alpha / 2, df) : pg_stats_norm_ppf(1 - v->alpha / 2);
    wd = tq * v->drift * sqrt(1.0 / (double)hr + 1.0 / (double)br);
    v->drift_hw = wd;
    widen(v, wd);
    err = 0;
    goto cleanup;

nomem:
    err = pg_error_set(PG_ENOMEM, "out of memory comparing %s", v->key ? v->key : "a case");
cleanup:
    free(lh);
    free(lb);
    free(meds);
    free(raw_h);
    free(raw_b);
    return err;
}

/* The advice for an UNSURE case: which component of the interval dominates. */
static const char *advice(const pg_case_verdict *v)
{
    double total = log(v->ci_hi) - log(v->ci_lo), samples = log(v->shift_hi) - log(v->shift_lo);

    if (v->paired)
        return "run more rounds (--rounds) or use a quieter machine";
    if (!isfinite(samples) || samples >= 0.7 * total)
        return "take more samples or a longer min_run_time, or use a quieter machine";
    if (v->drift_measured)
        return "the machine drifts between runs: pool more baseline runs or use a quieter machine";
    return "one baseline run cannot measure run-to-run drift: pool runs with --base last:5";
}

int pg_verdict_decide(pg_case_verdict *v, size_t ntested)
{
    double up = 1 + v->threshold, down = 1 / (1 + v->threshold);
    int significant = isfinite(v->p_adj) && v->p_adj < v->alpha;
    char th[32];
    char *reason = NULL;

    snprintf(th, sizeof(th), "%.3g%%", 100 * v->threshold);
    if (!isfinite(v->ci_lo) || !isfinite(v->ci_hi) || v->ci_lo <= 0) {
        v->verdict = PG_VERDICT_UNSURE;
        reason = v->paired ? pg__asprintf("too few rounds (%zu) for a %.0f%% interval; run more (--rounds)",
                                          v->head_n, 100 * (1 - v->alpha))
                           : pg__asprintf("too few samples (%zu vs %zu) for a %.0f%% interval; raise min_samples",
                                          v->head_n, v->base_n, 100 * (1 - v->alpha));
    } else if (significant && v->ci_lo > up) {
        v->verdict = PG_VERDICT_REGRESSED;
        reason = pg__asprintf("slower beyond %s (Holm p=%.2g over %zu cases)", th, v->p_adj, ntested);
    } else if (significant && v->ci_hi < down) {
        v->verdict = PG_VERDICT_IMPROVED;
        reason = pg__asprintf("faster beyond %s (Holm p=%.2g over %zu cases)", th, v->p_adj, ntested);
    } else if (v->ci_lo >= down && v->ci_hi <= up) {
        v->verdict = PG_VERDICT_SAME;
    } else {
        v->verdict = PG_VERDICT_UNSURE;
        if (v->ci_lo > up || v->ci_hi < down)
            reason = pg__asprintf("beyond %s but not significant after Holm over %zu cases (p=%.2g); %s", th,
                                  ntested, v->p_adj, advice(v));
        else if (log(v->ci_hi) - log(v->ci_lo) > 2 * log(up))
            reason = pg__asprintf("too noisy for %s: resolves ~%.0f%% here; %s", th, 100 * v->resolution, advice(v));
        else
            reason = pg__asprintf("interval straddles the %s threshold; %s", th, advice(v));
    }
    set_reason(v, reason);
    return 0;
}

/* Fewest compared cases for the suite-wide view to mean anything. */
#define SUITE_MIN_CASES 8

/* The median and robust spread of every compared case's log ratio. */
static void suite_view(pg_comparison *c, double *scratch)
{
    size_t i, n = 0;

    c->suite_shift = c->suite_spread = NAN;
    for (i = 0; i < c->ncases; i++)
        if (!isnan(c->cases[i].p) && c->cases[i].ratio > 0 && isfinite(c->cases[i].ratio) &&
            !pg_canary_is(c->cases[i].suite))
            scratch[n++] = log(c->cases[i].ratio);
    if (n < SUITE_MIN_CASES)
        return;
    c->suite_shift = exp(pg_stats_median(scratch, n));
    c->suite_spread = 1.4826 * pg_stats_mad(scratch, n);
}

/* A regression that the whole suite shares is not this case's: UNSURE until confirmed. */
static void suite_guard(const pg_comparison *c, pg_case_verdict *v)
{
    double half = sqrt(1 + v->threshold), shift = c->suite_shift;
    int up = v->verdict == PG_VERDICT_REGRESSED && shift > half && v->ci_lo / shift <= 1 + v->threshold;
    int down = v->verdict == PG_VERDICT_IMPROVED && shift < 1 / half && v->ci_hi / shift >= 1 / (1 + v->threshold);

    if (!isfinite(shift) || !(up || down))
        return;
    v->verdict = PG_VERDICT_UNSURE;
    free(v->reason);
    v->reason = pg__asprintf("the whole suite moved %+.1f%% (median of its cases): a machine phase or a change to "
                             "everything; re-run to confirm",
                             100 * (shift - 1));
}

void pg__comparison_recount(pg_comparison *c, const pg_compare_options *opts)
{
    pg_compare_options dflt = PG_COMPARE_OPTIONS_INIT;
    size_t i;

    if (!opts)
        opts = &dflt;
    memset(c->counts, 0, sizeof(c->counts));
    for (i = 0; i < c->ncases; i++)
        c->counts[c->cases[i].verdict]++;
    c->exit_code = (c->counts[PG_VERDICT_REGRESSED] > 0 || c->checks_failed > 0 ||
                    (opts->fail_on_missing && c->counts[PG_VERDICT_MISSING] > 0) ||
                    (opts->fail_on_new && c->counts[PG_VERDICT_NEW] > 0))
                       ? 1
                       : 0;
}

int pg_comparison_adjust(pg_comparison *c, const pg_compare_options *opts)
{
    pg_compare_options dflt = PG_COMPARE_OPTIONS_INIT;
    double *p = NULL, *adj = NULL, *scratch = NULL;
    size_t i, ntested = 0;
    int err;

    if (!opts)
        opts = &dflt;
    p = malloc((c->ncases ? c->ncases : 1) * sizeof(*p));
    adj = malloc((c->ncases ? c->ncases : 1) * sizeof(*adj));
    scratch = malloc((c->ncases ? c->ncases : 1) * sizeof(*scratch));
    if (!p || !adj || !scratch) {
        free(p);
        free(adj);
        free(scratch);
        return pg_error_set(PG_ENOMEM, "out of memory adjusting p-values");
    }
    /* Holm over the cases that were tested: those with a p-value. */
    /* Canaries are references, not hypotheses about the code: they stay out of Holm's family. */
    for (i = 0; i < c->ncases; i++) {
        p[i] = pg_canary_is(c->cases[i].suite) ? NAN : c->cases[i].p;
        ntested += !isnan(p[i]);
    }
    if ((err = pg_stats_holm(adj, p, c->ncases)) != 0)
        goto cleanup;
    suite_view(c, scratch);
    memset(c->counts, 0, sizeof(c->counts));
    for (i = 0; i < c->ncases; i++) {
        pg_case_verdict *v = &c->cases[i];
        if (!isnan(v->p)) {
            v->p_adj = isnan(p[i]) ? v->p : adj[i];
            /* Paired rounds cancel what the suite-wide view guards against: a phase hits both sides. */
            if (isfinite(c->suite_spread) && !opts->paired)
                widen(v, fmax(v->drift_hw, pg_stats_norm_ppf(1 - v->alpha / 2) * c->suite_spread));
            pg_verdict_decide(v, ntested);
            if (!opts->paired)
                suite_guard(c, v);
        }
    }
    if ((err = pg__canary_rule(c)) != 0)
        goto cleanup;
    pg__comparison_recount(c, opts);
    free(c->method);
    if (opts->paired)
        c->method = pg__asprintf(
            "interleaved rounds paired per round: one-sided Wilcoxon signed-rank on the per-round log ratios, Holm "
            "over %zu cases; Hodges-Lehmann ratio with Tukey's interval; REGRESSED when Holm p < alpha and the "
            "lower bound exceeds 1 + threshold",
            ntested);
    else
        c->method = pg__asprintf(
            "one-sided Mann-Whitney U on log times, Holm over %zu cases; ratio of medians with a %s interval widened "
            "by run-to-run drift (%s %.3g%% prior, %zu baseline run%s; and by the spread of all cases' changes); "
            "REGRESSED when Holm p < alpha and the lower bound exceeds 1 + threshold",
            ntested, opts->interval == PG_INTERVAL_BOOTSTRAP ? "bootstrap" : "Hodges-Lehmann/Moses",
            c->nbases >= 2 ? "measured on the baseline runs, shrunk to a" : "assumed:",
            100 * (opts->drift >= 0 ? opts->drift : PG_DRIFT_PRIOR), c->nbases, c->nbases == 1 ? "" : "s");
    err = c->method ? 0 : pg_error_set(PG_ENOMEM, "out of memory describing the method");

cleanup:
    free(p);
    free(adj);
    free(scratch);
    return err;
}

/* Collects the samples of `key` from every base run that measured it. */
static size_t base_sets(pg_sample_set *out, const pg_result **first, const pg_run *const *bases, size_t nbases,
                        const char *key)
{
    size_t i, n = 0;

    *first = NULL;
    for (i = 0; i < nbases; i++) {
        const pg_result *r = pg_run_find(bases[i], key);
        if (!r)
            continue;
        if (!*first)
            *first = r;
        if (r->status == PG_STATUS_OK && r->nsamples > 0)
            out[n++] = (pg_sample_set){r->samples, r->nsamples};
    }
    return n;
}

static int add_missing(pg_comparison *c, const pg_run *head, const pg_run *const *bases, size_t nbases)
{
    size_t b, i, j;
    int err;

    for (b = 0; b < nbases; b++) {
        for (i = 0; i < bases[b]->nresults; i++) {
            const pg_result *r = &bases[b]->results[i];
            pg_case_verdict *v = NULL;
            int seen = 0;
            if (pg_run_find(head, r->key))
                continue;
            for (j = 0; j < c->ncases && !seen; j++)
                seen = strcmp(c->cases[j].key, r->key) == 0;
            if (seen)
                continue;
            if ((err = push(c, &v)) != 0)
                return err;
            v->key = pg__strdup(r->key);
            v->suite = pg__strdup(r->suite);
            v->name = pg__strdup(r->name);
            v->base = r;
            v->base_n = r->nsamples;
            v->base_median = r->summary.median;
            v->ratio = v->ci_lo = v->ci_hi = v->p = v->p_adj = NAN;
            v->shift_lo = v->shift_hi = v->estimate = v->resolution = NAN;
            v->verdict = PG_VERDICT_MISSING;
            v->reason = pg__strdup("in the baseline but not in this run");
        }
    }
    return 0;
}

int pg_compare(pg_comparison **out, const pg_run *head, const pg_run *const *bases, size_t nbases,
               const pg_compare_options *opts)
{
    pg_compare_options dflt = PG_COMPARE_OPTIONS_INIT;
    pg_sample_set *sets = NULL;
    pg_comparison *c;
    size_t i;
    int err;

    *out = NULL;
    if (!opts)
        opts = &dflt;
    c = calloc(1, sizeof(*c));
    sets = malloc((nbases ? nbases : 1) * sizeof(*sets));
    if (!c || !sets) {
        free(sets);
        free(c);
        return pg_error_set(PG_ENOMEM, "out of memory comparing runs");
    }
    c->head = head;
    c->base = nbases ? bases[0] : NULL;
    c->nbases = nbases;

    for (i = 0; i < head->nresults; i++) {
        const pg_result *h = &head->results[i], *base;
        size_t nsets = base_sets(sets, &base, bases, nbases, h->key);
        pg_case_verdict *v = NULL;

        if ((err = push(c, &v)) != 0)
            goto fail;
        v->key = pg__strdup(h->key);
        v->suite = pg__strdup(h->suite);
        v->name = pg__strdup(h->name);
        v->head = h;
        v->base = base;
        v->threshold = opts->threshold >= 0 ? opts->threshold : (h->threshold > 0 ? h->threshold : 0.05);
        v->alpha = opts->alpha > 0 ? opts->alpha : (h->alpha > 0 ? h->alpha : 0.05);
        v->head_n = h->nsamples;
        v->head_median = h->summary.median;
        v->ratio = v->ci_lo = v->ci_hi = v->p = v->p_adj = NAN;
        v->shift_lo = v->shift_hi = v->estimate = v->resolution = NAN;
        if (h->status == PG_STATUS_SKIPPED) {
            v->verdict = PG_VERDICT_SKIPPED;
            v->reason = pg__strdup(h->message ? h->message : "skipped");
        } else if (h->status == PG_STATUS_ERROR) {
            v->verdict = PG_VERDICT_ERROR;
            v->reason = pg__strdup(h->message ? h->message : "failed");
        } else if (!base) {
            v->verdict = PG_VERDICT_NEW;
            v->reason = pg__strdup(nbases ? "not in the baseline" : "no baseline yet");
        } else if (nsets == 0) {
            v->verdict = PG_VERDICT_UNSURE;
            v->base_median = base->summary.median;
            if (v->base_median > 0 && v->head_median > 0)
                v->ratio = v->head_median / v->base_median;
            v->reason = pg__strdup(base->status == PG_STATUS_OK ? "the baseline has no raw samples for this case"
                                                                : "the baseline failed or skipped this case");
        } else if (h->nsamples == 0) {
            v->verdict = PG_VERDICT_UNSURE;
            v->base_median = base->summary.median;
            v->reason = pg__strdup("this run has no raw samples for this case");
        } else {
            pg_sample_set hs = {h->samples, h->nsamples};
            err = pg_verdict_estimate(v, &hs, 1, sets, nsets, opts);
            if (err == PG_EINVAL) {
                v->verdict = PG_VERDICT_UNSURE;
                v->p = NAN;
                v->reason = pg__strdup("no positive samples to compare");
            } else if (err) {
                goto fail;
            }
        }
    }
    if ((err = add_missing(c, head, bases, nbases)) != 0)
        goto fail;
    c->checks_total = head->nchecks;
    for (i = 0; i < head->nchecks; i++)
        c->checks_failed += !head->checks[i].passed;
    if ((err = pg_comparison_adjust(c, opts)) != 0)
        goto fail;
    free(sets);
    *out = c;
    return 0;
fail:
    free(sets);
    pg_comparison_free(c);
    return err;
}

void pg_comparison_free(pg_comparison *c)
{
    size_t i;

    if (!c)
        return;
    for (i = 0; i < c->ncases; i++) {
        free(c->cases[i].key);
        free(c->cases[i].suite);
        free(c->cases[i].name);
        free(c->cases[i].reason);
    }
    free(c->cases);
    free(c->method);
    free(c);
}
