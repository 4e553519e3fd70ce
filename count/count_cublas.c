/*
 * count_cublas.c - the cuBLAS GEMMs of libperfgate_count.so (built when
 * perfgate is built with CUDA): cublas{S,D,C,Z}gemm, cublasGemmEx, the
 * batched and strided-batched forms, and cublasLtMatmul.
 *
 * Each call is forwarded first; it counts (2*m*n*k per GEMM, times the batch,
 * complex x4, as flopcount.h says) only when cuBLAS accepted it. A call that
 * cuBLAS refused (no device, a bad handle or argument) is recorded as
 * OP!failed with zero FLOPs, so a count says what the program asked for and
 * what ran. The library links no CUDA: the program's own cuBLAS is reached
 * as the BLAS is (resolve.c), and cuBLASLt's layout queries through the
 * program's cuBLASLt.
 */
#include "count_internal.h"
#include "base/flopcount.h"

#include <cublasLt.h>
#include <cublas_v2.h>

static int complex_type(cudaDataType t)
{
    return t == CUDA_C_16F || t == CUDA_C_16BF || t == CUDA_C_32F || t == CUDA_C_64F || t == CUDA_C_8I ||
           t == CUDA_C_8U || t == CUDA_C_32I || t == CUDA_C_32U;
}

static void count_call(const char *op, const char *failed_op, void *caller, cublasStatus_t st, int64_t m, int64_t n,
                       int64_t k, int64_t batch, int cplx)
{
    shape s = {SHAPE_GEMM, {(int)m, (int)n, (int)k}, 0, (int)batch};
    int64_t f = 0;
    int bad = pg_flops_gemm(&f, m, n, k, cplx) || __builtin_mul_overflow(f, batch < 1 ? 0 : batch, &f);

    if (st == CUBLAS_STATUS_SUCCESS)
        pg__count_record(op, caller, &s, f, bad);
    else
        pg__count_record(failed_op, caller, &s, 0, 0);
}

/* Forwards `call_args` to the real `name`; counts when on and not nested. With no real cuBLAS to reach, the
   call fails as cuBLAS fails without a device context. */
#define PG_CUBLAS(op, fn_type, name, call_args, m, n, k, batch, cplx)                                           \
    do {                                                                                                        \
        static fn_type real;                                                                                    \
        cublasStatus_t st;                                                                                      \
        void *caller = __builtin_return_address(0);                                                             \
        PG_COUNT_FIND(real, name, caller, return CUBLAS_STATUS_NOT_INITIALIZED);                                \
        if (!pg__count_on || pg__count_inside)                                                                  \
            return real call_args;                                                                              \
        pg__count_inside = 1;                                                                                   \
        st = real call_args;                                                                                    \
        pg__count_inside = 0;                                                                                   \
        count_call(op, op "!failed", caller, st, m, n, k, batch, cplx);                                         \
        return st;                                                                                              \
    } while (0)

#define TYPED_GEMM(X, T, CPLX)                                                                                     \
    typedef cublasStatus_t (*X##gemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,     \
                                         const T *, const T *, int, const T *, int, const T *, T *, int);         \
    EXPORT cublasStatus_t cublas##X##gemm_v2(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,  \
                                             int n, int k, const T *alpha, const T *a, int lda, const T *b,       \
                                             int ldb, const T *beta, T *c, int ldc)                                \
    {                                                                                                              \
        PG_CUBLAS("cublas" #X "gemm", X##gemm_fn, "cublas" #X "gemm_v2",                                           \
                  (h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc), m, n, k, 1, CPLX);                    \
    }                                                                                                              \
    typedef cublasStatus_t (*X##gemmsb_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,   \
                                           const T *, const T *, int, long long, const T *, int, long long,       \
                                           const T *, T *, int, long long, int);                                  \
    EXPORT cublasStatus_t cublas##X##gemmStridedBatched(                                                           \
        cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const T *alpha,        \
        const T *a, int lda, long long sa, const T *b, int ldb, long long sb, const T *beta, T *c, int ldc,        \
        long long sc, int batch)                                                                                   \
    {                                                                                                              \
        PG_CUBLAS("cublas" #X "gemmStridedBatched", X##gemmsb_fn, "cublas" #X "gemmStridedBatched",                \
                  (h, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc, batch), m, n, k, batch,   \
                  CPLX);                                                                                           \
    }                                                                                                              \
    typedef cublasStatus_t (*X##gemmb_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,    \
                                          const T *, const T *const[], int, const T *const[], int, const T *,     \
                                          T *const[], int, int);                                                  \
    EXPORT cublasStatus_t cublas##X##gemmBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,     \
                                                 int m, int n, int k, const T *alpha, const T *const a[], int lda, \
                                                 const T *const b[], int ldb, const T *beta, T *const c[],        \
                                                 int ldc, int batch)                                               \
    {                                                                                                              \
        PG_CUBLAS("cublas" #X "gemmBatched", X##gemmb_fn, "cublas" #X "gemmBatched",                               \
                  (h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, batch), m, n, k, batch, CPLX);         \
    }

