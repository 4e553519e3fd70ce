/*
 * paired.c - the paired analysis of interleaved rounds: per-round log ratios
 * head/base, their Hodges-Lehmann centre with Tukey's distribution-free
 * interval, and one-sided Wilcoxon signed-rank p-values (stats.h).
 *
 * Rounds pair the sides (both measured back to back), so the per-round ratio
 * cancels what drifts between rounds: a machine phase slows both sides of a
 * round alike. The test assumes only that the rounds are independent and
 * their log ratios symmetric about a common centre: no normality.
 *
 * pg_verdict_paired() (verdict.h) puts the analysis into a comparison, so
 * that paired cases are decided by the usual rule on the paired interval.
 */
#include "ab/ab.h"

#include "perfgate/errors.h"
#include "stats/stats.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int pg_ab_paired_analyse(pg_paired_analysis *out, const double *base, const double *head, size_t n, double conf)
{
    pg_signed_rank up, down;
    double *d;
    size_t i;
    int err;

    memset(out, 0, sizeof(*out));
    out->ratio = out->ci_lo = out->ci_hi = out->p_slower = out->p_faster = NAN;
    out->confidence = conf;
    if (n == 0)
        return 0;
    d = malloc(n * sizeof(*d));
    if (!d)
        return pg_error_set(PG_ENOMEM, "out of memory in the paired analysis");
    for (i = 0; i < n; i++) {
        if (!(base[i] > 0) || !(head[i] > 0)) {
            free(d);
            return pg_error_set(PG_EINVAL, "paired analysis needs positive times");
        }
        d[i] = log(head[i] / base[i]);
        out->head_slower += d[i] > 0;
    }
    out->n = n;
    if ((err = pg_stats_signed_rank(&up, d, n, PG_ALT_GREATER, conf)) != 0 ||
        (err = pg_stats_signed_rank(&down, d, n, PG_ALT_LESS, conf)) != 0) {
        free(d);
        return err;
    }
    free(d);
    out->ratio = exp(up.estimate);
    out->ci_lo = exp(up.lo);
    out->ci_hi = exp(up.hi);
    out->p_slower = up.p;
    out->p_faster = down.p;
    return 0;
}

int pg_ab_paired_analyse_dual(pg_paired_analysis *out, const double *base, const double *head, const double *base_low,
                              const double *head_low, size_t n, double alpha)
{
    pg_paired_analysis low, low_claim;
    int err;

    /* The median's interval at 1 - alpha (as a single estimator had it): one-sided alpha/2, within its share. */
    if ((err = pg_ab_paired_analyse(out, base, head, n, 1 - alpha)) != 0 ||
        (err = pg_ab_paired_analyse(&low, base_low, head_low, n, 1 - alpha)) != 0 ||
        (err = pg_ab_paired_analyse(&low_claim, base_low, head_low, n, 1 - 2 * PG_LOW_ALPHA_SHARE * alpha)) != 0)
        return err;
    out->dual = n > 0;
    out->claim_lo = out->ci_lo;
    out->claim_hi = out->ci_hi;
    out->low.ratio = low.ratio;
    out->low.lo = low.ci_lo;
    out->low.hi = low.ci_hi;
    out->low.claim_lo = low_claim.ci_lo;
    out->low.claim_hi = low_claim.ci_hi;
    out->low_p_slower = low.p_slower;
    out->low_p_faster = low.p_faster;
    return 0;
}

/* Bounds of one estimator from its sequences at alpha (SAME) and alpha/2 (claims), as ratios. */
static pg_estimator_bounds seq_bounds(const pg_sign_cs *same, const pg_sign_cs *claim)
{
    pg_estimator_bounds b;

    b.ratio = NAN;
    b.lo = exp(same->lo);
    b.hi = exp(same->hi);
    b.claim_lo = exp(claim->lo);
    b.claim_hi = exp(claim->hi);
    return b;
}

