/*
 * stats.c - statistics on sample arrays: sorting, quantiles and summaries,
 * the normal and t distributions, the bootstrap and multiple comparisons
 * (two_sample.c has the rank tests of two samples).
 *
 * Every formula here follows scipy/numpy conventions on purpose: the tests
 * compare against tables that scipy generated (tests/data/stats/), so a
 * deviation is a bug, not a matter of taste.
 */
#include "stats/stats.h"
#include "stats/internal.h"

#include "perfgate/errors.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/*
 * Sorts doubles ascending (NaN-free input): an introsort, quicksort on a
 * median of three down to insertion sort on short ranges, heapsort past a
 * depth limit. Equal doubles are indistinguishable, so the result is the one
 * qsort() gives, without a function call per comparison: the per-case
 * medians, quartiles and MADs of a comparison of thousands of cases spent
 * half their time in qsort's callbacks.
 */
static void sift_down(double *a, size_t root, size_t n)
{
    double v = a[root];

    for (;;) {
        size_t c = 2 * root + 1;
        if (c >= n)
            break;
        if (c + 1 < n && a[c + 1] > a[c])
            c++;
        if (!(a[c] > v))
            break;
        a[root] = a[c];
        root = c;
    }
    a[root] = v;
}

static void heap_sort(double *a, size_t n)
{
    size_t i;

    for (i = n / 2; i-- > 0;)
        sift_down(a, i, n);
    for (i = n; i-- > 1;) {
        double t = a[0];
        a[0] = a[i];
        a[i] = t;
        sift_down(a, 0, i);
    }
}

static void insertion_sort(double *a, size_t n)
{
    size_t i, j;

    for (i = 1; i < n; i++) {
        double v = a[i];
        for (j = i; j > 0 && a[j - 1] > v; j--)
            a[j] = a[j - 1];
        a[j] = v;
    }
}

static void intro_sort(double *a, size_t n, int depth)
{
    while (n > 16) {
        double p, t;
        size_t i, j, mid = n / 2;
        if (depth-- == 0) {
            heap_sort(a, n);
            return;
        }
        /* Median of three as the pivot, left in a[mid]. */
        if (a[mid] < a[0]) { t = a[mid]; a[mid] = a[0]; a[0] = t; }
        if (a[n - 1] < a[mid]) { t = a[n - 1]; a[n - 1] = a[mid]; a[mid] = t; }
        if (a[mid] < a[0]) { t = a[mid]; a[mid] = a[0]; a[0] = t; }
        p = a[mid];
        i = 0;
        j = n - 1;
        for (;;) {
            while (a[i] < p)
                i++;
            while (p < a[j])
                j--;
            if (i >= j)
                break;
            t = a[i];
            a[i] = a[j];
            a[j] = t;
            i++;
            j--;
        }
        /* a[0..j] <= p <= a[j+1..n): recurse on the smaller side. */
        if (j + 1 < n - j - 1) {
            intro_sort(a, j + 1, depth);
            a += j + 1;
            n -= j + 1;
        } else {
            intro_sort(a + j + 1, n - j - 1, depth);
            n = j + 1;
        }
    }
    insertion_sort(a, n);
}

static void sort_doubles(double *a, size_t n)
{
    int depth = 0;
    size_t m;

    /* Already in order (a caller's sorted copy): one pass. A NaN fails the test and sorts as before. */
    for (m = 1; m < n && a[m] >= a[m - 1]; m++)
        ;
    if (m >= n)
        return;
    for (m = n; m > 1; m >>= 1)
        depth += 2;
    intro_sort(a, n, depth);
}

void pg_stats_sort(double *x, size_t n)
{
    sort_doubles(x, n);
}

double *pg__stats_sorted_copy(const double *x, size_t n)
{
    double *s = malloc((n ? n : 1) * sizeof(*s));

    if (!s)
        return NULL;
    if (n)
        memcpy(s, x, n * sizeof(*s));
    sort_doubles(s, n);
    return s;
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
    /* numpy's _lerp form, which is exact at both ends of the step. */
    if (frac >= 0.5)
        return s[lo + 1] - (s[lo + 1] - s[lo]) * (1 - frac);
    return s[lo] + (s[lo + 1] - s[lo]) * frac;
}