TYPED_GEMM(S, float, 0)
TYPED_GEMM(D, double, 0)
TYPED_GEMM(C, cuComplex, 1)
TYPED_GEMM(Z, cuDoubleComplex, 1)

typedef cublasStatus_t (*gemmex_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void *,
                                    const void *, cudaDataType, int, const void *, cudaDataType, int, const void *,
                                    void *, cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);

EXPORT cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                   const void *alpha, const void *a, cudaDataType at, int lda, const void *b,
                                   cudaDataType bt, int ldb, const void *beta, void *c, cudaDataType ct, int ldc,
                                   cublasComputeType_t ctype, cublasGemmAlgo_t algo)
{
    PG_CUBLAS("cublasGemmEx", gemmex_fn, "cublasGemmEx",
              (h, ta, tb, m, n, k, alpha, a, at, lda, b, bt, ldb, beta, c, ct, ldc, ctype, algo), m, n, k, 1,
              complex_type(at));
}

typedef cublasStatus_t (*gemmsbex_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                      const void *, const void *, cudaDataType, int, long long, const void *,
                                      cudaDataType, int, long long, const void *, void *, cudaDataType, int, long long,
                                      int, cublasComputeType_t, cublasGemmAlgo_t);

EXPORT cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                                                 int n, int k, const void *alpha, const void *a, cudaDataType at,
                                                 int lda, long long sa, const void *b, cudaDataType bt, int ldb,
                                                 long long sb, const void *beta, void *c, cudaDataType ct, int ldc,
                                                 long long sc, int batch, cublasComputeType_t ctype,
                                                 cublasGemmAlgo_t algo)
{
    PG_CUBLAS("cublasGemmStridedBatchedEx", gemmsbex_fn, "cublasGemmStridedBatchedEx",
              (h, ta, tb, m, n, k, alpha, a, at, lda, sa, b, bt, ldb, sb, beta, c, ct, ldc, sc, batch, ctype, algo),
              m, n, k, batch, complex_type(at));
}

typedef cublasStatus_t (*gemmbex_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                     const void *, const void *const[], cudaDataType, int, const void *const[],
                                     cudaDataType, int, const void *, void *const[], cudaDataType, int, int,
                                     cublasComputeType_t, cublasGemmAlgo_t);

EXPORT cublasStatus_t cublasGemmBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                          int k, const void *alpha, const void *const a[], cudaDataType at, int lda,
                                          const void *const b[], cudaDataType bt, int ldb, const void *beta,
                                          void *const c[], cudaDataType ct, int ldc, int batch,
                                          cublasComputeType_t ctype, cublasGemmAlgo_t algo)
{
    PG_CUBLAS("cublasGemmBatchedEx", gemmbex_fn, "cublasGemmBatchedEx",
              (h, ta, tb, m, n, k, alpha, a, at, lda, b, bt, ldb, beta, c, ct, ldc, batch, ctype, algo), m, n, k,
              batch, complex_type(at));
}

