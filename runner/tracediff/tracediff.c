/*
 * tracediff.c - two traces' steps compared op by op (tracediff.h): exact
 * appearances and counts, and per-op self times through the verdict engine
 * as if each op were a benchmark case whose samples are its steps.
 */
#include "tracediff/tracediff.h"

#include "ab/ab.h"
#include "base/fmt.h"
#include "base/model.h"
#include "perfgate/errors.h"
#include "stats/stats.h"
#include "verdict/verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STEP_KEY "step"

static double median_of(const pg_trace_steps *s, long op, pg_trace_series what, int *exact)
{
    double *x = NULL, m;
    size_t i;

    if (exact)
        *exact = 1;
    if (op < 0)
        return 0;
    if (pg_trace_steps_series(&x, s, (size_t)op, what) != 0)
        return NAN;
    m = pg_stats_median(x, s->nsteps);
    for (i = 1; exact && i < s->nsteps; i++)
        if (x[i] != x[0])
            *exact = 0;
    free(x);
    return m;
}

/* Adds one result (seconds per step) to `run`; `x` is in ns and is taken. */
static int add_result(pg_run *run, const char *key, double *x, size_t n, const pg_trace_diff_options *o)
{
    pg_result *r;
    size_t i;
    int err;

    if ((err = pg_run_add_result(&r, run)) != 0) {
        free(x);
        return err;
    }
    for (i = 0; i < n; i++)
        x[i] *= 1e-9;
    r->samples = x;
    r->nsamples = n;
    r->number_per_run = 1;
    r->status = PG_STATUS_OK;
    r->threshold = o->threshold;
    r->alpha = o->alpha;
    if (!(r->key = pg__strdup(key)) || !(r->suite = pg__strdup("trace")) || !(r->name = pg__strdup(key)) ||
        !(r->metric = pg__strdup("self_time")) || !(r->unit = pg__strdup("s")) || !(r->device = pg__strdup("cpu")))
        return PG_ENOMEM;
    return pg_stats_summarize(&r->summary, r->samples, r->nsamples);
}

static int step_series(double **out, const pg_trace_steps *s)
{
    size_t i;

    if (!(*out = malloc((s->nsteps + 1) * sizeof(double))))
        return PG_ENOMEM;
    for (i = 0; i < s->nsteps; i++)
        (*out)[i] = (double)s->steps[i].dur;
    return 0;
}

static int fill_runs(pg_run *base, pg_run *head, const pg_trace_steps *bs, const pg_trace_steps *hs,
                     pg_trace_diff *d, const pg_trace_diff_options *o)
{
    double *x;
    size_t i;
    int err;

    if ((err = step_series(&x, bs)) != 0 || (err = add_result(base, STEP_KEY, x, bs->nsteps, o)) != 0 ||
        (err = step_series(&x, hs)) != 0 || (err = add_result(head, STEP_KEY, x, hs->nsteps, o)) != 0)
        return err;
    for (i = 0; i < d->nops; i++) {
        pg_trace_op_diff *od = &d->ops[i];
        long bo = pg_trace_steps_find(bs, od->name), ho = pg_trace_steps_find(hs, od->name);
        if (od->change != PG_OP_KEPT || (od->base_self < o->floor_ns && od->head_self < o->floor_ns))
            continue;
        if ((err = pg_trace_steps_series(&x, bs, (size_t)bo, PG_TRACE_SELF)) != 0 ||
            (err = add_result(base, od->name, x, bs->nsteps, o)) != 0 ||
            (err = pg_trace_steps_series(&x, hs, (size_t)ho, PG_TRACE_SELF)) != 0 ||
            (err = add_result(head, od->name, x, hs->nsteps, o)) != 0)
            return err;
    }
    return 0;
}

/* Median of each round (file) of a per-step series; `out` holds s->sources values. */
static int round_medians(double *out, const pg_trace_steps *s, const double *x)
{
    double *tmp = malloc((s->nsteps + 1) * sizeof(*tmp));
    size_t r, i, n;

    if (!tmp)
        return PG_ENOMEM;
    for (r = 0; r < s->sources; r++) {
        for (i = n = 0; i < s->nsteps; i++)
            if (s->steps[i].round == r)
                tmp[n++] = x[i];
        out[r] = n ? pg_stats_median(tmp, n) : NAN;
    }
    free(tmp);
    return 0;
}

