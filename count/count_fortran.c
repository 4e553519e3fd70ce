/*
 * count_fortran.c - the Fortran BLAS entry points of libperfgate_count.so:
 * s/d/c/z gemm_, gemm3m_, symm_, syrk_, trmm_, trsm_ and gemv_, the
 * interface PyTorch, NumPy's linalg, SciPy and LAPACK reach BLAS through
 * (torch's CPU matmuls call sgemm_ from libtorch_cpu). They count as the
 * CBLAS calls do, under the same op names and formulas, so an expectation
 * does not depend on which interface a program uses.
 *
 * Every argument is a pointer (Fortran passes by reference); dimensions are
 * read before forwarding, a NULL one reads as 0 and the real routine reports
 * it. gfortran appends one hidden length per CHARACTER argument; C callers
 * (torch, NumPy) pass none, so the wrappers forward the length every one of
 * these single-letter arguments has, 1, which a C implementation such as
 * OpenBLAS ignores and a Fortran one expects.
 *
 * A CBLAS wrapper that calls the Fortran routine inside its own library
 * (the reference CBLAS does) counts once: the CBLAS call is counted and
 * marks its thread inside a counted call, so the inner sgemm_ only
 * forwards.
 */
#include "count_internal.h"
#include "base/flopcount.h"

#include <stddef.h>

typedef int fint;         /* Fortran INTEGER of an LP64 BLAS */
typedef size_t flen;      /* a hidden CHARACTER length */

#define D(p) ((p) ? *(p) : 0)
#define LEFT(side) ((side) && (*(side) == 'L' || *(side) == 'l'))
#define NOTRANS(t) ((t) && (*(t) == 'N' || *(t) == 'n'))

#define FGEMM(X, CPLX, SUFFIX)                                                                                   \
    typedef void (*X##gemm##SUFFIX##_f)(const char *, const char *, const fint *, const fint *, const fint *,   \
                                        const void *, const void *, const fint *, const void *, const fint *,   \
                                        const void *, void *, const fint *, flen, flen);                        \
    EXPORT void X##gemm##SUFFIX##_(const char *ta, const char *tb, const fint *m, const fint *n, const fint *k, \
                                   const void *alpha, const void *a, const fint *lda, const void *b,            \
                                   const fint *ldb, const void *beta, void *c, const fint *ldc)                 \
    {                                                                                                            \
        PG_COUNT_CALL(#X "gemm" #SUFFIX, X##gemm##SUFFIX##_f, #X "gemm" #SUFFIX "_",                             \
                      SHAPE(SHAPE_GEMM, 0, D(m), D(n), D(k)), pg_flops_gemm(&f, D(m), D(n), D(k), CPLX),         \
                      (ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1));                             \
    }

#define FGEMV(X, CPLX)                                                                                           \
    typedef void (*X##gemv_f)(const char *, const fint *, const fint *, const void *, const void *,             \
                              const fint *, const void *, const fint *, const void *, void *, const fint *,     \
                              flen);                                                                             \
    EXPORT void X##gemv_(const char *t, const fint *m, const fint *n, const void *alpha, const void *a,         \
                         const fint *lda, const void *x, const fint *incx, const void *beta, void *y,           \
                         const fint *incy)                                                                       \
    {                                                                                                            \
        PG_COUNT_CALL(#X "gemv", X##gemv_f, #X "gemv_",                                                          \
                      SHAPE(SHAPE_GEMV, 0, D(m), D(n), NOTRANS(t) ? D(n) : D(m)),                                \
                      pg_flops_gemv(&f, D(m), D(n), CPLX), (t, m, n, alpha, a, lda, x, incx, beta, y, incy, 1)); \
    }

#define FSYMM(X, CPLX)                                                                                           \
    typedef void (*X##symm_f)(const char *, const char *, const fint *, const fint *, const void *,             \
                              const void *, const fint *, const void *, const fint *, const void *, void *,     \
                              const fint *, flen, flen);                                                         \
    EXPORT void X##symm_(const char *side, const char *uplo, const fint *m, const fint *n, const void *alpha,   \
                         const void *a, const fint *lda, const void *b, const fint *ldb, const void *beta,      \
                         void *c, const fint *ldc)                                                               \
    {                                                                                                            \
        PG_COUNT_CALL(#X "symm", X##symm_f, #X "symm_",                                                          \
                      SHAPE(SHAPE_SIDED, LEFT(side) ? 'L' : 'R', D(m), D(n), 0),                                 \
                      pg_flops_symm(&f, LEFT(side), D(m), D(n), CPLX),                                           \
                      (side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1));                            \
    }

#define FSYRK(X, CPLX)                                                                                           \
    typedef void (*X##syrk_f)(const char *, const char *, const fint *, const fint *, const void *,             \
                              const void *, const fint *, const void *, void *, const fint *, flen, flen);      \
    EXPORT void X##syrk_(const char *uplo, const char *t, const fint *n, const fint *k, const void *alpha,      \
                         const void *a, const fint *lda, const void *beta, void *c, const fint *ldc)            \
    {                                                                                                            \
        PG_COUNT_CALL(#X "syrk", X##syrk_f, #X "syrk_", SHAPE(SHAPE_SYRK, 0, D(n), D(k), 0),                     \
                      pg_flops_syrk(&f, D(n), D(k), CPLX), (uplo, t, n, k, alpha, a, lda, beta, c, ldc, 1, 1));  \
    }

/* trmm and trsm share a signature and a count. */
#define FTRXM(X, CPLX, OP)                                                                                       \
    typedef void (*X##OP##_f)(const char *, const char *, const char *, const char *, const fint *,             \
                              const fint *, const void *, const void *, const fint *, void *, const fint *,     \
                              flen, flen, flen, flen);                                                           \
    EXPORT void X##OP##_(const char *side, const char *uplo, const char *t, const char *diag, const fint *m,    \
                         const fint *n, const void *alpha, const void *a, const fint *lda, void *b,             \
                         const fint *ldb)                                                                        \
    {                                                                                                            \
        PG_COUNT_CALL(#X #OP, X##OP##_f, #X #OP "_", SHAPE(SHAPE_SIDED, LEFT(side) ? 'L' : 'R', D(m), D(n), 0),  \
                      pg_flops_trmm(&f, LEFT(side), D(m), D(n), CPLX),                                           \
                      (side, uplo, t, diag, m, n, alpha, a, lda, b, ldb, 1, 1, 1, 1));                           \
    }

#define FFAMILY(X, CPLX)                                                                                         \
    FGEMM(X, CPLX, )                                                                                             \
    FGEMV(X, CPLX)                                                                                               \
    FSYMM(X, CPLX)                                                                                               \
    FSYRK(X, CPLX)                                                                                               \
    FTRXM(X, CPLX, trmm)                                                                                         \
    FTRXM(X, CPLX, trsm)

FFAMILY(s, 0)
FFAMILY(d, 0)
FFAMILY(c, 1)
FFAMILY(z, 1)
/* OpenBLAS's 3M forms: counted as the GEMM they compute. */
FGEMM(c, 1, 3m)
FGEMM(z, 1, 3m)
