/* expr_test.c - checked 64-bit integer expressions for expected values. */
#include "support.h"

#include "base/expr.h"

#include <stdint.h>
#include <string.h>

/* Names for the tests: B=4, in=16, out=8, vocab=512, big=2^62, zero=0. */
static int lookup(int64_t *out, const char *name, void *payload)
{
    static const struct { const char *name; int64_t v; } vars[] = {
        {"B", 4}, {"in", 16}, {"out", 8}, {"vocab", 512}, {"big", INT64_C(1) << 62}, {"zero", 0},
        {"min", INT64_MIN}};
    (void)payload;
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        if (strcmp(vars[i].name, name) == 0) {
            *out = vars[i].v;
            return 0;
        }
    return 1;
}

static int64_t eval_ok(const char *text)
{
    pg_expr_error err;
    int64_t v = -12345;
    int rc = pg_expr_eval(&v, text, lookup, NULL, &err);

    cr_assert_eq(rc, 0, "'%s' failed at column %d: %s", text, err.column, err.message);
    return v;
}

static void eval_fails(const char *text, int column, const char *message)
{
    pg_expr_error err;
    int64_t v = 99;

    cr_assert_eq(pg_expr_eval(&v, text, lookup, NULL, &err), PG_EINVAL, "'%s' should fail", text);
    cr_expect_eq(v, 99, "'%s': the output must stay untouched on failure", text);
    cr_expect_eq(err.column, column, "'%s': column %d, expected %d (%s)", text, err.column, column, err.message);
    cr_expect_str_eq(err.message, message, "'%s'", text);
}

Test(expr, the_issue_examples)
{
    cr_expect_eq(eval_ok("6*B*in*out"), 6 * 4 * 16 * 8);
    cr_expect_eq(eval_ok("2*B*(in*out + out*vocab)"), 2 * 4 * (16 * 8 + 8 * 512));
}

Test(expr, precedence_and_associativity)
{
    cr_expect_eq(eval_ok("1 + 2 * 3"), 7);
    cr_expect_eq(eval_ok("(1 + 2) * 3"), 9);
    cr_expect_eq(eval_ok("10 - 4 - 3"), 3);      /* left to right */
    cr_expect_eq(eval_ok("64 / 4 / 2"), 8);
    cr_expect_eq(eval_ok("17 % 5 * 2"), 4);
    cr_expect_eq(eval_ok("-3 * -2"), 6);
    cr_expect_eq(eval_ok("--5"), 5);
    cr_expect_eq(eval_ok("  42  "), 42);
    cr_expect_eq(eval_ok("1_000_000"), 1000000);
    cr_expect_eq(eval_ok("((((B))))"), 4);
}

Test(expr, division_truncates_toward_zero_like_c)
{
    cr_expect_eq(eval_ok("-7 / 2"), -3);
    cr_expect_eq(eval_ok("-7 % 2"), -1);
    cr_expect_eq(eval_ok("7 % -2"), 1);
}

Test(expr, limits_of_64_bits_are_exact)
{
    cr_expect_eq(eval_ok("9223372036854775807"), INT64_MAX);
    cr_expect_eq(eval_ok("big - 1 + big"), INT64_MAX);
    cr_expect_eq(eval_ok("-big - big"), INT64_MIN);
    cr_expect_eq(eval_ok("min / 1"), INT64_MIN);
}

Test(expr, overflow_is_an_error_never_wrapped)
{
    eval_fails("big * 2", 5, "64-bit overflow in multiplication");
    eval_fails("big + big", 5, "64-bit overflow in addition");
    eval_fails("-big - big - 1", 12, "64-bit overflow in subtraction");
    eval_fails("-min", 1, "overflow in negation");
    eval_fails("min / -1", 5, "64-bit overflow in division");
    eval_fails("9223372036854775808", 1, "integer literal too large for 64 bits");
}

Test(expr, division_by_zero_is_an_error)
{
    eval_fails("B / zero", 3, "division by zero");
    eval_fails("B % (in - 16)", 3, "division by zero");
}

Test(expr, unknown_names_and_syntax_errors_point_at_the_column)
{
    eval_fails("6*B*inn*out", 5, "unknown name 'inn'");
    eval_fails("2*(B+1", 7, "expected ')'");
    eval_fails("2*", 3, "unexpected end of expression");
    eval_fails("", 1, "unexpected end of expression");
    eval_fails("2 ** 3", 4, "unexpected character '*'");
    eval_fails("4 B", 3, "unexpected 'B' after the expression");
    eval_fails("1.5 * B", 2, "unexpected '.5 * B' after the expression");
}

Test(expr, nesting_is_bounded)
{
    char deep[200];
    size_t i;

    for (i = 0; i < 80; i++)
        deep[i] = '(';
    deep[80] = '1';
    for (i = 81; i < 161; i++)
        deep[i] = ')';
    deep[161] = '\0';
    eval_fails(deep, 65, "expression nested too deeply");
}

Test(expr, without_a_lookup_every_name_is_unknown)
{
    pg_expr_error err;
    int64_t v;

    cr_assert_eq(pg_expr_eval(&v, "B", NULL, NULL, &err), PG_EINVAL);
    cr_expect_str_eq(err.message, "unknown name 'B'");
    cr_assert_eq(pg_expr_eval(&v, "12", NULL, NULL, NULL), 0);
    cr_expect_eq(v, 12);
}

Test(expr, long_chains_of_minus_signs_are_bounded)
{
    char minus[4096];

    memset(minus, '-', sizeof(minus) - 2);
    minus[sizeof(minus) - 2] = '1';
    minus[sizeof(minus) - 1] = '\0';
    eval_fails(minus, 65, "expression nested too deeply");
}
