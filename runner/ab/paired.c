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
 * pg_ab_paired_apply() puts the analysis into a comparison, so that paired
 * cases are decided by the usual rule (verdict.h) on the paired interval.
 */
#include "ab/ab.h"

#include "perfgate/errors.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int pg_ab_paired_analyse(pg_ab_paired *out, const double *base, const double *head, size_t n, double conf)
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

int pg_ab_paired_apply(pg_comparison *cmp, const pg_run *head, const pg_ab_paired *paired,
                       const pg_compare_options *opts)
{
    pg_compare_options o = PG_COMPARE_OPTIONS_INIT;
    size_t i, j;

    if (opts)
        o = *opts;
    for (i = 0; i < head->nresults; i++) {
        const pg_ab_paired *p = &paired[i];
        pg_case_verdict *v = NULL;
        double half;
        for (j = 0; j < cmp->ncases && !v; j++)
            if (strcmp(cmp->cases[j].key, head->results[i].key) == 0)
                v = &cmp->cases[j];
        /* Only cases the comparison tested (both sides measured) take the paired view. */
        if (!v || p->n == 0 || isnan(v->p))
            continue;
        v->paired = 1;
        v->ratio = v->estimate = p->ratio;
        v->ci_lo = v->shift_lo = isfinite(p->ci_lo) ? p->ci_lo : NAN;
        v->ci_hi = v->shift_hi = isfinite(p->ci_hi) ? p->ci_hi : NAN;
        v->p = p->ratio >= 1 ? p->p_slower : p->p_faster;
        v->drift = v->drift_hw = 0;
        v->drift_measured = 0;
        half = 0.5 * (log(v->ci_hi) - log(v->ci_lo));
        v->resolution = isfinite(half) ? (1 + v->threshold) * exp(half) - 1 : NAN;
    }
    o.paired = 1;
    return pg_comparison_adjust(cmp, &o);
}
