/*
 * count_internal.h - what the CBLAS wrappers (count.c) and the cuBLAS ones
 * (count_cublas.c) of libperfgate_count.so share: the shape of a call, the
 * recorder and the forwarding lookup. Not installed; nothing outside count/
 * includes it.
 */
#ifndef PG_COUNT_INTERNAL_H
#define PG_COUNT_INTERNAL_H

#include <stdint.h>

/* How a row's dimensions read as a shape; formatted only when the counts are written. */
enum { SHAPE_GEMM, SHAPE_GEMV, SHAPE_SIDED, SHAPE_SYRK };

typedef struct shape {
    int kind;           /* SHAPE_* */
    int d[3];           /* gemm m,n,k; gemv m,n,len(x); symm/trmm/trsm m,n; syrk n,k */
    char side;          /* 'L', 'R', or 0 */
    int batch;          /* GEMMs in one batched call; 1 otherwise */
} shape;

/* initial-exec: the library is loaded at start-up, so its thread-locals cost a register read, not a call. */
#define PG_COUNT_TLS __thread __attribute__((tls_model("initial-exec")))

/** 1 while counting (PERFGATE_COUNT_DIR was set at start-up). */
extern int pg__count_on;
/** 1 on a thread inside a counted call: a BLAS that calls BLAS counts once. */
extern PG_COUNT_TLS int pg__count_inside;

/** The next definition of `name` after this library (the real one); aborts with a message when none. */
void *pg__count_next(const char *name);

/** Adds one call: op (a string literal), the call site, its shape and FLOPs; `bad` marks an overflow. */
void pg__count_record(const char *op, void *caller, const shape *shp, int64_t flops, int bad);

#endif
