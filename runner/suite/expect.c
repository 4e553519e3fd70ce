/*
 * expect.c - a check's `expect` mapping for each kind, and the integer
 * expressions it holds, evaluated over the workload's parameters.
 */
#include "suite/internal.h"

#include "base/expr.h"
#include "perfgate/errors.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const expect_flops[] = {"total", "per_op", "per_module", NULL};
static const char *const expect_ops[] = {"within", "contains", "not_contains", "count", "no_host_sync", "max_kernels",
                                         NULL};
static const char *const expect_schedule[] = {"windows", "per_window", NULL};
static const char *const expect_memory[] = {"bytes_per_iter", "allocs_per_iter", "peak", NULL};
static const char *const count_keys[] = {"min", "max", NULL};

/* ---- expressions ---- */

typedef struct eval_ctx {
    const pg_case *c;
    char unknown[64];         /* a name with no parameter */
    const pg_param *not_int;  /* a parameter whose value is not an integer */
} eval_ctx;

static int lookup_param(int64_t *out, const char *name, void *payload)
{
    eval_ctx *e = payload;
    const pg_param *p = pg_case_param(e->c, name);
    char *end;
    long long v;

    if (!p) {
        snprintf(e->unknown, sizeof(e->unknown), "%s", name);
        return 1;
    }
    errno = 0;
    v = strtoll(p->value, &end, 10);
    if (end == p->value || *end || errno) {
        e->not_int = p;
        return 1;
    }
    *out = v;
    return 0;
}

/* Evaluates `expr`; on failure fills `at` (a copy of the node with the exact column) and `msg`. */
static int eval_node(int64_t *out, const pg_case *c, const pg_node *expr, pg_node *at, char *msg, size_t size)
{
    pg_expr_error err;
    eval_ctx e = {c, "", NULL};
    int rc;

    *at = *expr;
    if (expr->type != PG_NODE_SCALAR || !*expr->scalar) {
        snprintf(msg, size, "expected an integer expression such as 2*B*in*out, not %s",
                 expr->type == PG_NODE_SCALAR ? "an empty value" : pg_node_kind(expr));
        return PG_ESUITE;
    }
    rc = pg_expr_eval(out, expr->scalar, lookup_param, &e, &err);
    if (rc == 0)
        return 0;
    /* Point at the character: a plain one-line scalar starts at the node's column. */
    if (!strchr(expr->scalar, '\n'))
        at->col = expr->col + (expr->quoted ? 1 : 0) + err.column - 1;
    if (e.not_int) {
        snprintf(msg, size, "parameter '%s' is '%s', not an integer, in '%s'", e.not_int->name,
                 e.not_int->value, expr->scalar);
    } else if (e.unknown[0]) {
        const char *names[65];
        char sug[96];
        size_t i, n = 0;
        for (i = 0; i < c->nparams && n < 64; i++)
            names[n++] = c->params[i].name;
        names[n] = NULL;
        snprintf(msg, size, "unknown name '%s' in '%s'%s", e.unknown, expr->scalar,
                 pg__dym(sug, sizeof(sug), e.unknown, names));
    } else {
        snprintf(msg, size, "%s in '%s'", err.message, expr->scalar);
    }
    return PG_ESUITE;
}

int pg_expect_eval(int64_t *out, const pg_case *c, const pg_node *expr)
{
    pg_node at;
    char msg[400];

    if (eval_node(out, c, expr, &at, msg, sizeof(msg)) != 0)
        return pg_error_set(PG_ESUITE, "%s:%d:%d: %s", at.file, at.line, at.col, msg);
    return 0;
}

/* ---- expectations ---- */

/* Validates an expected FLOP count against the workload's parameters. */
static int check_expr(pg_diags *d, const pg_case *wc, const pg_node *expr)
{
    pg_node at;
    char msg[400];
    int64_t v;

    if (eval_node(&v, wc, expr, &at, msg, sizeof(msg)) != 0) {
        pg__diag_add(d, &at, "%s", msg);
        return -1;
    }
    if (v < 0) {
        pg__diag_add(d, expr, "expected count '%s' is negative (%lld)", expr->scalar, (long long)v);
        return -1;
    }
    return 0;
}

