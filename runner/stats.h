/*
 * stats.h - descriptive statistics on sample arrays.
 *
 * Pure functions: no global state; allocation only where documented.
 */
#ifndef PG_STATS_H
#define PG_STATS_H

#include <stddef.h>

#include "model.h"

/**
 * Quantile q in [0,1] of `x` (n > 0) with numpy's default linear
 * interpolation. `x` need not be sorted; it is not modified.
 */
double pg_stats_quantile(const double *x, size_t n, double q);

/** Same as pg_stats_quantile on an already sorted array, without copying. */
double pg_stats_quantile_sorted(const double *sorted, size_t n, double q);

/** Median of `x` (n > 0). */
double pg_stats_median(const double *x, size_t n);

/** Fills n, median, quartiles, IQR, mean, sample stddev, min and max. */
int pg_stats_summarize(pg_summary *out, const double *x, size_t n);

#endif
