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

#define REGIME_MIN_N 10
#define DRIFT_MIN_N 9

/* The widest gap of the sorted logs `y` with at least a tenth (and two) on each side; 0 when none. */
static size_t widest_gap(const double *y, size_t n)
{
    size_t m = (size_t)ceil(0.1 * (double)n), s, best = 0;
    double gap = 0;

    if (m < 2)
        m = 2;
    for (s = m; s + m <= n; s++)
        if (y[s] - y[s - 1] > gap) {
            gap = y[s] - y[s - 1];
            best = s;
        }
    return best;
}

static void regimes(pg_sample_shape *out, const double *y, size_t n)
{
    size_t s = n >= REGIME_MIN_N ? widest_gap(y, n) : 0;
    double lo, hi;

    out->regimes = 1;
    out->fast = out->slow = out->median;
    out->slow_share = 0;
    if (s == 0)
        return;
    lo = pg_stats_quantile_sorted(y, s, 0.5);
    hi = pg_stats_quantile_sorted(y + s, n - s, 0.5);
    if (hi - lo < log(1 + PG_REGIME_STEP) || y[s] - y[s - 1] < PG_REGIME_GAP * (hi - lo))
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
    if (!(y = malloc(n * sizeof(*y))))
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
    regimes(out, y, n);
    free(y);
    return 0;
}
