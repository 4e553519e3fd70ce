/* history.c - medians over commits and change-point detection. */
#include "history.h"

#include "meter/meter.h"
#include "perfgate/errors.h"
#include "stats.h"
#include "stepfit.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/*
 * One-sided Mann-Whitney p-value that b is shifted from a in the direction
 * of `up` (normal approximation with tie correction; segments here have at
 * least min_segment points and the test only prunes steps).
 */
static double step_pvalue(const double *a, size_t na, const double *b, size_t nb, int up)
{
    size_t i, j;
    double u = 0, n = (double)(na + nb), mu, var, z, ties = 0;
    double *all = malloc((na + nb) * sizeof(double));

    if (!all)
        return 1.0;
    for (i = 0; i < na; i++)
        for (j = 0; j < nb; j++)
            u += b[j] > a[i] ? 1.0 : (b[j] == a[i] ? 0.5 : 0.0);
    memcpy(all, a, na * sizeof(double));
    memcpy(all + na, b, nb * sizeof(double));
    qsort(all, na + nb, sizeof(double), cmp_double);
    for (i = 0; i < na + nb;) {
        size_t t = 1;
        while (i + t < na + nb && all[i + t] == all[i])
            t++;
        ties += (double)(t * t * t - t);
        i += t;
    }
    free(all);
    mu = (double)na * (double)nb / 2.0;
    var = (double)na * (double)nb / 12.0 * ((n + 1) - ties / (n * (n - 1)));
    if (var <= 0)
        return 1.0;
    z = up ? (u - mu - 0.5) / sqrt(var) : (mu - u - 0.5) / sqrt(var);
    return 0.5 * erfc(z / sqrt(2.0));
}

/* Whether x[0..n) holds one value: a segment of exact counts. */
static int constant(const double *x, size_t n)
{
    size_t i;

    for (i = 1; i < n; i++)
        if (x[i] != x[0])
            return 0;
    return 1;
}

int pg_history_detect(pg_change_point **out, size_t *out_count, const double *values, size_t n,
                      const pg_history_options *opts)
{
    pg_history_options dflt = PG_HISTORY_OPTIONS_INIT;
    double *y = NULL, *diffs = NULL, sigma, gamma;
    size_t *prev = NULL, *bounds = NULL, nb = 0, i, j;
    pg_change_point *cps = NULL;
    size_t ncps = 0;
    int err = 0;

    *out = NULL;
    *out_count = 0;
    if (!opts)
        opts = &dflt;
    if (n < 4 || n < 2 * opts->min_segment)
        return 0;
    y = malloc(n * sizeof(*y));
    diffs = calloc(n, sizeof(*diffs));
    prev = malloc((n + 1) * sizeof(*prev));
    bounds = malloc((n + 1) * sizeof(*bounds));
    if (!y || !diffs || !prev || !bounds) {
        err = pg_error_set(PG_ENOMEM, "out of memory detecting change points");
        goto cleanup;
    }
    for (i = 0; i < n; i++)
        y[i] = log(values[i] > 0 ? values[i] : 1e-300);

    /* Noise scale from successive differences: steps barely move it. */
    for (i = 0; i + 1 < n; i++)
        diffs[i] = fabs(y[i + 1] - y[i]);
    sigma = 1.4826 * pg_stats_median(diffs, n - 1) / sqrt(2.0);
    if (sigma < 1e-6)
        sigma = 1e-6;
    gamma = opts->penalty * sigma * log((double)n);

    /* Exact penalised L1 segmentation; segments shorter than min_segment only at the very ends would be noise. */
    if ((err = pg__stepfit(prev, y, n, opts->min_segment, gamma, 0, NULL)) != 0)
        goto cleanup;
    if (prev[n] == (size_t)-1)
        goto cleanup;
    for (j = n; j > 0; j = prev[j])
        bounds[nb++] = j;
    bounds[nb++] = 0;
    /* bounds is newest-first: reverse to get segment starts in order. */
    for (i = 0; i < nb / 2; i++) {
        size_t t = bounds[i];
        bounds[i] = bounds[nb - 1 - i];
        bounds[nb - 1 - i] = t;
    }
    cps = calloc(nb, sizeof(*cps));
    if (!cps) {
        err = pg_error_set(PG_ENOMEM, "out of memory detecting change points");
        goto cleanup;
    }
    for (i = 1; i + 1 < nb; i++) {
        size_t a0 = bounds[i - 1], a1 = bounds[i], b1 = bounds[i + 1];
        double before = exp(pg_stats_median(y + a0, a1 - a0));
        double after = exp(pg_stats_median(y + a1, b1 - a1));
        double ratio = after / before, p;
        if (fabs(log(ratio)) < log1p(opts->min_effect))
            continue;
        /* Two constant segments (exact counts) step for certain: no test, whose ties would hide it. */
        p = constant(y + a0, a1 - a0) && constant(y + a1, b1 - a1)
                ? 0.0
                : step_pvalue(y + a0, a1 - a0, y + a1, b1 - a1, ratio > 1);
        if (p >= opts->alpha)
            continue;
        cps[ncps].index = a1;
        cps[ncps].before = before;
        cps[ncps].after = after;
        cps[ncps].ratio = ratio;
        cps[ncps].p = p;
        ncps++;
    }
    *out = cps;
    *out_count = ncps;
    cps = NULL;

cleanup:
    free(y);
    free(diffs);
    free(prev);
    free(bounds);
    free(cps);
    return err;
}

