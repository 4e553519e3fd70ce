/*
 * count_overhead.c - what libperfgate_count.so adds to one BLAS call. Calls
 * sgemv on a 1x1 matrix (the cheapest real forwarded call) in a tight loop,
 * through CBLAS (cblas_sgemv) or the Fortran interface (sgemv_, as PyTorch
 * calls BLAS), and prints nanoseconds per call: the fastest of REPS timings
 * of N calls. bench/count_overhead.sh runs it without the library, with it
 * loaded but not counting, and counting.
 *   usage: count_overhead [N] [REPS] [cblas|fortran]
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void sgemv_(const char *, const int *, const int *, const float *, const float *, const int *, const float *,
            const int *, const float *, float *, const int *);

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000, i;
    int reps = argc > 2 ? atoi(argv[2]) : 7, r, one = 1;
    int fortran = argc > 3 && strcmp(argv[3], "fortran") == 0;
    float a = 1, x = 1, y = 0, alpha = 1, beta = 0;
    double best = 1e30;

    for (r = 0; r < reps; r++) {
        double t0 = now();
        if (fortran)
            for (i = 0; i < n; i++)
                sgemv_("N", &one, &one, &alpha, &a, &one, &x, &one, &beta, &y, &one);
        else
            for (i = 0; i < n; i++)
                cblas_sgemv(CblasRowMajor, CblasNoTrans, 1, 1, 1.0f, &a, 1, &x, 1, 0.0f, &y, 1);
        t0 = now() - t0;
        best = t0 < best ? t0 : best;
    }
    printf("%.2f\n", best / (double)n * 1e9);
    return y == 0;
}
