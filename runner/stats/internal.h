/*
 * internal.h - what the files of stats/ share and nothing else calls.
 */
#ifndef PG_STATS_INTERNAL_H
#define PG_STATS_INTERNAL_H

#include <stddef.h>

/** A sorted copy of x[0..n) (pg_stats_sort()); NULL when out of memory. The caller frees it. */
double *pg__stats_sorted_copy(const double *x, size_t n);

#endif