static void history_clear(pg_history *h)
{
    size_t i;

    for (i = 0; i < h->npoints; i++) {
        free(h->points[i].commit);
        free(h->points[i].branch);
    }
    free(h->points);
    free(h->changes);
    free(h->key);
}

void pg_history_free_all(pg_history *h, size_t count)
{
    size_t i;

    if (!h)
        return;
    for (i = 0; i < count; i++)
        history_clear(&h[i]);
    free(h);
}

/* Appends a run's median to the series, merging consecutive runs of one commit. */
static int add_point(pg_history *h, double **run_medians, size_t *nrm, size_t *caprm, int64_t run_id,
                     const char *commit, const char *branch, int64_t started, double median, double q1,
                     double q3)
{
    pg_history_point *last = h->npoints ? &h->points[h->npoints - 1] : NULL;

    if (last && commit && last->commit && strcmp(commit, last->commit) == 0) {
        /* Same commit re-run: the point's median is the median of its runs. */
        if (*nrm == *caprm) {
            size_t cap = *caprm ? *caprm * 2 : 8;
            double *p = realloc(*run_medians, cap * sizeof(double));
            if (!p)
                return pg_error_set(PG_ENOMEM, "out of memory loading history");
            *run_medians = p;
            *caprm = cap;
        }
        (*run_medians)[(*nrm)++] = median;
        last->median = pg_stats_median(*run_medians, *nrm);
        last->run_id = run_id;
        last->q1 = q1;
        last->q3 = q3;
        last->runs++;
        return 0;
    } else {
        pg_history_point *p = realloc(h->points, (h->npoints + 1) * sizeof(*p));
        if (!p)
            return pg_error_set(PG_ENOMEM, "out of memory loading history");
        h->points = p;
        p = &p[h->npoints++];
        memset(p, 0, sizeof(*p));
        p->run_id = run_id;
        p->commit = pg__strdup(commit);
        p->branch = pg__strdup(branch);
        p->started_at = started;
        p->median = median;
        p->q1 = q1;
        p->q3 = q3;
        p->runs = 1;
        if (*caprm == 0) {
            *run_medians = malloc(8 * sizeof(double));
            if (!*run_medians)
                return pg_error_set(PG_ENOMEM, "out of memory loading history");
            *caprm = 8;
        }
        (*run_medians)[0] = median;
        *nrm = 1;
    }
    return 0;
}

/* The histories being gathered from the store's rows, one per case key. */
typedef struct history_acc {
    pg_history *hs;
    size_t nh;
    double *run_medians;    /* the medians of the last point's runs */
    size_t nrm, caprm;
} history_acc;

static int take_row(const pg_store_history_row *row, void *payload)
{
    history_acc *acc = payload;
    pg_history *h = acc->nh ? &acc->hs[acc->nh - 1] : NULL;

    if (!h || strcmp(h->key, row->key) != 0) {
        pg_history *p = realloc(acc->hs, (acc->nh + 1) * sizeof(*p));
        if (!p)
            return pg_error_set(PG_ENOMEM, "out of memory loading history");
        acc->hs = p;
        h = &acc->hs[acc->nh++];
        memset(h, 0, sizeof(*h));
        h->key = pg__strdup(row->key);
        acc->nrm = 0;
    }
    return add_point(h, &acc->run_medians, &acc->nrm, &acc->caprm, row->run_id, row->commit, row->branch,
                     row->started_at, row->median, row->q1, row->q3);
}

int pg_history_load(pg_history **out, size_t *out_count, pg_store *store, const char *glob,
                    const char *branch, size_t last, const pg_history_options *opts)
{
    history_acc acc = {0};
    pg_history *hs;
    size_t nh, i;
    double *series = NULL;
    int err;

    *out = NULL;
    *out_count = 0;
    err = pg_store_history_rows(store, glob, branch, take_row, &acc);
    hs = acc.hs;
    nh = acc.nh;
    if (err)
        goto cleanup;
    for (i = 0; i < nh; i++) {
        pg_history *h = &hs[i];
        size_t k;
        if (last && h->npoints > last) {
            /* Keep the newest `last` commits. */
            for (k = 0; k < h->npoints - last; k++) {
                free(h->points[k].commit);
                free(h->points[k].branch);
            }
            memmove(h->points, h->points + (h->npoints - last), last * sizeof(*h->points));
            h->npoints = last;
        }
        free(series);
        series = malloc((h->npoints ? h->npoints : 1) * sizeof(*series));
        if (!series) {
            err = pg_error_set(PG_ENOMEM, "out of memory loading history");
            goto cleanup;
        }
        for (k = 0; k < h->npoints; k++)
            series[k] = h->points[k].median;
        {
            /* Counted metrics (KEY#instructions) do not move: their smallest step is the exact threshold. */
            pg_history_options o = opts ? *opts : (pg_history_options)PG_HISTORY_OPTIONS_INIT;
            const char *hash = h->key ? strrchr(h->key, '#') : NULL;
            if (hash && pg_meter_is_exact(hash + 1) && o.min_effect > PG_EXACT_THRESHOLD)
                o.min_effect = PG_EXACT_THRESHOLD;
            if ((err = pg_history_detect(&h->changes, &h->nchanges, series, h->npoints, &o)) != 0)
                goto cleanup;
        }
    }
    *out = hs;
    *out_count = nh;
    hs = NULL;
    nh = 0;

cleanup:
    free(acc.run_medians);
    free(series);
    pg_history_free_all(hs, nh);
    return err;
}
