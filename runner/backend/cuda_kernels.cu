/*
 * cuda_kernels.cu - the built-in GPU workloads: cuBLAS GEMM in four
 * precisions, device-to-device copy, elementwise add and GELU, row softmax,
 * a masked select whose count pass syncs with the host, and a small "step"
 * (Linear + GELU, optionally followed by a masked select) for ops checks.
 *
 * Every workload runs on its own non-blocking stream, so the two timing
 * events of a block bracket exactly its work. Inputs are uniform random in
 * [-1, 1) from a counter-based generator that the host can evaluate too, so
 * verification recomputes sampled outputs on the CPU without copying inputs
 * back. Ops and ranges go through the instrument hooks like CPU kernels.
 */
#include "backend/cuda_api.h"
#include "backend/cuda_check.h"

extern "C" {
#include "base/instrument.h"
}
#include "perfgate/errors.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pg_cuda_workload {
    pg_cuda_spec spec;
    cudaStream_t stream;
    cublasHandle_t blas;
    cudaEvent_t ev0, ev1;
    void *a, *b, *c;       /* inputs and output; layout depends on the kind */
    float *h;              /* step: the hidden activations after GELU */
    int *flags, *pos;      /* masked select: row selected, output row */
    int *d_count, *h_count; /* the count, on the device and in pinned host memory */
    void *l2;              /* the L2 flush buffer, allocated at the first flush */
    size_t l2_bytes;
    int sms;
};

/* ---- random inputs the host can recompute --------------------------------- */

__host__ __device__ static inline float uniform_at(uint64_t seed, uint64_t i)
{
    /* splitmix64 of (seed, index): the same value on host and device. */
    uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return -1.0f + 2.0f * (float)((double)(z >> 40) * (1.0 / 16777216.0));
}

template <typename T> __host__ __device__ static inline T from_float(float x);
template <> __host__ __device__ inline float from_float<float>(float x) { return x; }
template <> __host__ __device__ inline __half from_float<__half>(float x) { return __float2half_rn(x); }
template <> __host__ __device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float x)
{
    return __float2bfloat16_rn(x);
}

