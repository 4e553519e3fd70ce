/*
 * paired.c - the paired analysis of an interleaved A/B: per-round log ratios
 * head/base, their median, a distribution-free interval for it from the
 * order statistics of the sign test, and exact one-sided sign-test p-values.
 *
 * Rounds pair the sides (both measured back to back), so the per-round ratio
 * cancels what drifts between rounds. The sign test assumes only that the
 * rounds are independent with a common median: no normality, no equal spread.
 */
#include "ab/ab.h"

#include "perfgate/errors.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* P(X <= k) for X ~ Binomial(n, 1/2), exactly (n up to a few thousand). */
static double binom_half_cdf(size_t k, size_t n)
{
    double logp = -(double)n * log(2.0), sum = 0, lc = 0;
    size_t i;

    if (k >= n)
        return 1.0;
    for (i = 0; i <= k; i++) {
        if (i > 0)
            lc += log((double)(n - i + 1)) - log((double)i);
        sum += exp(lc + logp);
    }
    return sum > 1 ? 1 : sum;
}

/* P(X >= k) for X ~ Binomial(n, 1/2), summed directly (no 1 - cdf cancellation). */
static double binom_half_sf(size_t k, size_t n)
{
    double logp = -(double)n * log(2.0), sum = 0, lc = 0;
    size_t i;

    if (k == 0)
        return 1.0;
    if (k > n)
        return 0.0;
    /* log C(n, k) first, then walk up to n. */
    for (i = 1; i <= k; i++)
        lc += log((double)(n - i + 1)) - log((double)i);
    for (i = k; i <= n; i++) {
        sum += exp(lc + logp);
        lc += log((double)(n - i)) - log((double)(i + 1));
    }
    return sum > 1 ? 1 : sum;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

int pg_ab_paired_analyse(pg_ab_paired *out, const double *base, const double *head, size_t n, double conf)
{
    double *d;
    size_t i, k, pos = 0, neg = 0;

    memset(out, 0, sizeof(*out));
    out->ratio = out->ci_lo = out->ci_hi = out->p_slower = out->p_faster = NAN;
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
        pos += d[i] > 0;
        neg += d[i] < 0;
    }
    qsort(d, n, sizeof(*d), cmp_double);
    out->n = n;
    out->head_slower = pos;
    out->ratio = exp(pg_stats_quantile_sorted(d, n, 0.5));
    /* Sign test, ties dropped: P(at least `pos` of pos+neg rounds slower | no change). */
    out->p_slower = binom_half_sf(pos, pos + neg);
    out->p_faster = binom_half_sf(neg, pos + neg);
    /* Largest k with P(B <= k-1) <= (1-conf)/2: [d_(k), d_(n-k+1)] covers the median. */
    k = 0;
    while (k + 1 <= n / 2 && binom_half_cdf(k, n) <= (1 - conf) / 2)
        k++;
    if (k == 0) {
        /* Too few rounds for that level: the range, with its (lower) exact coverage. */
        out->ci_lo = exp(d[0]);
        out->ci_hi = exp(d[n - 1]);
        out->confidence = 1 - 2 * binom_half_cdf(0, n);
    } else {
        out->ci_lo = exp(d[k - 1]);
        out->ci_hi = exp(d[n - k]);
        out->confidence = 1 - 2 * binom_half_cdf(k - 1, n);
    }
    free(d);
    return 0;
}
