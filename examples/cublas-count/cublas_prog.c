/*
 * cublas_prog.c - a program that calls cuBLAS GEMMs and knows nothing of
 * perfgate: what `perfgate count` counts on a GPU program.
 *
 *   project  cublasSgemm                [128,64]x[64,96]      2*128*96*64   = 1,572,864
 *   batch    cublasSgemmStridedBatched  8 x [32,16]x[16,32]   8*2*32*32*16  =   262,144
 *   mixed    cublasGemmEx (fp32)        [64,64]x[64,64]       2*64*64*64    =   524,288
 *
 * With a device each call runs on it. Without one (cublasCreate fails), it
 * still calls every entry point with a NULL handle, which cuBLAS refuses on
 * the host without touching a device, and prints why the device calls were
 * skipped: the counter then sees each call, with its shape, as refused.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>

static cublasHandle_t handle;
static float *A, *B, *C;

__attribute__((noinline)) cublasStatus_t project(void)
{
    const float one = 1, zero = 0;
    return cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 128, 96, 64, &one, A, 128, B, 64, &zero, C, 128);
}

__attribute__((noinline)) cublasStatus_t batch(void)
{
    const float one = 1, zero = 0;
    return cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, 32, 32, 16, &one, A, 32, 32 * 16, B, 16,
                                     16 * 32, &zero, C, 32, 32 * 32, 8);
}

__attribute__((noinline)) cublasStatus_t mixed(void)
{
    const float one = 1, zero = 0;
    return cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &one, A, CUDA_R_32F, 64, B, CUDA_R_32F, 64,
                        &zero, C, CUDA_R_32F, 64, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

int main(void)
{
    cublasStatus_t st = cublasCreate(&handle);
    int device = st == CUBLAS_STATUS_SUCCESS;

    if (device && (cudaMalloc((void **)&A, 1 << 20) != cudaSuccess || cudaMalloc((void **)&B, 1 << 20) != cudaSuccess ||
                   cudaMalloc((void **)&C, 1 << 20) != cudaSuccess))
        device = 0;
    if (!device) {
        handle = NULL;
        printf("device calls skipped: cublasCreate returned %d (%s); calling the entry points with no handle\n", (int)st,
               st == CUBLAS_STATUS_NOT_INITIALIZED ? "no usable CUDA device or driver" : "cuBLAS error");
    }
    st = project();
    printf("project: %d\n", (int)st);
    st = batch();
    printf("batch: %d\n", (int)st);
    st = mixed();
    printf("mixed: %d\n", (int)st);
    if (device) {
        cudaDeviceSynchronize();
        cublasDestroy(handle);
    }
    return 0;
}
