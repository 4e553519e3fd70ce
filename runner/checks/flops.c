/*
 * flops.c - `kind: flops` checks: a workload's FLOPs, counted by the FLOP
 * counter (flop_counter.h) in-process, from a program's BLAS calls
 * (count.h), or read from a trace (Kineto's per-op FLOPs, or the shapes of
 * its matrix products), against the suite's expectations.
 */
#include "checks/checks.h"
#include "checks/flop_counter.h"
#include "checks/kinds.h"

#include "meter/count.h"
#include "perfgate/errors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MODULES 64
/* Joins the names of a trace's ranges in a row: a name may hold '/', never this. */
#define NAME_SEP '\x1f'

/*
 * The modules a row counts for: its calling function, and each range around
 * the call. A program's ranges are paths, as FlopCounterMode's modules are
 * ("outer/inner" runs inside "outer" too); a trace's are the names of the
 * ranges around the op ("ProfilerStep#2", "forward"; `by_name`), so
 * `forward` sums every step's forward. `owned` receives what the caller
 * frees.
 */
static size_t row_modules(const char **mods, char **owned, size_t *nowned, const pg_count_row *r, int by_name)
{
    const char *p = r->range, *slash;
    size_t n = 0;

    *nowned = 0;
    if (r->function[0])
        mods[n++] = r->function;
    while (*p && n < MAX_MODULES - 1 && (slash = strchr(p, by_name ? NAME_SEP : '/')) != NULL) {
        const char *from = by_name ? p : r->range;
        if ((owned[*nowned] = strndup(from, (size_t)(slash - from))) != NULL)
            mods[n++] = owned[(*nowned)++];
        p = slash + 1;
    }
    if (*p)
        mods[n++] = by_name ? p : r->range;
    return n;
}

static void free_owned(char **owned, size_t n)
{
    while (n > 0)
        free(owned[--n]);
}

/* Adds counted rows (a program's BLAS calls, or a trace's ops) to the counter. */
static int add_rows(pg_flop_counter *fc, const pg_counts *counts, int by_name)
{
    size_t i, n, nowned;
    int err = 0;

    for (i = 0; i < counts->n && !err; i++) {
        const char *mods[MAX_MODULES];
        char *owned[MAX_MODULES];
        n = row_modules(mods, owned, &nowned, &counts->rows[i], by_name);
        err = pg_flop_counter_add(fc, counts->rows[i].op, counts->rows[i].flops, mods, n);
        free_owned(owned, nowned);
    }
    return err;
}

/* One expected value: what (total / op NAME / module NAME) and its value. */
typedef struct want {
    const char *group;    /* NULL for the total, "per_op", "per_module" */
    const char *name;
    int64_t value;
} want;

/* 1 when row `r` counts towards what `w` compares. */
static int row_counts_for(const pg_count_row *r, const want *w, int by_name)
{
    const char *mods[MAX_MODULES];
    char *owned[MAX_MODULES];
    size_t n, nowned, i;
    int in = 0;

    if (!w->group)
        return 1;
    if (strcmp(w->group, "per_op") == 0)
        return strcmp(r->op, w->name) == 0;
    n = row_modules(mods, owned, &nowned, r, by_name);
    for (i = 0; i < n && !in; i++)
        in = strcmp(mods[i], w->name) == 0;
    free_owned(owned, nowned);
    return in;
}

/*
 * " (+K calls of OP SHAPE)" when `diff` is a whole number (at most 16) of
 * calls of one counted shape among the rows `w` compares; every such shape
 * when several would explain it (at most three, "or" between them).
 */
