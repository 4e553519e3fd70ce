/*
 * count_cblas.c - the CBLAS entry points of libperfgate_count.so: s/d/c/z
 * gemm, gemm3m, symm, syrk, trmm, trsm and gemv. Each counts with the
 * formulas of runner/base/flopcount.h and forwards to the program's own
 * CBLAS (count_internal.h, PG_COUNT_CALL).
 */
#include "count_internal.h"
#include "base/flopcount.h"

#include <cblas.h>

/* GEMM family: X is the letter, S the scalar type (a value for s/d, a pointer for c/z), P the array type. */
#define GEMM(X, S, P, CPLX, SUFFIX)                                                                                  \
    typedef void (*X##gemm##SUFFIX##_fn)(const enum CBLAS_ORDER, const enum CBLAS_TRANSPOSE,                         \
                                         const enum CBLAS_TRANSPOSE, const blasint, const blasint, const blasint, S, \
                                         const P *, const blasint, const P *, const blasint, S, P *, const blasint); \
    EXPORT void cblas_##X##gemm##SUFFIX(const enum CBLAS_ORDER o, const enum CBLAS_TRANSPOSE ta,                    \
                                        const enum CBLAS_TRANSPOSE tb, const blasint m, const blasint n,             \
                                        const blasint k, S alpha, const P *a, const blasint lda, const P *b,         \
                                        const blasint ldb, S beta, P *c, const blasint ldc)                          \
    {                                                                                                                \
        PG_COUNT_CALL(#X "gemm" #SUFFIX, X##gemm##SUFFIX##_fn, "cblas_" #X "gemm" #SUFFIX,                          \
                      SHAPE(SHAPE_GEMM, 0, m, n, k), pg_flops_gemm(&f, m, n, k, CPLX),               \
                      (o, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc));                                    \
    }

#define GEMV(X, S, P, CPLX)                                                                                          \
    typedef void (*X##gemv_fn)(const enum CBLAS_ORDER, const enum CBLAS_TRANSPOSE, const blasint, const blasint, S,  \
                               const P *, const blasint, const P *, const blasint, S, P *, const blasint);           \
    EXPORT void cblas_##X##gemv(const enum CBLAS_ORDER o, const enum CBLAS_TRANSPOSE t, const blasint m,            \
                                const blasint n, S alpha, const P *a, const blasint lda, const P *x,                 \
                                const blasint incx, S beta, P *y, const blasint incy)                                \
    {                                                                                                                \
        PG_COUNT_CALL(#X "gemv", X##gemv_fn, "cblas_" #X "gemv",                              \
                      SHAPE(SHAPE_GEMV, 0, m, n, t == CblasNoTrans ? n : m),                      \
                      pg_flops_gemv(&f, m, n, CPLX), (o, t, m, n, alpha, a, lda, x, incx, beta, y, incy));           \
    }

#define SYMM(X, S, P, CPLX)                                                                                          \
    typedef void (*X##symm_fn)(const enum CBLAS_ORDER, const enum CBLAS_SIDE, const enum CBLAS_UPLO, const blasint,  \
                               const blasint, S, const P *, const blasint, const P *, const blasint, S, P *,         \
                               const blasint);                                                                       \
    EXPORT void cblas_##X##symm(const enum CBLAS_ORDER o, const enum CBLAS_SIDE side, const enum CBLAS_UPLO uplo,   \
                                const blasint m, const blasint n, S alpha, const P *a, const blasint lda,            \
                                const P *b, const blasint ldb, S beta, P *c, const blasint ldc)                      \
    {                                                                                                                \
        PG_COUNT_CALL(#X "symm", X##symm_fn, "cblas_" #X "symm",                              \
                      SHAPE(SHAPE_SIDED, side == CblasLeft ? 'L' : 'R', m, n, 0), pg_flops_symm(&f, side == CblasLeft, m, n, CPLX),                         \
                      (o, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc));                                   \
    }

#define SYRK(X, S, P, CPLX)                                                                                          \
    typedef void (*X##syrk_fn)(const enum CBLAS_ORDER, const enum CBLAS_UPLO, const enum CBLAS_TRANSPOSE,            \
                               const blasint, const blasint, S, const P *, const blasint, S, P *, const blasint);    \
    EXPORT void cblas_##X##syrk(const enum CBLAS_ORDER o, const enum CBLAS_UPLO uplo, const enum CBLAS_TRANSPOSE t, \
                                const blasint n, const blasint k, S alpha, const P *a, const blasint lda, S beta,   \
                                P *c, const blasint ldc)                                                             \
    {                                                                                                                \
        PG_COUNT_CALL(#X "syrk", X##syrk_fn, "cblas_" #X "syrk", SHAPE(SHAPE_SYRK, 0, n, k, 0),                     \
                      pg_flops_syrk(&f, n, k, CPLX), (o, uplo, t, n, k, alpha, a, lda, beta, c, ldc));               \
    }

/* trmm and trsm share a signature and a count. */
#define TRXM(X, S, P, CPLX, OP)                                                                                      \
    typedef void (*X##OP##_fn)(const enum CBLAS_ORDER, const enum CBLAS_SIDE, const enum CBLAS_UPLO,                 \
                               const enum CBLAS_TRANSPOSE, const enum CBLAS_DIAG, const blasint, const blasint, S,   \
                               const P *, const blasint, P *, const blasint);                                        \
    EXPORT void cblas_##X##OP(const enum CBLAS_ORDER o, const enum CBLAS_SIDE side, const enum CBLAS_UPLO uplo,     \
                              const enum CBLAS_TRANSPOSE t, const enum CBLAS_DIAG diag, const blasint m,            \
                              const blasint n, S alpha, const P *a, const blasint lda, P *b, const blasint ldb)     \
    {                                                                                                                \
        PG_COUNT_CALL(#X #OP, X##OP##_fn, "cblas_" #X #OP,                              \
                      SHAPE(SHAPE_SIDED, side == CblasLeft ? 'L' : 'R', m, n, 0), pg_flops_trmm(&f, side == CblasLeft, m, n, CPLX),                         \
                      (o, side, uplo, t, diag, m, n, alpha, a, lda, b, ldb));                                        \
    }

#define FAMILY(X, S, P, CPLX)                                                                                        \
    GEMM(X, S, P, CPLX, )                                                                                            \
    GEMV(X, S, P, CPLX)                                                                                              \
    SYMM(X, S, P, CPLX)                                                                                              \
    SYRK(X, S, P, CPLX)                                                                                              \
    TRXM(X, S, P, CPLX, trmm)                                                                                        \
    TRXM(X, S, P, CPLX, trsm)

FAMILY(s, const float, float, 0)
FAMILY(d, const double, double, 0)
FAMILY(c, const void *, void, 1)
FAMILY(z, const void *, void, 1)
/* The 3M forms do fewer multiplies but count as the GEMM they compute, as every counter here does. */
GEMM(c, const void *, void, 1, 3m)
GEMM(z, const void *, void, 1, 3m)
