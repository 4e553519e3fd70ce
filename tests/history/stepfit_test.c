/*
 * stepfit_test.c - the pruned step fit against the exhaustive one.
 *
 * The pruned fit's choices are certified against rounding, and a choice it
 * cannot certify on the best fit's path makes it walk every segment as the
 * exhaustive fit does, so on any series both must give the same fit. The
 * series: noise of several spreads and tails with steps, short and long,
 * penalties from loose to strict, minimum segments 1 to 5, and series of
 * few distinct values (exact counts), where exact ties between fits are
 * common and the fallback must be taken.
 */
#include "support.h"

#include "stepfit.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

static double uniform(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double gauss(void)
{
    return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform());
}

/* The penalty history uses: `penalty` robust sds of successive differences times ln(n). */
static double penalty_of(const double *y, size_t n, double penalty)
{
    double *d = malloc(n * sizeof(*d)), sigma;
    size_t i, k;

    for (i = 0; i + 1 < n; i++) {
        double v = fabs(y[i + 1] - y[i]);
        for (k = i; k > 0 && d[k - 1] > v; k--)
            d[k] = d[k - 1];
        d[k] = v;
    }
    sigma = n > 1 ? 1.4826 * d[(n - 2) / 2] / sqrt(2.0) : 0;
    free(d);
    return penalty * fmax(sigma, 1e-6) * log((double)n);
}

typedef enum { NOISE, HEAVY, LEVELS, COUNTS } series_kind;

/* A series of kind `kind`: log times at a level that steps a few times. */
static void make_series(double *y, size_t n, series_kind kind)
{
    double level = log(1e-3 * (1 + 99 * uniform())), sd = kind == NOISE ? 0.002 + 0.05 * uniform() : 0.02;
    size_t i, at[4], nsteps = (size_t)(uniform() * 5), k;

    for (k = 0; k < 4; k++)
        at[k] = (size_t)(uniform() * (double)n);
    for (i = 0; i < n; i++) {
        for (k = 0; k < nsteps && k < 4; k++)
            if (at[k] == i)
                level += (uniform() < 0.5 ? 1 : -1) * (0.01 + 0.2 * uniform());
        switch (kind) {
        case NOISE:
            y[i] = level + sd * gauss();
            break;
        case HEAVY: /* Student-like tails: a normal over the root of a small chi-square */
            y[i] = level + sd * gauss() / sqrt(fmax(1e-3, (gauss() * gauss() + gauss() * gauss()) / 2));
            break;
        case LEVELS: /* a handful of distinct values: many exact ties between fits */
            y[i] = floor(level * 10) / 10 + 0.1 * (double)(int)(uniform() * 3);
            break;
        case COUNTS: /* exact counts: constant segments, one value per level */
            y[i] = log(1e6 * floor(exp(level) * 1000));
            break;
        }
    }
}

Test(stepfit, pruned_fit_chooses_what_the_exhaustive_walk_chooses)
{
    static const series_kind kinds[] = {NOISE, NOISE, NOISE, HEAVY, LEVELS, COUNTS};
    static const double penalties[] = {0.5, 1, 3, 6};
    size_t trial, pruned[4] = {0}, total[4] = {0};

    rng_state = 20261201;
    for (trial = 0; trial < 360; trial++) {
        series_kind kind = kinds[trial % 6];
        size_t n = trial % 7 == 0 ? 4 + (size_t)(uniform() * 400) : 4 + (size_t)(uniform() * 200);
        size_t shortest = 1 + trial % 5, j;
        double *y = malloc(n * sizeof(*y)), gamma;
        size_t *fast = malloc((n + 1) * sizeof(*fast)), *slow = malloc((n + 1) * sizeof(*slow));
        pg_stepfit_path path, slow_path;

        make_series(y, n, kind);
        gamma = penalty_of(y, n, penalties[trial % 4]);
        memset(fast, 0xff, (n + 1) * sizeof(*fast));
        memset(slow, 0xff, (n + 1) * sizeof(*slow));
        pg_assert_ok(pg__stepfit(fast, y, n, shortest, gamma, 0, &path));
        pg_assert_ok(pg__stepfit(slow, y, n, shortest, gamma, 1, &slow_path));
        cr_assert_eq(slow_path, PG_STEPFIT_EXHAUSTIVE);
        /* The segment starts of the best fit, end to start. */
        for (j = n; j > 0 && j <= n; j = slow[j])
            cr_assert_eq(fast[j], slow[j], "trial %zu (kind %d, n %zu, min segment %zu, %s): the segment ending at %zu "
                         "starts at %zu, the exhaustive walk says %zu", trial, (int)kind, n, shortest,
                         path == PG_STEPFIT_PRUNED ? "pruned" : "fell back", j, fast[j], slow[j]);
        pruned[kind] += path == PG_STEPFIT_PRUNED;
        total[kind]++;
        free(y);
        free(fast);
        free(slow);
    }
    /* Both ways were taken: noise is certified nearly always, exact ties fall back. */
    cr_assert_geq(pruned[NOISE], total[NOISE] * 9 / 10, "pruned %zu of %zu noisy series", pruned[NOISE], total[NOISE]);
    cr_assert_geq(pruned[HEAVY], total[HEAVY] * 9 / 10, "pruned %zu of %zu heavy-tailed series", pruned[HEAVY],
                  total[HEAVY]);
    cr_assert_lt(pruned[LEVELS], total[LEVELS], "no series of few values fell back to the exhaustive walk");
}

Test(stepfit, short_series_and_infinite_values)
{
    double y[5] = {1, 2, 3, 4, 5};
    size_t prev[6];
    pg_stepfit_path path;

    /* A segment may be shorter than the minimum only when it spans everything. */
    pg_assert_ok(pg__stepfit(prev, y, 5, 9, 1.0, 0, &path));
    cr_assert_eq(prev[5], 0);
    /* Every segment holding an infinite value costs infinity or NaN: no fit, by the exhaustive walk. */
    y[2] = INFINITY;
    pg_assert_ok(pg__stepfit(prev, y, 5, 1, 1.0, 0, &path));
    cr_assert_eq(prev[5], (size_t)-1);
    cr_assert_eq(path, PG_STEPFIT_EXHAUSTIVE);
}
