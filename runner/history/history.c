/* history.c - medians over commits and change-point detection. */
#include "history/history.h"

#include "meter/meter.h"
#include "perfgate/errors.h"
#include "stats/stats.h"
#include "stats/stepfit.h"
#include "base/util.h"

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
    if ((err = pg_stepfit(prev, y, n, opts->min_segment, gamma, 0, NULL)) != 0)
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

/*
 * The commits and branches of the points: one copy per run, shared by every
 * case's point of that run (a year of nightlies of a thousand cases is a
 * third of a million points but a few hundred runs), in blocks that the
 * histories of one load share and the last one frees (a caller may move
 * histories between arrays, as `report --format html` does).
 */
typedef struct str_block {
    struct str_block *next;
    size_t used, cap;
    char text[];
} str_block;

typedef struct str_pool {
    size_t refs;
    str_block *blocks;
} str_pool;

static const char *block_dup(str_block **head, const char *s)
{
    size_t n;
    str_block *b = *head;
    char *out;

    if (!s)
        return NULL;
    n = strlen(s) + 1;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > 4000 ? n : 4000;
        if (!(b = malloc(sizeof(*b) + cap)))
            return NULL;
        b->next = *head;
        b->used = 0;
        b->cap = cap;
        *head = b;
    }
    out = b->text + b->used;
    memcpy(out, s, n);
    b->used += n;
    return out;
}

static void blocks_free(str_block *b)
{
    while (b) {
        str_block *next = b->next;
        free(b);
        b = next;
    }
}

/* A run's commit and branch, copied once: an open-addressed table by run id. */
typedef struct run_strings {
    int64_t run_id;
    const char *commit, *branch;
    int used;
} run_strings;

