/*
 * kern.c - a small library of two kernels and their perfgate plugin, the
 * code of the repository tests/data/bisect/make_repo.sh builds commit by
 * commit. Both kernels run sweeps of a multiply-add over arrays that stay
 * in L1; work.h says how many sweeps, so a commit that makes a kernel
 * slower does more of the same real work. Each kernel has its own sweep
 * function with its count built in: a shared one taking the count would
 * be specialised by the compiler when both counts are equal and not when
 * they differ, so a change to one kernel would move the other.
 */
#include <perfgate/perfgate.h>

#include <stdlib.h>

#include "work.h"

enum { N = 1024 };

/* Each sweep reads what the last one wrote. */
#define SWEEPS(name, count)                                                                                  \
    static __attribute__((noinline)) void name(float *y, const float *x)                                     \
    {                                                                                                        \
        int s, i;                                                                                            \
        for (s = 0; s < (count); s++) {                                                                      \
            for (i = 0; i < N; i++)                                                                          \
                y[i] = y[i] * 0.999f + x[i];                                                                 \
            __asm__ volatile("" : : "r"(y) : "memory");                                                      \
        }                                                                                                    \
    }

SWEEPS(sweeps_a, A_SWEEPS)
SWEEPS(sweeps_b, B_SWEEPS)

static __attribute__((noinline, noclone)) void kernel(pg_state *st, void (*sweeps)(float *, const float *), int count)
{
    float *x = aligned_alloc(64, N * sizeof(float)), *y = aligned_alloc(64, N * sizeof(float));
    int i;

    if (!x || !y) {
        pg_error(st, "cannot allocate the arrays");
        free(x);
        free(y);
        return;
    }
    for (i = 0; i < N; i++) {
        x[i] = (float)(1 + i % 17) * 0.01f; /* never 0: y then tends to 0 and its denormals slow every sweep */
        y[i] = 1.0f;
    }
    pg_flops(st, 2.0 * N * count);
    while (pg_keep_running(st))
        sweeps(y, x);
    free(x);
    free(y);
}

static void kern_a(pg_state *st)
{
    kernel(st, sweeps_a, A_SWEEPS);
}

static void kern_b(pg_state *st)
{
    kernel(st, sweeps_b, B_SWEEPS);
}

static const pg_benchmark benchmarks[] = {
    {"kern_a", "sweeps of a multiply-add, A_SWEEPS per iteration", kern_a, NULL, NULL, NULL},
    {"kern_b", "the same, B_SWEEPS per iteration", kern_b, NULL, NULL, NULL},
};

PG_PLUGIN_DEFINE("kern", benchmarks)
