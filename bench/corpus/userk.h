/*
 * userk.h - a small numerical library of the kind perfgate's users gate: a
 * stencil, reductions, gathers and scatters, branchy parsing, and GEMM calls
 * through OpenBLAS. It is not perfgate's code and knows nothing of it; the
 * benchmark plugin (bench.c) calls it as a user's benchmark would.
 *
 * Built with -DUK_WORK=PERMILLE (1000 by default), every kernel does that
 * many thousandths of its work: 1050 and 1100 are +5 % and +10 % of real
 * extra work (more sweeps, elements or calls of the same code), the changes
 * the corpus gates (bench/corpus.sh).
 */
#ifndef USERK_H
#define USERK_H

#include <stddef.h>
#include <stdint.h>

/* Work scaled by UK_WORK/1000: `n` units of work become uk_scaled(n) (exact where n*UK_WORK is a multiple of 1000). */
size_t uk_scaled(size_t n);
/* The permille this build was made with. */
int uk_work_permille(void);

/* 5-point Jacobi sweeps over an n x n float grid (boundary fixed), ping-ponging between a and b: the
   result is in a after an even number of sweeps. Runs uk_scaled(sweeps) sweeps. */
void uk_jacobi_f32(float *a, float *b, int n, int sweeps);

/* Sum of x[i]*y[i] over uk_scaled(n) elements with 8 independent accumulators. */
double uk_dot_f64(const double *x, const double *y, size_t n);
/* Sum, minimum and maximum of uk_scaled(n) floats with 4 accumulators each. */
void uk_stats_f32(const float *x, size_t n, float out[3]);

/* dst[i] = src[idx[i]] for uk_scaled(n) elements. */
void uk_gather_f32(float *dst, const float *src, const int32_t *idx, size_t n);
/* hist[idx[i]] += w[i] for uk_scaled(n) elements. */
void uk_scatter_add_f32(float *hist, const float *w, const int32_t *idx, size_t n);

/* Counts the tokens of uk_scaled(n) bytes of text (words, numbers, punctuation, quoted strings):
   data-dependent branches a parser takes. */
size_t uk_tokens(const char *text, size_t n);

/* uk_scaled(calls) sgemm calls C = A*B on m x m matrices, cycling over `nmat` matrix triples. */
void uk_gemm_batch(float *const *a, float *const *b, float *const *c, int nmat, int m, int calls);
/* One sgemm C = A*B with uk_scaled(m) rows of A and C (n x n B). */
void uk_gemm_rows(const float *a, const float *b, float *c, int m, int n);

#endif