/* ---- cublasLtMatmul: the shape lives in its layouts ------------------------------------------------------- */

typedef cublasStatus_t (*layout_get_fn)(cublasLtMatrixLayout_t, cublasLtMatrixLayoutAttribute_t, void *, size_t,
                                        size_t *);
typedef cublasStatus_t (*desc_get_fn)(cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t, void *, size_t, size_t *);

/* rows, cols, batch and element type of a layout; 1 when cuBLASLt cannot say. */
static int layout_dims(cublasLtMatrixLayout_t l, uint64_t *rows, uint64_t *cols, int32_t *batch, uint32_t *type,
                       void *caller)
{
    static layout_get_fn get;
    size_t w;

    if (!get)
        *(void **)&get = pg__count_next("cublasLtMatrixLayoutGetAttribute", caller);
    *batch = 1;
    return !get || get(l, CUBLASLT_MATRIX_LAYOUT_ROWS, rows, sizeof(*rows), &w) != CUBLAS_STATUS_SUCCESS ||
           get(l, CUBLASLT_MATRIX_LAYOUT_COLS, cols, sizeof(*cols), &w) != CUBLAS_STATUS_SUCCESS ||
           get(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, batch, sizeof(*batch), &w) != CUBLAS_STATUS_SUCCESS ||
           get(l, CUBLASLT_MATRIX_LAYOUT_TYPE, type, sizeof(*type), &w) != CUBLAS_STATUS_SUCCESS;
}

typedef cublasStatus_t (*ltmatmul_fn)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *, const void *,
                                      cublasLtMatrixLayout_t, const void *, cublasLtMatrixLayout_t, const void *,
                                      const void *, cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t,
                                      const cublasLtMatmulAlgo_t *, void *, size_t, cudaStream_t);

EXPORT cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t desc, const void *alpha, const void *a,
                                     cublasLtMatrixLayout_t ad, const void *b, cublasLtMatrixLayout_t bd,
                                     const void *beta, const void *c, cublasLtMatrixLayout_t cd, void *d,
                                     cublasLtMatrixLayout_t dd, const cublasLtMatmulAlgo_t *algo, void *ws,
                                     size_t wss, cudaStream_t stream)
{
    static ltmatmul_fn real;
    static desc_get_fn dget;
    void *caller = __builtin_return_address(0);
    cublasStatus_t st;
    uint64_t ar = 0, ac = 0, dr = 0, dc = 0;
    int32_t ab = 1, db = 1, ta = CUBLAS_OP_N;
    uint32_t at = 0, dt = 0;
    size_t w;

    PG_COUNT_FIND(real, "cublasLtMatmul", caller, return CUBLAS_STATUS_NOT_INITIALIZED);
    if (!pg__count_on || pg__count_inside)
        return real(h, desc, alpha, a, ad, b, bd, beta, c, cd, d, dd, algo, ws, wss, stream);
    pg__count_inside = 1;
    st = real(h, desc, alpha, a, ad, b, bd, beta, c, cd, d, dd, algo, ws, wss, stream);
    pg__count_inside = 0;
    if (!dget)
        *(void **)&dget = pg__count_next("cublasLtMatmulDescGetAttribute", caller);
    /* D is m x n; A is m x k, or k x m when transposed. */
    if (layout_dims(ad, &ar, &ac, &ab, &at, caller) || layout_dims(dd, &dr, &dc, &db, &dt, caller) || !dget ||
        dget(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta), &w) != CUBLAS_STATUS_SUCCESS) {
        shape s = {SHAPE_GEMM, {0, 0, 0}, 0, 1};
        pg__count_record("cublasLtMatmul!unreadable", caller, &s, 0, 0);
        return st;
    }
    count_call("cublasLtMatmul", "cublasLtMatmul!failed", caller, st, (int64_t)dr,
               (int64_t)dc, (int64_t)(ta == CUBLAS_OP_N ? ac : ar), db, complex_type((cudaDataType)at));
    return st;
}
