/*
 * flops.c - the FLOP counter and `kind: flops` checks.
 *
 * FlopCounterMode's semantics: every GEMM through the kernels' single entry
 * point adds 2·m·n·k, attributed to its op name and to every module
 * executing at the time (ModuleTracker's parents: each path on the module
 * stack, its dotted prefixes, and "Global"). Everything that is not a matmul
 * (elementwise ops, norms, softmax) counts zero, the convention MFU uses.
 */
#include "checks/checks.h"
#include "checks/kinds.h"

#include "meter/count.h"
#include "base/flopcount.h"
#include "perfgate/errors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pg_flop_counter {
    pg_instrument ins;
    const pg_instrument *next;
    char **mods;                /* module stack, innermost last (copies) */
    size_t nmods, capmods;
    pg_flop_row *rows;          /* module × op */
    size_t nrows, caprows;
    int64_t total;
    int err;
    char errmsg[200];
};

static void fc_fail(pg_flop_counter *fc, int code, const char *what, const char *name)
{
    if (fc->err)
        return;
    fc->err = code;
    snprintf(fc->errmsg, sizeof(fc->errmsg), "%s '%s'", what, name);
}

static pg_flop_row *row_for(pg_flop_counter *fc, const char *module, size_t mlen, const char *op)
{
    size_t i;
    pg_flop_row *r;

    for (i = 0; i < fc->nrows; i++)
        if (strncmp(fc->rows[i].module, module, mlen) == 0 && fc->rows[i].module[mlen] == '\0' &&
            strcmp(fc->rows[i].op, op) == 0)
            return &fc->rows[i];
    if (fc->nrows == fc->caprows) {
        size_t cap = fc->caprows ? fc->caprows * 2 : 16;
        pg_flop_row *p = realloc(fc->rows, cap * sizeof(*p));
        if (!p)
            return NULL;
        fc->rows = p;
        fc->caprows = cap;
    }
    r = &fc->rows[fc->nrows];
    r->module = strndup(module, mlen);
    r->op = pg__strdup(op);
    r->flops = 0;
    if (!r->module || !r->op) {
        free((char *)r->module);
        free((char *)r->op);
        return NULL;
    }
    fc->nrows++;
    return r;
}

/* Adds `f` to (module[0..mlen), op) unless this GEMM already added it there. */
static void add_once(pg_flop_counter *fc, const char **seen, size_t *nseen, size_t *seen_len, const char *module,
                     size_t mlen, const char *op, int64_t f)
{
    pg_flop_row *r;
    size_t i;

    for (i = 0; i < *nseen; i++)
        if (seen_len[i] == mlen && strncmp(seen[i], module, mlen) == 0)
            return;
    if (*nseen < 64) {
        seen[*nseen] = module;
        seen_len[(*nseen)++] = mlen;
    }
    if (!(r = row_for(fc, module, mlen, op))) {
        fc_fail(fc, PG_ENOMEM, "out of memory counting FLOPs of op", op);
        return;
    }
    if (__builtin_add_overflow(r->flops, f, &r->flops))
        fc_fail(fc, PG_EINVAL, "int64 overflow in the FLOP count of op", op);
}

static void on_gemm(void *payload, const char *name, int64_t m, int64_t n, int64_t k)
{
    pg_flop_counter *fc = payload;
    const char *seen[64];
    size_t seen_len[64], nseen = 0, i;
    int64_t f;

    if (fc->next && fc->next->gemm)
        fc->next->gemm(fc->next->payload, name, m, n, k);
    if (pg_flops_gemm(&f, m, n, k, 0)) {
        fc_fail(fc, PG_EINVAL, "int64 overflow in the FLOPs of a GEMM of op", name);
        return;
    }
    if (__builtin_add_overflow(fc->total, f, &fc->total))
        fc_fail(fc, PG_EINVAL, "int64 overflow in the total FLOP count at op", name);
    add_once(fc, seen, &nseen, seen_len, "Global", 6, name, f);
    for (i = 0; i < fc->nmods; i++) {
        const char *path = fc->mods[i], *dot;
        /* "mlp.1" runs inside "mlp": a parent module is executing too. */
        for (dot = strchr(path, '.'); dot; dot = strchr(dot + 1, '.'))
            add_once(fc, seen, &nseen, seen_len, path, (size_t)(dot - path), name, f);
        add_once(fc, seen, &nseen, seen_len, path, strlen(path), name, f);
    }
}

