/*
 * steps_out.c - the per-step table (`perfgate trace --steps`) and the JSON
 * form of a trace's steps (`--format json`).
 */
#include "trace/steps.h"

#include "base/fmt.h"
#include "perfgate/errors.h"
#include "stats/stats.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

#define NAME_WIDTH 48

typedef struct op_rank {
    size_t op;
    double self, total, count;
} op_rank;

static int rank_cmp(const void *pa, const void *pb)
{
    const op_rank *a = pa, *b = pb;

    if (a->self != b->self)
        return a->self > b->self ? -1 : 1;
    return a->op < b->op ? -1 : a->op > b->op;
}

/* Median per step of each op, ranked by median self time. @param[out] out caller frees. */
static int rank_ops(op_rank **out, const pg_trace_steps *s)
{
    op_rank *r = calloc(s->nops + 1, sizeof(*r));
    double *x = NULL;
    size_t i;

    *out = NULL;
    if (!r)
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (i = 0; i < s->nops; i++) {
        r[i].op = i;
        if (pg_trace_steps_series(&x, s, i, PG_TRACE_SELF) != 0)
            goto fail;
        r[i].self = pg_stats_median(x, s->nsteps);
        free(x);
        if (pg_trace_steps_series(&x, s, i, PG_TRACE_TOTAL) != 0)
            goto fail;
        r[i].total = pg_stats_median(x, s->nsteps);
        free(x);
        if (pg_trace_steps_series(&x, s, i, PG_TRACE_COUNT) != 0)
            goto fail;
        r[i].count = pg_stats_median(x, s->nsteps);
        free(x);
    }
    qsort(r, s->nops, sizeof(*r), rank_cmp);
    *out = r;
    return 0;
fail:
    free(r);
    return PG_ENOMEM;
}

static void dur(char *out, size_t len, double ns)
{
    pg_fmt_duration(out, len, ns * 1e-9);
}

void pg_trace_steps_print(FILE *f, const pg_trace_steps *s, size_t limit)
{
    op_rank *r = NULL;
    size_t i;
    char a[32], b[32], c[32], d[32], e[32], name[NAME_WIDTH + 4];

    fprintf(f, "%zu step%s from %zu file%s, %zu ops\n\n", s->nsteps, s->nsteps == 1 ? "" : "s", s->sources,
            s->sources == 1 ? "" : "s", s->nops);
    fprintf(f, "%-24s  %10s", "Step", "Time");
    if (s->gpu)
        fprintf(f, "  %10s  %10s  %10s  %10s  %7s  %6s  %5s  %5s", "GPU busy", "GPU idle", "Host wait", "Kernel wait",
                "Kernels", "<5us", "DtoH", "Syncs");
    fputc('\n', f);
    for (i = 0; i < s->nsteps; i++) {
        const pg_trace_step *st = &s->steps[i];
        pg_trace_ellipsize(name, sizeof(name), st->name, 24);
        dur(a, sizeof(a), (double)st->dur);
        fprintf(f, "%-24s  %10s", name, a);
        if (s->gpu) {
            dur(a, sizeof(a), (double)st->gpu.busy_ns);
            dur(b, sizeof(b), (double)st->gpu.idle_ns);
            dur(c, sizeof(c), (double)st->gpu.host_wait_ns);
            dur(d, sizeof(d), (double)st->gpu.kernel_wait_ns);
            fprintf(f, "  %10s  %10s  %10s  %10s  %7lld  %6lld  %5lld  %5lld", a, b, c, d,
                    (long long)st->gpu.kernels, (long long)st->gpu.small_kernels, (long long)st->gpu.dtoh,
                    (long long)st->gpu.syncs);
        }
        fputc('\n', f);
    }
    if (rank_ops(&r, s) != 0)
        return;
    if (limit == 0 || limit > s->nops)
        limit = s->nops;
    fprintf(f, "\n%-*s  %-7s  %7s  %10s  %10s   (median per step)\n", NAME_WIDTH, "Op", "Kind", "Count", "Self",
            "Total");
    for (i = 0; i < limit; i++) {
        const pg_trace_op *op = &s->ops[r[i].op];
        pg_trace_ellipsize(name, sizeof(name), op->name, NAME_WIDTH);
        dur(a, sizeof(a), r[i].self);
        dur(e, sizeof(e), r[i].total);
        fprintf(f, "%-*s  %-7s  %7g  %9s%s  %10s\n", NAME_WIDTH, name, pg_trace_op_kind_name(op->kind), r[i].count, a,
                op->clamped ? "*" : " ", e);
    }
    if (limit < s->nops)
        fprintf(f, "(%zu more ops)\n", s->nops - limit);
    if (s->clamped)
        fprintf(f, "* self time of %lld event%s was negative (microsecond rounding in the trace) and counts as 0\n",
                (long long)s->clamped, s->clamped == 1 ? "" : "s");
    free(r);
}

