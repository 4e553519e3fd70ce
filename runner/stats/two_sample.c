/*
 * two_sample.c - the rank statistics of two samples: Mann-Whitney U (exact
 * or normal with continuity and tie correction) and the Hodges-Lehmann
 * shift with Moses' interval, selected in the sorted difference matrix
 * without forming it.
 *
 * Every formula follows scipy's conventions on purpose: the tests compare
 * against tables that scipy generated (tests/data/stats/).
 */
#include "stats/stats.h"
#include "stats/internal.h"

#include "perfgate/errors.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Largest smaller-sample size for which the exact U distribution is built. */
#define EXACT_MAX_K 60
/* Cap on the doubles the exact distribution may allocate (k^2 * N). */
#define EXACT_MAX_CELLS 50000000.0

/* ---- Mann-Whitney U --------------------------------------------------- */

int pg_stats_mwu_pmf(double *out, size_t nx, size_t ny)
{
    size_t k = nx < ny ? nx : ny, n = nx + ny, len = nx * ny + 1, j, u, t;
    double **poly = NULL, total = 0;
    int err = PG_ENOMEM;

    if (k > EXACT_MAX_K || (double)k * (double)k * (double)n > EXACT_MAX_CELLS)
        return pg_error_set(PG_EINVAL, "exact Mann-Whitney distribution for %zu x %zu samples is too large", nx, ny);
    /*
     * The counts of U are the coefficients of the Gaussian binomial
     * [n choose k]_q. Build them with [t choose j] = [t-1 choose j-1] +
     * q^j [t-1 choose j]: only additions of non-negative terms, so the
     * doubles keep full relative precision even far in the tails.
     */
    poly = calloc(k + 1, sizeof(*poly));
    if (!poly)
        goto cleanup;
    for (j = 0; j <= k; j++)
        if (!(poly[j] = calloc(j * (n - j) + 1, sizeof(**poly))))
            goto cleanup;
    poly[0][0] = 1;
    for (t = 1; t <= n; t++) {
        for (j = (t < k ? t : k); j >= 1; j--) {
            /* Degree of [t choose j] is j*(t-j); update from the top so reads see old values. */
            size_t deg = j * (t - j);
            for (u = deg + 1; u-- > 0;) {
                double from_prev = (u <= (j - 1) * (t - j)) ? poly[j - 1][u] : 0;
                double shifted = (u >= j && j <= t - 1 && u - j <= j * (t - 1 - j)) ? poly[j][u - j] : 0;
                poly[j][u] = from_prev + shifted;
            }
        }
    }
    for (u = 0; u < len; u++)
        total += poly[k][u];
    for (u = 0; u < len; u++)
        out[u] = poly[k][u] / total;
    err = 0;

cleanup:
    if (poly)
        for (j = 0; j <= k; j++)
            free(poly[j]);
    free(poly);
    if (err)
        pg_error_set(err, "out of memory building the exact Mann-Whitney distribution");
    return err;
}

