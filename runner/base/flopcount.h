/*
 * flopcount.h - the FLOP formulas of the BLAS calls perfgate counts.
 *
 * One definition for every counter: the FLOP counter behind the kernels'
 * instrumented GEMM entry point (checks/flops.c) and the preload library
 * that counts an unmodified program's CBLAS and cuBLAS calls
 * (count/count.c). Header-only and free of perfgate's other headers, so the
 * preload library links nothing from perfgate.
 *
 * Conventions (FlopCounterMode's, LAPACK Working Note 41's counts rounded
 * to whole multiply-adds):
 *   gemm  C[m,n] = A[m,k]·B[k,n]           2·m·n·k
 *   gemv  y[m]   = A[m,n]·x[n]             2·m·n
 *   symm  A symmetric m×m on the left      2·m·m·n   (right: 2·m·n·n)
 *   syrk  C[n,n] triangle of A[n,k]·A^T    k·n·(n+1)
 *   trmm  A triangular m×m on the left     m·m·n     (right: m·n·n)
 *   trsm  solve with triangular A          m·m·n     (right: m·n·n)
 * alpha/beta scaling is not counted. A complex multiply-add is 8 real FLOPs
 * (4 multiplies, 4 adds), so complex calls count 4 times the real formula.
 * Every function returns 0 and sets *out, or 1 when an argument is negative
 * or the count overflows int64 (*out is then 0).
 */
#ifndef PG_FLOPCOUNT_H
#define PG_FLOPCOUNT_H

#include <stdint.h>

/* a·b·c·d in int64, or 1 on a negative factor or overflow. */
static inline int pg_flops_mul4(int64_t *out, int64_t a, int64_t b, int64_t c, int64_t d)
{
    int64_t f;

    *out = 0;
    if (a < 0 || b < 0 || c < 0 || d < 0 || __builtin_mul_overflow(a, b, &f) || __builtin_mul_overflow(f, c, &f) ||
        __builtin_mul_overflow(f, d, &f))
        return 1;
    *out = f;
    return 0;
}

/* 1 for real types, 4 for complex ones (8 real FLOPs per complex multiply-add). */
static inline int64_t pg_flops_scale(int complex_type)
{
    return complex_type ? 4 : 1;
}

static inline int pg_flops_gemm(int64_t *out, int64_t m, int64_t n, int64_t k, int complex_type)
{
    return pg_flops_mul4(out, 2 * pg_flops_scale(complex_type), m, n, k);
}

static inline int pg_flops_gemv(int64_t *out, int64_t m, int64_t n, int complex_type)
{
    return pg_flops_mul4(out, 2 * pg_flops_scale(complex_type), m, n, 1);
}

/* side_left: A multiplies from the left (its order is m), else from the right (order n). */
static inline int pg_flops_symm(int64_t *out, int side_left, int64_t m, int64_t n, int complex_type)
{
    return pg_flops_mul4(out, 2 * pg_flops_scale(complex_type), m, n, side_left ? m : n);
}

static inline int pg_flops_syrk(int64_t *out, int64_t n, int64_t k, int complex_type)
{
    if (n == INT64_MAX)
        return (*out = 0, 1);
    return pg_flops_mul4(out, pg_flops_scale(complex_type), k, n, n + 1);
}

/* trmm and trsm count the same: m·m·n (left) or m·n·n (right). */
static inline int pg_flops_trmm(int64_t *out, int side_left, int64_t m, int64_t n, int complex_type)
{
    return pg_flops_mul4(out, pg_flops_scale(complex_type), m, n, side_left ? m : n);
}

#endif
