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
        if (!s->failed && s->settled_at == 0 && s->n >= min_rounds && s->n > 0) {
            if ((err = pg_stats_sign_cs(&s->cs, s->d, s->n, s->alpha, NULL, 0)) != 0)
                goto cleanup;
            /* Anytime p-values: the largest wealth so far (Ville), never rising again. */
            s->p_slower = fmin(s->p_slower, 1 / s->cs.wealth_up);
            s->p_faster = fmin(s->p_faster, 1 / s->cs.wealth_down);
        }
        /* The smaller of the two one-sided p-values (pg_verdict_paired takes the same). A case
         * that failed after a look stays in the family: dropping it would make Holm laxer. */
        if (s->cs.n > 0)
            p[i] = fmin(s->p_slower, s->p_faster);
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
        v = isnan(p[i]) ? PG_VERDICT_UNSURE
                        : pg_verdict_rule(exp(s->cs.lo), exp(s->cs.hi), adj[i], s->threshold, s->alpha);
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
}
