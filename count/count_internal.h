/*
 * count_internal.h - what the files of libperfgate_count.so share: the
 * shape of a call, the recorder, the lookup of the real function a wrapper
 * forwards to, and the wrapper macro of the BLAS interfaces (CBLAS in
 * count_cblas.c, Fortran in count_fortran.c). Not installed; nothing
 * outside count/ includes it.
 */
#ifndef PG_COUNT_INTERNAL_H
#define PG_COUNT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

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

/* Hidden: the library's own variables are read directly, not through the GOT, on every call. */
#define PG_COUNT_HIDDEN __attribute__((visibility("hidden")))

/** 1 while counting (PERFGATE_COUNT_DIR was set at start-up). */
extern PG_COUNT_HIDDEN int pg__count_on;
/** 1 on a thread inside a counted call: a BLAS that calls BLAS counts once. */
extern PG_COUNT_HIDDEN PG_COUNT_TLS int pg__count_inside;

/**
 * The real definition of `name` that a call made from `caller` (a return
 * address) would have reached without this library: the next one in the
 * global scope, else the one the caller's own library sees among its
 * dependencies (a BLAS that Python or dlopen() loaded with RTLD_LOCAL),
 * else the first other loaded object that defines it. NULL when no loaded
 * object does; the wrapper then reports it (pg__count_unforwarded()).
 */
void *pg__count_next(const char *name, void *caller);

/**
 * A call to `name` could not be forwarded: says so on stderr once per
 * name and marks the counts untrusted, without ending the program.
 */
void pg__count_unforwarded(const char *name);

/** Adds one call: op (a string literal), the call site, its shape and FLOPs; `bad` marks an overflow. */
void pg__count_record(const char *op, void *caller, const shape *shp, int64_t flops, int bad);

/** Writes into `out` the function containing `caller`: demangled, "file+0xOFFSET", or "?". */
void pg__count_caller_name(char *out, size_t len, void *caller);

/*
 * Makes sure `real`, a wrapper's static pointer to its real function, is
 * set: found at the first call. When none exists, reports it and runs
 * `missing` (a return statement): the call does nothing, the program goes
 * on. The pointer is a
 * plain pointer, read with one compare on every call as before the lookup
 * moved here: first calls racing on it store the same value, an aligned
 * pointer store is whole on every target this library builds for, and an
 * atomic load would add an instruction to every call of every program.
 */
#define PG_COUNT_FIND(real, name, caller, missing)                                                          \
    do {                                                                                                     \
        if (__builtin_expect(!(real), 0)) {                                                                  \
            *(void **)&(real) = pg__count_next(name, caller);                                                \
            if (!(real)) {                                                                                   \
                pg__count_unforwarded(name);                                                                 \
                missing;                                                                                     \
            }                                                                                                \
        }                                                                                                    \
    } while (0)

/*
 * The body of a BLAS wrapper: find the real function, count (when on and
 * not already inside a counted call), forward. The caller is the wrapper's
 * return address: the call site in the program.
 */
#define PG_COUNT_CALL(op, fn_type, name, shape_init, formula, call_args)                                     \
    do {                                                                                                     \
        static fn_type real;                                                                                 \
        PG_COUNT_FIND(real, name, __builtin_return_address(0), return);                                      \
        if (pg__count_on && !pg__count_inside) {                                                             \
            shape shp = shape_init;                                                                          \
            int64_t f;                                                                                       \
            int bad = formula;                                                                               \
            pg__count_record(op, __builtin_return_address(0), &shp, f, bad);                                 \
            pg__count_inside = 1;                                                                            \
            real call_args;                                                                                  \
            pg__count_inside = 0;                                                                            \
        } else {                                                                                             \
            real call_args;                                                                                  \
        }                                                                                                    \
    } while (0)

/* A call's shape (inside PG_COUNT_CALL): kind, side, three dimensions. */
#define SHAPE(kind, side, a, b, c) {kind, {(int)(a), (int)(b), (int)(c)}, side, 1}

#endif