double pg_stats_quantile(const double *x, size_t n, double q)
{
    double *s, v;

    if (n == 0)
        return NAN;
    if (!(s = pg__stats_sorted_copy(x, n)))
        return NAN;
    v = pg_stats_quantile_sorted(s, n, q);
    free(s);
    return v;
}

double pg_stats_median(const double *x, size_t n)
{
    return pg_stats_quantile(x, n, 0.5);
}

double pg_stats_iqr(const double *x, size_t n)
{
    double *s, v;

    if (n == 0 || !(s = pg__stats_sorted_copy(x, n)))
        return NAN;
    v = pg_stats_quantile_sorted(s, n, 0.75) - pg_stats_quantile_sorted(s, n, 0.25);
    free(s);
    return v;
}

double pg_stats_mad(const double *x, size_t n)
{
    double *d, med, v;
    size_t i;

    if (n == 0 || !(d = pg__stats_sorted_copy(x, n)))
        return NAN;
    med = pg_stats_quantile_sorted(d, n, 0.5);
    for (i = 0; i < n; i++)
        d[i] = fabs(d[i] - med);
    sort_doubles(d, n);
    v = pg_stats_quantile_sorted(d, n, 0.5);
    free(d);
    return v;
}

double pg_stats_mad_sorted(const double *s, size_t n, double *scratch)
{
    double med;
    size_t lo, hi, k;

    if (n == 0)
        return NAN;
    /*
     * The deviations fall towards the median and rise after it: merging the
     * two runs from the middle out gives them sorted, the same doubles in
     * the same order a sort of them gives.
     */
    med = pg_stats_quantile_sorted(s, n, 0.5);
    hi = (n - 1) / 2 + 1;
    lo = hi;
    for (k = 0; k < n; k++) {
        double a = lo > 0 ? fabs(s[lo - 1] - med) : INFINITY, b = hi < n ? fabs(s[hi] - med) : INFINITY;
        if (lo > 0 && !(b < a)) {
            scratch[k] = a;
            lo--;
        } else {
            scratch[k] = b;
            hi++;
        }
    }
    return pg_stats_quantile_sorted(scratch, n, 0.5);
}

double pg_stats_mean(const double *x, size_t n)
{
    double sum = 0;
    size_t i;

    if (n == 0)
        return NAN;
    for (i = 0; i < n; i++)
        sum += x[i];
    return sum / (double)n;
}