/* One look at a case: its sequences and anytime p-values; returns its p for Holm. */
static int look_case(pg_ab_seq *s)
{
    int err;

    if ((err = pg_stats_sign_cs(&s->cs, s->d, s->n, s->alpha, NULL, 0)) != 0)
        return err;
    /* Anytime p-values: the largest wealth so far (Ville), never rising again. */
    s->p_slower = fmin(s->p_slower, 1 / s->cs.wealth_up);
    s->p_faster = fmin(s->p_faster, 1 / s->cs.wealth_down);
    if (!s->dl)
        return 0;
    if ((err = pg_stats_sign_cs(&s->claim, s->d, s->n, PG_MEDIAN_ALPHA_SHARE * s->alpha, NULL, 0)) != 0 ||
        (err = pg_stats_sign_cs(&s->low_cs, s->dl, s->n, s->alpha, NULL, 0)) != 0 ||
        (err = pg_stats_sign_cs(&s->low_claim, s->dl, s->n, PG_LOW_ALPHA_SHARE * s->alpha, NULL, 0)) != 0)
        return err;
    s->low_p_slower = fmin(s->low_p_slower, 1 / s->low_cs.wealth_up);
    s->low_p_faster = fmin(s->low_p_faster, 1 / s->low_cs.wealth_down);
    return 0;
}

/* A case's p for Holm: the smaller direction; with two estimators each's over its share of alpha (model.h). */
static double case_p(const pg_ab_seq *s)
{
    double p = fmin(s->p_slower, s->p_faster);

    return s->dl ? pg_verdict_dual_p(p, fmin(s->low_p_slower, s->low_p_faster)) : p;
}

/* The rule on a looked-at case with its Holm-adjusted p. */
static pg_verdict case_rule(pg_ab_seq *s, double p_adj)
{
    pg_estimator_bounds m, l;

    if (!s->dl)
        return pg_verdict_rule(exp(s->cs.lo), exp(s->cs.hi), p_adj, s->threshold, s->alpha);
    m = seq_bounds(&s->cs, &s->claim);
    l = seq_bounds(&s->low_cs, &s->low_claim);
    return pg_verdict_rule_dual(&s->by, &m, &l, p_adj, s->threshold, s->alpha);
}

int pg_ab_seq_look(pg_ab_seq *cases, size_t ncases, size_t min_rounds)
{
    double *p = calloc(ncases ? ncases : 1, sizeof(*p)), *adj = calloc(ncases ? ncases : 1, sizeof(*adj));
    size_t i, open = 0;
    int err = 0;

    if (!p || !adj) {
        err = pg_error_set(PG_ENOMEM, "out of memory in the sequential look");
        goto cleanup;
    }
    for (i = 0; i < ncases; i++)
        p[i] = NAN;
    for (i = 0; i < ncases; i++) {
        pg_ab_seq *s = &cases[i];
        if (!s->failed && s->settled_at == 0 && s->n >= min_rounds && s->n > 0 && (err = look_case(s)) != 0)
            goto cleanup;
        /* The smaller of the one-sided p-values (pg_verdict_paired takes the same). Every case
         * is in the family from the first look on, one not yet looked at (fewer rounds kept: some
         * left out for contention) with p = 1, and one that failed after a look stays: dropping
         * either would make Holm laxer than the final comparison's. */
        if (!s->failed || s->cs.n > 0)
            p[i] = case_p(s);
    }
    /*
     * Holm over every case's current anytime p. Each p only falls, and Holm
     * only rejects more when p-values fall, so whatever any look rejects is
     * rejected by Holm on the smallest p each case will ever have: valid.
     */
    if ((err = pg_stats_holm(adj, p, ncases)) != 0)
        goto cleanup;
    for (i = 0; i < ncases; i++) {
        pg_ab_seq *s = &cases[i];
        pg_verdict v;
        if (s->failed || s->settled_at)
            continue;
        v = isnan(p[i]) ? PG_VERDICT_UNSURE : case_rule(s, adj[i]);
        if (v == PG_VERDICT_UNSURE) {
            open++;
        } else {
            s->settled = v;
            s->settled_at = s->n;
        }
    }

cleanup:
    free(p);
    free(adj);
    return err ? err : (int)open;
}

void pg_ab_seq_to_paired(pg_paired_analysis *out, const pg_ab_seq *s)
{
    out->ci_lo = exp(s->cs.lo);
    out->ci_hi = exp(s->cs.hi);
    out->confidence = 1 - 2 * s->alpha;
    out->p_slower = s->p_slower;
    out->p_faster = s->p_faster;
    out->sequential = 1;
    out->settled_at = s->settled_at;
    if (!s->dl || !out->dual)
        return;
    out->claim_lo = exp(s->claim.lo);
    out->claim_hi = exp(s->claim.hi);
    out->low.lo = exp(s->low_cs.lo);
    out->low.hi = exp(s->low_cs.hi);
    out->low.claim_lo = exp(s->low_claim.lo);
    out->low.claim_hi = exp(s->low_claim.hi);
    out->low_p_slower = s->low_p_slower;
    out->low_p_faster = s->low_p_faster;
    out->by = s->by;
}
