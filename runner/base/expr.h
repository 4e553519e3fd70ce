/*
 * expr.h - integer expressions for expected values in suites.
 *
 * Grammar: expr := term (('+'|'-') term)*; term := unary (('*'|'/'|'%') unary)*;
 * unary := '-' unary | primary; primary := INTEGER | NAME | '(' expr ')'.
 * Arithmetic is signed 64-bit; overflow and division by zero are errors,
 * never wrapped.
 */
#ifndef PG_EXPR_H
#define PG_EXPR_H

#include <stddef.h>
#include <stdint.h>

/** Resolves a name to a value; returns 0 when found, nonzero when unknown. */
typedef int (*pg_expr_lookup_fn)(int64_t *out, const char *name, void *payload);

typedef struct pg_expr_error {
    int column;           /* 1-based column inside the expression text */
    char message[160];    /* "unknown name 'Bx'", "overflow in 6*B", ... */
} pg_expr_error;

/**
 * Evaluates `text`.
 * @param[out] out the value
 * @param[out] err where and why it failed (may be NULL)
 * @return 0, or PG_EINVAL with `err` filled.
 */
int pg_expr_eval(int64_t *out, const char *text, pg_expr_lookup_fn lookup, void *payload,
                 pg_expr_error *err);

#endif