double pg_stats_stddev(const double *x, size_t n)
{
    double mean, ss = 0;
    size_t i;

    if (n < 2)
        return 0.0;
    /* Two passes: the one-pass formula loses digits on samples with a large mean. */
    mean = pg_stats_mean(x, n);
    for (i = 0; i < n; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    return sqrt(ss / (double)(n - 1));
}

int pg_stats_summarize(pg_summary *out, const double *x, size_t n)
{
    double *s;

    memset(out, 0, sizeof(*out));
    if (n == 0)
        return pg_error_set(PG_EINVAL, "no samples to summarize");
    if (!(s = pg__stats_sorted_copy(x, n)))
        return pg_error_set(PG_ENOMEM, "out of memory summarizing %zu samples", n);
    out->n = n;
    out->mean = pg_stats_mean(s, n);
    out->stddev = pg_stats_stddev(s, n);
    out->min = s[0];
    out->max = s[n - 1];
    out->median = pg_stats_quantile_sorted(s, n, 0.5);
    out->q1 = pg_stats_quantile_sorted(s, n, 0.25);
    out->q3 = pg_stats_quantile_sorted(s, n, 0.75);
    out->iqr = out->q3 - out->q1;
    free(s);
    return 0;
}

/* ---- distributions ---------------------------------------------------- */

double pg_stats_norm_sf(double z)
{
    return 0.5 * erfc(z / sqrt(2.0));
}

double pg_stats_norm_ppf(double p)
{
    /* Acklam's rational approximation (1e-9), then one Halley step on erfc. */
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                               1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                               6.680131188771972e+01, -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                               -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    double q, r, x, e, u;

    if (!(p > 0 && p < 1))
        return p == 0 ? -INFINITY : p == 1 ? INFINITY : NAN;
    if (p < 0.02425) {
        q = sqrt(-2 * log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else if (p > 1 - 0.02425) {
        q = sqrt(-2 * log(1 - p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else {
        q = p - 0.5;
        r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    e = 0.5 * erfc(-x / sqrt(2.0)) - p;
    u = e * sqrt(2 * M_PI) * exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

/* Continued fraction of the incomplete beta function (modified Lentz). */
static double betacf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1), h;
    int m;

    if (fabs(d) < tiny)
        d = tiny;
    d = 1 / d;
    h = d;
    for (m = 1; m <= 500; m++) {
        double m2 = 2.0 * m, aa, del;
        aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
        d = 1 + aa * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1 + aa / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1 / d;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        d = 1 + aa * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1 + aa / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1 / d;
        del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-16)
            break;
    }
    return h;
}

/* Regularized incomplete beta I_x(a, b). */
static double ibeta(double a, double b, double x)
{
    double front;

    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1) / (a + b + 2))
        return front * betacf(a, b, x) / a;
    return 1 - front * betacf(b, a, 1 - x) / b;
}

/* Student t upper tail P(T > t) for t >= 0. */
static double t_sf(double t, double df)
{
    return 0.5 * ibeta(df / 2, 0.5, df / (df + t * t));
}

static double t_ppf(double p, double df);

/* The last quantile asked again: a comparison asks for the same one for every case. */
double pg_stats_t_ppf(double p, double df)
{
    static _Thread_local double last_p = NAN, last_df = NAN, last_t;

    if (p != last_p || df != last_df) {
        last_t = t_ppf(p, df);
        last_p = p;
        last_df = df;
    }
    return last_t;
}

static double t_ppf(double p, double df)
{
    double lo = 0, hi = 1, target, t, z, logc;
    int i;

    if (!(p > 0 && p < 1) || !(df > 0))
        return NAN;
    if (p == 0.5)
        return 0;
    if (p < 0.5)
        return -t_ppf(1 - p, df);
    target = 1 - p;
    /* Bracket the root: the tail is monotone. */
    while (t_sf(hi, df) > target && hi < 1e300)
        hi *= 2;
    /* Newton from the Cornish-Fisher start, kept inside the bracket: a handful of steps. */
    z = pg_stats_norm_ppf(p);
    t = z + (z * z * z + z) / (4 * df) + (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * df * df);
    if (!(t > lo && t < hi))
        t = 0.5 * (lo + hi);
    logc = lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * M_PI);
    for (i = 0; i < 100; i++) {
        double f = t_sf(t, df) - target, pdf = exp(logc - (df + 1) / 2 * log1p(t * t / df)), next;
        if (f > 0)
            lo = t;
        else
            hi = t;
        next = t + f / pdf;
        /* Fall back to bisection whenever Newton would leave the bracket. */
        if (!(next > lo && next < hi))
            next = 0.5 * (lo + hi);
        if (fabs(next - t) <= 1e-15 * fabs(t))
            return next;
        t = next;
    }
    return t;
}

/* ---- bootstrap -------------------------------------------------------- */

void pg_stats_rng_seed(pg_rng *rng, uint64_t seed)
{
    rng->state = seed;
}

uint64_t pg_stats_rng_next(pg_rng *rng)
{
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

size_t pg_stats_rng_index(pg_rng *rng, size_t n)
{
    size_t i = (size_t)((double)(pg_stats_rng_next(rng) >> 11) * 0x1.0p-53 * (double)n);

    return i < n ? i : n - 1;
}

static double resample_median(double *buf, const double *x, size_t n, pg_rng *rng)
{
    size_t i;

    for (i = 0; i < n; i++)
        buf[i] = x[pg_stats_rng_index(rng, n)];
    sort_doubles(buf, n);
    return pg_stats_quantile_sorted(buf, n, 0.5);
}

int pg_stats_bootstrap_ratio(double *out_lo, double *out_hi, const double *head, size_t nhead, const double *base,
                             size_t nbase, double level, size_t reps, uint64_t seed)
{
    double *ratios = NULL, *buf = NULL;
    pg_rng rng;
    size_t i;
    int err = PG_ENOMEM;

    *out_lo = *out_hi = NAN;
    if (nhead == 0 || nbase == 0 || reps < 2 || !(level > 0 && level < 1))
        return pg_error_set(PG_EINVAL, "bootstrap needs samples on both sides, reps >= 2 and 0 < level < 1");
    ratios = malloc(reps * sizeof(*ratios));
    buf = malloc((nhead > nbase ? nhead : nbase) * sizeof(*buf));
    if (!ratios || !buf) {
        pg_error_set(err, "out of memory bootstrapping %zu resamples", reps);
        goto cleanup;
    }
    pg_stats_rng_seed(&rng, seed);
    for (i = 0; i < reps; i++) {
        double mh = resample_median(buf, head, nhead, &rng);
        double mb = resample_median(buf, base, nbase, &rng);
        ratios[i] = mh / mb;
    }
    qsort(ratios, reps, sizeof(*ratios), cmp_double);
    *out_lo = pg_stats_quantile_sorted(ratios, reps, (1 - level) / 2);
    *out_hi = pg_stats_quantile_sorted(ratios, reps, (1 + level) / 2);
    err = 0;

cleanup:
    free(ratios);
    free(buf);
    return err;
}

/* ---- multiple comparisons --------------------------------------------- */

typedef struct pidx {
    double p;
    size_t i;
} pidx;

static int cmp_pidx(const void *a, const void *b)
{
    const pidx *x = a, *y = b;
    int c = cmp_double(&x->p, &y->p);

    /* Stable on equal p so the adjustment does not depend on qsort's whims. */
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* Sorts the non-NAN p-values with their positions; returns how many there are. */
static pidx *sort_ps(const double *p, size_t n, size_t *out_m)
{
    pidx *v = malloc((n ? n : 1) * sizeof(*v));
    size_t i, m = 0;

    if (!v)
        return NULL;
    for (i = 0; i < n; i++)
        if (!isnan(p[i]))
            v[m++] = (pidx){p[i], i};
    qsort(v, m, sizeof(*v), cmp_pidx);
    *out_m = m;
    return v;
}

int pg_stats_holm(double *out, const double *p, size_t n)
{
    size_t m, i;
    double run = 0;
    pidx *v = sort_ps(p, n, &m);

    if (!v)
        return pg_error_set(PG_ENOMEM, "out of memory adjusting %zu p-values", n);
    for (i = 0; i < n; i++)
        if (isnan(p[i]))
            out[i] = NAN;
    /* Step down: the i-th smallest is multiplied by (m - i), then made monotone. */
    for (i = 0; i < m; i++) {
        double a = fmin(1.0, (double)(m - i) * v[i].p);
        run = fmax(run, a);
        out[v[i].i] = run;
    }
    free(v);
    return 0;
}

int pg_stats_bh(double *out, const double *p, size_t n)
{
    size_t m, i;
    double run = 1;
    pidx *v = sort_ps(p, n, &m);

    if (!v)
        return pg_error_set(PG_ENOMEM, "out of memory adjusting %zu p-values", n);
    for (i = 0; i < n; i++)
        if (isnan(p[i]))
            out[i] = NAN;
    /* Step up from the largest: p * m / rank, made monotone from above. */
    for (i = m; i-- > 0;) {
        double a = fmin(1.0, v[i].p * (double)m / (double)(i + 1));
        run = fmin(run, a);
        out[v[i].i] = run;
    }
    free(v);
    return 0;
}
