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
#include "stats.h"
#include "util.h"

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