int pg_flop_counter_add(pg_flop_counter *fc, const char *op, int64_t flops, const char *const *modules, size_t n)
{
    const char *seen[64];
    size_t seen_len[64], nseen = 0, i;

    if (flops < 0)
        fc_fail(fc, PG_EINVAL, "a negative FLOP count for op", op);
    else if (__builtin_add_overflow(fc->total, flops, &fc->total))
        fc_fail(fc, PG_EINVAL, "int64 overflow in the total FLOP count at op", op);
    else {
        add_once(fc, seen, &nseen, seen_len, "Global", 6, op, flops);
        for (i = 0; i < n; i++)
            add_once(fc, seen, &nseen, seen_len, modules[i], strlen(modules[i]), op, flops);
    }
    return pg_flop_counter_status(fc);
}

static void on_op_begin(void *payload, const char *name, const char *shape)
{
    pg_flop_counter *fc = payload;

    if (fc->next && fc->next->op_begin)
        fc->next->op_begin(fc->next->payload, name, shape);
}

static void on_op_end(void *payload, const char *name)
{
    pg_flop_counter *fc = payload;

    if (fc->next && fc->next->op_end)
        fc->next->op_end(fc->next->payload, name);
}

static void on_range_push(void *payload, const char *name)
{
    pg_flop_counter *fc = payload;

    if (fc->next && fc->next->range_push)
        fc->next->range_push(fc->next->payload, name);
}

static void on_range_pop(void *payload, const char *name)
{
    pg_flop_counter *fc = payload;

    if (fc->next && fc->next->range_pop)
        fc->next->range_pop(fc->next->payload, name);
}

static void on_module_push(void *payload, const char *path, int backward)
{
    pg_flop_counter *fc = payload;
    char *copy = pg__strdup(path);

    if (fc->next && fc->next->module_push)
        fc->next->module_push(fc->next->payload, path, backward);
    if (fc->nmods == fc->capmods) {
        size_t cap = fc->capmods ? fc->capmods * 2 : 8;
        char **p = realloc(fc->mods, cap * sizeof(*p));
        if (!p) {
            free(copy);
            fc_fail(fc, PG_ENOMEM, "out of memory entering module", path);
            return;
        }
        fc->mods = p;
        fc->capmods = cap;
    }
    if (!copy) {
        fc_fail(fc, PG_ENOMEM, "out of memory entering module", path);
        return;
    }
    fc->mods[fc->nmods++] = copy;
}

static void on_module_pop(void *payload, const char *path)
{
    pg_flop_counter *fc = payload;

    if (fc->next && fc->next->module_pop)
        fc->next->module_pop(fc->next->payload, path);
    if (fc->nmods == 0 || strcmp(fc->mods[fc->nmods - 1], path) != 0) {
        fc_fail(fc, PG_EKERNEL, "a module other than the innermost one was left:", path);
        return;
    }
    free(fc->mods[--fc->nmods]);
}

int pg_flop_counter_new(pg_flop_counter **out)
{
    pg_flop_counter *fc = calloc(1, sizeof(*fc));

    *out = NULL;
    if (!fc)
        return pg_error_set(PG_ENOMEM, "out of memory for a FLOP counter");
    fc->ins.op_begin = on_op_begin;
    fc->ins.op_end = on_op_end;
    fc->ins.gemm = on_gemm;
    fc->ins.range_push = on_range_push;
    fc->ins.range_pop = on_range_pop;
    fc->ins.module_push = on_module_push;
    fc->ins.module_pop = on_module_pop;
    fc->ins.payload = fc;
    *out = fc;
    return 0;
}

void pg_flop_counter_free(pg_flop_counter *fc)
{
    size_t i;

    if (!fc)
        return;
    for (i = 0; i < fc->nmods; i++)
        free(fc->mods[i]);
    free(fc->mods);
    for (i = 0; i < fc->nrows; i++) {
        free((char *)fc->rows[i].module);
        free((char *)fc->rows[i].op);
    }
    free(fc->rows);
    free(fc);
}

