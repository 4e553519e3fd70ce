/*
 * signed_rank.c - Wilcoxon's signed-rank test and the Hodges-Lehmann
 * estimate of a paired shift with Tukey's interval (the median of the
 * Walsh averages and their order statistics).
 *
 * For paired designs (perfgate ab, interleaved gates): each round gives one
 * difference of log times, and these answer "did head move against base?"
 * using only the assumption that the differences are independent and
 * symmetric about their centre. Against the sign test it uses the sizes of
 * the differences too, which on timing noise needs about a third fewer
 * rounds for the same power.
 */
#include "stats/stats.h"

#include "perfgate/errors.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Exact pmf of W+ for n untied, nonzero differences: counts of subsets of {1..n} by sum, / 2^n. */
int pg_stats_signed_rank_pmf(double *out, size_t n)
{
    size_t max = n * (n + 1) / 2, i, s;

    if (n > PG_SIGNED_RANK_EXACT_MAX)
        return pg_error_set(PG_EINVAL, "exact signed-rank distribution for n = %zu (at most %d)", n,
                            PG_SIGNED_RANK_EXACT_MAX);
    memset(out, 0, (max + 1) * sizeof(*out));
    out[0] = 1;
    for (i = 1; i <= n; i++) {
        /* Either rank i is positive (adds i) or not; halve as we go so nothing overflows. */
        for (s = i * (i + 1) / 2 + 1; s-- > 0;)
            out[s] = 0.5 * (out[s] + (s >= i ? out[s - i] : 0));
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

typedef struct absd {
    double a;
    int sign;
} absd;

static int cmp_absd(const void *a, const void *b)
{
    return cmp_double(&((const absd *)a)->a, &((const absd *)b)->a);
}

/* W+, the tie term sum(t^3 - t) over tied |d|, and the number of nonzero d. */
static int rank_sums(double *w_plus, double *tie, size_t *nz, const double *d, size_t n)
{
    absd *r = malloc((n ? n : 1) * sizeof(*r));
    size_t i, j, m = 0;

    if (!r)
        return pg_error_set(PG_ENOMEM, "out of memory in the signed-rank test (%zu differences)", n);
    for (i = 0; i < n; i++)
        if (d[i] != 0)
            r[m++] = (absd){fabs(d[i]), d[i] > 0};
    qsort(r, m, sizeof(*r), cmp_absd);
    *w_plus = *tie = 0;
    for (i = 0; i < m; i = j) {
        double avg, t;
        size_t pos = 0;
        for (j = i; j < m && r[j].a == r[i].a; j++)
            pos += (size_t)r[j].sign;
        avg = (double)(i + 1 + j) / 2.0;
        *w_plus += avg * (double)pos;
        t = (double)(j - i);
        *tie += t * t * t - t;
    }
    *nz = m;
    free(r);
    return 0;
}

/* Largest k with P(W+ <= k-1) <= tail: the 1-based rank of the interval's lower end. */
static int tukey_k(size_t *k, size_t n, double level, int *exact)
{
    size_t N = n * (n + 1) / 2;
    double tail = (1 - level) / 2;

    if (n <= PG_SIGNED_RANK_EXACT_MAX) {
        double *pmf = malloc((N + 1) * sizeof(*pmf)), cdf = 0;
        int err;
        if (!pmf)
            return pg_error_set(PG_ENOMEM, "out of memory in the signed-rank interval");
        if ((err = pg_stats_signed_rank_pmf(pmf, n)) != 0) {
            free(pmf);
            return err;
        }
        for (*k = 0; *k < N / 2 + 1; (*k)++) {
            if (cdf + pmf[*k] > tail * (1 + 1e-12))
                break;
            cdf += pmf[*k];
        }
        free(pmf);
        *exact = 1;
    } else {
        double z = pg_stats_norm_ppf((1 + level) / 2);
        double kk = floor((double)N / 2.0 - z * sqrt((double)n * (double)(n + 1) * (double)(2 * n + 1) / 24.0));
        *k = kk < 0 ? 0 : (size_t)kk;
        *exact = 0;
    }
    return 0;
}

int pg_stats_signed_rank(pg_signed_rank *out, const double *d, size_t n, pg_alternative alt, double level)
{
    size_t N = n * (n + 1) / 2, i, j, m = 0, nz = 0;
    double *walsh = NULL, w = 0, tie = 0, sd, z;
    int err, exact = 0;

    memset(out, 0, sizeof(*out));
    out->p = out->estimate = out->lo = out->hi = NAN;
    out->level = level;
    if (n == 0)
        return pg_error_set(PG_EINVAL, "the signed-rank test needs at least one difference");
    if (!(level > 0 && level < 1))
        return pg_error_set(PG_EINVAL, "confidence level %g is not between 0 and 1", level);
    for (i = 0; i < n; i++)
        if (!isfinite(d[i]))
            return pg_error_set(PG_EINVAL, "difference %zu is not a finite number", i + 1);

    /* The test, on the nonzero differences (scipy's zero_method="wilcox"). */
    if ((err = rank_sums(&w, &tie, &nz, d, n)) != 0)
        return err;
    out->w_plus = w;
    out->n = nz;
    if (nz == 0) {
        out->p = 1; /* every round tied: no evidence either way */
    } else if (nz <= PG_SIGNED_RANK_EXACT_MAX && tie == 0 && nz == n) {
        size_t M = nz * (nz + 1) / 2, wi = (size_t)w;
        double *pmf = malloc((M + 1) * sizeof(*pmf)), lo = 0, hi = 0;
        if (!pmf)
            return pg_error_set(PG_ENOMEM, "out of memory in the signed-rank test (%zu differences)", n);
        if ((err = pg_stats_signed_rank_pmf(pmf, nz)) != 0) {
            free(pmf);
            return err;
        }
        for (i = 0; i <= M; i++) {
            if (i <= wi)
                lo += pmf[i];
            if (i >= wi)
                hi += pmf[i];
        }
        free(pmf);
        out->p = alt == PG_ALT_GREATER ? hi : alt == PG_ALT_LESS ? lo : (2 * wi == M ? 1 : 2 * fmin(lo, hi));
        out->exact = 1;
    } else {
        double mn = (double)nz * (double)(nz + 1) / 4.0;
        sd = sqrt(((double)nz * (double)(nz + 1) * (double)(2 * nz + 1) - 0.5 * tie) / 24.0);
        if (!(sd > 0)) {
            out->p = 1;
        } else {
            z = (w - mn) / sd;
            out->p = alt == PG_ALT_GREATER ? pg_stats_norm_sf(z)
                     : alt == PG_ALT_LESS  ? pg_stats_norm_sf(-z)
                                           : 2 * pg_stats_norm_sf(fabs(z));
        }
    }
    out->p = fmin(fmax(out->p, 0.0), 1.0);

    /* The estimate and interval, on all n differences: Walsh averages (d_i + d_j)/2, i <= j. */
    if (!(walsh = malloc(N * sizeof(*walsh))))
        return pg_error_set(PG_ENOMEM, "out of memory for %zu Walsh averages", N);
    for (i = 0; i < n; i++)
        for (j = i; j < n; j++)
            walsh[m++] = 0.5 * (d[i] + d[j]);
    qsort(walsh, N, sizeof(*walsh), cmp_double);
    out->estimate = pg_stats_quantile_sorted(walsh, N, 0.5);
    if ((err = tukey_k(&out->k, n, level, &exact)) != 0) {
        free(walsh);
        return err;
    }
    out->interval_exact = exact;
    if (out->k < 1) {
        out->lo = -INFINITY;
        out->hi = INFINITY;
    } else {
        out->lo = walsh[out->k - 1];
        out->hi = walsh[N - out->k];
    }
    free(walsh);
    return 0;
}
