/*
 * bench.c - the benchmarks of the user library (userk.h), as a perfgate
 * plugin: the loop form, buffers allocated in the benchmark, inputs from a
 * fixed seed. The plugin links the library (libuserk.so beside it, found
 * through -Wl,-rpath,$ORIGIN), so a build of the pair is one directory:
 * what `perfgate gate --base-build DIR --head-build DIR` compares.
 */
#include <perfgate/perfgate.h>

#include "userk.h"

#include <stdint.h>
#include <stdlib.h>

static void escape(void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

static uint32_t next(uint32_t *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

static float *floats(size_t n, uint32_t seed)
{
    float *x = malloc((n ? n : 1) * sizeof(*x));
    size_t i;

    for (i = 0; x && i < n; i++)
        x[i] = (float)(next(&seed) & 0xffff) / 65536.0f;
    return x;
}

static int64_t param(pg_state *st, const char *name, int64_t dflt)
{
    int64_t v = pg_param_int(st, name, dflt);

    return v > 0 ? v : dflt;
}

static void jacobi(pg_state *st)
{
    int n = (int)param(st, "n", 256), sweeps = (int)param(st, "sweeps", 10);
    size_t nn = (size_t)n * (size_t)n;
    float *a = floats(nn, 1), *b = floats(nn, 1);

    if (!a || !b) {
        pg_error(st, "out of memory");
    } else {
        pg_bytes(st, 8.0 * (double)nn * sweeps);
        while (pg_keep_running(st)) {
            uk_jacobi_f32(a, b, n, sweeps);
            escape(a);
            escape(b);
        }
    }
    free(a);
    free(b);
}

static void dot(pg_state *st)
{
    size_t n = (size_t)param(st, "n", 1 << 20), m = uk_scaled(n), i;
    double *x = malloc(m * sizeof(*x)), *y = malloc(m * sizeof(*y)), sink = 0;
    uint32_t seed = 2;

    if (!x || !y) {
        pg_error(st, "out of memory");
    } else {
        for (i = 0; i < m; i++) {
            x[i] = (double)(next(&seed) & 0xffff) / 65536.0;
            y[i] = (double)(next(&seed) & 0xffff) / 65536.0;
        }
        pg_bytes(st, 16.0 * (double)n);
        while (pg_keep_running(st)) {
            sink += uk_dot_f64(x, y, n);
            escape(&sink);
        }
    }
    free(x);
    free(y);
}

static void stats(pg_state *st)
{
    size_t n = (size_t)param(st, "n", 1 << 18);
    float *x = floats(uk_scaled(n), 3), out[3];

    if (!x) {
        pg_error(st, "out of memory");
    } else {
        pg_bytes(st, 4.0 * (double)n);
        while (pg_keep_running(st)) {
            uk_stats_f32(x, n, out);
            escape(out);
        }
    }
    free(x);
}

/* Random indices into `range` elements. */
static int32_t *indices(size_t n, size_t range, uint32_t seed)
{
    int32_t *idx = malloc((n ? n : 1) * sizeof(*idx));
    size_t i;

    for (i = 0; idx && i < n; i++)
        idx[i] = (int32_t)(((uint64_t)next(&seed) << 8 ^ next(&seed)) % range);
    return idx;
}

static void gather(pg_state *st)
{
    size_t n = (size_t)param(st, "n", 1 << 18), range = (size_t)param(st, "range", 1 << 22), m = uk_scaled(n);
    float *src = floats(range, 4), *dst = floats(m, 5);
    int32_t *idx = indices(m, range, 6);

    if (!src || !dst || !idx) {
        pg_error(st, "out of memory");
    } else {
        while (pg_keep_running(st)) {
            uk_gather_f32(dst, src, idx, n);
            escape(dst);
        }
    }
    free(src);
    free(dst);
    free(idx);
}

static void scatter(pg_state *st)
{
    size_t n = (size_t)param(st, "n", 1 << 18), bins = (size_t)param(st, "bins", 1 << 16), m = uk_scaled(n);
    float *hist = floats(bins, 7), *w = floats(m, 8);
    int32_t *idx = indices(m, bins, 9);

    if (!hist || !w || !idx) {
        pg_error(st, "out of memory");
    } else {
        while (pg_keep_running(st)) {
            uk_scatter_add_f32(hist, w, idx, n);
            escape(hist);
        }
    }
    free(hist);
    free(w);
    free(idx);
}

/* Text with words, numbers, quoted strings and punctuation in random order. */
static char *text(size_t n, uint32_t seed)
{
    static const char punct[] = "(){}[];,+-*/=<>";
    char *t = malloc(n + 1);
    size_t i = 0, k;

    while (t && i < n) {
        uint32_t r = next(&seed), len = 1 + (next(&seed) % 9);
        for (k = 0; k < len && i < n; k++, i++) {
            switch (r % 5) {
            case 0: t[i] = (char)('a' + next(&seed) % 26); break;
            case 1: t[i] = (char)('0' + next(&seed) % 10); break;
            case 2: t[i] = k == 0 || k + 1 == len ? '"' : (char)('a' + next(&seed) % 26); break;
            case 3: t[i] = punct[next(&seed) % (sizeof(punct) - 1)]; break;
            default: t[i] = k == 0 ? '\n' : ' '; break;
            }
        }
    }
    if (t)
        t[n] = '\0';
    return t;
}

static void tokens(pg_state *st)
{
    size_t n = (size_t)param(st, "n", 1 << 18), sink = 0;
    char *t = text(uk_scaled(n), 10);

    if (!t) {
        pg_error(st, "out of memory");
    } else {
        while (pg_keep_running(st)) {
            sink += uk_tokens(t, n);
            escape(&sink);
        }
    }
    free(t);
}

enum { NMAT = 8 };

static void gemm_batch(pg_state *st)
{
    int m = (int)param(st, "m", 32), calls = (int)param(st, "calls", 40), i, ok = 1;
    float *a[NMAT], *b[NMAT], *c[NMAT];

    for (i = 0; i < NMAT; i++) {
        a[i] = floats((size_t)m * m, 11 + i);
        b[i] = floats((size_t)m * m, 31 + i);
        c[i] = floats((size_t)m * m, 51 + i);
        ok &= a[i] && b[i] && c[i];
    }
    if (!ok) {
        pg_error(st, "out of memory");
    } else {
        pg_flops(st, 2.0 * m * m * (double)m * calls);
        while (pg_keep_running(st)) {
            uk_gemm_batch(a, b, c, NMAT, m, calls);
            escape(c[0]);
        }
    }
    for (i = 0; i < NMAT; i++) {
        free(a[i]);
        free(b[i]);
        free(c[i]);
    }
}

static void gemm_rows(pg_state *st)
{
    int m = (int)param(st, "m", 640), n = (int)param(st, "n", 512);
    size_t rows = uk_scaled((size_t)m);
    float *a = floats(rows * n, 71), *b = floats((size_t)n * n, 72), *c = floats(rows * n, 73);

    if (!a || !b || !c) {
        pg_error(st, "out of memory");
    } else {
        pg_flops(st, 2.0 * m * (double)n * n);
        while (pg_keep_running(st)) {
            uk_gemm_rows(a, b, c, m, n);
            escape(c);
        }
    }
    free(a);
    free(b);
    free(c);
}

static const pg_benchmark benchmarks[] = {
    {"jacobi", "5-point Jacobi sweeps over an n x n float grid", jacobi, NULL, NULL, NULL},
    {"dot", "dot product of n doubles, 8 accumulators", dot, NULL, NULL, NULL},
    {"stats", "sum, min and max of n floats, 4 accumulators each", stats, NULL, NULL, NULL},
    {"gather", "n floats gathered from `range` at random indices", gather, NULL, NULL, NULL},
    {"scatter", "n weights added into `bins` at random indices", scatter, NULL, NULL, NULL},
    {"tokens", "tokens of n bytes of text (branchy)", tokens, NULL, NULL, NULL},
    {"gemm_batch", "`calls` sgemm calls on m x m matrices", gemm_batch, NULL, NULL, NULL},
    {"gemm_rows", "one sgemm of m x n by n x n", gemm_rows, NULL, NULL, NULL},
};

PG_PLUGIN_DEFINE("userk", benchmarks)