const pg_instrument *pg_flop_counter_instrument(pg_flop_counter *fc, const pg_instrument *next)
{
    fc->next = next;
    return &fc->ins;
}

int64_t pg_flop_counter_total(const pg_flop_counter *fc)
{
    return fc->total;
}

int64_t pg_flop_counter_get(const pg_flop_counter *fc, const char *module, const char *op)
{
    int64_t sum = 0;
    size_t i;

    for (i = 0; i < fc->nrows; i++)
        if (strcmp(fc->rows[i].module, module) == 0 && (!op || strcmp(fc->rows[i].op, op) == 0))
            sum += fc->rows[i].flops;
    return sum;
}

const pg_flop_row *pg_flop_counter_rows(const pg_flop_counter *fc, size_t *out_n)
{
    *out_n = fc->nrows;
    return fc->rows;
}

int pg_flop_counter_status(const pg_flop_counter *fc)
{
    if (fc->err)
        return pg_error_set(fc->err, "FLOP counter: %s", fc->errmsg);
    if (fc->nmods)
        return pg_error_set(PG_EKERNEL, "FLOP counter: module '%s' was still open when the workload returned",
                            fc->mods[fc->nmods - 1]);
    return 0;
}

int pg_flop_counter_table(const pg_flop_counter *fc, pg_buf *b)
{
    size_t i, j, w = 6;
    char num[32];

    for (i = 0; i < fc->nrows; i++) {
        size_t l = strlen(fc->rows[i].module), lo = strlen(fc->rows[i].op) + 3;
        w = l > w ? l : w;
        w = lo > w ? lo : w;
    }
    pg__buf_printf(b, "    %-*s  %16s  %8s\n", (int)w, "Module", "FLOP", "% Total");
    /* Modules in the order they first counted, each followed by its ops. */
    for (i = 0; i < fc->nrows; i++) {
        const char *m = fc->rows[i].module;
        int64_t sum;
        int first = 1;
        for (j = 0; j < i; j++)
            if (strcmp(fc->rows[j].module, m) == 0)
                first = 0;
        if (!first)
            continue;
        sum = pg_flop_counter_get(fc, m, NULL);
        pg_fmt_int(num, sizeof(num), sum);
        pg__buf_printf(b, "    %-*s  %16s  %7.2f%%\n", (int)w, m, num,
                       fc->total ? 100.0 * (double)sum / (double)fc->total : 0.0);
        for (j = i; j < fc->nrows; j++) {
            if (strcmp(fc->rows[j].module, m) != 0)
                continue;
            pg_fmt_int(num, sizeof(num), fc->rows[j].flops);
            pg__buf_printf(b, "     - %-*s  %16s  %7.2f%%\n", (int)w - 3, fc->rows[j].op, num,
                           fc->total ? 100.0 * (double)fc->rows[j].flops / (double)fc->total : 0.0);
        }
    }
    if (fc->nrows == 0)
        pg__buf_puts(b, "    (no GEMM ran: 0 FLOPs)\n");
    return b->ptr ? 0 : pg_error_set(PG_ENOMEM, "out of memory formatting FLOPs");
}

/* ---- kind: flops -------------------------------------------------------- */

/* Adds one run of a program's counted BLAS calls: per op, and per module = calling function and each range
   around the call ("outer/inner" runs inside "outer" too). */
static int add_counts(pg_flop_counter *fc, const pg_counts *counts)
{
    size_t i;
    int err = 0;

    for (i = 0; i < counts->n && !err; i++) {
        const pg_count_row *r = &counts->rows[i];
        const char *mods[66];
        char *prefixes[64];
        size_t n = 0, np = 0, j;
        const char *slash;
        mods[n++] = r->function;
        for (slash = strchr(r->range, '/'); slash && np < 64; slash = strchr(slash + 1, '/'))
            if ((prefixes[np] = strndup(r->range, (size_t)(slash - r->range))) != NULL)
                mods[n++] = prefixes[np++];
        if (r->range[0])
            mods[n++] = r->range;
        err = pg_flop_counter_add(fc, r->op, r->flops, mods, n);
        for (j = 0; j < np; j++)
            free(prefixes[j]);
    }
    return err;
}

