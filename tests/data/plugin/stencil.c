/*
 * stencil.c - a plugin of real numerical work for the "what changed"
 * tests: a 2-D Jacobi relaxation of a heat plate.
 *
 *   relax   each iteration runs SWEEPS five-point Jacobi sweeps over an
 *           n x n plate (sweep()), then the residual norm of the plate
 *           (residual(), the unchanged sibling). SWEEPS is a data value
 *           (.rodata), so builds that differ in it run the same machine
 *           code: one that sweeps 11 times instead of 10 does 10 % more
 *           real work, all of it in sweep().
 *   layout  sums STREAMS rows of a matrix into one (out[i] = sum of the
 *           rows' i-th elements), the rows PITCH bytes apart. PITCH is a
 *           data value too: at a multiple of 4 KiB every row maps to the
 *           same sets of a set-associative cache and they evict each other
 *           (the classic aliasing of power-of-two strides), padded by a
 *           line per row they do not. The same instructions either way;
 *           only the layout differs.
 */
#include <perfgate/perfgate.h>

#include <stdint.h>
#include <stdlib.h>

#ifndef SWEEPS
#define SWEEPS 10
#endif
#ifndef PITCH
#define PITCH (8192 + 64)
#endif
#define STREAMS 16

static const volatile int sweeps_per_iteration = SWEEPS;
static const volatile size_t row_pitch = PITCH;
static volatile double sink;

typedef struct plate {
    int n;
    double *a, *b;
} plate;

/* One Jacobi sweep: every interior point becomes the mean of its four neighbours. */
__attribute__((noinline)) static void sweep(double *restrict dst, const double *restrict src, int n)
{
    int i, j;

    for (i = 1; i < n - 1; i++)
        for (j = 1; j < n - 1; j++)
            dst[i * n + j] = 0.25 * (src[(i - 1) * n + j] + src[(i + 1) * n + j] + src[i * n + j - 1] +
                                     src[i * n + j + 1]);
}

/* The residual's squared norm: how far the plate is from the fixed point. */
__attribute__((noinline)) static double residual(const double *a, int n)
{
    double r = 0;
    int i, j;

    for (i = 1; i < n - 1; i++)
        for (j = 1; j < n - 1; j++) {
            double d = 4 * a[i * n + j] - a[(i - 1) * n + j] - a[(i + 1) * n + j] - a[i * n + j - 1] -
                       a[i * n + j + 1];
            r += d * d;
        }
    return r;
}

static void *relax_setup(pg_state *st)
{
    plate *p = calloc(1, sizeof(*p));
    int i;

    if (!p)
        return NULL;
    p->n = (int)pg_param_int(st, "n", 64);
    p->a = calloc((size_t)p->n * (size_t)p->n, sizeof(double));
    p->b = calloc((size_t)p->n * (size_t)p->n, sizeof(double));
    if (!p->a || !p->b || p->n < 3) {
        pg_error(st, "cannot allocate the plate (is n at least 3?)");
        return p;
    }
    /* A hot edge: the relaxation has work to do for many sweeps. */
    for (i = 0; i < p->n; i++)
        p->a[i] = p->b[i] = 100.0;
    pg_flops(st, 5.0 * (double)(p->n - 2) * (double)(p->n - 2) * (double)sweeps_per_iteration);
    return p;
}

static void relax_iterate(void *ctx, pg_state *st, int64_t iters)
{
    plate *p = ctx;
    int64_t k;
    int s;

    (void)st;
    for (k = 0; k < iters; k++) {
        for (s = 0; s < sweeps_per_iteration; s++) {
            double *t;
            sweep(p->b, p->a, p->n);
            t = p->a;
            p->a = p->b;
            p->b = t;
        }
        sink = residual(p->a, p->n);
    }
}

static void relax_free(void *ctx)
{
    plate *p = ctx;

    if (p) {
        free(p->a);
        free(p->b);
    }
    free(p);
}

/* out[i] = the sum of the STREAMS rows' i-th elements; the rows lie row_pitch bytes apart. */
__attribute__((noinline)) static void sum_rows(float *restrict out, const char *base, size_t pitch, int64_t n)
{
    int64_t i;
    int k;

    for (i = 0; i < n; i++) {
        float s = 0;
        for (k = 0; k < STREAMS; k++)
            s += ((const float *)(base + (size_t)k * pitch))[i];
        out[i] = s;
    }
}

static void layout(pg_state *st)
{
    int64_t n = pg_param_int(st, "n", 2048), i;
    size_t pitch = row_pitch;
    char *m;
    float *out;

    if (n <= 0 || (size_t)n * sizeof(float) > pitch) {
        pg_error(st, "n floats must fit in a row of PITCH bytes");
        return;
    }
    m = malloc((size_t)STREAMS * pitch);
    out = malloc((size_t)n * sizeof(float));
    if (!m || !out) {
        pg_error(st, "cannot allocate the rows");
        free(m);
        free(out);
        return;
    }
    for (i = 0; i < (int64_t)(STREAMS * pitch / sizeof(float)); i++)
        ((float *)m)[i] = (float)(i % 7);
    pg_bytes(st, (double)n * sizeof(float) * (STREAMS + 1));
    while (pg_keep_running(st)) {
        sum_rows(out, m, pitch, n);
        sink = out[n - 1];
    }
    free(m);
    free(out);
}

static const pg_benchmark benchmarks[] = {
    {"relax", "Jacobi sweeps of a heat plate, then its residual", NULL, relax_setup, relax_iterate, relax_free},
    {"layout", "a sum of rows lying PITCH bytes apart", layout, NULL, NULL, NULL},
};

PG_PLUGIN_DEFINE("stencil", benchmarks)
