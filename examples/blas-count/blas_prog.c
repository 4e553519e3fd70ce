/*
 * blas_prog.c - a program that knows nothing of perfgate and calls CBLAS
 * from three functions; `perfgate count -- ./blas_prog` counts its FLOPs.
 *
 *   embed   3 x cblas_sgemm  [64,32]x[32,48]   3 * 2*64*48*32 = 589,824
 *   refine  1 x cblas_dgemm  [40,40]x[40,40]       2*40*40*40 = 128,000
 *   score   1 x cblas_sgemv  [100,50]x[50]           2*100*50 =  10,000
 *
 * An optional argument repeats the whole pass (each count times it).
 * refine runs inside the range "refine_step" (perfgate/count.h), which
 * costs nothing when the program is not being counted.
 */
#include <perfgate/count.h>

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>

/* noinline: the table names the function that called BLAS, as written. */
__attribute__((noinline)) void embed(const float *x, const float *w, float *out)
{
    int i;

    for (i = 0; i < 3; i++)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 64, 48, 32, 1.0f, x, 32, w, 48, 0.0f, out, 48);
}

__attribute__((noinline)) void refine(const double *a, const double *b, double *c)
{
    PG_COUNT_RANGE_PUSH("refine_step");
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 40, 40, 40, 1.0, a, 40, b, 40, 0.0, c, 40);
    PG_COUNT_RANGE_POP();
}

__attribute__((noinline)) void score(const float *m, const float *v, float *y)
{
    cblas_sgemv(CblasRowMajor, CblasNoTrans, 100, 50, 1.0f, m, 50, v, 1, 0.0f, y, 1);
}

int main(int argc, char **argv)
{
    static float x[64 * 32], w[32 * 48], out[64 * 48], m[100 * 50], v[50], y[100];
    static double a[40 * 40], b[40 * 40], c[40 * 40];
    long reps = argc > 1 ? strtol(argv[1], NULL, 10) : 1, r;
    int i;

    for (i = 0; i < 64 * 32; i++)
        x[i] = (float)(i % 7) * 0.125f;
    for (i = 0; i < 32 * 48; i++)
        w[i] = (float)(i % 5) * 0.25f;
    for (i = 0; i < 100 * 50; i++)
        m[i] = (float)(i % 3);
    for (i = 0; i < 50; i++)
        v[i] = 1.0f;
    for (i = 0; i < 40 * 40; i++) {
        a[i] = (double)(i % 11);
        b[i] = 1.0 / (1 + i % 13);
    }
    for (r = 0; r < reps; r++) {
        embed(x, w, out);
        refine(a, b, c);
        score(m, v, y);
    }
    printf("%.1f %.1f %.1f\n", (double)out[0], c[0], (double)y[0]);
    return 0;
}