/* A non-empty NAME: value mapping whose values pass `each`. */
static int check_named_map(pg_diags *d, const pg_node *m, const char *what, const pg_case *wc,
                           int (*each)(pg_diags *, const pg_case *, const pg_node *))
{
    size_t i;
    int bad = 0;

    if (m->type != PG_NODE_MAP || m->count == 0) {
        pg__diag_add(d, m, "%s must be a non-empty mapping of NAME: count, not %s", what,
                     m->type == PG_NODE_MAP ? "an empty one" : pg_node_kind(m));
        return -1;
    }
    for (i = 0; i < m->count; i++) {
        if (m->keys[i]->type != PG_NODE_SCALAR) {
            pg__diag_add(d, m->keys[i], "names in %s must be plain names, not %s", what, pg_node_kind(m->keys[i]));
            bad = 1;
        } else if (each(d, wc, m->items[i]) != 0) {
            bad = 1;
        }
    }
    return bad ? -1 : 0;
}

static int each_expr(pg_diags *d, const pg_case *wc, const pg_node *v)
{
    return wc ? check_expr(d, wc, v) : 0;
}

static int each_count(pg_diags *d, const pg_case *wc, const pg_node *v)
{
    int64_t x;

    return pg__get_int(d, &x, v, "an expected count", 0, INT64_MAX);
}

/* count: {GLOB: N | {min: N, max: M}} */
static int each_range(pg_diags *d, const pg_case *wc, const pg_node *v)
{
    const pg_node *lo, *hi;
    int64_t a = 0, b = INT64_MAX;
    int bad = 0;

    if (v->type != PG_NODE_MAP)
        return each_count(d, wc, v);
    if (pg__keys_known(d, v, count_keys, "a count range", NULL, 0))
        return -1;
    lo = pg_node_get(v, "min");
    hi = pg_node_get(v, "max");
    if (!lo && !hi) {
        pg__diag_add(d, v, "a count range needs 'min', 'max' or both");
        return -1;
    }
    if (lo && pg__get_int(d, &a, lo, "min", 0, INT64_MAX) != 0)
        bad = 1;
    if (hi && pg__get_int(d, &b, hi, "max", 0, INT64_MAX) != 0)
        bad = 1;
    if (!bad && a > b) {
        pg__diag_add(d, hi, "max (%lld) is below min (%lld)", (long long)b, (long long)a);
        bad = 1;
    }
    return bad ? -1 : 0;
}

static int check_glob_list(pg_diags *d, const pg_node *n, const char *what)
{
    size_t i;
    int bad = 0;

    if (n->type != PG_NODE_SEQ || n->count == 0) {
        pg__diag_add(d, n, "%s must be a non-empty list of op or range names (globs allowed), not %s", what,
                     n->type == PG_NODE_SEQ ? "an empty list" : pg_node_kind(n));
        return -1;
    }
    for (i = 0; i < n->count; i++)
        if (pg__scalar_of(d, n->items[i], "a name") != 0)
            bad = 1;
    return bad ? -1 : 0;
}

/* A key that belongs to another kind says so rather than guessing a typo. */
static int other_kind(pg_diags *d, const pg_node *k, const char *const *known, const char *where, void *payload)
{
    static const char *const *const lists[] = {expect_flops, expect_ops, expect_schedule, expect_memory};
    static const char *const kinds[] = {"flops", "ops", "schedule", "memory"};
    const char *kind = payload;
    char sug[96];
    size_t j;

    for (j = 0; j < 4; j++)
        if (pg__in_list(lists[j], k->scalar))
            break;
    if (j < 4)
        pg__diag_add(d, k, "'%s' is an expectation of %s checks, not of %s checks", k->scalar, kinds[j], kind);
    else
        pg__diag_add(d, k, "unknown key '%s' in %s%s", k->scalar, where,
                     pg__dym(sug, sizeof(sug), k->scalar, known));
    return -1;
}