static inline float to_float(float x) { return x; }
static inline float to_float(__half x) { return __half2float(x); }
static inline float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T> __global__ void fill_kernel(T *x, size_t n, uint64_t seed)
{
    size_t i;

    for (i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = from_float<T>(uniform_at(seed, i));
}

static unsigned grid_for(const pg_cuda_workload *w, size_t n, unsigned threads)
{
    size_t blocks = (n + threads - 1) / threads, cap = (size_t)(w->sms > 0 ? w->sms : 80) * 32;

    return (unsigned)(blocks < 1 ? 1 : blocks > cap ? cap : blocks);
}

template <typename T> static int fill(pg_cuda_workload *w, void *x, size_t n, uint64_t seed)
{
    fill_kernel<T><<<grid_for(w, n, 256), 256, 0, w->stream>>>((T *)x, n, seed);
    return PG_CUDA_CHECK(cudaGetLastError());
}

/* ---- elementwise, softmax, masked select kernels -------------------------- */

__global__ void add_kernel(const float *a, const float *b, float *c, size_t n)
{
    size_t i;

    for (i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        c[i] = a[i] + b[i];
}

__host__ __device__ static inline float gelu_of(float x)
{
    /* torch's default (approximate='none'): x·Φ(x) with the exact erf. */
    return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
}

__global__ void gelu_kernel(const float *x, float *y, size_t n)
{
    size_t i;

    for (i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = gelu_of(x[i]);
}

#define SOFTMAX_THREADS 256

__device__ static float block_reduce(float v, int is_max)
{
    __shared__ float part[SOFTMAX_THREADS / 32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, off;

    for (off = 16; off > 0; off /= 2) {
        float o = __shfl_xor_sync(0xffffffffu, v, off);
        v = is_max ? fmaxf(v, o) : v + o;
    }
    if (lane == 0)
        part[warp] = v;
    __syncthreads();
    v = part[0];
    for (off = 1; off < SOFTMAX_THREADS / 32; off++)
        v = is_max ? fmaxf(v, part[off]) : v + part[off];
    __syncthreads(); /* part[] is reused by the next reduction */
    return v;
}

/* One block per row: the max, the sum of exponentials, then the quotients. */
__global__ void softmax_kernel(const float *x, float *y, int64_t cols)
{
    const float *row = x + blockIdx.x * cols;
    float *out = y + blockIdx.x * cols;
    float mx = -INFINITY, sum = 0;
    int64_t j;

    for (j = threadIdx.x; j < cols; j += blockDim.x)
        mx = fmaxf(mx, row[j]);
    mx = block_reduce(mx, 1);
    for (j = threadIdx.x; j < cols; j += blockDim.x)
        sum += expf(row[j] - mx);
    sum = block_reduce(sum, 0);
    for (j = threadIdx.x; j < cols; j += blockDim.x)
        out[j] = expf(row[j] - mx) / sum;
}

#define SCAN_THREADS 1024

/*
 * nonzero: which rows have x[r, 0] > 0 (the lesson's x[x[:, 0] > 0]), their
 * output positions in order, and the count. One block scans all rows: each
 * thread counts a contiguous chunk, the block scans the chunk totals, and
 * each thread then writes its chunk's positions.
 */
__global__ void nonzero_kernel(const float *x, int64_t rows, int64_t cols, int *flags, int *pos, int *count)
{
    __shared__ int sums[SCAN_THREADS];
    int64_t chunk = (rows + SCAN_THREADS - 1) / SCAN_THREADS;
    int64_t lo = threadIdx.x * chunk, hi = lo + chunk < rows ? lo + chunk : rows, r;
    int local = 0, off, v;

    for (r = lo; r < hi; r++) {
        flags[r] = x[r * cols] > 0.0f;
        local += flags[r];
    }
    sums[threadIdx.x] = local;
    __syncthreads();
    for (off = 1; off < SCAN_THREADS; off *= 2) {
        v = threadIdx.x >= (unsigned)off ? sums[threadIdx.x - off] : 0;
        __syncthreads();
        sums[threadIdx.x] += v;
        __syncthreads();
    }
    local = sums[threadIdx.x] - local; /* exclusive prefix of this chunk */
    for (r = lo; r < hi; r++) {
        pos[r] = local;
        local += flags[r];
    }
    if (threadIdx.x == SCAN_THREADS - 1)
        *count = sums[SCAN_THREADS - 1];
}

__global__ void gather_kernel(const float *x, const int *flags, const int *pos, int64_t rows, int64_t cols,
                              float *out)
{
    size_t n = (size_t)rows * (size_t)cols, i;

    for (i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        size_t r = i / (size_t)cols, j = i % (size_t)cols;
        if (flags[r])
            out[(size_t)pos[r] * (size_t)cols + j] = x[i];
    }
}

/* ---- the GEMM entry point ------------------------------------------------- */

static size_t dtype_size(pg_cuda_dtype d)
{
    return d == PG_CUDA_FP16 || d == PG_CUDA_BF16 ? 2 : 4;
}

static cudaDataType_t dtype_cuda(pg_cuda_dtype d)
{
    return d == PG_CUDA_FP16 ? CUDA_R_16F : d == PG_CUDA_BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

int pg__cuda_gemm(pg_cuda_workload *w, const char *op, pg_cuda_dtype dtype, int64_t m, int64_t n, int64_t k,
                  const void *a, const void *b, void *c)
{
    const float alpha = 1.0f, beta = 0.0f;
    cublasComputeType_t compute = dtype == PG_CUDA_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    cudaDataType_t t = dtype_cuda(dtype);
    char shape[96];
    int err;

    if (pg__instrument) {
        snprintf(shape, sizeof(shape), "[%lld,%lld]x[%lld,%lld]", (long long)m, (long long)k, (long long)k,
                 (long long)n);
        pg__op_begin(op, shape);
        pg__op_gemm(op, m, n, k);
    }
    /* cuBLAS is column-major: a row-major C = A·B is the column-major C' = B'·A'. */
    err = PG_CUDA_CHECK(cublasGemmEx(w->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m, (int)k, &alpha, b, t,
                                     (int)n, a, t, (int)k, &beta, c, t, (int)n, compute, CUBLAS_GEMM_DEFAULT));
    if (pg__instrument)
        pg__op_end(op);
    return err;
}

/* ---- the masked select (shared by masked_select and step) ----------------- */

static int masked_select(pg_cuda_workload *w, const float *x, int64_t rows, int64_t cols, float *out)
{
    int err = 0;

    pg__range_push("masked_select");
    pg__op_begin("index", NULL);
    pg__op_begin("nonzero", NULL);
    nonzero_kernel<<<1, SCAN_THREADS, 0, w->stream>>>(x, rows, cols, w->flags, w->pos, w->d_count);
    if ((err = PG_CUDA_CHECK(cudaGetLastError())) != 0)
        goto done;
    /* The output's size depends on the data: the host must read the count
     * before it could allocate, and that read waits for the device. */
    pg__op_begin("memcpy_dtoh", NULL);
    err = PG_CUDA_CHECK(cudaMemcpyAsync(w->h_count, w->d_count, sizeof(int), cudaMemcpyDeviceToHost, w->stream));
    pg__op_end("memcpy_dtoh");
    if (err)
        goto done;
    pg__op_begin("stream_sync", NULL);
    err = PG_CUDA_CHECK(cudaStreamSynchronize(w->stream));
    pg__op_end("stream_sync");
    if (err)
        goto done;
    pg__op_end("nonzero");
    if (*w->h_count > 0) {
        gather_kernel<<<grid_for(w, (size_t)rows * (size_t)cols, 256), 256, 0, w->stream>>>(x, w->flags, w->pos,
                                                                                             rows, cols, out);
        err = PG_CUDA_CHECK(cudaGetLastError());
    }
    pg__op_end("index");
    pg__range_pop("masked_select");
    return err;
done:
    pg__op_end("nonzero");
    pg__op_end("index");
    pg__range_pop("masked_select");
    return err;
}

/* ---- workloads ------------------------------------------------------------ */

static int alloc(void **p, size_t bytes)
{
    return PG_CUDA_CHECK(cudaMalloc(p, bytes ? bytes : 1));
}

static int gemm_alloc(pg_cuda_workload *w)
{
    const pg_cuda_spec *s = &w->spec;
    size_t es = dtype_size(s->dtype);
    int err;

    if ((err = alloc(&w->a, (size_t)(s->m * s->k) * es)) != 0 || (err = alloc(&w->b, (size_t)(s->k * s->n) * es)) != 0 ||
        (err = alloc(&w->c, (size_t)(s->m * s->n) * es)) != 0)
        return err;
    if (s->dtype == PG_CUDA_FP16) {
        if ((err = fill<__half>(w, w->a, (size_t)(s->m * s->k), s->seed)) != 0)
            return err;
        return fill<__half>(w, w->b, (size_t)(s->k * s->n), s->seed + 1);
    }
    if (s->dtype == PG_CUDA_BF16) {
        if ((err = fill<__nv_bfloat16>(w, w->a, (size_t)(s->m * s->k), s->seed)) != 0)
            return err;
        return fill<__nv_bfloat16>(w, w->b, (size_t)(s->k * s->n), s->seed + 1);
    }
    if ((err = fill<float>(w, w->a, (size_t)(s->m * s->k), s->seed)) != 0)
        return err;
    return fill<float>(w, w->b, (size_t)(s->k * s->n), s->seed + 1);
}

static int masked_alloc(pg_cuda_workload *w, int64_t rows, int64_t cols)
{
    int err;

    if ((err = alloc((void **)&w->flags, (size_t)rows * sizeof(int))) != 0 ||
        (err = alloc((void **)&w->pos, (size_t)rows * sizeof(int))) != 0 ||
        (err = alloc((void **)&w->d_count, sizeof(int))) != 0 ||
        (err = PG_CUDA_CHECK(cudaMallocHost((void **)&w->h_count, sizeof(int)))) != 0)
        return err;
    *w->h_count = -1;
    (void)cols;
    return 0;
}

static int check_shape(const pg_cuda_spec *s)
{
    const int64_t lim = INT32_MAX;

    switch (s->kind) {
    case PG_CUDA_GEMM:
        if (s->m < 1 || s->n < 1 || s->k < 1 || s->m > lim || s->n > lim || s->k > lim)
            return pg_error_set(PG_EINVAL, "gemm needs 1 <= m, n, k <= %lld", (long long)lim);
        return 0;
    case PG_CUDA_COPY:
    case PG_CUDA_ADD:
    case PG_CUDA_GELU:
        if (s->n < 1)
            return pg_error_set(PG_EINVAL, "n must be at least 1");
        return 0;
    default:
        if (s->rows < 1 || s->cols < 1 || s->rows > lim || s->cols > lim)
            return pg_error_set(PG_EINVAL, "rows and cols must be between 1 and %lld", (long long)lim);
        return 0;
    }
}

int pg__cuda_workload_new(pg_cuda_workload **out, const pg_cuda_spec *spec)
{
    pg_cuda_workload *w = NULL;
    size_t n, rc;
    int err;

    *out = NULL;
    if ((err = check_shape(spec)) != 0)
        return err;
    if ((err = pg_cuda_probe()) != 0)
        return err;
    w = (pg_cuda_workload *)calloc(1, sizeof(*w));
    if (!w)
        return pg_error_set(PG_ENOMEM, "out of memory for a GPU workload");
    w->spec = *spec;
    n = (size_t)spec->n;
    rc = (size_t)spec->rows * (size_t)spec->cols;
    if ((err = PG_CUDA_CHECK(cudaSetDevice(0))) != 0 ||
        (err = PG_CUDA_CHECK(cudaDeviceGetAttribute(&w->sms, cudaDevAttrMultiProcessorCount, 0))) != 0 ||
        (err = PG_CUDA_CHECK(cudaStreamCreateWithFlags(&w->stream, cudaStreamNonBlocking))) != 0 ||
        (err = PG_CUDA_CHECK(cudaEventCreate(&w->ev0))) != 0 || (err = PG_CUDA_CHECK(cudaEventCreate(&w->ev1))) != 0)
        goto cleanup;

    switch (spec->kind) {
    case PG_CUDA_GEMM:
        err = gemm_alloc(w);
        break;
    case PG_CUDA_COPY:
    case PG_CUDA_GELU:
        if ((err = alloc(&w->a, n * sizeof(float))) != 0 || (err = alloc(&w->c, n * sizeof(float))) != 0)
            break;
        err = fill<float>(w, w->a, n, spec->seed);
        break;
    case PG_CUDA_ADD:
        if ((err = alloc(&w->a, n * sizeof(float))) != 0 || (err = alloc(&w->b, n * sizeof(float))) != 0 ||
            (err = alloc(&w->c, n * sizeof(float))) != 0 || (err = fill<float>(w, w->a, n, spec->seed)) != 0)
            break;
        err = fill<float>(w, w->b, n, spec->seed + 1);
        break;
    case PG_CUDA_SOFTMAX:
        if ((err = alloc(&w->a, rc * sizeof(float))) != 0 || (err = alloc(&w->c, rc * sizeof(float))) != 0)
            break;
        err = fill<float>(w, w->a, rc, spec->seed);
        break;
    case PG_CUDA_MASKED_SELECT:
        if ((err = alloc(&w->a, rc * sizeof(float))) != 0 || (err = alloc(&w->c, rc * sizeof(float))) != 0 ||
            (err = masked_alloc(w, spec->rows, spec->cols)) != 0)
            break;
        err = fill<float>(w, w->a, rc, spec->seed);
        break;
    case PG_CUDA_STEP:
        /* X[rows, cols] · W[cols, cols] -> C, then h = gelu(C). */
        if ((err = alloc(&w->a, rc * sizeof(float))) != 0 ||
            (err = alloc(&w->b, (size_t)spec->cols * (size_t)spec->cols * sizeof(float))) != 0 ||
            (err = alloc(&w->c, rc * sizeof(float))) != 0 || (err = alloc((void **)&w->h, rc * sizeof(float))) != 0 ||
            (err = masked_alloc(w, spec->rows, spec->cols)) != 0 || (err = fill<float>(w, w->a, rc, spec->seed)) != 0)
            break;
        err = fill<float>(w, w->b, (size_t)spec->cols * (size_t)spec->cols, spec->seed + 1);
        break;
    }
    if (err)
        goto cleanup;
    if (spec->kind == PG_CUDA_GEMM || spec->kind == PG_CUDA_STEP) {
        /* The handle is created here, not in the first timed call. */
        if ((err = PG_CUDA_CHECK(cublasCreate(&w->blas))) != 0 ||
            (err = PG_CUDA_CHECK(cublasSetStream(w->blas, w->stream))) != 0)
            goto cleanup;
    }
    if ((err = PG_CUDA_CHECK(cudaStreamSynchronize(w->stream))) != 0)
        goto cleanup;
    *out = w;
    w = NULL;

cleanup:
    pg__cuda_workload_free(w);
    return err;
}

static int run_once(pg_cuda_workload *w)
{
    const pg_cuda_spec *s = &w->spec;
    size_t n = (size_t)s->n;
    int err;

    switch (s->kind) {
    case PG_CUDA_GEMM:
        return pg__cuda_gemm(w, "mm", s->dtype, s->m, s->n, s->k, w->a, w->b, w->c);
    case PG_CUDA_COPY:
        pg__op_begin("copy", NULL);
        err = PG_CUDA_CHECK(cudaMemcpyAsync(w->c, w->a, n * sizeof(float), cudaMemcpyDeviceToDevice, w->stream));
        pg__op_end("copy");
        return err;
    case PG_CUDA_ADD:
        pg__op_begin("add", NULL);
        add_kernel<<<grid_for(w, n, 256), 256, 0, w->stream>>>((const float *)w->a, (const float *)w->b,
                                                               (float *)w->c, n);
        pg__op_end("add");
        return PG_CUDA_CHECK(cudaGetLastError());
    case PG_CUDA_GELU:
        pg__op_begin("gelu", NULL);
        gelu_kernel<<<grid_for(w, n, 256), 256, 0, w->stream>>>((const float *)w->a, (float *)w->c, n);
        pg__op_end("gelu");
        return PG_CUDA_CHECK(cudaGetLastError());
    case PG_CUDA_SOFTMAX:
        pg__op_begin("softmax", NULL);
        softmax_kernel<<<(unsigned)s->rows, SOFTMAX_THREADS, 0, w->stream>>>((const float *)w->a, (float *)w->c,
                                                                            s->cols);
        pg__op_end("softmax");
        return PG_CUDA_CHECK(cudaGetLastError());
    case PG_CUDA_MASKED_SELECT:
        return masked_select(w, (const float *)w->a, s->rows, s->cols, (float *)w->c);
    case PG_CUDA_STEP:
        pg__range_push("step");
        err = pg__cuda_gemm(w, "mm", PG_CUDA_FP32, s->rows, s->cols, s->cols, w->a, w->b, w->c);
        if (!err) {
            size_t rc = (size_t)s->rows * (size_t)s->cols;
            pg__op_begin("gelu", NULL);
            gelu_kernel<<<grid_for(w, rc, 256), 256, 0, w->stream>>>((const float *)w->c, w->h, rc);
            pg__op_end("gelu");
            err = PG_CUDA_CHECK(cudaGetLastError());
        }
        /* The output of the select reuses C, which GELU has consumed. */
        if (!err && s->masked)
            err = masked_select(w, w->h, s->rows, s->cols, (float *)w->c);
        pg__range_pop("step");
        return err;
    }
    return pg_error_set(PG_EINVAL, "unknown GPU workload kind %d", (int)s->kind);
}

int pg__cuda_workload_run(pg_cuda_workload *w, int64_t iters)
{
    int64_t i;
    int err;

    for (i = 0; i < iters; i++)
        if ((err = run_once(w)) != 0)
            return err;
    return 0;
}

int pg__cuda_workload_time(double *out_s, pg_cuda_workload *w, int64_t iters)
{
    float ms = 0;
    int err;

    *out_s = 0;
    if ((err = PG_CUDA_CHECK(cudaEventRecord(w->ev0, w->stream))) != 0 || (err = pg__cuda_workload_run(w, iters)) != 0 ||
        (err = PG_CUDA_CHECK(cudaEventRecord(w->ev1, w->stream))) != 0 ||
        (err = PG_CUDA_CHECK(cudaEventSynchronize(w->ev1))) != 0 ||
        (err = PG_CUDA_CHECK(cudaEventElapsedTime(&ms, w->ev0, w->ev1))) != 0)
        return err;
    *out_s = (double)ms * 1e-3;
    return 0;
}

int pg__cuda_workload_flush_l2(pg_cuda_workload *w)
{
    int l2 = 0, err;

    if (!w->l2) {
        if ((err = PG_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0))) != 0)
            return err;
        w->l2_bytes = l2 > 0 ? (size_t)l2 : (size_t)1 << 20;
        if ((err = alloc(&w->l2, w->l2_bytes)) != 0)
            return err;
    }
    if ((err = PG_CUDA_CHECK(cudaMemsetAsync(w->l2, 0, w->l2_bytes, w->stream))) != 0)
        return err;
    return PG_CUDA_CHECK(cudaStreamSynchronize(w->stream));
}

void pg__cuda_workload_free(pg_cuda_workload *w)
{
    if (!w)
        return;
    /* Frees go on even after a device error; their own errors are moot. */
    if (w->stream)
        (void)cudaStreamSynchronize(w->stream);
    if (w->blas)
        (void)cublasDestroy(w->blas);
    (void)cudaFree(w->a);
    (void)cudaFree(w->b);
    (void)cudaFree(w->c);
    (void)cudaFree(w->h);
    (void)cudaFree(w->flags);
    (void)cudaFree(w->pos);
    (void)cudaFree(w->d_count);
    (void)cudaFree(w->l2);
    if (w->h_count)
        (void)cudaFreeHost(w->h_count);
    if (w->ev0)
        (void)cudaEventDestroy(w->ev0);
    if (w->ev1)
        (void)cudaEventDestroy(w->ev1);
    if (w->stream)
        (void)cudaStreamDestroy(w->stream);
    (void)cudaGetLastError();
    free(w);
}

/* ---- verification against a CPU reference --------------------------------- */

#define VERIFY_SAMPLES 64

static int read_back(void *host, const void *dev, size_t bytes)
{
    return PG_CUDA_CHECK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
}

static int out_of_tolerance(const char *what, int64_t i, int64_t j, double got, double want, double tol)
{
    return pg_error_set(PG_EKERNEL, "%s: output[%lld,%lld] = %.9g, CPU reference %.9g, beyond tolerance %.3g", what,
                        (long long)i, (long long)j, got, want, tol);
}

/* An index spread over [0, n) for sample s (deterministic, covers both ends). */
static int64_t sample_index(int s, int64_t n)
{
    if (s == 0)
        return 0;
    if (s == 1)
        return n - 1;
    return (int64_t)(((uint64_t)s * 0x9e3779b97f4a7c15ULL) % (uint64_t)n);
}

template <typename T> static double input_at(uint64_t seed, uint64_t i)
{
    return (double)to_float(from_float<T>(uniform_at(seed, i)));
}

/* Per precision: a bound relative to sum |a·b| (input rounding and fp32
 * accumulation) plus one relative to |c| (rounding of the stored output). */
static void gemm_tolerance(pg_cuda_dtype d, double *tol_in, double *tol_out)
{
    *tol_in = d == PG_CUDA_TF32 ? 4e-3 : 1e-4; /* tf32 rounds inputs to 10 mantissa bits */
    *tol_out = d == PG_CUDA_BF16 ? 8e-3 : d == PG_CUDA_FP16 ? 1e-3 : 1e-6;
}

template <typename T>
static int verify_gemm_t(pg_cuda_workload *w, const void *cdev, int64_t m, int64_t n, int64_t k, uint64_t seed,
                         pg_cuda_dtype dt, const char *what)
{
    double tol_in, tol_out;
    int s, err;

    gemm_tolerance(dt, &tol_in, &tol_out);
    for (s = 0; s < VERIFY_SAMPLES; s++) {
        int64_t i = sample_index(s, m), j = sample_index(s + 7, n), kk;
        double ref = 0, mag = 0, got;
        T c;

        for (kk = 0; kk < k; kk++) {
            double p = input_at<T>(seed, (uint64_t)(i * k + kk)) * input_at<T>(seed + 1, (uint64_t)(kk * n + j));
            ref += p;
            mag += fabs(p);
        }
        if ((err = read_back(&c, (const T *)cdev + i * n + j, sizeof(T))) != 0)
            return err;
        got = (double)to_float(c);
        if (fabs(got - ref) > tol_in * mag + tol_out * fabs(ref) + 1e-30)
            return out_of_tolerance(what, i, j, got, ref, tol_in * mag + tol_out * fabs(ref));
    }
    (void)w;
    return 0;
}

static int verify_gemm(pg_cuda_workload *w)
{
    const pg_cuda_spec *s = &w->spec;
    const char *what = s->dtype == PG_CUDA_BF16   ? "gemm bf16"
                       : s->dtype == PG_CUDA_FP16 ? "gemm fp16"
                       : s->dtype == PG_CUDA_TF32 ? "gemm tf32"
                                                  : "gemm fp32";

    if (s->dtype == PG_CUDA_FP16)
        return verify_gemm_t<__half>(w, w->c, s->m, s->n, s->k, s->seed, s->dtype, what);
    if (s->dtype == PG_CUDA_BF16)
        return verify_gemm_t<__nv_bfloat16>(w, w->c, s->m, s->n, s->k, s->seed, s->dtype, what);
    return verify_gemm_t<float>(w, w->c, s->m, s->n, s->k, s->seed, s->dtype, what);
}

/* Elementwise: y[i] against f(inputs at i), for sampled i. */
static int verify_elementwise(pg_cuda_workload *w)
{
    const pg_cuda_spec *s = &w->spec;
    int i, err;

    for (i = 0; i < VERIFY_SAMPLES; i++) {
        int64_t at = sample_index(i, s->n);
        float got, x = uniform_at(s->seed, (uint64_t)at);
        double want, tol;

        if ((err = read_back(&got, (const float *)w->c + at, sizeof(float))) != 0)
            return err;
        if (s->kind == PG_CUDA_COPY) {
            want = x;
            tol = 0;
        } else if (s->kind == PG_CUDA_ADD) {
            want = (double)(x + uniform_at(s->seed + 1, (uint64_t)at));
            tol = 0;
        } else {
            want = gelu_of(x);
            tol = 1e-6; /* erff differs by an ulp or two between host and device */
        }
        if (fabs((double)got - want) > tol)
            return out_of_tolerance(s->kind == PG_CUDA_COPY ? "copy" : s->kind == PG_CUDA_ADD ? "add" : "gelu", at, 0,
                                    got, want, tol);
    }
    return 0;
}

static int verify_softmax(pg_cuda_workload *w)
{
    const pg_cuda_spec *s = &w->spec;
    float *row = (float *)malloc((size_t)s->cols * sizeof(float));
    int i, err = 0;

    if (!row)
        return pg_error_set(PG_ENOMEM, "out of memory verifying softmax");
    for (i = 0; i < 8 && !err; i++) {
        int64_t r = sample_index(i, s->rows), j;
        double mx = -INFINITY, sum = 0;

        if ((err = read_back(row, (const float *)w->c + r * s->cols, (size_t)s->cols * sizeof(float))) != 0)
            break;
        for (j = 0; j < s->cols; j++)
            mx = fmax(mx, (double)uniform_at(s->seed, (uint64_t)(r * s->cols + j)));
        for (j = 0; j < s->cols; j++)
            sum += exp((double)uniform_at(s->seed, (uint64_t)(r * s->cols + j)) - mx);
        for (j = 0; j < s->cols; j++) {
            double want = exp((double)uniform_at(s->seed, (uint64_t)(r * s->cols + j)) - mx) / sum;
            double tol = 1e-5 * want + 1e-9;
            if (fabs((double)row[j] - want) > tol) {
                err = out_of_tolerance("softmax", r, j, row[j], want, tol);
                break;
            }
        }
    }
    free(row);
    return err;
}

/* The count and the first selected rows, against x[x[:, 0] > 0] on the host. */
static int verify_masked(pg_cuda_workload *w, const float *xdev, int64_t rows, int64_t cols)
{
    size_t rc = (size_t)rows * (size_t)cols;
    float *x = (float *)malloc(rc * sizeof(float)), *out = (float *)malloc(rc * sizeof(float));
    int64_t r, j, count = 0;
    int err;

    if (!x || !out) {
        err = pg_error_set(PG_ENOMEM, "out of memory verifying masked_select");
        goto cleanup;
    }
    if ((err = read_back(x, xdev, rc * sizeof(float))) != 0 || (err = read_back(out, w->c, rc * sizeof(float))) != 0)
        goto cleanup;
    for (r = 0; r < rows; r++) {
        if (!(x[r * cols] > 0.0f))
            continue;
        for (j = 0; j < cols; j++)
            if (out[count * cols + j] != x[r * cols + j]) {
                err = out_of_tolerance("masked_select", count, j, out[count * cols + j], x[r * cols + j], 0);
                goto cleanup;
            }
        count++;
    }
    if (*w->h_count != count)
        err = pg_error_set(PG_EKERNEL, "masked_select: the device counted %d selected rows, the CPU %lld",
                           *w->h_count, (long long)count);

cleanup:
    free(x);
    free(out);
    return err;
}

static int verify_step(pg_cuda_workload *w)
{
    const pg_cuda_spec *s = &w->spec;
    int i, err;

    /* Without a masked select C still holds X·W: check it, then GELU's output. */
    if (!s->masked && (err = verify_gemm_t<float>(w, w->c, s->rows, s->cols, s->cols, s->seed, PG_CUDA_FP32,
                                                  "step mm")) != 0)
        return err;
    /* GELU of the hidden layer: h = gelu(C), checked where C is readable. */
    for (i = 0; !s->masked && i < VERIFY_SAMPLES; i++) {
        int64_t at = sample_index(i, s->rows * s->cols);
        float c, h;
        if ((err = read_back(&c, (const float *)w->c + at, sizeof(float))) != 0 ||
            (err = read_back(&h, w->h + at, sizeof(float))) != 0)
            return err;
        /* A few ulps between host and device erff, relative once |c| > 1. */
        double want = gelu_of(c), tol = 1e-6 * (1.0 + fabs(want));
        if (fabs((double)h - want) > tol)
            return out_of_tolerance("step gelu", at / s->cols, at % s->cols, h, want, tol);
    }
    return s->masked ? verify_masked(w, w->h, s->rows, s->cols) : 0;
}

int pg__cuda_workload_verify(pg_cuda_workload *w)
{
    int err;

    if ((err = PG_CUDA_CHECK(cudaStreamSynchronize(w->stream))) != 0)
        return err;
    switch (w->spec.kind) {
    case PG_CUDA_GEMM:
        return verify_gemm(w);
    case PG_CUDA_COPY:
    case PG_CUDA_ADD:
    case PG_CUDA_GELU:
        return verify_elementwise(w);
    case PG_CUDA_SOFTMAX:
        return verify_softmax(w);
    case PG_CUDA_MASKED_SELECT:
        return verify_masked(w, (const float *)w->a, w->spec.rows, w->spec.cols);
    case PG_CUDA_STEP:
        return verify_step(w);
    }
    return 0;
}