int pg_stats_mwu(pg_mwu *out, const double *x, size_t nx, const double *y, size_t ny, pg_alternative alt,
                 pg_mwu_method method)
{
    size_t n = nx + ny, i = 0, a = 0, b = 0;
    double *sx = NULL, *sy, *pmf = NULL, r1 = 0, tie = 0, u, mu, s, z;
    int err = PG_ENOMEM;

    memset(out, 0, sizeof(*out));
    if (nx == 0 || ny == 0)
        return pg_error_set(PG_EINVAL, "Mann-Whitney U needs samples on both sides (%zu and %zu)", nx, ny);
    /* Both sides sorted on their own and merged: the ranks without sorting (value, side) records. */
    if (!(sx = malloc(n * sizeof(*sx))))
        goto cleanup;
    sy = sx + nx;
    memcpy(sx, x, nx * sizeof(*sx));
    memcpy(sy, y, ny * sizeof(*sy));
    pg_stats_sort(sx, nx);
    pg_stats_sort(sy, ny);
    /* Average ranks over runs of equal values; accumulate sum(t^3 - t) for the tie correction. */
    while (i < n) {
        int from_x = a < nx && (b >= ny || sx[a] <= sy[b]);
        double v = from_x ? sx[a] : sy[b], avg, t;
        size_t cx = 0, m = 0;
        for (; a < nx && sx[a] == v; a++, m++)
            cx++;
        for (; b < ny && sy[b] == v; b++)
            m++;
        if (m == 0) { /* a NaN, equal to nothing: a run of its own */
            if (from_x) {
                a++;
                cx++;
            } else {
                b++;
            }
            m = 1;
        }
        avg = (double)(2 * i + 1 + m) / 2.0;
        r1 += avg * (double)cx;
        t = (double)m;
        tie += t * t * t - t;
        if (m > 1)
            out->ties = 1;
        i += m;
    }
    out->u1 = r1 - (double)nx * (double)(nx + 1) / 2.0;
    if (alt == PG_ALT_GREATER)
        u = out->u1;
    else if (alt == PG_ALT_LESS)
        u = (double)nx * (double)ny - out->u1;
    else
        u = fmax(out->u1, (double)nx * (double)ny - out->u1);

    if (method == PG_MWU_AUTO)
        method = ((nx > 8 && ny > 8) || out->ties) ? PG_MWU_ASYMPTOTIC : PG_MWU_EXACT;
    if (method == PG_MWU_EXACT) {
        size_t len = nx * ny + 1, uu = (size_t)floor(u);
        double sf = 0;
        if (!(pmf = malloc(len * sizeof(*pmf)))) {
            err = PG_ENOMEM;
            goto cleanup;
        }
        if ((err = pg_stats_mwu_pmf(pmf, nx, ny)) != 0)
            goto done;
        for (i = len; i-- > uu;)
            sf += pmf[i];
        out->p = sf;
        out->exact = 1;
    } else {
        mu = (double)nx * (double)ny / 2.0;
        s = sqrt((double)nx * (double)ny / 12.0 * ((double)(n + 1) - tie / ((double)n * (double)(n - 1))));
        /* All values tied: no evidence either way. scipy gets there through z = -inf. */
        if (!(s > 0)) {
            out->p = 1;
        } else {
            z = (u - mu - 0.5) / s;
            out->p = pg_stats_norm_sf(z);
        }
    }
    if (alt == PG_ALT_TWO_SIDED)
        out->p *= 2;
    out->p = fmin(fmax(out->p, 0.0), 1.0);
    err = 0;

cleanup:
    if (err == PG_ENOMEM)
        pg_error_set(err, "out of memory in the Mann-Whitney test (%zu x %zu samples)", nx, ny);
done:
    free(sx);
    free(pmf);
    return err;
}

/* ---- Hodges-Lehmann shift and Moses' interval ------------------------- */

/*
 * Puts the element of rank k (0-based) of a[0..n) at a[k], smaller-or-equal
 * ones before it and greater-or-equal ones after: an order statistic in
 * linear expected time, where
 * a sort of the m*n pairwise differences of every case made a comparison of
 * thousands of cases slow. No NaN in `a`.
 */
