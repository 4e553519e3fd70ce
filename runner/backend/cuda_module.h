/*
 * cuda_module.h - the table between perfgate and libperfgate-cuda.so, the
 * CUDA backend's device code built as a module of its own.
 *
 * The CUDA runtime and cuBLAS cost a process about 0.1 s of CPU and 200 MB
 * of resident memory just by being linked, before main() runs. Most commands
 * (compare, history, import, report) never touch a GPU, so the .cu files are
 * linked into the module with both libraries, and cuda_load.c opens it with
 * dlopen() at the first cuda_api.h call: a GPU case, the doctor, the
 * fingerprint of a run that measures one.
 *
 * The module resolves pg_error_set(), pg_error_last() and pg__instrument
 * against the program that loads it (exported with a linker dynamic list),
 * so its errors and the ops it reports land where the rest of perfgate's do.
 */
#ifndef PG_CUDA_MODULE_H
#define PG_CUDA_MODULE_H

#include "backend/cuda_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bumped whenever the table below changes; a module of another version is refused. */
#define PG_CUDA_MODULE_ABI 1
/** The one symbol the module exports: pg_cuda_module_open_fn. */
#define PG_CUDA_MODULE_SYMBOL "pg__cuda_module_open"
/** The module's file name (beside perfgate, in ../lib/perfgate, or in the build tree). */
#define PG_CUDA_MODULE_FILE "libperfgate-cuda.so"

/** The cuda_api.h calls the module implements, plus the plugin host's streams. */
typedef struct pg_cuda_module {
    unsigned abi;
    int (*probe)(void);
    int (*info)(pg_cuda_info *out);
    int (*workload_new)(pg_cuda_workload **out, const pg_cuda_spec *spec);
    int (*workload_run)(pg_cuda_workload *w, int64_t iters);
    int (*workload_verify)(pg_cuda_workload *w);
    void (*workload_free)(pg_cuda_workload *w);
    int (*gemm)(pg_cuda_workload *w, const char *op, pg_cuda_dtype dtype, int64_t m, int64_t n, int64_t k,
                const void *a, const void *b, void *c);
    int (*workload_time)(double *out_s, pg_cuda_workload *w, int64_t iters);
    int (*workload_flush_l2)(pg_cuda_workload *w);
    int (*sm_clock)(unsigned *out_mhz);
    unsigned (*sm_default_clock)(void);
    int (*stream_create)(void **out);
    int (*stream_sync)(void *stream);
    void (*stream_destroy)(void *stream);
} pg_cuda_module;

typedef const pg_cuda_module *(*pg_cuda_module_open_fn)(void);

#ifdef __cplusplus
}
#endif
#endif
