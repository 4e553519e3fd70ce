/*
 * blocks.c - a plugin that records the iterations of every call it gets
 * (callback form), for the injected-change test: with extra work, a block
 * of N counted iterations must run N * (1 + extra) of them.
 */
#include <perfgate/perfgate.h>

#include <stdint.h>

PG_PLUGIN_EXPORT int64_t blocks_last_iters;
PG_PLUGIN_EXPORT int64_t blocks_total_iters;
static volatile uint64_t sink;

static void *setup(pg_state *st)
{
    (void)st;
    blocks_last_iters = blocks_total_iters = 0;
    return (void *)&sink;
}

static void iterate(void *ctx, pg_state *st, int64_t iters)
{
    int64_t i, j;

    (void)ctx;
    (void)st;
    blocks_last_iters = iters;
    blocks_total_iters += iters;
    /* A dependent chain of real work per iteration (about a microsecond). */
    for (i = 0; i < iters; i++)
        for (j = 0; j < 300; j++)
            sink = sink * 6364136223846793005ull + 1442695040888963407ull;
}

static const pg_benchmark benchmarks[] = {{"blocks", "records its calls' iterations", NULL, setup, iterate, NULL}};

PG_PLUGIN_DEFINE("blocks", benchmarks)