/* "; the difference is K call(s) of OP SHAPE" when `diff` is a whole number of calls of one counted shape. */
static void hint_calls(pg_buf *msg, const pg_counts *counts, int64_t diff)
{
    int64_t a = diff < 0 ? -diff : diff;
    size_t i;

    for (i = 0; a && i < counts->n; i++) {
        const pg_count_row *r = &counts->rows[i];
        int64_t per = r->calls ? r->flops / r->calls : 0;
        if (per > 0 && r->flops == per * r->calls && a % per == 0 && a / per <= 16) {
            pg__buf_printf(msg, " (%s%lld call%s of %s %s)", diff > 0 ? "+" : "-", (long long)(a / per),
                           a / per == 1 ? "" : "s", r->op, r->shape);
            return;
        }
    }
}

/* Runs a command workload `steps` times under the BLAS counter; `last` keeps the last run's counts. */
static int count_command(pg_flop_counter *fc, pg_counts *last, const pg_case *c, int64_t steps)
{
    int64_t s;
    int err = 0;

    for (s = 0; s < steps && !err; s++) {
        pg_counts_free(last);
        if ((err = pg__workload_count(last, c)) == 0)
            err = add_counts(fc, last);
    }
    return err;
}

/* One expected value: what (total / op NAME / module NAME) and its value. */
typedef struct want {
    const char *group;    /* NULL for the total, "per_op", "per_module" */
    const char *name;
    int64_t value;
} want;

static void diff_line(pg_buf *msg, const char *what, int64_t expected, int64_t actual)
{
    char e[32], a[32], d[32];

    pg_fmt_int(e, sizeof(e), expected);
    pg_fmt_int(a, sizeof(a), actual);
    pg_fmt_int(d, sizeof(d), actual - expected);
    pg__buf_printf(msg, "%s%s: expected %s, got %s (%s%s)", msg->len ? "; " : "", what, e, a,
                   actual > expected ? "+" : "", d);
}

