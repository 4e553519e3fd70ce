/*
 * stepfit.h - the exact penalised L1 step fit of a series (history's change
 * points): f[j] = min over i of f[i] + cost(y[i..j)) + gamma, where cost is
 * the sum of absolute deviations from the segment's lower median, segments
 * at least `shortest` long except one spanning the whole series, and on
 * equal sums the smallest i. docs/history.md states the model.
 */
#ifndef PG_STEPFIT_H
#define PG_STEPFIT_H

#include <stddef.h>

/* How pg_stepfit() found its answer (tests check that both ways agree). */
typedef enum pg_stepfit_path {
    PG_STEPFIT_PRUNED,     /* block bounds; every choice certified beyond rounding */
    PG_STEPFIT_EXHAUSTIVE, /* every segment, as asked or because a choice was too close to call */
} pg_stepfit_path;

/**
 * The fit of y[0..n): its segment starts are prev[n], prev[prev[n]], ...
 * down to 0 (prev[j] is the start of the last segment of a best fit of
 * y[0..j); where two are equal up to rounding, the fits on the path from n
 * are the exhaustive walk's). prev has n + 1 entries.
 * @param exhaustive 1: walk every (i, j), O(n^2); 0: prune with block
 *        bounds, and fall back to the walk when rounding could decide a choice.
 * @param[out] path which way the answer was found (may be NULL).
 * @return 0 (prev[n] is (size_t)-1 when no segmentation is allowed),
 *         PG_EINVAL for a NaN in y, or PG_ENOMEM.
 */
int pg_stepfit(size_t *prev, const double *y, size_t n, size_t shortest, double gamma, int exhaustive,
                pg_stepfit_path *path);

#endif