/* One side's per-round medians of the result `key` (the step time or an op's self time). */
static int side_rounds(double *out, const pg_trace_steps *s, const char *key)
{
    double *x = NULL;
    int err = strcmp(key, STEP_KEY) == 0 ? step_series(&x, s)
                                         : pg_trace_steps_series(&x, s, (size_t)pg_trace_steps_find(s, key),
                                                                 PG_TRACE_SELF);

    if (!err)
        err = round_medians(out, s, x);
    free(x);
    return err;
}

/* The paired analysis of every result of `head` (its key names the op), rounds paired by file order. */
static int pair_rounds(pg_paired_analysis *out, const pg_run *head, const pg_trace_steps *bs, const pg_trace_steps *hs)
{
    size_t n = bs->sources, i, r;
    double *b = malloc((n + 1) * sizeof(*b)), *h = malloc((n + 1) * sizeof(*h));
    int err = PG_ENOMEM;

    if (!b || !h)
        goto cleanup;
    for (i = 0; i < head->nresults; i++) {
        int ok = 1;
        memset(&out[i], 0, sizeof(out[i]));
        if ((err = side_rounds(b, bs, head->results[i].key)) != 0 || (err = side_rounds(h, hs, head->results[i].key)) != 0)
            goto cleanup;
        for (r = 0; r < n; r++)
            ok = ok && b[r] > 0 && h[r] > 0;
        /* A round where the op has no time gives no ratio: the op keeps its unpaired verdict. */
        if (ok && (err = pg_ab_paired_analyse(&out[i], b, h, n, 0.95)) != 0)
            goto cleanup;
    }
    err = 0;

cleanup:
    if (err == PG_ENOMEM)
        pg_error_set(err, "out of memory pairing trace rounds");
    free(b);
    free(h);
    return err;
}

static void take_verdict(pg_trace_op_diff *od, const pg_case_verdict *v)
{
    od->verdict = v->verdict;
    od->ratio = v->est.ratio;
    od->ci_lo = v->est.ci_lo;
    od->ci_hi = v->est.ci_hi;
    od->p_adj = v->est.p_adj;
    free(od->reason);
    od->reason = v->reason ? pg__strdup(v->reason) : NULL;
}

