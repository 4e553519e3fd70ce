/*
 * cuda_load.c - the cuda_api.h calls of a CUDA build, forwarded to
 * libperfgate-cuda.so, which is opened at the first of them (cuda_module.h).
 *
 * A command that never calls one never loads the CUDA runtime or cuBLAS.
 * When the module cannot be loaded, every call fails with PG_ESKIP and the
 * reason, as a build without a device does, so a GPU case is skipped and
 * the doctor says why. Without the CUDA backend this file is empty and
 * cuda.c says "built without the CUDA backend".
 */
#include "perfgate/config.h"

#if PG_HAS_CUDA
#include "backend/cuda_module.h"

#include "base/instrument.h"
#include "perfgate/errors.h"
#include "base/util.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const pg_cuda_module *module_table;
static char load_error[1024];

/* $PERFGATE_CUDA_MODULE, beside this program, in an installed tree's lib/perfgate, or in the build tree (tests). */
static char *find_module(void)
{
    const char *env = getenv("PERFGATE_CUDA_MODULE");

    if (env && *env)
        return pg__strdup(env);
    return pg__find_companion(PG_CUDA_MODULE_FILE, PG_CUDA_MODULE_BUILD_DIR);
}

static void load(void)
{
    char *path = find_module();
    void *h, *sym;
    pg_cuda_module_open_fn open_fn;
    const pg_cuda_module *m;

    /* The module reports through these; naming them keeps them in a program linked from the static library. */
    (void)&pg__instrument;
    (void)&pg_error_last;
    if (!path) {
        snprintf(load_error, sizeof(load_error),
                 "no CUDA device: the CUDA backend (%s) is not beside perfgate, in its " PG_PKGLIBDIR_FROM_BINDIR " or in %s; "
                 "set PERFGATE_CUDA_MODULE to it",
                 PG_CUDA_MODULE_FILE, PG_CUDA_MODULE_BUILD_DIR);
        return;
    }
    if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
        snprintf(load_error, sizeof(load_error),
                 "no CUDA device: the CUDA backend could not be loaded (%s); set PERFGATE_CUDA_MODULE to %s",
                 dlerror(), PG_CUDA_MODULE_FILE);
    } else if (!(sym = dlsym(h, PG_CUDA_MODULE_SYMBOL)) ||
               /* POSIX guarantees data and function pointers convert through dlsym. */
               (memcpy(&open_fn, &sym, sizeof(open_fn)), !(m = open_fn())) || m->abi != PG_CUDA_MODULE_ABI) {
        snprintf(load_error, sizeof(load_error), "no CUDA device: %s is not this perfgate's CUDA backend", path);
        dlclose(h);
    } else {
        module_table = m;
    }
    free(path);
}

/* The module's table, loading it once; NULL with PG_ESKIP and the reason set when it cannot be loaded. */
static const pg_cuda_module *module(void)
{
    pthread_once(&once, load);
    if (!module_table)
        pg_error_set(PG_ESKIP, "%s", load_error);
    return module_table;
}

int pg_cuda_probe(void)
{
    const pg_cuda_module *m = module();

    return m ? m->probe() : PG_ESKIP;
}

int pg__cuda_info(pg_cuda_info *out)
{
    const pg_cuda_module *m = module();

    memset(out, 0, sizeof(*out));
    return m ? m->info(out) : PG_ESKIP;
}

int pg__cuda_workload_new(pg_cuda_workload **out, const pg_cuda_spec *spec)
{
    const pg_cuda_module *m = module();

    *out = NULL;
    return m ? m->workload_new(out, spec) : PG_ESKIP;
}

int pg__cuda_workload_run(pg_cuda_workload *w, int64_t iters)
{
    const pg_cuda_module *m = module();

    return m ? m->workload_run(w, iters) : PG_ESKIP;
}

int pg__cuda_workload_verify(pg_cuda_workload *w)
{
    const pg_cuda_module *m = module();

    return m ? m->workload_verify(w) : PG_ESKIP;
}

void pg__cuda_workload_free(pg_cuda_workload *w)
{
    /* A workload exists only if the module made it. */
    if (w && module_table)
        module_table->workload_free(w);
}

int pg__cuda_gemm(pg_cuda_workload *w, const char *op, pg_cuda_dtype dtype, int64_t m, int64_t n, int64_t k,
                  const void *a, const void *b, void *c)
{
    const pg_cuda_module *t = module();

    return t ? t->gemm(w, op, dtype, m, n, k, a, b, c) : PG_ESKIP;
}

int pg__cuda_workload_time(double *out_s, pg_cuda_workload *w, int64_t iters)
{
    const pg_cuda_module *m = module();

    return m ? m->workload_time(out_s, w, iters) : PG_ESKIP;
}

int pg__cuda_workload_flush_l2(pg_cuda_workload *w)
{
    const pg_cuda_module *m = module();

    return m ? m->workload_flush_l2(w) : PG_ESKIP;
}

int pg__cuda_sm_clock(unsigned *out_mhz)
{
    const pg_cuda_module *m = module();

    *out_mhz = 0;
    return m ? m->sm_clock(out_mhz) : PG_ESKIP;
}

unsigned pg__cuda_sm_default_clock(void)
{
    const pg_cuda_module *m = module();

    return m ? m->sm_default_clock() : 0;
}

int pg_cuda_stream_create(void **out)
{
    const pg_cuda_module *m = module();

    *out = NULL;
    return m ? m->stream_create(out) : PG_ESKIP;
}

int pg_cuda_stream_sync(void *stream)
{
    return stream && module_table ? module_table->stream_sync(stream) : 0;
}

void pg_cuda_stream_destroy(void *stream)
{
    if (stream && module_table)
        module_table->stream_destroy(stream);
}
#else
typedef int pg__cuda_load_unused; /* ISO C: a translation unit is never empty */
#endif