int pg__check_flops(pg_check_result *out, const pg_suite *suite, const pg_check *check, const pg_check_options *opts)
{
    const pg_node *ex = check->expect;
    pg__workload w;
    pg_flop_counter *fc = NULL;
    pg_recorder *rec = NULL;
    const pg_instrument *prev;
    want *wants = NULL;
    size_t nw = 0, i, j, nrows;
    const pg_flop_row *rows;
    pg_buf expected = PG_BUF_INIT, actual = PG_BUF_INIT, msg = PG_BUF_INIT, detail = PG_BUF_INIT;
    int64_t steps = check->steps > 0 ? check->steps : 1, s;
    pg_counts counts = {0};
    int err, has_per_op = 0, is_command;
    char num[32];

    memset(&w, 0, sizeof(w));
    if (check->trace) {
        err = pg_error_set(PG_ESUITE, "%s:%d:%d: a flops check counts a workload; traces carry no FLOPs",
                           check->trace->file, check->trace->line, check->trace->col);
        goto cleanup;
    }
    is_command = pg__workload_is_command(check);
    if ((err = is_command ? pg_case_from_workload(&w.c, check->workload, suite->name, check->name)
                          : pg__workload_open(&w, suite, check)) != 0)
        goto cleanup;
    if (ex->type != PG_NODE_MAP) {
        err = pg_error_set(PG_ESUITE, "%s:%d:%d: expect must be a mapping (total, per_op, per_module)", ex->file,
                           ex->line, ex->col);
        goto cleanup;
    }
    /* Evaluate every expectation before running, so a typo fails fast with its position. */
    for (i = 0; i < ex->count; i++) {
        const pg_node *k = ex->keys[i], *v = ex->items[i];
        if (pg_node_is(k, "total")) {
            want *p = realloc(wants, (nw + 1) * sizeof(*p));
            if (!p) {
                err = PG_ENOMEM;
                goto cleanup;
            }
            wants = p;
            wants[nw].group = NULL;
            wants[nw].name = "total";
            if ((err = pg__check_eval(&wants[nw].value, v, &w.c, "expect.total")) != 0)
                goto cleanup;
            nw++;
        } else if (pg_node_is(k, "per_op") || pg_node_is(k, "per_module")) {
            if (v->type != PG_NODE_MAP) {
                err = pg_error_set(PG_ESUITE, "%s:%d:%d: %s must map names to expressions", v->file, v->line,
                                   v->col, k->scalar);
                goto cleanup;
            }
            has_per_op |= pg_node_is(k, "per_op");
            for (j = 0; j < v->count; j++) {
                want *p = realloc(wants, (nw + 1) * sizeof(*p));
                char what[160];
                if (!p) {
                    err = PG_ENOMEM;
                    goto cleanup;
                }
                wants = p;
                wants[nw].group = k->scalar;
                wants[nw].name = v->keys[j]->scalar;
                snprintf(what, sizeof(what), "expect.%s.%s", k->scalar, v->keys[j]->scalar);
                if ((err = pg__check_eval(&wants[nw].value, v->items[j], &w.c, what)) != 0)
                    goto cleanup;
                nw++;
            }
        } else {
            err = pg__check_unknown_key(k, "flops", "total, per_op, per_module");
            goto cleanup;
        }
    }
    if (nw == 0) {
        err = pg_error_set(PG_ESUITE, "%s:%d:%d: a flops check expects total, per_op or per_module", ex->file,
                           ex->line, ex->col);
        goto cleanup;
    }

    if ((err = pg_flop_counter_new(&fc)) != 0)
        goto cleanup;
    if (is_command) {
        if ((err = count_command(fc, &counts, &w.c, steps)) != 0 || (err = pg_flop_counter_status(fc)) != 0)
            goto cleanup;
        goto compare;
    }
    if (opts->trace_dir && (err = pg_recorder_new(&rec)) != 0)
        goto cleanup;
    prev = pg__instrument_set(pg_flop_counter_instrument(fc, rec ? pg_recorder_instrument(rec, NULL) : NULL));
    for (s = 0, err = 0; s < steps && !err; s++)
        err = pg__workload_step(&w, 0);
    pg__instrument_set(prev);
    if (err || (err = pg_flop_counter_status(fc)) != 0 || (rec && (err = pg_recorder_status(rec)) != 0))
        goto cleanup;
    if (rec && (err = pg__check_export(opts, suite, check, NULL, pg_recorder_trace(rec))) != 0)
        goto cleanup;

compare:
    /* expected / actual in one canonical text each; the message lists every difference. */
    rows = pg_flop_counter_rows(fc, &nrows);
    for (i = 0; i < nw; i++) {
        int64_t got = !wants[i].group                            ? pg_flop_counter_total(fc)
                      : strcmp(wants[i].group, "per_op") == 0    ? pg_flop_counter_get(fc, "Global", wants[i].name)
                                                                 : pg_flop_counter_get(fc, wants[i].name, NULL);
        char what[200];
        pg_fmt_int(num, sizeof(num), wants[i].value);
        pg__buf_printf(&expected, "%s%s%s%s %s", i ? ", " : "", wants[i].group ? wants[i].group : "",
                       wants[i].group ? " " : "", wants[i].name, num);
        snprintf(what, sizeof(what), "%s%s%s", wants[i].group ? (strcmp(wants[i].group, "per_op") ? "module " : "op ")
                                                             : "",
                 wants[i].name, "");
        if (got != wants[i].value) {
            diff_line(&msg, what, wants[i].value, got);
            hint_calls(&msg, &counts, got - wants[i].value);
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
    if ((err = pg_flop_counter_table(fc, &detail)) != 0)
        goto cleanup;
    err = pg__check_fill(out, expected.ptr, actual.ptr, msg.len ? msg.ptr : NULL, detail.ptr);

cleanup:
    pg__workload_close(&w);
    pg_flop_counter_free(fc);
    pg_counts_free(&counts);
    pg_recorder_free(rec);
    free(wants);
    pg__buf_free(&expected);
    pg__buf_free(&actual);
    pg__buf_free(&msg);
    pg__buf_free(&detail);
    if (err == PG_ENOMEM && pg_error_last()[0] == '\0')
        pg_error_set(PG_ENOMEM, "out of memory running check '%s'", check->name);
    return err;
}
