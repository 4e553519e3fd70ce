/*
 * counted.c - a plugin for the counting instruments' tests.
 *
 *   alloc_exact  each iteration allocates `count` blocks of `size` bytes and
 *                frees them: exactly size*count bytes in count allocations
 *   leak         each iteration allocates `size` bytes and keeps them
 *   work         `n` rounds of integer mixing plus EXTRA_PERMILLE per mille
 *                more; the extra is a data value (.rodata), so builds that
 *                differ in it have the same machine code
 *   paused       work, with a pause/resume around untimed setup each iteration
 *   unmeasured   the same, the untimed part in a PG_UNMEASURED block
 */
#include <perfgate/perfgate.h>

#include <stdlib.h>

#ifndef EXTRA_PERMILLE
#define EXTRA_PERMILLE 0
#endif

static const volatile int64_t extra_permille = EXTRA_PERMILLE;
static void *volatile sink;
static volatile uint64_t result;

static void alloc_exact(pg_state *st)
{
    int64_t size = pg_param_int(st, "size", 1000), count = pg_param_int(st, "count", 3), i;
    void *blocks[64];

    if (count > 64)
        count = 64;
    while (pg_keep_running(st)) {
        for (i = 0; i < count; i++) {
            blocks[i] = malloc((size_t)size);
            sink = blocks[i];
        }
        for (i = 0; i < count; i++)
            free(blocks[i]);
    }
}

static void leak_iterate(void *ctx, pg_state *st, int64_t iters)
{
    int64_t size = pg_param_int(st, "size", 4096), i;

    (void)ctx;
    for (i = 0; i < iters; i++)
        sink = malloc((size_t)size);
}

static uint64_t mix(int64_t rounds)
{
    uint64_t h = 1469598103934665603ull;
    int64_t i;

    for (i = 0; i < rounds; i++)
        h = (h ^ (uint64_t)i) * 1099511628211ull;
    return h;
}

static void work_iterate(void *ctx, pg_state *st, int64_t iters)
{
    int64_t n = pg_param_int(st, "n", 100000), i;

    (void)ctx;
    for (i = 0; i < iters; i++)
        result = mix(n + n * extra_permille / 1000);
}

static void paused(pg_state *st)
{
    int64_t n = pg_param_int(st, "n", 10000);

    while (pg_keep_running(st)) {
        pg_pause_timing(st);
        result = mix(50 * n); /* untimed: must not count */
        pg_resume_timing(st);
        result = mix(n);
    }
}

static void unmeasured(pg_state *st)
{
    int64_t n = pg_param_int(st, "n", 10000);

    while (pg_keep_running(st)) {
        PG_UNMEASURED(st) { result = mix(50 * n); }
        result = mix(n);
    }
}

static const pg_benchmark table[] = {
    {"alloc_exact", "size*count bytes in count allocations per iteration", alloc_exact, NULL, NULL, NULL},
    {"leak", "size bytes per iteration, never freed", NULL, NULL, leak_iterate, NULL},
    {"work", "n rounds of mixing, plus EXTRA_PERMILLE", NULL, NULL, work_iterate, NULL},
    {"paused", "n rounds timed, 50n untimed", paused, NULL, NULL, NULL},
    {"unmeasured", "n rounds measured, 50n in PG_UNMEASURED", unmeasured, NULL, NULL, NULL},
};

PG_PLUGIN_DEFINE("counted", table)