static void hint_calls(pg_buf *msg, const pg_counts *counts, const want *w, int by_name, int64_t diff)
{
    int64_t a = diff < 0 ? -diff : diff;
    size_t i, j, shown = 0;

    for (i = 0; a && i < counts->n && shown < 3; i++) {
        const pg_count_row *r = &counts->rows[i];
        int64_t per = r->calls ? r->flops / r->calls : 0;
        int seen = 0;
        if (per <= 0 || r->flops != per * r->calls || a % per != 0 || a / per > 16 || !row_counts_for(r, w, by_name))
            continue;
        for (j = 0; j < i && !seen; j++)
            seen = strcmp(counts->rows[j].op, r->op) == 0 && strcmp(counts->rows[j].shape, r->shape) == 0 &&
                   row_counts_for(&counts->rows[j], w, by_name);
        if (seen)
            continue;
        pg__buf_printf(msg, "%s%s%lld call%s of %s %s", shown ? ", or " : " (", diff > 0 ? "+" : "-",
                       (long long)(a / per), a / per == 1 ? "" : "s", r->op, r->shape);
        shown++;
    }
    if (shown)
        pg__buf_puts(msg, ")");
}

/* Runs a command workload `steps` times under the BLAS counter; `last` keeps the last run's counts. */
static int count_command(pg_flop_counter *fc, pg_counts *last, const pg_case *c, int64_t steps)
{
    int64_t s;
    int err = 0;

    for (s = 0; s < steps && !err; s++) {
        pg_counts_clear(last);
        if ((err = pg__workload_count(last, c)) == 0)
            err = add_rows(fc, last, 0);
    }
    return err;
}

/* ---- a trace's FLOPs ------------------------------------------------------ */

/* A range of a trace: a record_function (Kineto's user_annotation), or in a trace without categories any event
   that is not an op ("aten::..."). */
static int is_range(const pg_trace *t, const pg_trace_event *e)
{
    const char *cat = pg_trace_str(t, e->cat);

    return *cat ? strcmp(cat, "user_annotation") == 0 : strstr(pg_trace_str(t, e->name), "::") == NULL;
}

/* The names of the ranges around event `ev`, outermost first, joined by NAME_SEP. */
static char *range_path(const pg_trace *t, size_t ev)
{
    int32_t chain[64];
    size_t n = 0;
    int32_t p = t->events[ev].parent;
    pg_buf b = PG_BUF_INIT;

    for (; p >= 0 && n < 64; p = t->events[p].parent)
        if (is_range(t, &t->events[p]))
            chain[n++] = p;
    pg__buf_puts(&b, "");
    while (n > 0) {
        const char *name = pg_trace_str(t, t->events[chain[--n]].name);
        if (b.len)
            pg__buf_put(&b, (const char[]){NAME_SEP}, 1);
        pg__buf_puts(&b, name);
    }
    return pg__buf_detach(&b);
}

/* Adds one op to the rows, merged with the same op, shape and ranges. */
static int add_trace_row(pg_counts *c, const char *op, const char *shape, char *range, int64_t flops)
{
    size_t i;

    for (i = 0; i < c->n; i++)
        if (strcmp(c->rows[i].op, op) == 0 && strcmp(c->rows[i].shape, shape) == 0 &&
            strcmp(c->rows[i].range, range) == 0)
            break;
    if (i == c->n) {
        pg_count_row *p = realloc(c->rows, (c->n + 1) * sizeof(*p));
        if (!p) {
            free(range);
            return PG_ENOMEM;
        }
        c->rows = p;
        memset(&p[i], 0, sizeof(p[i]));
        p[i].op = pg__strdup(op);
        p[i].function = pg__strdup("");
        p[i].shape = pg__strdup(shape);
        p[i].range = range;
        c->n++;
        if (!p[i].op || !p[i].function || !p[i].shape)
            return PG_ENOMEM; /* the row is freed with the others */
    } else {
        free(range);
    }
    if (__builtin_add_overflow(c->rows[i].flops, flops, &c->rows[i].flops) ||
        __builtin_add_overflow(c->total, flops, &c->total))
        return pg_error_set(PG_EINVAL, "the trace's FLOPs overflow int64");
    c->rows[i].calls++;
    c->calls++;
    return 0;
}

