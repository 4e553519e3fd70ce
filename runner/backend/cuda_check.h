/*
 * cuda_check.h - the one checking macro for every CUDA runtime and cuBLAS
 * call (after nvbench's NVBENCH_CUDA_CALL). Included only by .cu files.
 *
 *     if ((err = PG_CUDA_CHECK(cudaMalloc(&p, bytes))) != 0)
 *         goto cleanup;
 *
 * On failure it sets the one-line error message "FILE:LINE: CALL failed:
 * library error string (error name)" and returns PG_EDEVICE; on success 0.
 * Kernel launches are checked with PG_CUDA_CHECK(cudaGetLastError()).
 */
#ifndef PG_CUDA_CHECK_H
#define PG_CUDA_CHECK_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <string.h>

#include "perfgate/errors.h"

static inline const char *pg__cuda_basename(const char *file)
{
    const char *slash = strrchr(file, '/');

    return slash ? slash + 1 : file;
}

static inline int pg__cuda_status(cudaError_t st, const char *file, int line, const char *call)
{
    if (st == cudaSuccess)
        return 0;
    return pg_error_set(PG_EDEVICE, "%s:%d: %s failed: %s (%s)", pg__cuda_basename(file), line, call,
                        cudaGetErrorString(st), cudaGetErrorName(st));
}

static inline int pg__cuda_status(cublasStatus_t st, const char *file, int line, const char *call)
{
    if (st == CUBLAS_STATUS_SUCCESS)
        return 0;
    return pg_error_set(PG_EDEVICE, "%s:%d: %s failed: %s (%s)", pg__cuda_basename(file), line, call,
                        cublasGetStatusString(st), cublasGetStatusName(st));
}

#define PG_CUDA_CHECK(call) pg__cuda_status((call), __FILE__, __LINE__, #call)

#endif