static int mover_cmp(const void *pa, const void *pb)
{
    const pg_trace_op_diff *a = pa, *b = pb;
    double da = fabs(a->head_self - a->base_self), db = fabs(b->head_self - b->base_self);

    if (a->change != b->change)
        return a->change == PG_OP_KEPT ? 1 : b->change == PG_OP_KEPT ? -1 : (int)a->change - (int)b->change;
    if (da != db)
        return da > db ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int add_op(pg_trace_diff *d, const pg_trace_steps *bs, const pg_trace_steps *hs, const char *name,
                  const pg_trace_diff_options *o)
{
    long bo = pg_trace_steps_find(bs, name), ho = pg_trace_steps_find(hs, name);
    pg_trace_op_diff *od = &d->ops[d->nops];
    const pg_trace_op *src = ho >= 0 ? &hs->ops[ho] : &bs->ops[bo];

    memset(od, 0, sizeof(*od));
    od->kind = src->kind;
    od->base_count = median_of(bs, bo, PG_TRACE_COUNT, &od->base_exact);
    od->head_count = median_of(hs, ho, PG_TRACE_COUNT, &od->head_exact);
    od->base_self = median_of(bs, bo, PG_TRACE_SELF, NULL);
    od->head_self = median_of(hs, ho, PG_TRACE_SELF, NULL);
    od->clamped = (bo >= 0 && bs->ops[bo].clamped) || (ho >= 0 && hs->ops[ho].clamped);
    /* An op can exist in the name table and yet have no event in any step of a side. */
    {
        double *x = NULL;
        size_t i;
        int64_t bn = 0, hn = 0;
        if (bo >= 0 && pg_trace_steps_series(&x, bs, (size_t)bo, PG_TRACE_COUNT) == 0)
            for (i = 0; i < bs->nsteps; i++)
                bn += (int64_t)x[i];
        free(x);
        x = NULL;
        if (ho >= 0 && pg_trace_steps_series(&x, hs, (size_t)ho, PG_TRACE_COUNT) == 0)
            for (i = 0; i < hs->nsteps; i++)
                hn += (int64_t)x[i];
        free(x);
        od->change = bn == 0 && hn > 0 ? PG_OP_APPEARED : hn == 0 && bn > 0 ? PG_OP_DISAPPEARED : PG_OP_KEPT;
        if (bn == 0 && hn == 0)
            return 0;
    }
    od->verdict = PG_VERDICT_UNSURE;
    od->ratio = od->ci_lo = od->ci_hi = od->p_adj = NAN;
    if (!(od->name = pg__strdup(name)) || !(od->path = pg__strdup(src->path ? src->path : name)))
        return PG_ENOMEM;
    if (od->change == PG_OP_KEPT && od->base_self < o->floor_ns && od->head_self < o->floor_ns)
        od->reason = pg__asprintf("median self time under %.3g µs per step on both sides: below what a trace "
                                  "rounded to microseconds can time", o->floor_ns * 1e-3);
    d->nops++;
    return 0;
}

int pg_trace_diff_new(pg_trace_diff **out, const pg_trace_steps *bs, const pg_trace_steps *hs,
                      const pg_trace_diff_options *opts)
{
    pg_trace_diff_options o = PG_TRACE_DIFF_OPTIONS_INIT;
    pg_trace_diff *d = NULL;
    pg_run *base = NULL, *head = NULL;
    pg_comparison *cmp = NULL;
    pg_compare_options co = PG_COMPARE_OPTIONS_INIT;
    const pg_run *bases[1];
    size_t i, j;
    int err = PG_ENOMEM;

    *out = NULL;
    if (opts)
        o = *opts;
    if (o.threshold <= 0)
        o.threshold = 0.05;
    if (o.alpha <= 0)
        o.alpha = 0.05;
    /* Timestamps are whole microseconds: an op shorter than 1 µs / threshold
     * changes by less than one tick at the threshold, so its ratio measures
     * rounding (and the cache state its neighbours leave) more than itself. */
    if (o.floor_ns <= 0)
        o.floor_ns = 1000.0 / o.threshold;
    if (o.paired && (bs->sources != hs->sources || bs->sources < 2))
        return pg_error_set(PG_EINVAL, "paired rounds need the same number of trace files on each side, 2 or more "
                                       "(base has %zu, head %zu)", bs->sources, hs->sources);
    if (bs->nsteps < 2 || hs->nsteps < 2)
        return pg_error_set(PG_EINVAL, "a trace diff needs at least 2 steps on each side (base has %zu, head %zu)",
                            bs->nsteps, hs->nsteps);
    if (!(d = calloc(1, sizeof(*d))) || !(d->ops = calloc(bs->nops + hs->nops + 1, sizeof(*d->ops))))
        goto cleanup;
    d->base_steps = bs->nsteps;
    d->head_steps = hs->nsteps;
    for (i = 0; i < hs->nops; i++)
        if ((err = add_op(d, bs, hs, hs->ops[i].name, &o)) != 0)
            goto cleanup;
    for (i = 0; i < bs->nops; i++)
        if (pg_trace_steps_find(hs, bs->ops[i].name) < 0 && (err = add_op(d, bs, hs, bs->ops[i].name, &o)) != 0)
            goto cleanup;
    err = PG_ENOMEM;
    if (pg_run_new(&base) != 0 || pg_run_new(&head) != 0)
        goto cleanup;
    if ((err = fill_runs(base, head, bs, hs, d, &o)) != 0)
        goto cleanup;
    bases[0] = base;
    if ((err = pg_compare(&cmp, head, bases, 1, &co)) != 0)
        goto cleanup;
    if (o.paired) {
        pg_paired_analysis *pa = calloc(head->nresults + 1, sizeof(*pa));
        err = pa ? pair_rounds(pa, head, bs, hs) : PG_ENOMEM;
        if (!err)
            err = pg_verdict_paired(cmp, head, pa, &co);
        free(pa);
        if (err)
            goto cleanup;
    }
    d->method = cmp->method ? pg__strdup(cmp->method) : NULL;
    for (j = 0; j < cmp->ncases; j++) {
        const pg_case_verdict *v = &cmp->cases[j];
        if (strcmp(v->key, STEP_KEY) == 0) {
            take_verdict(&d->step, v);
            d->step.base_self = v->est.base_median * 1e9;
            d->step.head_self = v->est.head_median * 1e9;
            continue;
        }
        for (i = 0; i < d->nops; i++)
            if (d->ops[i].change == PG_OP_KEPT && strcmp(d->ops[i].name, v->key) == 0) {
                take_verdict(&d->ops[i], v);
                d->counts[v->verdict]++;
                d->timed++;
            }
    }
    if (!(d->step.name = pg__strdup("step")))
        goto cleanup;
    for (i = 0; i < d->nops; i++) {
        const pg_trace_op_diff *od = &d->ops[i];
        d->appeared += od->change == PG_OP_APPEARED;
        d->disappeared += od->change == PG_OP_DISAPPEARED;
        d->count_changed += od->change == PG_OP_KEPT && od->base_count != od->head_count;
    }
    qsort(d->ops, d->nops, sizeof(*d->ops), mover_cmp);
    *out = d;
    d = NULL;
    err = 0;

cleanup:
    if (err == PG_ENOMEM)
        pg_error_set(err, "out of memory comparing traces");
    pg_comparison_free(cmp);
    pg_run_free(base);
    pg_run_free(head);
    pg_trace_diff_free(d);
    return err;
}

void pg_trace_diff_free(pg_trace_diff *d)
{
    size_t i;

    if (!d)
        return;
    for (i = 0; i < d->nops; i++) {
        free(d->ops[i].name);
        free(d->ops[i].path);
        free(d->ops[i].reason);
    }
    free(d->ops);
    free(d->step.name);
    free(d->step.path);
    free(d->step.reason);
    free(d->method);
    free(d);
}

int pg_trace_diff_undecided(const pg_trace_diff *d)
{
    return d->step.verdict == PG_VERDICT_UNSURE && d->counts[PG_VERDICT_REGRESSED] + d->counts[PG_VERDICT_SAME] +
                                                           d->counts[PG_VERDICT_IMPROVED] ==
                                                       0 &&
           d->appeared + d->disappeared + d->count_changed == 0;
}

int pg_trace_diff_regressed(const pg_trace_diff *d)
{
    return d->step.verdict == PG_VERDICT_REGRESSED || d->counts[PG_VERDICT_REGRESSED] > 0;
}

/* ---- output ---------------------------------------------------------------- */

static void fmt_count(char *out, size_t len, double c, int exact)
{
    snprintf(out, len, "%s%g", exact ? "" : "~", c);
}

static void fmt_ns(char *out, size_t len, double ns)
{
    pg_fmt_duration(out, len, ns * 1e-9);
}

static void fmt_change(char *out, size_t len, const pg_trace_op_diff *od)
{
    if (isfinite(od->ratio) && od->ratio > 0)
        snprintf(out, len, "%+.1f%% [%+.1f%%, %+.1f%%]", 100 * (od->ratio - 1), 100 * (od->ci_lo - 1),
                 100 * (od->ci_hi - 1));
    else
        snprintf(out, len, "-");
}

void pg_trace_diff_print(FILE *f, const pg_trace_diff *d, size_t limit)
{
    size_t i, shown = 0;
    char a[32], b[32], c[64], n[64];

    fmt_ns(a, sizeof(a), d->step.base_self);
    fmt_ns(b, sizeof(b), d->step.head_self);
    fmt_change(c, sizeof(c), &d->step);
    fprintf(f, "step time: %s -> %s per step (median of %zu and %zu steps), %s %s\n", a, b, d->base_steps,
            d->head_steps, c, pg_verdict_name(d->step.verdict));
    if (d->step.verdict == PG_VERDICT_UNSURE && d->step.reason)
        fprintf(f, "  %s\n", d->step.reason);
    for (i = 0; i < d->nops; i++) {
        const pg_trace_op_diff *od = &d->ops[i];
        if (od->change == PG_OP_KEPT)
            continue;
        fmt_count(a, sizeof(a), od->change == PG_OP_APPEARED ? od->head_count : od->base_count,
                  od->change == PG_OP_APPEARED ? od->head_exact : od->base_exact);
        fprintf(f, "%s %s (%s per step): %s\n", od->change == PG_OP_APPEARED ? "APPEARED   " : "DISAPPEARED",
                od->name, a, od->path);
    }
    for (i = 0; i < d->nops; i++) {
        const pg_trace_op_diff *od = &d->ops[i];
        if (od->change != PG_OP_KEPT || od->base_count == od->head_count)
            continue;
        fmt_count(a, sizeof(a), od->base_count, od->base_exact);
        fmt_count(b, sizeof(b), od->head_count, od->head_exact);
        fprintf(f, "COUNT       %s: %s -> %s per step (%s)\n", od->name, a, b, od->path);
    }
    fprintf(f, "\n%-40s  %10s  %10s  %-30s  %s\n", "Op (median self per step)", "Base", "Head", "Change [interval]",
            "Verdict");
    for (i = 0; i < d->nops && (limit == 0 || shown < limit); i++) {
        const pg_trace_op_diff *od = &d->ops[i];
        if (od->change != PG_OP_KEPT)
            continue;
        pg_trace_ellipsize(n, sizeof(n), od->name, 40);
        fmt_ns(a, sizeof(a), od->base_self);
        fmt_ns(b, sizeof(b), od->head_self);
        fmt_change(c, sizeof(c), od);
        fprintf(f, "%-40s  %10s  %9s%s  %-30s  %s\n", n, a, b, od->clamped ? "*" : " ", c,
                pg_verdict_name(od->verdict));
        shown++;
    }
    fprintf(f, "\n%zu op%s timed: %zu regressed, %zu improved, %zu same, %zu unsure; %zu appeared, %zu disappeared, "
               "%zu changed count\n",
            d->timed, d->timed == 1 ? "" : "s", d->counts[PG_VERDICT_REGRESSED], d->counts[PG_VERDICT_IMPROVED],
            d->counts[PG_VERDICT_SAME], d->counts[PG_VERDICT_UNSURE], d->appeared, d->disappeared, d->count_changed);
    if (d->method)
        fprintf(f, "%s\n", d->method);
}

int pg_trace_diff_markdown(pg_buf *b, const pg_trace_diff *d, size_t limit)
{
    size_t i, shown = 0;
    char x[32], y[32], c[64];

    pg__buf_puts(b, "| Op | Base | Head | Change | Verdict |\n|---|---:|---:|---|---|\n");
    for (i = 0; i < d->nops; i++) {
        const pg_trace_op_diff *od = &d->ops[i];
        if (od->change == PG_OP_KEPT && od->base_count == od->head_count)
            continue;
        fmt_count(x, sizeof(x), od->base_count, od->base_exact);
        fmt_count(y, sizeof(y), od->head_count, od->head_exact);
        pg__buf_printf(b, "| `%s` | %s/step | %s/step | count | %s |\n", od->path, x, y,
                       od->change == PG_OP_APPEARED ? "APPEARED" : od->change == PG_OP_DISAPPEARED ? "DISAPPEARED"
                                                                                                  : "COUNT");
    }
    for (i = 0; i < d->nops && shown < limit; i++) {
        const pg_trace_op_diff *od = &d->ops[i];
        if (od->change != PG_OP_KEPT || !isfinite(od->ratio))
            continue;
        fmt_ns(x, sizeof(x), od->base_self);
        fmt_ns(y, sizeof(y), od->head_self);
        fmt_change(c, sizeof(c), od);
        pg__buf_printf(b, "| `%s` | %s | %s | %s | %s |\n", od->name, x, y, c, pg_verdict_name(od->verdict));
        shown++;
    }
    return 0;
}

int pg_trace_diff_json(FILE *f, const pg_trace_diff *d)
{
    pg_buf b = PG_BUF_INIT;
    size_t i;

    pg__buf_printf(&b, "{\"schema_version\":1,\"base_steps\":%zu,\"head_steps\":%zu,\"step\":{\"base_ns\":%.0f,"
                       "\"head_ns\":%.0f,\"verdict\":\"%s\"},\"ops\":[",
                   d->base_steps, d->head_steps, d->step.base_self, d->step.head_self,
                   pg_verdict_name(d->step.verdict));
    for (i = 0; i < d->nops; i++) {
        const pg_trace_op_diff *od = &d->ops[i];
        pg__buf_puts(&b, i ? ",{\"name\":" : "{\"name\":");
        pg__buf_json_string(&b, od->name);
        pg__buf_puts(&b, ",\"path\":");
        pg__buf_json_string(&b, od->path);
        pg__buf_printf(&b, ",\"kind\":\"%s\",\"change\":\"%s\",\"base_count\":%g,\"head_count\":%g,"
                           "\"base_self_ns\":%.0f,\"head_self_ns\":%.0f,\"clamped\":%s,\"verdict\":\"%s\"",
                       pg_trace_op_kind_name(od->kind),
                       od->change == PG_OP_APPEARED ? "appeared" : od->change == PG_OP_DISAPPEARED ? "disappeared"
                                                                                                  : "kept",
                       od->base_count, od->head_count, od->base_self, od->head_self, od->clamped ? "true" : "false",
                       od->change == PG_OP_KEPT ? pg_verdict_name(od->verdict) : "-");
        if (isfinite(od->ratio))
            pg__buf_printf(&b, ",\"ratio\":%.6g,\"ci_lo\":%.6g,\"ci_hi\":%.6g,\"p_adj\":%.6g", od->ratio, od->ci_lo,
                           od->ci_hi, od->p_adj);
        if (od->reason) {
            pg__buf_puts(&b, ",\"reason\":");
            pg__buf_json_string(&b, od->reason);
        }
        pg__buf_puts(&b, "}");
    }
    if (pg__buf_puts(&b, "]}\n") != 0) {
        pg__buf_clear(&b);
        return pg_error_set(PG_ENOMEM, "out of memory writing the diff as JSON");
    }
    fwrite(b.ptr, 1, b.len, f);
    pg__buf_clear(&b);
    return 0;
}