/*
 * The FLOPs of a trace's ops as rows (op, Input Dims, ranges). An op counts
 * when the trace gives its FLOPs or its matrix product's shapes do
 * (pg_trace_op_flops()), and no op around it counted already: torch gives
 * FLOPs to the op that does the work (aten::addmm under aten::linear), and a
 * nested one would count the work twice.
 */
static int trace_rows(pg_counts *out, const pg_trace *t, size_t *derived)
{
    unsigned char *covered = calloc(t->nevents ? t->nevents : 1, 1);
    size_t i;
    int err = 0, d;

    *derived = 0;
    if (!covered)
        return PG_ENOMEM;
    /* Events are sorted by start, so a parent comes before its children. */
    for (i = 0; i < t->nevents && !err; i++) {
        const pg_trace_event *e = &t->events[i];
        int64_t f;
        char *range;
        if (e->parent >= 0 && covered[e->parent]) {
            covered[i] = 1;
            continue;
        }
        if ((f = pg_trace_op_flops(t, i, &d)) < 0)
            continue;
        covered[i] = 1;
        *derived += (size_t)d;
        if (!(range = range_path(t, i)))
            err = PG_ENOMEM;
        else
            err = add_trace_row(out, pg_trace_str(t, e->name), e->shape ? pg_trace_str(t, e->shape) : "", range, f);
    }
    free(covered);
    if (err == PG_ENOMEM)
        pg_error_set(PG_ENOMEM, "out of memory counting a trace's FLOPs");
    return err;
}

static int count_trace(pg_flop_counter *fc, pg_counts *rows, size_t *derived, const pg_suite *suite,
                       const pg_check *check)
{
    pg_trace_read_options ro = PG_TRACE_READ_OPTIONS_INIT;
    pg_trace *t = NULL;
    int err;

    if ((err = pg__check_read_trace(&t, suite, check->trace, &ro)) == 0 && (err = trace_rows(rows, t, derived)) == 0)
        err = add_rows(fc, rows, 1);
    pg_trace_free(t);
    return err;
}

/* ---- expectations and the comparison --------------------------------------- */

static int add_want(want **wants, size_t *nw, const char *group, const char *name, const pg_node *v, const pg_case *c)
{
    want *p = realloc(*wants, (*nw + 1) * sizeof(*p));
    char what[160];
    int err;

    if (!p)
        return PG_ENOMEM;
    *wants = p;
    p[*nw].group = group;
    p[*nw].name = name;
    snprintf(what, sizeof(what), "expect.%s%s%s", group ? group : "", group ? "." : "", name);
    if ((err = pg__check_eval(&p[*nw].value, v, c, what)) != 0)
        return err;
    (*nw)++;
    return 0;
}

/* Evaluates every expectation before counting, so a typo fails fast with its position. */
static int parse_wants(want **wants, size_t *nw, int *has_per_op, const pg_node *ex, const pg_case *c)
{
    size_t i, j;
    int err = 0;

    if (ex->type != PG_NODE_MAP)
        return pg_error_set(PG_ESUITE, "%s:%d:%d: expect must be a mapping (total, per_op, per_module)", ex->file,
                            ex->line, ex->col);
    for (i = 0; i < ex->count && !err; i++) {
        const pg_node *k = ex->keys[i], *v = ex->items[i];
        if (pg_node_is(k, "total")) {
            err = add_want(wants, nw, NULL, "total", v, c);
        } else if (pg_node_is(k, "per_op") || pg_node_is(k, "per_module")) {
            if (v->type != PG_NODE_MAP)
                return pg_error_set(PG_ESUITE, "%s:%d:%d: %s must map names to expressions", v->file, v->line,
                                    v->col, k->scalar);
            *has_per_op |= pg_node_is(k, "per_op");
            for (j = 0; j < v->count && !err; j++)
                err = add_want(wants, nw, k->scalar, v->keys[j]->scalar, v->items[j], c);
        } else {
            return pg__check_unknown_key(k, "flops", "total, per_op, per_module");
        }
    }
    if (!err && *nw == 0)
        err = pg_error_set(PG_ESUITE, "%s:%d:%d: a flops check expects total, per_op or per_module", ex->file,
                           ex->line, ex->col);
    return err;
}

