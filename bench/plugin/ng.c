/*
 * ng.c - the twenty CPU cases of bench/noise_gate.yaml as a plugin, for
 * interleaved A/B gates (the measurement of bench/noise_ab.sh).
 *
 * Benchmarks: sgemm and dgemm (n x n x n through perfgate's instrumented
 * GEMM, i.e. OpenBLAS), copy, add, mul and gelu over n floats.
 *
 * Built with -DNG_SLOW_N=128 -DNG_SLOW_PCT=10, the sgemm case with that n
 * busy-waits after each iteration for NG_SLOW_PCT percent of the time the
 * iteration took: its time grows by exactly that share whatever the machine
 * does meanwhile (the same injection as the runner's PG_TEST_SLOWDOWN, built
 * into a plugin so that two builds can be measured against each other).
 * The defines only set data: every build has the same machine code, so no
 * other case can change through code layout or different inlining.
 */
#define _POSIX_C_SOURCE 200809L
#include <perfgate/perfgate.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct ng {
    const char *name;
    int64_t n;
    int slow;                 /* this case carries the injected slowdown */
    float *a, *b, *c;
    double *da, *db, *dc;
} ng;

static void escape(void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

#ifndef NG_SLOW_N
#define NG_SLOW_N 0
#define NG_SLOW_PCT 0
#endif
/* Volatile: the compiler may not fold them, so the code is the same in every build. */
static volatile int64_t slow_n = NG_SLOW_N;
static volatile double slow_pct = NG_SLOW_PCT;

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void ng_free(void *ctx)
{
    ng *g = ctx;

    if (!g)
        return;
    free(g->a);
    free(g->b);
    free(g->c);
    free(g->da);
    free(g->db);
    free(g->dc);
    free(g);
}

static void *ng_setup(pg_state *st, const char *name, int gemm, int dbl)
{
    ng *g = calloc(1, sizeof(*g));
    size_t len, i;

    if (!g) {
        pg_error(st, "out of memory");
        return NULL;
    }
    g->name = name;
    g->n = pg_param_int(st, "n", 0);
    if (g->n <= 0) {
        pg_error(st, "n must be positive");
        return g;
    }
    g->slow = strcmp(name, "sgemm") == 0 && g->n == slow_n;
    len = gemm ? (size_t)(g->n * g->n) : (size_t)g->n;
    if (dbl) {
        g->da = malloc(len * sizeof(double));
        g->db = malloc(len * sizeof(double));
        g->dc = calloc(len, sizeof(double));
        if (!g->da || !g->db || !g->dc) {
            pg_error(st, "out of memory");
            return g;
        }
        for (i = 0; i < len; i++) {
            g->da[i] = (double)(i % 17) / 17.0 - 0.5;
            g->db[i] = (double)(i % 13) / 13.0 - 0.5;
        }
    } else {
        g->a = malloc(len * sizeof(float));
        g->b = malloc(len * sizeof(float));
        g->c = calloc(len, sizeof(float));
        if (!g->a || !g->b || !g->c) {
            pg_error(st, "out of memory");
            return g;
        }
        for (i = 0; i < len; i++) {
            g->a[i] = (float)(i % 17) / 17.0f - 0.5f;
            g->b[i] = (float)(i % 13) / 13.0f - 0.5f;
        }
    }
    if (gemm)
        pg_flops(st, 2.0 * (double)g->n * (double)g->n * (double)g->n);
    else
        pg_bytes(st, (strcmp(name, "copy") == 0 || strcmp(name, "gelu") == 0 ? 8.0 : 12.0) * (double)g->n);
    return g;
}

static void *sgemm_setup(pg_state *st) { return ng_setup(st, "sgemm", 1, 0); }
static void *dgemm_setup(pg_state *st) { return ng_setup(st, "dgemm", 1, 1); }
static void *copy_setup(pg_state *st) { return ng_setup(st, "copy", 0, 0); }
static void *add_setup(pg_state *st) { return ng_setup(st, "add", 0, 0); }
static void *mul_setup(pg_state *st) { return ng_setup(st, "mul", 0, 0); }
static void *gelu_setup(pg_state *st) { return ng_setup(st, "gelu", 0, 0); }

/* One iteration of the case's work. */
static void work(ng *g, pg_state *st)
{
    int n = (int)g->n;
    int64_t i;

    if (strcmp(g->name, "sgemm") == 0) {
        pg_gemm_f32(st, "sgemm", 0, 0, n, n, n, 1.0f, g->a, n, g->b, n, 0.0f, g->c, n);
    } else if (strcmp(g->name, "dgemm") == 0) {
        pg_gemm_f64(st, "dgemm", 0, 0, n, n, n, 1.0, g->da, n, g->db, n, 0.0, g->dc, n);
    } else if (strcmp(g->name, "copy") == 0) {
        memcpy(g->c, g->a, (size_t)n * sizeof(float));
    } else if (strcmp(g->name, "add") == 0) {
        for (i = 0; i < n; i++)
            g->c[i] = g->a[i] + g->b[i];
    } else if (strcmp(g->name, "mul") == 0) {
        for (i = 0; i < n; i++)
            g->c[i] = g->a[i] * g->b[i];
    } else {
        for (i = 0; i < n; i++) {
            float x = g->a[i];
            g->c[i] = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
        }
    }
    escape(g->c);
    escape(g->dc);
}

static void ng_iterate(void *ctx, pg_state *st, int64_t iters)
{
    ng *g = ctx;
    int64_t it;

    if (!g->slow) {
        for (it = 0; it < iters; it++)
            work(g, st);
        return;
    }
    for (it = 0; it < iters; it++) {
        double t0 = now_s(), until;
        work(g, st);
        until = now_s() + (now_s() - t0) * slow_pct / 100.0;
        while (now_s() < until)
            ;
    }
}

static const pg_benchmark benchmarks[] = {
    {"sgemm", "n x n x n single-precision GEMM", NULL, sgemm_setup, ng_iterate, ng_free},
    {"dgemm", "n x n x n double-precision GEMM", NULL, dgemm_setup, ng_iterate, ng_free},
    {"copy", "copy n floats", NULL, copy_setup, ng_iterate, ng_free},
    {"add", "c = a + b over n floats", NULL, add_setup, ng_iterate, ng_free},
    {"mul", "c = a * b over n floats", NULL, mul_setup, ng_iterate, ng_free},
    {"gelu", "tanh-approximated GELU over n floats", NULL, gelu_setup, ng_iterate, ng_free},
};

PG_PLUGIN_DEFINE("ng", benchmarks)
