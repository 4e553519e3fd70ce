/*
 * calls.c - a test plugin that writes down how the runner calls it: each
 * benchmark appends a line to the file its `log` parameter names.
 *
 *   loop   the loop form: "loop" when it is called, "end" after its loop;
 *          counts 2*n FLOPs per iteration (pg_flops) of a dependent
 *          multiply-add chain of n steps
 *   cb     the callback form: "setup", then "teardown iterate-calls=K"
 *   env    the loop form: "VAR=value" for the variable its `var` parameter
 *          names ("VAR unset" when it is not in the environment)
 */
#define _POSIX_C_SOURCE 200809L
#include <perfgate/perfgate.h>

#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

static void say(pg_state *st, const char *line)
{
    FILE *f = fopen(pg_param_str(st, "log", "/dev/null"), "a");

    if (!f)
        return;
    fprintf(f, "%s\n", line);
    fclose(f);
}

static void chain(int64_t n)
{
    double x = sink;
    int64_t i;

    for (i = 0; i < n; i++)
        x = x * 0.999999 + 1e-9;
    sink = x;
}

static void loop(pg_state *st)
{
    int64_t n = pg_param_int(st, "n", 1000);

    say(st, "loop");
    pg_flops(st, 2.0 * (double)n);
    while (pg_keep_running(st))
        chain(n);
    say(st, "end");
}

typedef struct cb_ctx {
    pg_state *st;
    long calls;
} cb_ctx;

static void *cb_setup(pg_state *st)
{
    cb_ctx *c = calloc(1, sizeof(*c));

    say(st, "setup");
    if (c)
        c->st = st;
    return c;
}

static void cb_iterate(void *ctx, pg_state *st, int64_t iters)
{
    cb_ctx *c = ctx;
    int64_t i;

    (void)st;
    c->calls++;
    for (i = 0; i < iters; i++)
        chain(100);
}

static void cb_teardown(void *ctx)
{
    cb_ctx *c = ctx;

    char line[64];

    snprintf(line, sizeof(line), "teardown iterate-calls=%ld", c->calls);
    say(c->st, line);
    free(c);
}

static void env(pg_state *st)
{
    const char *name = pg_param_str(st, "var", "PG_TEST_VAR"), *v = getenv(name);
    char line[256];

    snprintf(line, sizeof(line), v ? "%s=%s" : "%s unset", name, v ? v : "");
    say(st, line);
    while (pg_keep_running(st))
        chain(100);
}

static const pg_benchmark benchmarks[] = {
    {"loop", "the loop form, FLOPs counted", loop, NULL, NULL, NULL},
    {"cb", "the callback form", NULL, cb_setup, cb_iterate, cb_teardown},
    {"env", "reads a variable", env, NULL, NULL, NULL},
};
PG_PLUGIN_DEFINE("calls", benchmarks)
