/*
 * kernels.h - built-in workloads and the registry that names them.
 *
 * A kernel allocates its inputs in setup() (random, never zeros), runs a
 * given number of iterations in run(), and frees in teardown(). All GEMMs go
 * through pg_kernels_gemm_f32()/pg_kernels_gemm_f64(), the single entry point where FLOPs
 * are counted and ops recorded (see instrument.h).
 */
#ifndef PG_KERNELS_H
#define PG_KERNELS_H

#include <stddef.h>
#include <stdint.h>

struct pg_case;

typedef struct pg_kernel {
    const char *name;
    const char *device;       /* "cpu" or "cuda" */
    const char *summary;      /* one line for `perfgate list --kernels` */
    const char *const *params; /* parameter names it reads, NULL-terminated */
    /** Allocates state for the case's params. @param[out] out state for run(). */
    int (*setup)(void **out, const struct pg_case *c);
    /** Runs `iters` iterations. */
    int (*run)(void *state, int64_t iters);
    void (*teardown)(void *state);
    /** FLOPs per iteration (matmul-only convention); 0 when none. */
    double (*flops)(const struct pg_case *c);
    /** Bytes moved per iteration; 0 when not meaningful. */
    double (*bytes)(const struct pg_case *c);
} pg_kernel;

/** Finds a kernel by name on any device (CPU first); NULL if unknown. */
const pg_kernel *pg_kernel_find(const char *name);

/** Finds the kernel `name` for `device` ("cpu" or "cuda"); NULL if none. */
const pg_kernel *pg_kernel_find_for(const char *name, const char *device);

/** All registered kernels, NULL-terminated. */
const pg_kernel *const *pg_kernel_all(void);

/**
 * The single GEMM entry point (row-major): C[m,n] = alpha·op(A)·op(B) + beta·C.
 * `op` names the op for the recorder and FLOP counter ("mm", "addmm", "sgemm").
 */
void pg_kernels_gemm_f32(const char *op, int trans_a, int trans_b, int m, int n, int k, float alpha,
                  const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);
void pg_kernels_gemm_f64(const char *op, int trans_a, int trans_b, int m, int n, int k, double alpha,
                  const double *a, int lda, const double *b, int ldb, double beta, double *c, int ldc);

/** Fills `x` with uniform random values in [lo, hi) from a seeded generator. */
void pg__fill_random_f32(float *x, size_t n, uint64_t *seed, float lo, float hi);
void pg__fill_random_f64(double *x, size_t n, uint64_t *seed, double lo, double hi);

#endif