/* Validates `expect` for the check's kind; flops expressions are evaluated over `wc`. */
int pg__check_expect(pg_diags *d, const pg_check *ck, const pg_node *e, const pg_case *wc)
{
    const char *const *known = !strcmp(ck->kind, "flops") ? expect_flops
                             : !strcmp(ck->kind, "ops")   ? expect_ops
                             : !strcmp(ck->kind, "memory") ? expect_memory
                                                          : expect_schedule;
    const pg_node *n;
    size_t i;
    int bad = 0, any = 0;
    char where[64];

    if (e->type != PG_NODE_MAP) {
        pg__diag_add(d, e, "expect must be a mapping, not %s", pg_node_kind(e));
        return -1;
    }
    snprintf(where, sizeof(where), "expect (kind %s)", ck->kind);
    bad = pg__keys_check(d, e, known, where, other_kind, (void *)ck->kind);
    for (i = 0; known[i]; i++)
        if (pg_node_get(e, known[i]))
            any = 1;
    if (!any && !bad) {
        pg__diag_add(d, e, "%s checks expect at least one of: %s", ck->kind,
                     !strcmp(ck->kind, "flops") ? "total, per_op, per_module"
                     : !strcmp(ck->kind, "ops") ? "contains, not_contains, count"
                     : !strcmp(ck->kind, "memory") ? "bytes_per_iter, allocs_per_iter, peak"
                                                : "windows, per_window");
        return -1;
    }
    if (!strcmp(ck->kind, "flops")) {
        if ((n = pg_node_get(e, "total")) != NULL && each_expr(d, wc, n) != 0)
            bad = 1;
        if ((n = pg_node_get(e, "per_op")) != NULL && check_named_map(d, n, "per_op", wc, each_expr) != 0)
            bad = 1;
        if ((n = pg_node_get(e, "per_module")) != NULL &&
            check_named_map(d, n, "per_module", wc, each_expr) != 0)
            bad = 1;
    } else if (!strcmp(ck->kind, "ops")) {
        if ((n = pg_node_get(e, "within")) != NULL && pg__scalar_of(d, n, "within") != 0)
            bad = 1;
        if ((n = pg_node_get(e, "contains")) != NULL && check_glob_list(d, n, "contains") != 0)
            bad = 1;
        if ((n = pg_node_get(e, "not_contains")) != NULL && check_glob_list(d, n, "not_contains") != 0)
            bad = 1;
        if ((n = pg_node_get(e, "count")) != NULL && check_named_map(d, n, "count", wc, each_range) != 0)
            bad = 1;
        if ((n = pg_node_get(e, "no_host_sync")) != NULL &&
            (n->type != PG_NODE_SCALAR || !n->scalar || strcmp(n->scalar, "true") != 0)) {
            pg__diag_add(d, n, "no_host_sync takes only 'true' (no DtoH copy, no stream or device synchronize)");
            bad = 1;
        }
        if ((n = pg_node_get(e, "max_kernels")) != NULL && each_expr(d, wc, n) != 0)
            bad = 1;
        if (pg_node_get(e, "within") && !pg_node_get(e, "contains") && !pg_node_get(e, "not_contains") &&
            !pg_node_get(e, "count") && !pg_node_get(e, "no_host_sync") && !pg_node_get(e, "max_kernels") && !bad) {
            pg__diag_add(d, e, "an ops check needs contains, not_contains or count besides within");
            bad = 1;
        }
    } else if (!strcmp(ck->kind, "memory")) {
        /* Each figure is exact (N) or bounded ({min: N, max: M}), as ops counts are. */
        for (i = 0; expect_memory[i]; i++)
            if ((n = pg_node_get(e, expect_memory[i])) != NULL && each_range(d, wc, n) != 0)
                bad = 1;
    } else {
        int64_t w;
        if ((n = pg_node_get(e, "windows")) != NULL && pg__get_int(d, &w, n, "windows", 0, INT64_MAX) != 0)
            bad = 1;
        if ((n = pg_node_get(e, "per_window")) != NULL &&
            check_named_map(d, n, "per_window", wc, each_count) != 0)
            bad = 1;
    }
    return bad ? -1 : 0;
}

