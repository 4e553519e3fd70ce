/*
 * aggregate.c - key_averages(): count, self and total time per op name
 * (optionally per name and input shapes), as torch.profiler tabulates them.
 *
 * Self time is an event's duration minus the durations of its children on
 * the same thread, so a wrapper like aten::linear shows a large total and a
 * small self while aten::addmm beneath it carries the work. GPU events that
 * hang under a CPU launch through their correlation id are not subtracted:
 * they run on another timeline.
 */
#include "trace/trace.h"

#include "base/fmt.h"
#include "perfgate/errors.h"
#include "trace/steps.h"

#include <stdlib.h>
#include <string.h>

typedef struct item {
    uint64_t key;      /* name id << 32 | shape id */
    int64_t dur, self;
} item;

static int item_cmp(const void *pa, const void *pb)
{
    const item *a = pa, *b = pb;

    return a->key < b->key ? -1 : a->key > b->key;
}

static int row_cmp(const void *pa, const void *pb, void *payload)
{
    const pg_trace_stat *a = pa, *b = pb;
    int64_t x = 0, y = 0;
    int c;

    switch (*(const pg_trace_sort *)payload) {
    case PG_TRACE_SORT_SELF: x = a->self_ns; y = b->self_ns; break;
    case PG_TRACE_SORT_TOTAL: x = a->total_ns; y = b->total_ns; break;
    case PG_TRACE_SORT_COUNT: x = a->count; y = b->count; break;
    case PG_TRACE_SORT_NAME: break;
    }
    if (x != y)
        return x > y ? -1 : 1;
    if ((c = strcmp(a->name, b->name)) != 0)
        return c;
    return strcmp(a->shape ? a->shape : "", b->shape ? b->shape : "");
}

int pg_trace_aggregate(pg_trace_stat **out, size_t *out_n, const pg_trace *t, int by_shape, pg_trace_sort sort)
{
    item *items = NULL;
    pg_trace_stat *rows = NULL;
    size_t i, n = 0;
    int err = PG_ENOMEM;

    *out = NULL;
    *out_n = 0;
    if (t->nevents == 0)
        return 0;
    if (!(items = calloc(t->nevents, sizeof(*items))))
        goto cleanup;
    for (i = 0; i < t->nevents; i++) {
        const pg_trace_event *e = &t->events[i];
        items[i].key = ((uint64_t)e->name << 32) | (by_shape ? e->shape : 0);
        items[i].dur = items[i].self = e->dur;
    }
    for (i = 0; i < t->nevents; i++) {
        const pg_trace_event *e = &t->events[i];
        if (e->parent >= 0) {
            const pg_trace_event *p = &t->events[e->parent];
            if (!e->device && !p->device && p->pid == e->pid && p->tid == e->tid)
                items[e->parent].self -= e->dur;
        }
    }
    qsort(items, t->nevents, sizeof(*items), item_cmp);
    if (!(rows = calloc(t->nevents, sizeof(*rows))))
        goto cleanup;
    for (i = 0; i < t->nevents; i++) {
        if (i == 0 || items[i].key != items[i - 1].key) {
            rows[n].name = pg_trace_str(t, (uint32_t)(items[i].key >> 32));
            rows[n].shape = by_shape ? pg_trace_str(t, (uint32_t)items[i].key) : NULL;
            n++;
        }
        rows[n - 1].count++;
        rows[n - 1].total_ns += items[i].dur;
        rows[n - 1].self_ns += items[i].self;
    }
    qsort_r(rows, n, sizeof(*rows), row_cmp, &sort);
    *out = rows;
    *out_n = n;
    rows = NULL;
    err = 0;

cleanup:
    if (err)
        pg_error_set(err, "out of memory aggregating %zu trace events", t->nevents);
    free(items);
    free(rows);
    return err;
}

void pg_trace_print_table(FILE *f, const pg_trace_stat *rows, size_t n, size_t limit)
{
    size_t i, w = 4, ws = 0;
    int64_t self_sum = 0;
    int shapes = n && rows[0].shape;

    if (limit == 0 || limit > n)
        limit = n;
    for (i = 0; i < n; i++)
        self_sum += rows[i].self_ns;
    for (i = 0; i < limit; i++) {
        size_t l = strlen(rows[i].name);
        w = l > w ? (l > 60 ? 60 : l) : w;
        if (shapes && strlen(rows[i].shape) > ws)
            ws = strlen(rows[i].shape) > 40 ? 40 : strlen(rows[i].shape);
    }
    if (shapes && ws < 12)
        ws = 12;
    fprintf(f, "%-*s  ", (int)w, "Name");
    if (shapes)
        fprintf(f, "%-*s  ", (int)ws, "Input Shapes");
    fprintf(f, "%8s  %10s  %7s  %10s  %10s\n", "Count", "Self", "Self %", "Total", "Total avg");
    for (i = 0; i < limit; i++) {
        char self[32], total[32], avg[32];
        const pg_trace_stat *r = &rows[i];
        pg_fmt_duration(self, sizeof(self), (double)r->self_ns * 1e-9);
        pg_fmt_duration(total, sizeof(total), (double)r->total_ns * 1e-9);
        pg_fmt_duration(avg, sizeof(avg), r->count ? (double)r->total_ns * 1e-9 / (double)r->count : 0);
        char name[64], shape[48];
        /* A cut name ends in "..." so it never reads as another op's full name. */
        pg_trace_ellipsize(name, sizeof(name), r->name, w);
        fprintf(f, "%-*s  ", (int)w, name);
        if (shapes) {
            pg_trace_ellipsize(shape, sizeof(shape), r->shape, ws);
            fprintf(f, "%-*s  ", (int)ws, shape);
        }
        fprintf(f, "%8lld  %10s  %6.2f%%  %10s  %10s\n", (long long)r->count, self,
                self_sum > 0 ? 100.0 * (double)r->self_ns / (double)self_sum : 0.0, total, avg);
    }
    if (limit < n)
        fprintf(f, "(%zu more rows)\n", n - limit);
}