static void select_rank(double *a, size_t n, size_t k)
{
    /* Wirth's selection ("Algorithms + Data Structures = Programs", 1976), signed indices. */
    ptrdiff_t l = 0, m = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;

    while (l < m) {
        double x = a[kk], t;
        ptrdiff_t i = l, j = m;
        do {
            while (a[i] < x)
                i++;
            while (x < a[j])
                j--;
            if (i <= j) {
                t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        } while (i <= j);
        if (j < kk)
            l = i;
        if (kk < i)
            m = j;
    }
}

/*
 * Order statistics of the n*m differences r[i] - c[j] without forming them
 * (Johnson and Mizoguchi, SIAM J. Comput. 7 (1978); Monahan, ACM TOMS 10
 * (1984) for the Hodges-Lehmann estimate): r ascending and c descending make
 * the matrix sorted along rows and columns, so the number of differences
 * below a pivot is one staircase walk, O(n + m). Each row keeps the range
 * [lo, hi) of columns still in play; a pivot near the wanted rank cuts the
 * ranges, and once few are left they are gathered and selected. Every value
 * compared or returned is a difference computed as r[i] - c[j], so the
 * result is the same double a selection over all n*m of them gives.
 */
typedef struct diff_pick {
    double v;
    size_t w;
} diff_pick;

typedef struct diff_matrix {
    const double *r, *c;
    size_t n, m;
    size_t *lo, *hi, *cut; /* n each */
    diff_pick *pick;       /* n */
    double *buf;           /* gather room */
    size_t nbuf;
} diff_matrix;

static int cmp_pick(const void *a, const void *b)
{
    double x = ((const diff_pick *)a)->v, y = ((const diff_pick *)b)->v;

    return (x > y) - (x < y);
}

/*
 * cut[i] = columns of row i below the pivot (strict: < p, else <= p); returns
 * their sum. The pivot is a candidate, so every column left of lo[i] is below
 * it and every column from hi[i] on above it: only the ranges are walked.
 */
static size_t diff_count(const diff_matrix *dm, double p, int strict)
{
    size_t i, j = dm->m, total = 0;

    for (i = 0; i < dm->n; i++) {
        double ri = dm->r[i];
        size_t lo = dm->lo[i];
        if (j > dm->hi[i])
            j = dm->hi[i];
        if (strict)
            while (j > lo && ri - dm->c[j - 1] >= p)
                j--;
        else
            while (j > lo && ri - dm->c[j - 1] > p)
                j--;
        dm->cut[i] = j;
        total += j;
    }
    return total;
}

/* A candidate near rank `at` (0-based) among the `rest` in play: the weighted quantile of each row's own. */
static double diff_pivot(diff_matrix *dm, size_t at, size_t rest)
{
    size_t i, j, np = 0, acc = 0;
    double f = ((double)at + 0.5) / (double)rest;

    for (i = 0; i < dm->n; i++) {
        size_t w = dm->hi[i] - dm->lo[i], pos;
        if (w == 0)
            continue;
        pos = dm->lo[i] + (size_t)(f * (double)w);
        if (pos >= dm->hi[i])
            pos = dm->hi[i] - 1;
        dm->pick[np].v = dm->r[i] - dm->c[pos];
        dm->pick[np].w = w;
        np++;
    }
    if (np <= 32) {
        for (i = 1; i < np; i++) {
            diff_pick t = dm->pick[i];
            for (j = i; j > 0 && dm->pick[j - 1].v > t.v; j--)
                dm->pick[j] = dm->pick[j - 1];
            dm->pick[j] = t;
        }
    } else {
        qsort(dm->pick, np, sizeof(*dm->pick), cmp_pick);
    }
    for (i = 0; i + 1 < np; i++) {
        acc += dm->pick[i].w;
        if (acc > at)
            break;
    }
    return dm->pick[i].v;
}

/*
 * The difference of rank k (0-based) among all n*m. Two pivots bracket the
 * wanted rank (as in Floyd and Rivest's selection), so a pass keeps about
 * the slice between them, not one side.
 */
static double diff_select(diff_matrix *dm, size_t k, double *below)
{
    size_t i, j, left = 0, rest = dm->n * dm->m;
    int stuck = 0;

    for (i = 0; i < dm->n; i++) {
        dm->lo[i] = 0;
        dm->hi[i] = dm->m;
    }
    for (;;) {
        /* Ties can keep every candidate between the pivots: then one pivot at the rank, which always cuts. */
        size_t want = k - left, gap = stuck ? 0 : rest / 32 + dm->n, before = rest;
        double plo, phi;
        if (rest <= dm->nbuf) {
            size_t t = 0;
            for (i = 0; i < dm->n; i++)
                for (j = dm->lo[i]; j < dm->hi[i]; j++)
                    dm->buf[t++] = dm->r[i] - dm->c[j];
            select_rank(dm->buf, t, want);
            if (below && k > 0) {
                /*
                 * Rank k - 1 is the largest difference under rank k: among the
                 * gathered ones those before it, else the largest one left of
                 * the ranges (each row's just below its range).
                 */
                double b = -INFINITY;
                for (i = 0; i < want; i++)
                    if (dm->buf[i] > b)
                        b = dm->buf[i];
                for (i = 0; i < dm->n; i++)
                    if (dm->lo[i] > 0 && dm->r[i] - dm->c[dm->lo[i] - 1] > b)
                        b = dm->r[i] - dm->c[dm->lo[i] - 1];
                *below = b;
            }
            return dm->buf[want];
        }
        plo = diff_pivot(dm, want > gap ? want - gap : 0, rest);
        phi = gap == 0 ? plo : diff_pivot(dm, want + gap < rest ? want + gap : rest - 1, rest);
        if (k < diff_count(dm, plo, 1)) {
            for (i = 0; i < dm->n; i++)
                dm->hi[i] = dm->cut[i]; /* the rank is below the lower pivot */
        } else {
            for (i = 0; i < dm->n; i++)
                dm->lo[i] = dm->cut[i]; /* nothing under the lower pivot is wanted */
            if (k < diff_count(dm, phi, 0)) {
                if (plo == phi) {
                    /* At or above its first rank, under its last; rank k - 1 by its own search. */
                    if (below && k > 0)
                        *below = diff_select(dm, k - 1, NULL);
                    return plo;
                }
                for (i = 0; i < dm->n; i++)
                    dm->hi[i] = dm->cut[i];
            } else {
                for (i = 0; i < dm->n; i++)
                    dm->lo[i] = dm->cut[i];
            }
        }
        left = rest = 0;
        for (i = 0; i < dm->n; i++) {
            left += dm->lo[i];
            rest += dm->hi[i] - dm->lo[i];
        }
        stuck = rest == before;
    }
}

/* Whether every x_i - y_j is a number: no NaN, and no infinity of the same sign on both sides. */
static int differences_are_numbers(const double *x, size_t nx, const double *y, size_t ny)
{
    int inf[2][2] = {{0, 0}, {0, 0}}; /* [side][positive] */
    size_t i;

    for (i = 0; i < nx; i++) {
        if (isnan(x[i]))
            return 0;
        if (isinf(x[i]))
            inf[0][x[i] > 0] = 1;
    }
    for (i = 0; i < ny; i++) {
        if (isnan(y[i]))
            return 0;
        if (isinf(y[i]))
            inf[1][y[i] > 0] = 1;
    }
    return !(inf[0][0] && inf[1][0]) && !(inf[0][1] && inf[1][1]);
}

/* dst = src sorted in reverse, negated when `neg`. */
static void reverse_into(double *dst, const double *src, size_t n, int neg)
{
    size_t i;

    for (i = 0; i < n; i++)
        dst[i] = neg ? -src[n - 1 - i] : src[n - 1 - i];
}

int pg_stats_hodges_lehmann(pg_shift *out, const double *x, size_t nx, const double *y, size_t ny, double level)
{
    size_t mn = nx * ny, i, k = 0, n, m;
    double *pmf = NULL, *sx = NULL, *sy = NULL, *r = NULL, *c = NULL;
    size_t *idx = NULL;
    diff_matrix dm;
    int err = PG_ENOMEM;

    memset(out, 0, sizeof(*out));
    memset(&dm, 0, sizeof(dm));
    out->level = level;
    if (nx == 0 || ny == 0)
        return pg_error_set(PG_EINVAL, "a shift estimate needs samples on both sides (%zu and %zu)", nx, ny);
    if (!(level > 0 && level < 1))
        return pg_error_set(PG_EINVAL, "confidence level %g is not between 0 and 1", level);
    /* x - y is NaN exactly when one is NaN or both are the same infinity. */
    if (!differences_are_numbers(x, nx, y, ny))
        return pg_error_set(PG_EINVAL, "a shift estimate needs numbers, not NaN");
    if (!(sx = pg__stats_sorted_copy(x, nx)) || !(sy = pg__stats_sorted_copy(y, ny)))
        goto cleanup;
    /*
     * Rows are the shorter side. x_i - y_j is r - c with r = x ascending and
     * c = y descending, or r = -y ascending and c = -x descending:
     * (-y) - (-x) rounds as x + (-y), the same double as x - y.
     */
    n = nx <= ny ? nx : ny;
    m = nx <= ny ? ny : nx;
    r = malloc(n * sizeof(*r));
    c = malloc(m * sizeof(*c));
    dm.nbuf = 2 * (n + m) > 64 ? 2 * (n + m) : 64;
    dm.buf = malloc(dm.nbuf * sizeof(*dm.buf));
    dm.pick = malloc(n * sizeof(*dm.pick));
    idx = malloc(3 * n * sizeof(*idx));
    if (!r || !c || !dm.buf || !dm.pick || !idx)
        goto cleanup;
    if (nx <= ny) {
        memcpy(r, sx, n * sizeof(*r));
        reverse_into(c, sy, m, 0);
    } else {
        reverse_into(r, sy, n, 1);
        for (i = 0; i < m; i++)
            c[i] = -sx[i];
    }
    dm.r = r;
    dm.c = c;
    dm.n = n;
    dm.m = m;
    dm.lo = idx;
    dm.hi = idx + n;
    dm.cut = idx + 2 * n;

    /* The median of the differences (numpy's 'linear': the mean of the middle two when mn is even). */
    if (mn % 2 == 0) {
        double below;
        out->estimate = diff_select(&dm, mn / 2, &below);
        out->estimate = out->estimate - (out->estimate - below) * 0.5; /* as pg_stats_quantile_sorted() */
    } else {
        out->estimate = diff_select(&dm, mn / 2, NULL);
    }

    if ((nx < ny ? nx : ny) <= 8) {
        /* Largest k with P(U <= k-1) <= (1-level)/2 under the exact null distribution. */
        double cdf = 0, tail = (1 - level) / 2;
        if (!(pmf = malloc((mn + 1) * sizeof(*pmf))))
            goto cleanup;
        if ((err = pg_stats_mwu_pmf(pmf, nx, ny)) != 0)
            goto done;
        for (k = 0; k < mn / 2 + 1; k++) {
            /* Here cdf = P(U <= k-1): k is admissible while it stays within the tail. */
            if (cdf + pmf[k] > tail * (1 + 1e-12))
                break;
            cdf += pmf[k];
        }
        out->exact = 1;
    } else {
        double z = pg_stats_norm_ppf((1 + level) / 2);
        double sd = sqrt((double)mn * (double)(nx + ny + 1) / 12.0);
        double kk = floor((double)mn / 2.0 - z * sd);
        k = kk < 0 ? 0 : (size_t)kk;
    }
    out->k = k;
    if (k < 1) {
        out->lo = -INFINITY;
        out->hi = INFINITY;
    } else {
        out->lo = diff_select(&dm, k - 1, NULL);
        out->hi = diff_select(&dm, mn - k, NULL);
    }
    err = 0;

cleanup:
    if (err == PG_ENOMEM)
        pg_error_set(err, "out of memory estimating a shift (%zu x %zu samples)", nx, ny);
done:
    free(sx);
    free(sy);
    free(r);
    free(c);
    free(idx);
    free(dm.buf);
    free(dm.pick);
    free(pmf);
    return err;
}
