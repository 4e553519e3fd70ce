/* gemm.c - the single GEMM entry point (OpenBLAS) and the sgemm/dgemm kernels. */
#include "kernels/kernels.h"

#include "base/case.h"
#include "base/instrument.h"
#include "perfgate/errors.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>

void pg_kernels_gemm_f32(const char *op, int trans_a, int trans_b, int m, int n, int k, float alpha,
                  const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc)
{
    char shape[96];

    if (pg__instrument) {
        snprintf(shape, sizeof(shape), "[%d,%d]x[%d,%d]", m, k, k, n);
        pg__op_begin(op, shape);
        pg__op_gemm(op, m, n, k);
    }
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
                m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    if (pg__instrument)
        pg__op_end(op);
}

void pg_kernels_gemm_f64(const char *op, int trans_a, int trans_b, int m, int n, int k, double alpha,
                  const double *a, int lda, const double *b, int ldb, double beta, double *c, int ldc)
{
    char shape[96];

    if (pg__instrument) {
        snprintf(shape, sizeof(shape), "[%d,%d]x[%d,%d]", m, k, k, n);
        pg__op_begin(op, shape);
        pg__op_gemm(op, m, n, k);
    }
    cblas_dgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
                m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    if (pg__instrument)
        pg__op_end(op);
}

static uint64_t next_random(uint64_t *s)
{
    /* splitmix64: fast, seedable, good enough for benchmark inputs. */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void pg__fill_random_f32(float *x, size_t n, uint64_t *seed, float lo, float hi)
{
    size_t i;

    for (i = 0; i < n; i++)
        x[i] = lo + (hi - lo) * (float)((next_random(seed) >> 40) * (1.0 / 16777216.0));
}

void pg__fill_random_f64(double *x, size_t n, uint64_t *seed, double lo, double hi)
{
    size_t i;

    for (i = 0; i < n; i++)
        x[i] = lo + (hi - lo) * ((double)(next_random(seed) >> 11) * (1.0 / 9007199254740992.0));
}

/* ---- sgemm / dgemm kernels: square or m,n,k from params ------------------ */

typedef struct gemm_state {
    int m, n, k, f64;
    void *a, *b, *c;
} gemm_state;

static void gemm_shape(const pg_case *c, int *m, int *n, int *k)
{
    int64_t sq = pg_case_param_int(c, "n", 256);

    *m = (int)pg_case_param_int(c, "m", sq);
    *n = (int)sq;
    *k = (int)pg_case_param_int(c, "k", sq);
}

static int gemm_setup_common(void **out, const pg_case *c, int f64)
{
    gemm_state *s = calloc(1, sizeof(*s));
    size_t es = f64 ? sizeof(double) : sizeof(float);
    uint64_t seed = 42;

    *out = NULL;
    if (!s)
        return pg_error_set(PG_ENOMEM, "%s: out of memory", c->key);
    gemm_shape(c, &s->m, &s->n, &s->k);
    if (s->m <= 0 || s->n <= 0 || s->k <= 0) {
        free(s);
        return pg_error_set(PG_EINVAL, "%s: m, n and k must be positive", c->key);
    }
    s->f64 = f64;
    s->a = malloc((size_t)s->m * (size_t)s->k * es);
    s->b = malloc((size_t)s->k * (size_t)s->n * es);
    s->c = malloc((size_t)s->m * (size_t)s->n * es);
    if (!s->a || !s->b || !s->c) {
        int err = pg_error_set(PG_ENOMEM, "%s: out of memory for %dx%dx%d operands", c->key, s->m, s->n, s->k);
        free(s->a);
        free(s->b);
        free(s->c);
        free(s);
        return err;
    }
    if (f64) {
        pg__fill_random_f64(s->a, (size_t)s->m * (size_t)s->k, &seed, -1, 1);
        pg__fill_random_f64(s->b, (size_t)s->k * (size_t)s->n, &seed, -1, 1);
        pg__fill_random_f64(s->c, (size_t)s->m * (size_t)s->n, &seed, -1, 1);
    } else {
        pg__fill_random_f32(s->a, (size_t)s->m * (size_t)s->k, &seed, -1, 1);
        pg__fill_random_f32(s->b, (size_t)s->k * (size_t)s->n, &seed, -1, 1);
        pg__fill_random_f32(s->c, (size_t)s->m * (size_t)s->n, &seed, -1, 1);
    }
    *out = s;
    return 0;
}

static int sgemm_setup(void **out, const pg_case *c)
{
    return gemm_setup_common(out, c, 0);
}

static int dgemm_setup(void **out, const pg_case *c)
{
    return gemm_setup_common(out, c, 1);
}

static int gemm_run(void *state, int64_t iters)
{
    gemm_state *s = state;
    int64_t i;

    for (i = 0; i < iters; i++) {
        if (s->f64)
            pg_kernels_gemm_f64("dgemm", 0, 0, s->m, s->n, s->k, 1.0, s->a, s->k, s->b, s->n, 0.0, s->c, s->n);
        else
            pg_kernels_gemm_f32("sgemm", 0, 0, s->m, s->n, s->k, 1.0f, s->a, s->k, s->b, s->n, 0.0f, s->c, s->n);
    }
    return 0;
}

static void gemm_teardown(void *state)
{
    gemm_state *s = state;

    if (!s)
        return;
    free(s->a);
    free(s->b);
    free(s->c);
    free(s);
}

static double gemm_flops(const pg_case *c)
{
    int m, n, k;

    gemm_shape(c, &m, &n, &k);
    return 2.0 * m * n * k;
}

static double sgemm_bytes(const pg_case *c)
{
    int m, n, k;

    gemm_shape(c, &m, &n, &k);
    return 4.0 * ((double)m * k + (double)k * n + (double)m * n);
}

static double dgemm_bytes(const pg_case *c)
{
    return 2.0 * sgemm_bytes(c);
}

static const char *const gemm_params[] = {"n", "m", "k", NULL};

const pg_kernel pg__kernel_sgemm = {
    "sgemm", "cpu", "fp32 GEMM through OpenBLAS cblas_sgemm (params n, or m/n/k)",
    gemm_params, sgemm_setup, gemm_run, gemm_teardown, gemm_flops, sgemm_bytes};

const pg_kernel pg__kernel_dgemm = {
    "dgemm", "cpu", "fp64 GEMM through OpenBLAS cblas_dgemm (params n, or m/n/k)",
    gemm_params, dgemm_setup, gemm_run, gemm_teardown, gemm_flops, dgemm_bytes};