static void diff_line(pg_buf *msg, const char *what, int64_t expected, int64_t actual)
{
    char e[32], a[32], d[32];

    pg_fmt_int(e, sizeof(e), expected);
    pg_fmt_int(a, sizeof(a), actual);
    pg_fmt_int(d, sizeof(d), actual - expected);
    pg__buf_printf(msg, "%s%s: expected %s, got %s (%s%s)", msg->len ? "; " : "", what, e, a,
                   actual > expected ? "+" : "", d);
}

/* Compares the counter with the wants into `out`; `counts` (the counted rows) name the calls a difference is. */
static int compare(pg_check_result *out, const pg_flop_counter *fc, const want *wants, size_t nw, int has_per_op,
                   const pg_counts *counts, int by_name, const char *empty_hint, const char *note)
{
    pg_buf expected = PG_BUF_INIT, actual = PG_BUF_INIT, msg = PG_BUF_INIT, detail = PG_BUF_INIT;
    size_t i, j, nrows;
    const pg_flop_row *rows = pg_flop_counter_rows(fc, &nrows);
    char num[32];
    int err;

    for (i = 0; i < nw; i++) {
        int per_op = wants[i].group && strcmp(wants[i].group, "per_op") == 0;
        int64_t got = !wants[i].group ? pg_flop_counter_total(fc)
                      : per_op        ? pg_flop_counter_get(fc, "Global", wants[i].name)
                                      : pg_flop_counter_get(fc, wants[i].name, NULL);
        char what[200];
        pg_fmt_int(num, sizeof(num), wants[i].value);
        pg__buf_printf(&expected, "%s%s%s%s %s", i ? ", " : "", wants[i].group ? wants[i].group : "",
                       wants[i].group ? " " : "", wants[i].name, num);
        snprintf(what, sizeof(what), "%s%s", wants[i].group ? (per_op ? "op " : "module ") : "", wants[i].name);
        if (got != wants[i].value) {
            diff_line(&msg, what, wants[i].value, got);
            hint_calls(&msg, counts, &wants[i], by_name, got - wants[i].value);
        }
    }
    pg_fmt_int(num, sizeof(num), pg_flop_counter_total(fc));
    pg__buf_printf(&actual, "total %s", num);
    for (i = 0; i < nrows; i++) {
        if (strcmp(rows[i].module, "Global") != 0)
            continue;
        pg_fmt_int(num, sizeof(num), rows[i].flops);
        pg__buf_printf(&actual, ", per_op %s %s", rows[i].op, num);
        /* per_op is exact: an op that counted FLOPs must be expected, or it is a new matmul. */
        if (has_per_op && rows[i].flops) {
            for (j = 0; j < nw; j++)
                if (wants[j].group && strcmp(wants[j].group, "per_op") == 0 && strcmp(wants[j].name, rows[i].op) == 0)
                    break;
            if (j == nw)
                pg__buf_printf(&msg, "%sop %s: not expected, got %s FLOPs", msg.len ? "; " : "", rows[i].op, num);
        }
    }
    for (i = 0; i < nw; i++) {
        if (!wants[i].group || strcmp(wants[i].group, "per_module") != 0)
            continue;
        pg_fmt_int(num, sizeof(num), pg_flop_counter_get(fc, wants[i].name, NULL));
        pg__buf_printf(&actual, ", per_module %s %s", wants[i].name, num);
    }
    if (msg.len && pg_flop_counter_total(fc) == 0 && empty_hint)
        pg__buf_printf(&msg, "; %s", empty_hint);
    if ((err = pg_flop_counter_table(fc, &detail)) == 0 && note)
        pg__buf_puts(&detail, note);
    if (!err)
        err = pg__check_fill(out, expected.ptr, actual.ptr, msg.len ? msg.ptr : NULL, detail.ptr);
    pg__buf_clear(&expected);
    pg__buf_clear(&actual);
    pg__buf_clear(&msg);
    pg__buf_clear(&detail);
    return err;
}

