/* userk.c - the library (userk.h). */
#include "userk.h"

#include <cblas.h>

#ifndef UK_WORK
#define UK_WORK 1000
#endif

size_t uk_scaled(size_t n)
{
    return (n * (size_t)UK_WORK + 500) / 1000;
}

int uk_work_permille(void)
{
    return UK_WORK;
}

static void sweep(float *restrict dst, const float *restrict src, int n)
{
    int i, j;

    for (i = 1; i < n - 1; i++)
        for (j = 1; j < n - 1; j++)
            dst[(size_t)i * n + j] = 0.2f * (src[(size_t)i * n + j] + src[(size_t)(i - 1) * n + j] +
                                             src[(size_t)(i + 1) * n + j] + src[(size_t)i * n + j - 1] +
                                             src[(size_t)i * n + j + 1]);
}

void uk_jacobi_f32(float *a, float *b, int n, int sweeps)
{
    int s, total = (int)uk_scaled((size_t)sweeps);

    for (s = 0; s < total; s++) {
        if (s & 1)
            sweep(a, b, n);
        else
            sweep(b, a, n);
    }
}

double uk_dot_f64(const double *x, const double *y, size_t n)
{
    double acc[8] = {0};
    size_t i, m = uk_scaled(n), k;

    for (i = 0; i + 8 <= m; i += 8)
        for (k = 0; k < 8; k++)
            acc[k] += x[i + k] * y[i + k];
    for (; i < m; i++)
        acc[0] += x[i] * y[i];
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

void uk_stats_f32(const float *x, size_t n, float out[3])
{
    float s[4] = {0}, lo[4], hi[4];
    size_t i, m = uk_scaled(n), k;

    for (k = 0; k < 4; k++)
        lo[k] = hi[k] = m ? x[0] : 0;
    for (i = 0; i + 4 <= m; i += 4)
        for (k = 0; k < 4; k++) {
            float v = x[i + k];
            s[k] += v;
            lo[k] = v < lo[k] ? v : lo[k];
            hi[k] = v > hi[k] ? v : hi[k];
        }
    for (; i < m; i++) {
        s[0] += x[i];
        lo[0] = x[i] < lo[0] ? x[i] : lo[0];
        hi[0] = x[i] > hi[0] ? x[i] : hi[0];
    }
    out[0] = (s[0] + s[1]) + (s[2] + s[3]);
    out[1] = lo[0];
    out[2] = hi[0];
    for (k = 1; k < 4; k++) {
        out[1] = lo[k] < out[1] ? lo[k] : out[1];
        out[2] = hi[k] > out[2] ? hi[k] : out[2];
    }
}

void uk_gather_f32(float *dst, const float *src, const int32_t *idx, size_t n)
{
    size_t i, m = uk_scaled(n);

    for (i = 0; i < m; i++)
        dst[i] = src[idx[i]];
}

void uk_scatter_add_f32(float *hist, const float *w, const int32_t *idx, size_t n)
{
    size_t i, m = uk_scaled(n);

    for (i = 0; i < m; i++)
        hist[idx[i]] += w[i];
}

size_t uk_tokens(const char *text, size_t n)
{
    size_t i = 0, m = uk_scaled(n), tokens = 0;

    while (i < m) {
        char ch = text[i];
        if (ch == ' ' || ch == '\n') {
            i++;
        } else if (ch >= '0' && ch <= '9') {
            while (i < m && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.'))
                i++;
            tokens += 2;
        } else if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_') {
            while (i < m && ((text[i] >= 'a' && text[i] <= 'z') || (text[i] >= 'A' && text[i] <= 'Z') ||
                             (text[i] >= '0' && text[i] <= '9') || text[i] == '_'))
                i++;
            tokens += 3;
        } else if (ch == '"') {
            i++;
            while (i < m && text[i] != '"')
                i++;
            i++;
            tokens += 5;
        } else {
            i++;
            tokens += 1;
        }
    }
    return tokens;
}

void uk_gemm_batch(float *const *a, float *const *b, float *const *c, int nmat, int m, int calls)
{
    int i, total = (int)uk_scaled((size_t)calls);

    for (i = 0; i < total; i++)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0f, a[i % nmat], m, b[i % nmat], m, 0.0f,
                    c[i % nmat], m);
}

void uk_gemm_rows(const float *a, const float *b, float *c, int m, int n)
{
    int rows = (int)uk_scaled((size_t)m);

    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}
