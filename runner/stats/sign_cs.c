/*
 * sign_cs.c - an anytime-valid confidence sequence for the median of paired
 * differences, from sign-test betting martingales (Howard & Ramdas,
 * "Sequential estimation of quantiles with applications to A/B-testing and
 * best-arm identification", Bernoulli 28(3), 2022; the mixture method of
 * Howard, Ramdas, McAuliffe & Sekhon, "Time-uniform, nonparametric,
 * nonasymptotic confidence sequences", Ann. Statist. 49(2), 2021).
 *
 * For a candidate centre c, the signs X_i = [d_i > c] of independent
 * differences whose median is at most c are Bernoulli(q) with q <= 1/2, so
 * for every p >= 1/2 the wealth prod (2p)^X_i (2(1-p))^(1-X_i) is a
 * nonnegative supermartingale with start 1; so is any fixed mixture of them
 * over p. By Ville's inequality it ever reaches 1/alpha with probability at
 * most alpha, whenever one looks and however one decides to stop. The
 * wealth depends on the data only through A = #{d_i > c}, rising with A, so
 * "median > c" is shown for every c below the k-th largest difference, k the
 * fewest of n signs that make the wealth reach 1/alpha: the lower bound of
 * the sequence is that order statistic, the upper bound its mirror. Nothing
 * is assumed of the distribution but independence (ties count against the
 * claim), so heavy tails cost nothing but rounds.
 */
#include "stats/stats.h"

#include "perfgate/errors.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * The mixture over the bettor's p, equal weights: p near 1 settles a case
 * after 5 rounds that all agree (at alpha 0.05, the least any sign-based
 * claim can take: 2^5 > 20), p = 0.8 keeps a claim reachable when some
 * rounds disagree (1 of 10 by round 10, 3 of 20 by round 20, 7 of 30 by
 * round 30). Chosen by bench/seq_sim.c against {0.6, ..., 0.99}, which
 * needed 6 rounds at least and 13 % more rounds on A/A (docs/statistics.md).
 */
static const double default_grid[] = {0.8, 0.9, 0.97, 0.99};
#define DEFAULT_NGRID (sizeof(default_grid) / sizeof(default_grid[0]))

double pg_stats_sign_wealth(size_t n, size_t a, const double *grid, size_t ngrid)
{
    double sum = 0;
    size_t j;

    if (!grid) {
        grid = default_grid;
        ngrid = DEFAULT_NGRID;
    }
    if (a > n || ngrid == 0)
        return NAN;
    /* In logs: (2p)^a (2(1-p))^(n-a) overflows nothing at any n a gate runs. */
    for (j = 0; j < ngrid; j++)
        sum += exp((double)a * log(2 * grid[j]) + (double)(n - a) * log(2 * (1 - grid[j])));
    return sum / (double)ngrid;
}

size_t pg_stats_sign_cs_k(size_t n, double alpha, const double *grid, size_t ngrid)
{
    size_t a;

    for (a = 0; a <= n; a++)
        if (pg_stats_sign_wealth(n, a, grid, ngrid) >= 1 / alpha)
            return a;
    return n + 1;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return (a > b) - (a < b);
}

int pg_stats_sign_cs(pg_sign_cs *out, const double *d, size_t n, double alpha, const double *grid, size_t ngrid)
{
    double *s;
    size_t i, up = 0, down = 0, k;

    memset(out, 0, sizeof(*out));
    out->lo = -INFINITY;
    out->hi = INFINITY;
    out->wealth_up = out->wealth_down = 1;
    out->n = n;
    if (!(alpha > 0 && alpha < 1))
        return pg_error_set(PG_EINVAL, "sign confidence sequence: alpha must be in (0, 1)");
    if (n == 0)
        return 0;
    for (i = 0; i < n; i++) {
        if (!isfinite(d[i]))
            return pg_error_set(PG_EINVAL, "sign confidence sequence: a difference is not finite");
        up += d[i] > 0;
        down += d[i] < 0;
    }
    out->wealth_up = pg_stats_sign_wealth(n, up, grid, ngrid);
    out->wealth_down = pg_stats_sign_wealth(n, down, grid, ngrid);
    k = pg_stats_sign_cs_k(n, alpha, grid, ngrid);
    out->k = k;
    if (k > n)
        return 0;
    if (!(s = malloc(n * sizeof(*s))))
        return pg_error_set(PG_ENOMEM, "out of memory in the sign confidence sequence");
    memcpy(s, d, n * sizeof(*s));
    qsort(s, n, sizeof(*s), cmp_double);
    /*
     * #{d > c} >= k exactly when c < s[n-k] (0-based, ascending): every c
     * below the k-th largest is rejected as "median <= c". The bound is the
     * order statistic itself: at c = s[n-k], ties leave fewer than k above.
     */
    out->lo = s[n - k];
    out->hi = s[k - 1];
    free(s);
    return 0;
}
