/* stepfit.c - the exact penalised L1 step fit (stepfit.h). */
#include "stats/stepfit.h"

#include "perfgate/errors.h"
#include "stats/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The L1 cost of the segments ending at one point, in O(1) per segment.
 *
 * A segment's cost is the sum of absolute deviations from its median. For a
 * fixed end j the segments y[i..j) are walked from i upwards: the values
 * y[i..j) are a doubly linked list in sorted order (ranks from one sort of
 * the whole series), and each step deletes y[i]. A deletion moves the
 * median by at most one list position, so the median and the sums of the
 * values at or below it (lo) and above it (hi) follow in constant time.
 * Afterwards the deletions are undone in reverse order (the deleted nodes
 * keep their links, as in Knuth's dancing links) and y[j] is added for the
 * next end.
 */
typedef struct seg_costs {
    const double *y;
    size_t *rank;             /* position of y[k] in the sorted series */
    size_t *order;            /* the series' indices in sorted order */
    size_t *next, *prev;      /* the list, by index; n stands for "none" */
    size_t n;
    size_t head;              /* the smallest value's index */
    size_t m;                 /* values in the list */
    size_t med;               /* index of the lower median: sorted position (m - 1) / 2 */
    double slo, shi;          /* sums at or below the median, above it */
} seg_costs;

static double seg_cost(const seg_costs *s)
{
    double med = s->y[s->med];
    /* Through int64_t: a signed conversion is one instruction, an unsigned one a branch. */
    int64_t nlo = (int64_t)(s->m + 1) / 2, nhi = (int64_t)s->m / 2;

    return (med * (double)nlo - s->slo) + (s->shi - med * (double)nhi);
}

/*
 * The same cost in fewer operations, (hi - lo) plus the median once when the
 * count is odd: the pruned fit's sums (not bit for bit the walk's, which
 * fit_pruned allows for).
 */
static double seg_cost_fast(const seg_costs *s)
{
    return (s->shi - s->slo) + (s->m % 2 ? s->y[s->med] : 0.0);
}

/* Moves the median one place up (to) or down: the value crossing changes side. */
static void seg_move(seg_costs *s, size_t to, int up)
{
    if (up) {
        s->slo += s->y[to];
        s->shi -= s->y[to];
    } else {
        s->slo -= s->y[s->med];
        s->shi += s->y[s->med];
    }
    s->med = to;
}

/* Deletes y[x] from the segment (the segment's first value). */
static void seg_drop(seg_costs *s, size_t x)
{
    int odd = s->m % 2 == 1; /* an odd count keeps fewer values below the median afterwards */
    size_t p = s->prev[x], q = s->next[x], med = s->med;

    if (x == med) {
        s->slo -= s->y[x];
        if (odd) {
            s->med = p;
        } else {
            s->med = q;
            s->slo += s->y[q];
            s->shi -= s->y[q];
        }
    } else if (s->rank[x] < s->rank[med]) {
        s->slo -= s->y[x];
        if (!odd)
            seg_move(s, s->next[med], 1);
    } else {
        s->shi -= s->y[x];
        if (odd)
            seg_move(s, s->prev[med], 0);
    }
    if (p != s->n)
        s->next[p] = q;
    else
        s->head = q;
    if (q != s->n)
        s->prev[q] = p;
    s->m--;
}

/* Puts back y[x], the last value dropped (dropped values keep their links). */
static void seg_undrop(seg_costs *s, size_t x)
{
    size_t p = s->prev[x], q = s->next[x];

    if (p != s->n)
        s->next[p] = x;
    else
        s->head = x;
    if (q != s->n)
        s->prev[q] = x;
}

/*
 * Adds y[x], a value after every one in the list, linked after p (its
 * predecessor in sorted order, n for none); the median moves at most one
 * place.
 */
static void seg_link(seg_costs *s, size_t x, size_t p)
{
    size_t q, med = s->med;
    int odd = s->m % 2 == 1;

    q = p == s->n ? s->head : s->next[p];
    s->prev[x] = p;
    s->next[x] = q;
    if (p == s->n)
        s->head = x;
    else
        s->next[p] = x;
    if (q != s->n)
        s->prev[q] = x;
    if (s->m++ == 0) {
        s->med = x;
        s->slo = s->y[x];
    } else if (s->rank[x] < s->rank[med]) {
        s->slo += s->y[x];
        if (odd)
            seg_move(s, s->prev[med], 0);
    } else {
        s->shi += s->y[x];
        if (!odd)
            seg_move(s, s->next[med], 1);
    }
}

/* Adds y[x] to the list of all of y[0..x): its predecessor is the nearest smaller-ranked earlier value. */
static void seg_add(seg_costs *s, size_t x)
{
    size_t r = s->rank[x], p = s->n;

    while (r-- > 0)
        if (s->order[r] < x) {
            p = s->order[r];
            break;
        }
    seg_link(s, x, p);
}

/* ---- the series' ranks ------------------------------------------------------ */

/*
 * rank[i]: y[i]'s place in the order of value, then index (a total order,
 * so the ranks are the same however they are found); order is its inverse.
 * From one sort of the values: equal values take their places in index
 * order.
 */
static void rank_series(size_t *rank, size_t *order, const double *y, size_t n, double *sorted, size_t *taken)
{
    size_t i;

    memcpy(sorted, y, n * sizeof(*sorted));
    pg_stats_sort(sorted, n);
    memset(taken, 0, n * sizeof(*taken));
    for (i = 0; i < n; i++) {
        size_t lo = 0, hi = n;
        while (lo < hi) { /* the first place holding y[i] */
            size_t mid = lo + (hi - lo) / 2;
            if (sorted[mid] < y[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        rank[i] = lo + taken[lo]++;
        order[rank[i]] = i;
    }
}

/* ---- the fit ------------------------------------------------------------------ */

typedef struct stepfit {
    const double *y;
    size_t n, shortest;
    double gamma;
    size_t *rank, *order;     /* n each */
    double *f;                /* n + 1: the best penalised cost of y[0..j) */
    size_t *prev;             /* n + 1 */
} stepfit;

/* The allowed segment starts for the end j: [0, ends). Short segments only where one spans everything. */
static size_t fit_ends(const stepfit *ft, size_t j)
{
    if (j >= ft->shortest)
        return j - ft->shortest + 1;
    return j == ft->n;
}

/* Every (i, j), i from 0 up: on equal sums the smallest i wins. */
static int fit_exhaustive(stepfit *ft)
{
    size_t n = ft->n, i, j, *links = malloc(2 * n * sizeof(*links));
    seg_costs sc;

    if (!links)
        return PG_ENOMEM;
    memset(&sc, 0, sizeof(sc));
    sc.y = ft->y;
    sc.n = n;
    sc.rank = ft->rank;
    sc.order = ft->order;
    sc.next = links;
    sc.prev = links + n;
    sc.head = n;
    ft->f[0] = 0;
    for (j = 1; j <= n; j++) {
        size_t med, m, dropped = 0, ends = fit_ends(ft, j);
        double slo, shi;
        ft->f[j] = INFINITY;
        seg_add(&sc, j - 1);
        med = sc.med;
        m = sc.m;
        slo = sc.slo;
        shi = sc.shi;
        for (i = 0; i < ends; i++) {
            double c;
            if (i > 0) {
                seg_drop(&sc, i - 1);
                dropped = i;
            }
            if (!isfinite(ft->f[i]))
                continue;
            c = ft->f[i] + seg_cost(&sc) + ft->gamma;
            if (c < ft->f[j]) {
                ft->f[j] = c;
                ft->prev[j] = i;
            }
        }
        while (dropped-- > 0)
            seg_undrop(&sc, dropped);
        sc.med = med;
        sc.m = m;
        sc.slo = slo;
        sc.shi = shi;
    }
    free(links);
    return 0;
}

/*
 * The pruned fit. The starts are cut into blocks of B; window w is the list
 * of y[wB..j), kept for every block as j grows. A segment costs at least
 * as much as its parts: for a start i in the block [s, s + B) and an end
 * j > s + B,
 *     f[i] + cost(y[i..j)) >= f[i] + cost(y[i..s+B)) + cost(y[s+B..j)),
 * where the first two terms are fixed once f[i] is known (key[i]) and the
 * last is window w + 1's cost; for j <= s + B the bound is f[i] alone. So
 * for each end the previous end's best start is walked first (the best
 * start seldom moves), then a block is looked at only when its smallest key
 * passes, a start only when its own does, and a start is walked (its cost
 * counted exactly from the block's window) only when its bound comes
 * within `tol` of the best so far.
 *
 * The sums here round differently from the exhaustive walk's (other
 * windows, other orders, other formulas), so each choice is certified:
 * every other start's sum (or its bound) must exceed the best by more than
 * `tol`, four times a bound on the rounding error of any sum in either
 * walk. Then both make the same choice, which is the exhaustive walk's
 * answer. A choice that cannot be certified (a tie, or two starts within
 * rounding of each other) is marked; if the best fit of the whole series
 * ends a segment at such an end, the caller walks exhaustively.
 *
 * The error bound: every running sum (lo, hi) is a sum of a subset of the
 * y's, so each of its at most 4n additions rounds by at most u * A, with
 * A = sum |y| and u = 2^-53; a segment cost adds at most five operations on
 * numbers of at most Z = A + n max|y| (a short cost by a sort, 2B), and a
 * sum or bound four more on numbers below F = 4Z + 4 gamma. So a sum is
 * within eps of its exact value plus the error of f[i], which adds eps per
 * segment of f[i]'s fit (errf), or after a marked end the largest error so
 * far.
 */
#ifndef PG_STEPFIT_BLOCK
#define PG_STEPFIT_BLOCK 16
#endif

typedef struct fit_window {
    seg_costs *win;           /* one per block: y[wB..j) */
    size_t B;
    double *key;              /* per start: f[i] + cost(y[i..s+B)), once f[i] is known */
    double *kmin, *fmin;      /* per block, [2w] and [2w+1]: the two smallest finite keys and f so far */
    size_t *kat, *fat;        /* per block: the start of the smallest key, of the smallest f */
    double best, second, tol; /* this end's best sum and the next, and the margin */
    size_t bi;                /* the best start */
} fit_window;

/* Adds y[x] to every window that starts at or before x. */
static void fit_insert(fit_window *fw, const stepfit *ft, size_t x)
{
    size_t B = fw->B, wl = x / B, lo = 0, r, k, p = ft->n;

    /* The newest window holds fewer than B values: look at each. */
    for (k = wl * B; k < x; k++)
        if (ft->rank[k] < ft->rank[x] && (p == ft->n || ft->rank[k] > ft->rank[p]))
            p = k;
    seg_link(&fw->win[wl], x, p);
    /*
     * The older windows: down the sorted series from x's rank, the first
     * earlier value found is the predecessor in every window that holds it
     * (those starting at or before it) and has none yet.
     */
    for (r = ft->rank[x]; lo < wl && r-- > 0;) {
        k = ft->order[r];
        if (k >= x)
            continue;
        for (; lo < wl && lo * B <= k; lo++)
            seg_link(&fw->win[lo], x, k);
    }
    for (; lo < wl; lo++)
        seg_link(&fw->win[lo], x, ft->n);
}

static void fit_take(fit_window *fw, const stepfit *ft, size_t i, double cost)
{
    double c = ft->f[i] + cost + ft->gamma;

    if (c < fw->best) {
        fw->second = fw->best;
        fw->best = c;
        fw->bi = i;
    } else if (c < fw->second) {
        fw->second = c;
    }
}

/*
 * Walks window w (y[s..j)) from s, counting exactly the starts in [s, e)
 * that `pick` says (skip: the one already counted), then undoes the walk.
 * pick: NULL for just `only`; else per start, whether it is still in play.
 */
static void fit_walk(fit_window *fw, const stepfit *ft, seg_costs *sc, size_t s, size_t e, size_t only,
                     size_t skip, double cw)
{
    size_t med = sc->med, m = sc->m, i, last = s;
    double slo = sc->slo, shi = sc->shi;

    for (i = s; i < e; i++) {
        if (only != ft->n) {
            if (i != only)
                continue;
        } else {
            if (i == skip || !isfinite(ft->f[i]))
                continue;
            /* Its own bound first: the key and window w + 1's cost (cw), or f alone (cw < 0). */
            if (isfinite(fw->best) &&
                (cw >= 0 ? fw->key[i] + cw : ft->f[i]) + ft->gamma > fw->best + fw->tol)
                continue;
        }
        for (; last < i; last++)
            seg_drop(sc, last);
        fit_take(fw, ft, i, seg_cost_fast(sc));
    }
    while (last-- > s)
        seg_undrop(sc, last);
    sc->med = med;
    sc->m = m;
    sc->slo = slo;
    sc->shi = shi;
}

/* Keeps the two smallest of a block's values (least[0] <= least[1]) and where the smallest is. */
static void fit_least(double *least, size_t *at, double v, size_t i)
{
    if (v < least[0]) {
        least[1] = least[0];
        least[0] = v;
        *at = i;
    } else if (v < least[1]) {
        least[1] = v;
    }
}

/* cost(y[i..b)) for every start i of the block [a, b), from the end backwards (b - a <= 64). */
static void short_costs(double *out, const double *y, size_t a, size_t b)
{
    double v[64];
    size_t m = 0, i, k;

    for (i = b; i-- > a;) {
        double t = y[i], c = 0, med;
        for (k = m; k > 0 && v[k - 1] > t; k--)
            v[k] = v[k - 1];
        v[k] = t;
        m++;
        med = v[(m - 1) / 2];
        for (k = 0; k < m; k++)
            c += fabs(v[k] - med);
        out[i] = c;
    }
}

/* 0: the fit, every choice certified; 1: a choice too close to call; PG_ENOMEM. */
static int fit_pruned(stepfit *ft)
{
    size_t n = ft->n, B = PG_STEPFIT_BLOCK, nwin, w, j, k, *links = NULL;
    double A = 0, ymax = 0, Z, F, eps, errmax = 0, *errf = NULL, *shortc = NULL;
    unsigned char *unsure = NULL;
    fit_window fw;
    int rc = PG_ENOMEM;

    for (k = 0; k < n; k++) {
        if (!isfinite(ft->y[k]))
            return 1;
        A += fabs(ft->y[k]);
        ymax = fmax(ymax, fabs(ft->y[k]));
    }
    if (!isfinite(ft->gamma) || !(ft->gamma >= 0))
        return 1;
    Z = A + (double)n * ymax;
    F = 4 * Z + 4 * ft->gamma;
    /* Twice the bound above, for the rounding of these products and of best + tol. */
    eps = 2 * ((9.0 * (double)n + 16 + 2 * 64) * Z + 4 * F) * 0x1p-53;

    /* Windows hold 2n links each: at most 2^22 in all (32 MB), in larger blocks for long series. */
    while ((n / B + 1) * n > ((size_t)1 << 21) && B < 64)
        B *= 2;
    if ((n / B + 1) * n > ((size_t)1 << 21))
        return 1;
    nwin = (n + B - 1) / B;
    memset(&fw, 0, sizeof(fw));
    fw.B = B;
    fw.win = calloc(nwin, sizeof(*fw.win));
    fw.key = malloc(n * sizeof(*fw.key));
    fw.kmin = malloc(2 * nwin * sizeof(*fw.kmin));
    fw.fmin = malloc(2 * nwin * sizeof(*fw.fmin));
    fw.kat = malloc(nwin * sizeof(*fw.kat));
    fw.fat = malloc(nwin * sizeof(*fw.fat));
    shortc = malloc(n * sizeof(*shortc));
    links = malloc(2 * nwin * n * sizeof(*links));
    errf = malloc((n + 1) * sizeof(*errf));
    unsure = calloc(n + 1, 1);
    if (!unsure || !fw.win || !fw.key || !fw.kmin || !fw.fmin || !fw.kat || !fw.fat || !shortc || !links || !errf)
        goto cleanup;
    for (w = 0; w < nwin; w++) {
        seg_costs *sc = &fw.win[w];
        sc->y = ft->y;
        sc->n = n;
        sc->rank = ft->rank;
        sc->order = ft->order;
        sc->next = links + 2 * w * n;
        sc->prev = links + (2 * w + 1) * n;
        sc->head = n;
        fw.kmin[2 * w] = fw.kmin[2 * w + 1] = fw.fmin[2 * w] = fw.fmin[2 * w + 1] = INFINITY;
        fw.kat[w] = fw.fat[w] = n;
        short_costs(shortc, ft->y, w * B, w * B + B < n ? w * B + B : n);
    }
    ft->f[0] = 0;
    errf[0] = 0;
    fw.key[0] = shortc[0];
    fit_least(fw.kmin, &fw.kat[0], shortc[0], 0);
    fit_least(fw.fmin, &fw.fat[0], 0, 0);
    for (j = 1; j <= n; j++) {
        size_t ends = fit_ends(ft, j), nblocks, p = n;

        fit_insert(&fw, ft, j - 1);
        ft->f[j] = INFINITY;
        if (ends > 0) {
            fw.best = fw.second = INFINITY;
            fw.bi = n;
            fw.tol = 4 * (errmax + eps);
            nblocks = (ends - 1) / B + 1;
            /* The previous end's best start first. */
            if (j > 1 && isfinite(ft->f[j - 1]) && ft->prev[j - 1] < ends) {
                p = ft->prev[j - 1];
                fit_walk(&fw, ft, &fw.win[p / B], p / B * B, p + 1, p, n, -1);
            }
            for (w = 0; w < nblocks; w++) {
                size_t s = w * B, e = s + B < ends ? s + B : ends;
                /* Window w + 1 is y[s+B..j): empty when the block reaches j. p is counted already. */
                double cw = s + B < j ? seg_cost_fast(&fw.win[w + 1]) : -1;
                double lo = cw >= 0 ? fw.kmin[2 * w + (fw.kat[w] == p)] + cw : fw.fmin[2 * w + (fw.fat[w] == p)];
                if (!isfinite(lo) || (isfinite(fw.best) && lo + ft->gamma > fw.best + fw.tol))
                    continue;
                fit_walk(&fw, ft, &fw.win[w], s, e, n, p, cw);
            }
            if (fw.bi != n) {
                ft->f[j] = fw.best;
                ft->prev[j] = fw.bi;
                /*
                 * Two starts within rounding (exact ties are common: a point
                 * between the middle two of both its neighbouring segments costs
                 * nothing on either side): f[j] is still known within the
                 * largest error, but not which start the walk takes. That
                 * matters only if the best fit of the whole series ends a
                 * segment here (checked at the end).
                 */
                unsure[j] = !(fw.second > fw.best + fw.tol);
                errf[j] = (unsure[j] ? errmax : errf[fw.bi]) + eps;
                errmax = fmax(errmax, errf[j]);
            }
        }
        /* f[j] is known: the key of start j. */
        if (j < n && isfinite(ft->f[j])) {
            w = j / B;
            fw.key[j] = ft->f[j] + shortc[j];
            fit_least(fw.kmin + 2 * w, &fw.kat[w], fw.key[j], j);
            fit_least(fw.fmin + 2 * w, &fw.fat[w], ft->f[j], j);
        }
    }
    rc = 0;
    for (j = n; j > 0 && rc == 0 && isfinite(ft->f[j]); j = ft->prev[j])
        if (unsure[j])
            rc = 1;

cleanup:
    free(unsure);
    free(fw.win);
    free(fw.key);
    free(fw.kmin);
    free(fw.fmin);
    free(fw.kat);
    free(fw.fat);
    free(shortc);
    free(links);
    free(errf);
    return rc;
}

int pg_stepfit(size_t *prev, const double *y, size_t n, size_t shortest, double gamma, int exhaustive,
                pg_stepfit_path *path)
{
    stepfit ft;
    double *sorted = NULL;
    size_t *taken = NULL, k;
    int rc = PG_ENOMEM;

    for (k = 0; k < n; k++)
        if (isnan(y[k]))
            return pg_error_set(PG_EINVAL, "fitting steps: point %zu of %zu is not a number", k, n);
    memset(&ft, 0, sizeof(ft));
    ft.y = y;
    ft.n = n;
    ft.shortest = shortest > 1 ? shortest : 1;
    ft.gamma = gamma;
    ft.prev = prev;
    ft.rank = malloc((2 * n + 1) * sizeof(*ft.rank));
    ft.f = malloc((n + 1) * sizeof(*ft.f));
    sorted = malloc((n + 1) * sizeof(*sorted));
    taken = malloc((n + 1) * sizeof(*taken));
    if (!ft.rank || !ft.f || !sorted || !taken)
        goto cleanup;
    ft.order = ft.rank + n;
    rank_series(ft.rank, ft.order, y, n, sorted, taken);
    if (path)
        *path = PG_STEPFIT_PRUNED;
    rc = exhaustive ? 1 : fit_pruned(&ft);
    if (rc == 1) {
        if (path)
            *path = PG_STEPFIT_EXHAUSTIVE;
        rc = fit_exhaustive(&ft);
    }
    if (rc == 0 && !isfinite(ft.f[n]))
        prev[n] = (size_t)-1;

cleanup:
    free(ft.rank);
    free(ft.f);
    free(sorted);
    free(taken);
    return rc == PG_ENOMEM ? pg_error_set(PG_ENOMEM, "out of memory fitting steps to %zu points", n) : rc;
}