/* Runs a kernel workload `steps` times under the FLOP counter (and the recorder with --trace-dir). */
static int count_kernel(pg_flop_counter *fc, pg__workload *w, const pg_suite *suite, const pg_check *check,
                        const pg_check_options *opts, int64_t steps)
{
    pg_recorder *rec = NULL;
    const pg_instrument *prev;
    int64_t s;
    int err = 0;

    if (opts->trace_dir && (err = pg_recorder_new(&rec)) != 0)
        return err;
    prev = pg__instrument_set(pg_flop_counter_instrument(fc, rec ? pg_recorder_instrument(rec, NULL) : NULL));
    for (s = 0; s < steps && !err; s++)
        err = pg__workload_step(w, 0);
    pg__instrument_set(prev);
    if (!err && rec && (err = pg_recorder_status(rec)) == 0)
        err = pg__check_export(opts, suite, check, NULL, pg_recorder_trace(rec));
    pg_recorder_free(rec);
    return err;
}

static const char trace_hint[] =
    "the trace carries no FLOPs: record it with torch.profiler.profile(with_flops=True), or record_shapes=True "
    "for matrix products (needs Kineto: torch.autograd.profiler.kineto_available())";

int pg__check_flops(pg_check_result *out, const pg_suite *suite, const pg_check *check, const pg_check_options *opts)
{
    pg__workload w;
    pg_flop_counter *fc = NULL;
    want *wants = NULL;
    size_t nw = 0, derived = 0;
    int64_t steps = check->steps > 0 ? check->steps : 1;
    pg_counts counts = {0};
    char note[160];
    int err, has_per_op = 0, is_command = 0;

    memset(&w, 0, sizeof(w));
    if (check->trace && check->workload) {
        err = pg_error_set(PG_ESUITE, "%s:%d:%d: a flops check reads either a 'trace' or a 'workload', not both",
                           check->node->file, check->node->line, check->node->col);
        goto cleanup;
    }
    if (!check->trace) {
        is_command = pg__workload_is_command(check);
        if ((err = is_command ? pg_case_from_workload(&w.c, check->workload, suite->name, check->name)
                              : pg__workload_open(&w, suite, check)) != 0)
            goto cleanup;
    }
    if ((err = parse_wants(&wants, &nw, &has_per_op, check->expect, check->trace ? NULL : &w.c)) != 0 ||
        (err = pg_flop_counter_new(&fc)) != 0)
        goto cleanup;
    if (check->trace)
        err = count_trace(fc, &counts, &derived, suite, check);
    else if (is_command)
        err = count_command(fc, &counts, &w.c, steps);
    else
        err = count_kernel(fc, &w, suite, check, opts, steps);
    if (err || (err = pg_flop_counter_status(fc)) != 0)
        goto cleanup;
    if (check->trace)
        snprintf(note, sizeof(note), "    (%lld ops counted: %lld with the trace's own FLOPs, %zu from their shapes)\n",
                 (long long)counts.calls, (long long)counts.calls - (long long)derived, derived);
    err = compare(out, fc, wants, nw, has_per_op, &counts, check->trace != NULL, check->trace ? trace_hint : NULL,
                  check->trace ? note : NULL);

cleanup:
    pg__workload_close(&w);
    pg_flop_counter_free(fc);
    pg_counts_clear(&counts);
    free(wants);
    if (err == PG_ENOMEM && pg_error_last()[0] == '\0')
        pg_error_set(PG_ENOMEM, "out of memory running check '%s'", check->name);
    return err;
}
