/* stats.c - descriptive statistics on sample arrays. */
#include "stats.h"

#include "perfgate/errors.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

double pg_stats_quantile_sorted(const double *s, size_t n, double q)
{
    double pos, frac;
    size_t lo;

    if (n == 0)
        return NAN;
    if (q <= 0)
        return s[0];
    if (q >= 1)
        return s[n - 1];
    /* numpy 'linear': virtual index (n-1)*q between neighbours. */
    pos = (double)(n - 1) * q;
    lo = (size_t)floor(pos);
    frac = pos - (double)lo;
    if (lo + 1 >= n)
        return s[n - 1];
    return s[lo] + (s[lo + 1] - s[lo]) * frac;
}

double pg_stats_quantile(const double *x, size_t n, double q)
{
    double *s, v;

    if (n == 0)
        return NAN;
    s = malloc(n * sizeof(*s));
    if (!s)
        return NAN;
    memcpy(s, x, n * sizeof(*s));
    qsort(s, n, sizeof(*s), cmp_double);
    v = pg_stats_quantile_sorted(s, n, q);
    free(s);
    return v;
}

double pg_stats_median(const double *x, size_t n)
{
    return pg_stats_quantile(x, n, 0.5);
}

int pg_stats_summarize(pg_summary *out, const double *x, size_t n)
{
    double *s, sum = 0, ss = 0;
    size_t i;

    memset(out, 0, sizeof(*out));
    if (n == 0)
        return pg_error_set(PG_EINVAL, "no samples to summarize");
    s = malloc(n * sizeof(*s));
    if (!s)
        return pg_error_set(PG_ENOMEM, "out of memory summarizing %zu samples", n);
    memcpy(s, x, n * sizeof(*s));
    qsort(s, n, sizeof(*s), cmp_double);
    for (i = 0; i < n; i++)
        sum += s[i];
    out->n = n;
    out->mean = sum / (double)n;
    for (i = 0; i < n; i++)
        ss += (s[i] - out->mean) * (s[i] - out->mean);
    out->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
    out->min = s[0];
    out->max = s[n - 1];
    out->median = pg_stats_quantile_sorted(s, n, 0.5);
    out->q1 = pg_stats_quantile_sorted(s, n, 0.25);
    out->q3 = pg_stats_quantile_sorted(s, n, 0.75);
    out->iqr = out->q3 - out->q1;
    free(s);
    return 0;
}
