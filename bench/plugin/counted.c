/*
 * counted.c - three small one-thread workloads for the A/B of the
 * instructions instrument (bench/instruments_ab.sh).
 *
 * Builds differ only in the data value `extra_permille`: the per-mille of
 * extra rounds the `mix` case runs. It sits in .rodata and is read at run
 * time, so every build has the same machine code (the script checks that
 * .text is byte-identical) and only `mix` does more work.
 */
#include <perfgate/plugin.h>

#include <stdlib.h>
#include <string.h>

#ifndef EXTRA_PERMILLE
#define EXTRA_PERMILLE 0
#endif

static const volatile int64_t extra_permille = EXTRA_PERMILLE;
static volatile uint64_t result;

/* The rounds are fixed in setup, so an iteration is the loop alone: 1% more rounds is 1% more work. */
static void *mix_setup(pg_state *st)
{
    int64_t n = pg_param_int(st, "n", 100000), *rounds = malloc(sizeof(*rounds));

    if (rounds)
        *rounds = n + n * extra_permille / 1000;
    return rounds;
}

static void mix(void *ctx, pg_state *st, int64_t iters)
{
    int64_t rounds = ctx ? *(const int64_t *)ctx : 0, i, k;

    (void)st;
    for (k = 0; k < iters; k++) {
        uint64_t h = 1469598103934665603ull;
        for (i = 0; i < rounds; i++)
            h = (h ^ (uint64_t)i) * 1099511628211ull;
        result = h;
    }
}

static void *array_setup(pg_state *st)
{
    int64_t n = pg_param_int(st, "n", 4096), i;
    uint32_t *a = malloc((size_t)n * sizeof(*a));

    for (i = 0; a && i < n; i++)
        a[i] = (uint32_t)(i * 2654435761u);
    return a;
}

static void sum(void *ctx, pg_state *st, int64_t iters)
{
    const uint32_t *a = ctx;
    int64_t n = pg_param_int(st, "n", 4096), i, k;
    uint64_t s = 0;

    for (k = 0; k < iters; k++)
        for (i = 0; i < n; i++)
            s += a[i];
    result = s;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

    return (a > b) - (a < b);
}

static void sort(void *ctx, pg_state *st, int64_t iters)
{
    const uint32_t *a = ctx;
    int64_t n = pg_param_int(st, "n", 4096), k;
    uint32_t *b = malloc((size_t)n * sizeof(*b));

    for (k = 0; b && k < iters; k++) {
        memcpy(b, a, (size_t)n * sizeof(*b));
        qsort(b, (size_t)n, sizeof(*b), cmp_u32);
        result = b[n / 2];
    }
    free(b);
}

static const pg_benchmark table[] = {
    {"mix", "n rounds of FNV mixing (plus extra_permille)", NULL, mix_setup, mix, free},
    {"sum", "sum of n integers", NULL, array_setup, sum, free},
    {"sort", "qsort of n integers", NULL, array_setup, sort, free},
};

PG_PLUGIN_DEFINE("counted", table)
