/*
 * cuda_module.cu - the entry point of libperfgate-cuda.so (cuda_module.h):
 * the table of the module's cuda_api.h functions, and the CUDA streams the
 * plugin host hands to GPU plugin cases.
 */
#include "backend/cuda_module.h"

#include "backend/cuda_check.h"
#include "perfgate/errors.h"

#include <cuda_runtime.h>

static int stream_create(void **out)
{
    cudaStream_t s;
    cudaError_t e = cudaStreamCreate(&s);

    if (e != cudaSuccess)
        return pg_error_set(PG_ESKIP, "no usable CUDA device: %s", cudaGetErrorString(e));
    *out = s;
    return 0;
}

static int stream_sync(void *stream)
{
    return PG_CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)stream));
}

static void stream_destroy(void *stream)
{
    cudaStreamDestroy((cudaStream_t)stream);
}

static const pg_cuda_module table = {
    PG_CUDA_MODULE_ABI,
    pg_cuda_probe,
    pg__cuda_info,
    pg__cuda_workload_new,
    pg__cuda_workload_run,
    pg__cuda_workload_verify,
    pg__cuda_workload_free,
    pg__cuda_gemm,
    pg__cuda_workload_time,
    pg__cuda_workload_flush_l2,
    pg__cuda_sm_clock,
    pg__cuda_sm_default_clock,
    stream_create,
    stream_sync,
    stream_destroy,
};

extern "C" __attribute__((visibility("default"))) const pg_cuda_module *pg__cuda_module_open(void)
{
    return &table;
}