static void history_clear(pg_history *h)
{
    str_pool *pool = h->strings;

    free(h->points);
    free(h->changes);
    free(h->key);
    if (pool && --pool->refs == 0) {
        blocks_free(pool->blocks);
        free(pool);
    }
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

/* The histories being gathered from the store's rows, one per case key. */
typedef struct history_acc {
    pg_history *hs;
    size_t nh, caph;
    size_t cappoints;       /* room in the last history's points */
    double *run_medians;    /* the medians of the last point's runs */
    size_t nrm, caprm;
    str_pool *strings;      /* shared by every history of the load */
    run_strings *runs;      /* capruns slots, a power of two */
    size_t nruns, capruns;
} history_acc;

static const run_strings *run_strings_of(history_acc *acc, const pg_store_history_row *row)
{
    size_t i, mask;
    run_strings *slot;

    if (2 * (acc->nruns + 1) > acc->capruns) {
        size_t cap = acc->capruns ? 2 * acc->capruns : 256;
        run_strings *t = calloc(cap, sizeof(*t));
        if (!t)
            return NULL;
        for (i = 0; i < acc->capruns; i++)
            if (acc->runs[i].used) {
                size_t k = (size_t)acc->runs[i].run_id * 0x9e3779b97f4a7c15ull & (cap - 1);
                while (t[k].used)
                    k = (k + 1) & (cap - 1);
                t[k] = acc->runs[i];
            }
        free(acc->runs);
        acc->runs = t;
        acc->capruns = cap;
    }
    mask = acc->capruns - 1;
    for (i = (size_t)row->run_id * 0x9e3779b97f4a7c15ull & mask; acc->runs[i].used; i = (i + 1) & mask)
        if (acc->runs[i].run_id == row->run_id)
            return &acc->runs[i];
    slot = &acc->runs[i];
    slot->run_id = row->run_id;
    slot->commit = block_dup(&acc->strings->blocks, row->commit);
    slot->branch = block_dup(&acc->strings->blocks, row->branch);
    if ((row->commit && !slot->commit) || (row->branch && !slot->branch))
        return NULL;
    slot->used = 1;
    acc->nruns++;
    return slot;
}

/* Appends a run's median to the series, merging consecutive runs of one commit. */
static int add_point(history_acc *acc, pg_history *h, const pg_store_history_row *row, const run_strings *rs)
{
    pg_history_point *last = h->npoints ? &h->points[h->npoints - 1] : NULL;

    if (last && rs->commit && last->commit && strcmp(rs->commit, last->commit) == 0) {
        /* Same commit re-run: the point's median is the median of its runs. */
        if (acc->nrm == acc->caprm) {
            size_t cap = acc->caprm ? acc->caprm * 2 : 8;
            double *p = realloc(acc->run_medians, cap * sizeof(double));
            if (!p)
                return pg_error_set(PG_ENOMEM, "out of memory loading history");
            acc->run_medians = p;
            acc->caprm = cap;
        }
        acc->run_medians[acc->nrm++] = row->median;
        last->median = pg_stats_median(acc->run_medians, acc->nrm);
        last->run_id = row->run_id;
        last->q1 = row->q1;
        last->q3 = row->q3;
        last->runs++;
        /* The gate's verdict of the newest run of the commit that has one. */
        if (row->verdict && !(last->verdict = block_dup(&acc->strings->blocks, row->verdict)))
            return pg_error_set(PG_ENOMEM, "out of memory loading history");
        return 0;
    } else {
        pg_history_point *p;
        if (h->npoints == acc->cappoints) {
            size_t cap = acc->cappoints ? 2 * acc->cappoints : 64;
            if (!(p = realloc(h->points, cap * sizeof(*p))))
                return pg_error_set(PG_ENOMEM, "out of memory loading history");
            h->points = p;
            acc->cappoints = cap;
        }
        p = &h->points[h->npoints++];
        memset(p, 0, sizeof(*p));
        p->run_id = row->run_id;
        p->commit = rs->commit;
        p->branch = rs->branch;
        p->started_at = row->started_at;
        p->median = row->median;
        p->q1 = row->q1;
        p->q3 = row->q3;
        p->runs = 1;
        if (row->verdict && !(p->verdict = block_dup(&acc->strings->blocks, row->verdict)))
            return pg_error_set(PG_ENOMEM, "out of memory loading history");
        if (acc->caprm == 0) {
            acc->run_medians = malloc(8 * sizeof(double));
            if (!acc->run_medians)
                return pg_error_set(PG_ENOMEM, "out of memory loading history");
            acc->caprm = 8;
        }
        acc->run_medians[0] = row->median;
        acc->nrm = 1;
    }
    return 0;
}

static int take_row(const pg_store_history_row *row, void *payload)
{
    history_acc *acc = payload;
    pg_history *h = acc->nh ? &acc->hs[acc->nh - 1] : NULL;
    const run_strings *rs;

    if (!acc->strings && !(acc->strings = calloc(1, sizeof(*acc->strings))))
        return pg_error_set(PG_ENOMEM, "out of memory loading history");
    if (!(rs = run_strings_of(acc, row)))
        return pg_error_set(PG_ENOMEM, "out of memory loading history");
    if (!h || strcmp(h->key, row->key) != 0) {
        if (acc->nh == acc->caph) {
            size_t cap = acc->caph ? 2 * acc->caph : 16;
            pg_history *p = realloc(acc->hs, cap * sizeof(*p));
            if (!p)
                return pg_error_set(PG_ENOMEM, "out of memory loading history");
            acc->hs = p;
            acc->caph = cap;
        }
        h = &acc->hs[acc->nh++];
        memset(h, 0, sizeof(*h));
        h->strings = acc->strings;
        acc->strings->refs++;
        acc->cappoints = 0;
        acc->nrm = 0;
        if (!(h->key = pg__strdup(row->key)))
            return pg_error_set(PG_ENOMEM, "out of memory loading history");
    }
    return add_point(acc, h, row, rs);
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
    free(acc.runs);
    if (acc.strings && acc.strings->refs == 0) { /* no history took it (no rows, or out of memory at once) */
        blocks_free(acc.strings->blocks);
        free(acc.strings);
    }
    if (err)
        goto cleanup;
    for (i = 0; i < nh; i++) {
        pg_history *h = &hs[i];
        size_t k;
        if (last && h->npoints > last) {
            /* Keep the newest `last` commits. */
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
