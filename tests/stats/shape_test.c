/* shape_test.c - what one process's samples look like: the low quantile, two regimes, drift (pg_stats_shape). */
#include "support.h"

#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>

/* n samples: `slow` of every 10 at `b`, the rest at `a`, each with a small deterministic wobble. */
static double *mixed(size_t n, double a, double b, size_t slow_of_10)
{
    double *x = malloc(n * sizeof(*x));
    size_t i;

    for (i = 0; i < n; i++)
        x[i] = (i % 10 < slow_of_10 ? b : a) * (1 + 0.002 * (double)(i % 7));
    return x;
}

Test(stats_shape, one_regime_low_is_the_tenth_and_median_the_middle)
{
    double x[20];
    pg_sample_shape sh;
    size_t i;

    for (i = 0; i < 20; i++)
        x[i] = 100 + (double)i; /* 100 .. 119 */
    pg_assert_ok(pg_stats_shape(&sh, x, 20));
    cr_expect_eq(sh.n, 20);
    cr_expect_float_eq(sh.low, pg_stats_quantile(x, 20, PG_LOW_QUANTILE), 1e-12);
    cr_expect_float_eq(sh.low, 101.9, 1e-9, "numpy's linear quantile 0.1 of 100..119");
    cr_expect_float_eq(sh.median, 109.5, 1e-12);
    cr_expect_eq(sh.regimes, 1, "an even spread is one regime");
    cr_expect_eq(sh.slow_share, 0);
    /* 100 .. 119 in order: the last third over the first third. */
    cr_expect_float_eq(sh.drift, 116.5 / 102.5 - 1, 1e-12);
}

Test(stats_shape, a_fast_and_a_slow_regime_are_told_apart)
{
    /* The user's stencil: 375 us most of the time, 480 us in 4 blocks of 10. */
    double *x = mixed(40, 375e-6, 480e-6, 4);
    pg_sample_shape sh;

    pg_assert_ok(pg_stats_shape(&sh, x, 40));
    cr_expect_eq(sh.regimes, 2);
    cr_expect(fabs(sh.fast / 375e-6 - 1) < 0.01, "fast %g", sh.fast);
    cr_expect(fabs(sh.slow / 480e-6 - 1) < 0.01, "slow %g", sh.slow);
    cr_expect_float_eq(sh.slow_share, 0.4, 1e-12);
    cr_expect(sh.low < 380e-6, "the fastest tenth sits in the fast regime: %g", sh.low);
    free(x);
}

Test(stats_shape, a_tail_and_a_small_step_are_not_regimes)
{
    double *x = mixed(40, 100, 103, 5), y[30];
    pg_sample_shape sh;
    size_t i;

    /* Two levels 3 % apart: below PG_REGIME_STEP, one regime. */
    pg_assert_ok(pg_stats_shape(&sh, x, 40));
    cr_expect_eq(sh.regimes, 1);
    /* One slow outlier in 30 is a tail, not a tenth of the samples. */
    for (i = 0; i < 30; i++)
        y[i] = 100 + 0.1 * (double)i;
    y[17] = 400;
    pg_assert_ok(pg_stats_shape(&sh, y, 30));
    cr_expect_eq(sh.regimes, 1);
    free(x);
}

Test(stats_shape, too_few_samples_describe_no_regime_or_drift)
{
    double x[5] = {1, 2, 1, 2, 1};
    pg_sample_shape sh;

    pg_assert_ok(pg_stats_shape(&sh, x, 5));
    cr_expect_eq(sh.regimes, 1);
    cr_expect_eq(sh.drift, 0);
    cr_expect_float_eq(sh.median, 1, 1e-12);
}

Test(stats_shape, bad_samples_are_refused)
{
    double x[3] = {1, 0, 2}, y[2] = {1, NAN};
    pg_sample_shape sh;

    cr_expect_eq(pg_stats_shape(&sh, x, 3), PG_EINVAL);
    cr_expect_eq(pg_stats_shape(&sh, y, 2), PG_EINVAL);
    cr_expect_eq(pg_stats_shape(&sh, x, 0), PG_EINVAL);
}

Test(stats_shape, one_noisy_mode_is_one_regime)
{
    double x[200];
    pg_rng g;
    size_t i;
    pg_sample_shape sh;

    /* Log-normal noise of 5 %: a 2-means split of one mode lies 2.7 robust sds apart, under the 4 needed. */
    pg_stats_rng_seed(&g, 12);
    for (i = 0; i < 200; i++) {
        double u1 = ((double)(pg_stats_rng_next(&g) >> 11) + 0.5) * 0x1.0p-53;
        double u2 = ((double)(pg_stats_rng_next(&g) >> 11) + 0.5) * 0x1.0p-53;
        x[i] = 1e-3 * exp(0.05 * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2));
    }
    pg_assert_ok(pg_stats_shape(&sh, x, 200));
    cr_expect_eq(sh.regimes, 1);
}
