/*
 * expr.c - checked 64-bit integer expressions (recursive descent).
 *
 * Every operation goes through the compiler's overflow builtins, so a wrong
 * expected value is reported, never silently wrapped; recursion depth is
 * bounded so hostile input cannot exhaust the stack.
 */
#include "base/expr.h"

#include "perfgate/errors.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct parser {
    const char *text;
    const char *p;
    pg_expr_lookup_fn lookup;
    void *payload;
    pg_expr_error *err;
    int failed;
    int depth;
} parser;

static int fail(parser *ps, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(parser *ps, const char *at, const char *fmt, ...)
{
    va_list ap;

    if (!ps->failed) {
        ps->failed = 1;
        if (ps->err) {
            ps->err->column = (int)(at - ps->text) + 1;
            va_start(ap, fmt);
            vsnprintf(ps->err->message, sizeof(ps->err->message), fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

static void skip_ws(parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t')
        ps->p++;
}

static int parse_expr(parser *ps, int64_t *out);

static int parse_primary(parser *ps, int64_t *out)
{
    const char *start;

    skip_ws(ps);
    start = ps->p;
    if (*ps->p == '(') {
        if (++ps->depth > 64)
            return fail(ps, start, "%s", "expression nested too deeply");
        ps->p++;
        if (parse_expr(ps, out) != 0)
            return -1;
        skip_ws(ps);
        if (*ps->p != ')')
            return fail(ps, ps->p, "%s", "expected ')'");
        ps->p++;
        ps->depth--;
        return 0;
    }
    if (isdigit((unsigned char)*ps->p)) {
        int64_t v = 0;
        while (isdigit((unsigned char)*ps->p) || *ps->p == '_') {
            if (*ps->p != '_' &&
                (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *ps->p - '0', &v)))
                return fail(ps, start, "%s", "integer literal too large for 64 bits");
            ps->p++;
        }
        *out = v;
        return 0;
    }
    if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
        char name[64];
        size_t n = 0;
        while ((isalnum((unsigned char)*ps->p) || *ps->p == '_') && n < sizeof(name) - 1)
            name[n++] = *ps->p++;
        name[n] = '\0';
        if (!ps->lookup || ps->lookup(out, name, ps->payload) != 0)
            return fail(ps, start, "unknown name '%s'", name);
        return 0;
    }
    if (*ps->p == '\0')
        return fail(ps, ps->p, "%s", "unexpected end of expression");
    {
        char c[2] = {*ps->p, 0};
        return fail(ps, ps->p, "unexpected character '%s'", c);
    }
}

static int parse_unary(parser *ps, int64_t *out)
{
    skip_ws(ps);
    if (*ps->p == '-') {
        const char *at = ps->p++;
        int64_t v;
        /* Each '-' recurses: bound it like parentheses so no input can exhaust the stack. */
        if (++ps->depth > 64)
            return fail(ps, at, "%s", "expression nested too deeply");
        if (parse_unary(ps, &v) != 0)
            return -1;
        ps->depth--;
        if (__builtin_sub_overflow((int64_t)0, v, out))
            return fail(ps, at, "%s", "overflow in negation");
        return 0;
    }
    return parse_primary(ps, out);
}

static int parse_term(parser *ps, int64_t *out)
{
    int64_t v, r;

    if (parse_unary(ps, &v) != 0)
        return -1;
    for (;;) {
        const char *at;
        char op;
        skip_ws(ps);
        op = *ps->p;
        if (op != '*' && op != '/' && op != '%')
            break;
        at = ps->p++;
        if (parse_unary(ps, &r) != 0)
            return -1;
        if (op == '*') {
            if (__builtin_mul_overflow(v, r, &v))
                return fail(ps, at, "%s", "64-bit overflow in multiplication");
        } else {
            if (r == 0)
                return fail(ps, at, "%s", "division by zero");
            if (v == INT64_MIN && r == -1)
                return fail(ps, at, "%s", "64-bit overflow in division");
            v = op == '/' ? v / r : v % r;
        }
    }
    *out = v;
    return 0;
}

static int parse_expr(parser *ps, int64_t *out)
{
    int64_t v, r;

    if (parse_term(ps, &v) != 0)
        return -1;
    for (;;) {
        const char *at;
        char op;
        skip_ws(ps);
        op = *ps->p;
        if (op != '+' && op != '-')
            break;
        at = ps->p++;
        if (parse_term(ps, &r) != 0)
            return -1;
        if (op == '+' ? __builtin_add_overflow(v, r, &v) : __builtin_sub_overflow(v, r, &v))
            return fail(ps, at, "%s", op == '+' ? "64-bit overflow in addition" : "64-bit overflow in subtraction");
    }
    *out = v;
    return 0;
}

int pg_expr_eval(int64_t *out, const char *text, pg_expr_lookup_fn lookup, void *payload, pg_expr_error *err)
{
    parser ps = {text, text, lookup, payload, err, 0, 0};
    int64_t v = 0;

    if (err)
        memset(err, 0, sizeof(*err));
    if (parse_expr(&ps, &v) == 0) {
        skip_ws(&ps);
        if (*ps.p != '\0')
            fail(&ps, ps.p, "unexpected '%s' after the expression", ps.p);
    }
    if (ps.failed)
        return PG_EINVAL;
    *out = v;
    return 0;
}
