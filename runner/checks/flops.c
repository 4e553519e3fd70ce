/*
 * flops.c - `kind: flops` checks: a workload's FLOPs, counted by the FLOP
 * counter (flop_counter.h) in-process or from a program's BLAS calls
 * (count.h), against the suite's expectations.
 */
#include "checks/checks.h"
#include "checks/flop_counter.h"
#include "checks/kinds.h"

#include "meter/count.h"
#include "perfgate/errors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Whether counted row `r` adds to what `group`/`name` names: the total, an op, or a module (its calling
   function, its range, or a range around it). */
static int row_in(const pg_count_row *r, const char *group, const char *name)
{
    size_t n = strlen(name);

    if (!group)
        return 1;
    if (strcmp(group, "per_op") == 0)
        return strcmp(r->op, name) == 0;
    return strcmp(r->function, name) == 0 || strcmp(r->range, name) == 0 ||
           (strncmp(r->range, name, n) == 0 && r->range[n] == '/');
}

/* " (+K call(s) of OP SHAPE)" when `diff` is a whole number of calls of one shape counted inside what
   `group`/`name` names, the shape that explains it in the fewest calls. */
static void hint_calls(pg_buf *msg, const pg_counts *counts, int64_t diff, const char *group, const char *name)
{
    int64_t a = diff < 0 ? -diff : diff, best = 0;
    const pg_count_row *pick = NULL;
    size_t i;

    for (i = 0; a && i < counts->n; i++) {
        const pg_count_row *r = &counts->rows[i];
        int64_t per = r->calls ? r->flops / r->calls : 0;
        if (per > 0 && r->flops == per * r->calls && a % per == 0 && a / per <= 16 && row_in(r, group, name) &&
            (!pick || a / per < best)) {
            pick = r;
            best = a / per;
        }
    }
    if (pick)
        pg__buf_printf(msg, " (%s%lld call%s of %s %s)", diff > 0 ? "+" : "-", (long long)best, best == 1 ? "" : "s",
                       pick->op, pick->shape);
}

/* Runs a command workload `steps` times under the BLAS counter; `last` keeps the last run's counts. */
static int count_command(pg_flop_counter *fc, pg_counts *last, const pg_case *c, int64_t steps)
{
    int64_t s;
    int err = 0;

    for (s = 0; s < steps && !err; s++) {
        pg_counts_clear(last);
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
            hint_calls(&msg, &counts, got - wants[i].value, wants[i].group, wants[i].name);
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
    pg_counts_clear(&counts);
    pg_recorder_free(rec);
    free(wants);
    pg__buf_clear(&expected);
    pg__buf_clear(&actual);
    pg__buf_clear(&msg);
    pg__buf_clear(&detail);
    if (err == PG_ENOMEM && pg_error_last()[0] == '\0')
        pg_error_set(PG_ENOMEM, "out of memory running check '%s'", check->name);
    return err;
}