int pg_trace_steps_json(FILE *f, const pg_trace_steps *s)
{
    pg_buf b = PG_BUF_INIT;
    size_t i, j;

    pg__buf_printf(&b, "{\"schema_version\":1,\"sources\":%zu,\"gpu\":%s,\"clamped\":%lld,\"steps\":[", s->sources,
                   s->gpu ? "true" : "false", (long long)s->clamped);
    for (i = 0; i < s->nsteps; i++) {
        const pg_trace_step *st = &s->steps[i];
        pg__buf_puts(&b, i ? ",{\"name\":" : "{\"name\":");
        pg__buf_json_string(&b, st->name);
        pg__buf_puts(&b, ",\"source\":");
        pg__buf_json_string(&b, st->source);
        pg__buf_printf(&b, ",\"ts_ns\":%lld,\"time_ns\":%lld", (long long)st->ts, (long long)st->dur);
        if (s->gpu)
            pg__buf_printf(&b,
                           ",\"gpu\":{\"busy_ns\":%lld,\"idle_ns\":%lld,\"host_wait_ns\":%lld,\"kernel_wait_ns\":%lld,"
                           "\"other_wait_ns\":%lld,\"kernels\":%lld,\"small_kernels\":%lld,\"dtoh\":%lld,\"syncs\":%lld}",
                           (long long)st->gpu.busy_ns, (long long)st->gpu.idle_ns, (long long)st->gpu.host_wait_ns,
                           (long long)st->gpu.kernel_wait_ns, (long long)st->gpu.other_wait_ns,
                           (long long)st->gpu.kernels, (long long)st->gpu.small_kernels, (long long)st->gpu.dtoh,
                           (long long)st->gpu.syncs);
        pg__buf_puts(&b, "}");
    }
    pg__buf_puts(&b, "],\"ops\":[");
    for (i = 0; i < s->nops; i++) {
        const pg_trace_op *op = &s->ops[i];
        pg__buf_puts(&b, i ? ",{\"name\":" : "{\"name\":");
        pg__buf_json_string(&b, op->name);
        pg__buf_puts(&b, ",\"path\":");
        pg__buf_json_string(&b, op->path ? op->path : op->name);
        pg__buf_printf(&b, ",\"kind\":\"%s\",\"clamped\":%lld,\"count\":[", pg_trace_op_kind_name(op->kind),
                       (long long)op->clamped);
        for (j = 0; j < s->nsteps; j++)
            pg__buf_printf(&b, "%s%lld", j ? "," : "", (long long)s->cells[i * s->nsteps + j].count);
        pg__buf_puts(&b, "],\"self_ns\":[");
        for (j = 0; j < s->nsteps; j++)
            pg__buf_printf(&b, "%s%lld", j ? "," : "", (long long)s->cells[i * s->nsteps + j].self_ns);
        pg__buf_puts(&b, "],\"total_ns\":[");
        for (j = 0; j < s->nsteps; j++)
            pg__buf_printf(&b, "%s%lld", j ? "," : "", (long long)s->cells[i * s->nsteps + j].total_ns);
        pg__buf_puts(&b, "]}");
    }
    if (pg__buf_puts(&b, "]}\n") != 0) {
        pg__buf_clear(&b);
        return pg_error_set(PG_ENOMEM, "out of memory writing the steps as JSON");
    }
    fwrite(b.ptr, 1, b.len, f);
    pg__buf_clear(&b);
    return 0;
}
