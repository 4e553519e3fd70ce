/*
 * uses_every_call.c - a benchmark that calls every function of the public
 * plugin API; compiled as C11 and as C++17 (tests/header) to prove the
 * header works for both languages under -Wall -Wextra -pedantic -Werror.
 */
#include <perfgate/perfgate.h>

static void every_call(pg_state *st)
{
    static float a[4], b[4], c[4];
    static double da[4], db[4], dc[4];
    int64_t n = pg_param_int(st, "n", 2);
    double x = pg_param_double(st, "x", 1.0);
    const char *mode = pg_param_str(st, "mode", "fast");

    if (!pg_has_param(st, "n") || pg_threads(st) < 1 || !mode || !pg_device(st))
        pg_skip(st, "missing parameters");
    if (pg_cuda_stream(st) != NULL)
        pg_error(st, "a CPU case has no stream");
    pg_flops(st, 2.0 * (double)(n * n * n));
    pg_bytes(st, x);
    while (pg_keep_running(st)) {
        pg_pause_timing(st);
        pg_resume_timing(st);
        pg_range_push(st, "step");
        pg_op_begin(st, "my_op", "[2,2]");
        pg_op_gemm(st, "my_op", 2, 2, 2);
        pg_op_end(st, "my_op");
        pg_gemm_f32(st, "mm", 0, 0, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
        pg_gemm_f64(st, "mm", 0, 1, 2, 2, 2, 1.0, da, 2, db, 2, 0.0, dc, 2);
        pg_range_pop(st, "step");
    }
}

static void *setup(pg_state *st)
{
    (void)st;
    return NULL;
}

static void iterate(void *ctx, pg_state *st, int64_t iters)
{
    (void)ctx;
    (void)st;
    (void)iters;
}

static void teardown(void *ctx)
{
    (void)ctx;
}

static const pg_benchmark benchmarks[] = {
    {"every_call", "calls every API function", every_call, NULL, NULL, NULL},
    {"callbacks", NULL, NULL, setup, iterate, teardown},
};

PG_PLUGIN_DEFINE("header_check", benchmarks)
