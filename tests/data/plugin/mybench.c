/*
 * mybench.c - the plugin that the complete example in docs/suites.md names
 * (./build/libmybench.so): BM_copy copies `bytes` bytes on the CPU,
 * BM_copy_gpu asks for a CUDA device and skips with the reason where there is none.
 */
#include <perfgate/perfgate.h>

#include <stdlib.h>
#include <string.h>

static void escape(void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

static void copy(pg_state *st)
{
    int64_t n = pg_param_int(st, "bytes", 65536);
    char *a = calloc(1, (size_t)n), *b = calloc(1, (size_t)n);

    if (!a || !b) {
        pg_error(st, "cannot allocate the buffers");
        free(a);
        free(b);
        return;
    }
    pg_bytes(st, 2.0 * (double)n);
    while (pg_keep_running(st)) {
        memcpy(b, a, (size_t)n);
        escape(b);
    }
    free(a);
    free(b);
}

static void copy_gpu(pg_state *st)
{
    pg_skip(st, "this example plugin has no CUDA copy; a real one would launch cudaMemcpyAsync here");
}

static const pg_benchmark benchmarks[] = {
    {"BM_copy", "memcpy of `bytes` bytes", copy, NULL, NULL, NULL},
    {"BM_copy_gpu", "the GPU copy (skipped here)", copy_gpu, NULL, NULL, NULL},
};

PG_PLUGIN_DEFINE("mybench", benchmarks)
