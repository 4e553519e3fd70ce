/* cuda.c - built-in CUDA kernels (the backend is optional at build time). */
#include "backend/backend.h"

#include "perfgate/config.h"

int pg__backend_cuda_case(pg_result *out, const pg_case *c, const pg_exec_options *opts)
{
    (void)c;
    (void)opts;
    if (!PG_HAS_CUDA)
        return pg__result_skip(out, "built without the CUDA backend");
    return pg__result_skip(out, "the CUDA backend has no kernels in this build");
}
