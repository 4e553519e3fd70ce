/*
 * shape.c - what one process's samples look like (stats.h, pg_stats_shape):
 * the low quantile and the median an interleaved round takes, and whether
 * the samples hold two regimes or drift from the first third to the last.
 * A process can run a kernel in a fast and a slow regime (a neighbour's
 * memory traffic, a clock, a cache state) and move between them while it
 * measures; the median then lands in whichever regime holds more samples,
 * and a change that shows in one regime only is lost to it.
 */
#include "stats/stats.h"

#include "perfgate/errors.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DRIFT_MIN_N 9

/*
 * The split of the sorted logs `y` into a lower and an upper part (at least
 * a tenth, and two, on each side) with the least sum of squares within the
 * parts (Otsu's threshold): where two regimes would part. 0 when none.
 */
static size_t best_split(const double *y, size_t n)
{
    size_t m = (size_t)ceil(0.1 * (double)n), s, best = 0;
    double sum = 0, sum2 = 0, a = 0, a2 = 0, least = INFINITY;

    if (m < 2)
        m = 2;
    for (s = 0; s < n; s++) {
        sum += y[s];
        sum2 += y[s] * y[s];
    }
    for (s = 0; s < n; s++) {
        double within;
        if (s >= m && s + m <= n) {
            double na = (double)s, nb = (double)(n - s);
            within = (a2 - a * a / na) + ((sum2 - a2) - (sum - a) * (sum - a) / nb);
            if (within < least) {
                least = within;
                best = s;
            }
        }
        a += y[s];
        a2 += y[s] * y[s];
    }
    return best;
}

/* The robust sd (1.4826 MAD) of sorted `y`, using `scratch` (n doubles). */
static double robust_sd(const double *y, size_t n, double *scratch)
{
    return 1.4826 * pg_stats_mad_sorted(y, n, scratch);
}

static void regimes(pg_sample_shape *out, const double *y, size_t n, double *scratch)
{
    size_t s = n >= PG_REGIME_MIN_N ? best_split(y, n) : 0;
    double lo, hi, spread;

    out->regimes = 1;
    out->fast = out->slow = out->median;
    out->slow_share = 0;
    if (s == 0)
        return;
    lo = pg_stats_quantile_sorted(y, s, 0.5);
    hi = pg_stats_quantile_sorted(y + s, n - s, 0.5);
    spread = fmax(robust_sd(y, s, scratch), robust_sd(y + s, n - s, scratch));
    if (hi - lo < log(1 + PG_REGIME_STEP) || hi - lo < PG_REGIME_SEPARATION * spread)
        return;
    out->regimes = 2;
    out->fast = exp(lo);
    out->slow = exp(hi);
    out->slow_share = (double)(n - s) / (double)n;
}

int pg_stats_shape(pg_sample_shape *out, const double *x, size_t n)
{
    double *y;
    size_t i, third;

    memset(out, 0, sizeof(*out));
    if (n == 0)
        return pg_error_set(PG_EINVAL, "the shape of no samples");
    for (i = 0; i < n; i++)
        if (!(x[i] > 0) || !isfinite(x[i]))
            return pg_error_set(PG_EINVAL, "the shape of samples needs positive times");
    if (!(y = malloc(2 * n * sizeof(*y))))
        return pg_error_set(PG_ENOMEM, "out of memory describing samples");
    out->n = n;
    /* The drift keeps the order taken: medians of the first and the last third. */
    third = n / 3;
    if (n >= DRIFT_MIN_N)
        out->drift = pg_stats_median(x + n - third, third) / pg_stats_median(x, third) - 1;
    for (i = 0; i < n; i++)
        y[i] = log(x[i]);
    pg_stats_sort(y, n);
    out->low = pg_stats_quantile(x, n, PG_LOW_QUANTILE);
    out->median = pg_stats_quantile(x, n, 0.5);
    regimes(out, y, n, y + n);
    free(y);
    return 0;
}
