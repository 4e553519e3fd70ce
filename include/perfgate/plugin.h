/*
 * perfgate/plugin.h - the versioned C ABI for benchmarks in user plugins.
 *
 * A plugin is a shared library that exports one function,
 * perfgate_plugin_entry(), returning a table of benchmarks (write it with
 * PG_PLUGIN_DEFINE). The runner loads the library in a child process, finds
 * the benchmark a suite names (`plugin:` + `symbol:`), and times it with its
 * own engine: warm-up, block sizing, blocked samples, fixed threads.
 *
 * A benchmark gets a state handle (pg_state) and either
 *   - owns the loop:   while (pg_keep_running(st)) { ...one iteration... }
 *   - or is called back: iterate(ctx, st, iters) runs `iters` iterations.
 * Only the loop (or the iterate call) is timed; pg_pause_timing() and
 * pg_resume_timing() exclude per-iteration setup from it.
 *
 * Everything a plugin calls goes through a table of function pointers the
 * runner fills in, so a plugin links against nothing from perfgate and this
 * header is all it needs. The ABI version is checked when the library is
 * loaded: a plugin built against another version is refused with a message
 * naming both versions.
 *
 * This header compiles alone as C11 and C++17 with
 * -Wall -Wextra -pedantic -Werror (tests/header checks it).
 */
#ifndef PERFGATE_PLUGIN_H
#define PERFGATE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The ABI version this header describes. Bump it on any change to the layout
 * of pg_plugin, pg_benchmark, pg_state or pg_host_api; the runner refuses
 * plugins whose version differs from its own.
 */
#define PG_PLUGIN_ABI_VERSION 1

/* The name of the one symbol a plugin exports. */
#define PG_PLUGIN_ENTRY_SYMBOL "perfgate_plugin_entry"

#if defined(_WIN32)
#define PG_PLUGIN_EXPORT __declspec(dllexport)
#else
#define PG_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

typedef struct pg_state pg_state;
typedef struct pg_host_api pg_host_api;

/*
 * The functions the runner provides. Plugins call them through the inline
 * wrappers below, never directly; fields are only ever appended, and the
 * ABI version is bumped when they are.
 */
struct pg_host_api {
    uint32_t abi_version;
    uint32_t size;              /* sizeof(pg_host_api) in the runner */
    int (*keep_running)(pg_state *st);
    void (*pause_timing)(pg_state *st);
    void (*resume_timing)(pg_state *st);
    int (*has_param)(pg_state *st, const char *name);
    int64_t (*param_int)(pg_state *st, const char *name, int64_t dflt);
    double (*param_double)(pg_state *st, const char *name, double dflt);
    const char *(*param_str)(pg_state *st, const char *name, const char *dflt);
    int (*threads)(pg_state *st);
    void (*set_flops)(pg_state *st, double flops_per_iteration);
    void (*set_bytes)(pg_state *st, double bytes_per_iteration);
    void (*range_push)(pg_state *st, const char *name);
    void (*range_pop)(pg_state *st, const char *name);
    void (*op_begin)(pg_state *st, const char *name, const char *shape);
    void (*op_end)(pg_state *st, const char *name);
    void (*op_gemm)(pg_state *st, const char *name, int64_t m, int64_t n, int64_t k);
    void (*gemm_f32)(pg_state *st, const char *op, int trans_a, int trans_b, int m, int n, int k,
                     float alpha, const float *a, int lda, const float *b, int ldb, float beta, float *c,
                     int ldc);
    void (*gemm_f64)(pg_state *st, const char *op, int trans_a, int trans_b, int m, int n, int k,
                     double alpha, const double *a, int lda, const double *b, int ldb, double beta,
                     double *c, int ldc);
    void (*skip)(pg_state *st, const char *reason);
    void (*error)(pg_state *st, const char *message);
    void *(*cuda_stream)(pg_state *st);
    const char *(*device)(pg_state *st);
};

/*
 * The state handle of one running benchmark. The runner owns it; a plugin
 * reads nothing from it directly (the fields are for the inline wrappers).
 */
struct pg_state {
    const pg_host_api *pg__api;
    /* Iterations the loop may still run before asking the runner again:
     * this keeps pg_keep_running() to a decrement and a branch. */
    int64_t pg__left;
};

/* One benchmark of a plugin. Give either `run` (loop form) or `iterate`
 * (callback form, with optional `setup`/`teardown`). */
typedef struct pg_benchmark {
    const char *name;           /* what a suite's `symbol:` names */
    const char *summary;        /* one line, may be NULL */
    /* Loop form: called once per case (on a thread of its own; every block
     * the runner measures, warm-up included, happens inside the
     * pg_keep_running(st) loop). Code before the loop is the case's setup and
     * code after it its teardown; neither is timed. */
    void (*run)(pg_state *st);
    /* Callback form: setup once per case (may be NULL; returns a context,
     * NULL is allowed), iterate `iters` iterations (timed), teardown once. */
    void *(*setup)(pg_state *st);
    void (*iterate)(void *ctx, pg_state *st, int64_t iters);
    void (*teardown)(void *ctx);
} pg_benchmark;

/* What perfgate_plugin_entry() returns. The first two fields never move. */
typedef struct pg_plugin {
    uint32_t abi_version;       /* PG_PLUGIN_ABI_VERSION the plugin was built with */
    uint32_t size;              /* sizeof(pg_plugin) in the plugin */
    const char *name;           /* the plugin's name, for messages */
    const pg_benchmark *benchmarks;
    size_t nbenchmarks;
} pg_plugin;

/* The exported entry point's type. */
typedef const pg_plugin *(*pg_plugin_entry_fn)(void);

/*
 * Defines the entry point for a static array of benchmarks:
 *     static const pg_benchmark table[] = {{"saxpy", "y += a*x", saxpy, NULL, NULL, NULL}};
 *     PG_PLUGIN_DEFINE("example", table)
 */
#ifdef __cplusplus
#define PG__PLUGIN_LINKAGE extern "C"
#else
#define PG__PLUGIN_LINKAGE
#endif
#define PG_PLUGIN_DEFINE(plugin_name, table)                                                      \
    PG__PLUGIN_LINKAGE PG_PLUGIN_EXPORT const pg_plugin *perfgate_plugin_entry(void);            \
    PG__PLUGIN_LINKAGE PG_PLUGIN_EXPORT const pg_plugin *perfgate_plugin_entry(void)             \
    {                                                                                             \
        static const pg_plugin plugin = {PG_PLUGIN_ABI_VERSION, (uint32_t)sizeof(pg_plugin),      \
                                         plugin_name, table, sizeof(table) / sizeof(table[0])}; \
        return &plugin;                                                                           \
    }

/* ---- the API a benchmark calls ------------------------------------------- */

/** True while the current block has iterations left; starts timing on the
 *  first call of a block and stops it on the last. */
static inline int pg_keep_running(pg_state *st)
{
    if (st->pg__left > 0) {
        st->pg__left--;
        return 1;
    }
    return st->pg__api->keep_running(st);
}

/** Stops the clock (per-iteration setup follows); pair with pg_resume_timing(). */
static inline void pg_pause_timing(pg_state *st)
{
    st->pg__api->pause_timing(st);
}

static inline void pg_resume_timing(pg_state *st)
{
    st->pg__api->resume_timing(st);
}

/** Whether the case has parameter `name` (from the suite's `params:`). */
static inline int pg_has_param(pg_state *st, const char *name)
{
    return st->pg__api->has_param(st, name);
}

/** Typed parameter access; `dflt` when the case has no such parameter. */
static inline int64_t pg_param_int(pg_state *st, const char *name, int64_t dflt)
{
    return st->pg__api->param_int(st, name, dflt);
}

static inline double pg_param_double(pg_state *st, const char *name, double dflt)
{
    return st->pg__api->param_double(st, name, dflt);
}

/** The parameter's text; valid while the benchmark runs. */
static inline const char *pg_param_str(pg_state *st, const char *name, const char *dflt)
{
    return st->pg__api->param_str(st, name, dflt);
}

/** The case's thread count (BLAS threads and CPU affinity are already set). */
static inline int pg_threads(pg_state *st)
{
    return st->pg__api->threads(st);
}

/** FLOPs one iteration performs (for throughput and MFU). Without it, the
 *  runner counts the GEMMs of the first iteration made through pg_gemm_*. */
static inline void pg_flops(pg_state *st, double flops_per_iteration)
{
    st->pg__api->set_flops(st, flops_per_iteration);
}

/** Bytes one iteration moves (for bandwidth). */
static inline void pg_bytes(pg_state *st, double bytes_per_iteration)
{
    st->pg__api->set_bytes(st, bytes_per_iteration);
}

/** Named ranges (like torch's record_function) for the exact checks. */
static inline void pg_range_push(pg_state *st, const char *name)
{
    st->pg__api->range_push(st, name);
}

static inline void pg_range_pop(pg_state *st, const char *name)
{
    st->pg__api->range_pop(st, name);
}

/** Brackets one op of your own code (aten-like name, optional shape text). */
static inline void pg_op_begin(pg_state *st, const char *name, const char *shape)
{
    st->pg__api->op_begin(st, name, shape);
}

static inline void pg_op_end(pg_state *st, const char *name)
{
    st->pg__api->op_end(st, name);
}

/** Reports a GEMM your own code performed inside the current op: 2·m·n·k FLOPs. */
static inline void pg_op_gemm(pg_state *st, const char *name, int64_t m, int64_t n, int64_t k)
{
    st->pg__api->op_gemm(st, name, m, n, k);
}

/**
 * The instrumented GEMM entry point (row-major, through the runner's BLAS):
 * C[m,n] = alpha·op(A)·op(B) + beta·C. `op` names it for the recorder and
 * the FLOP counter ("mm", "addmm").
 */
static inline void pg_gemm_f32(pg_state *st, const char *op, int trans_a, int trans_b, int m, int n, int k,
                               float alpha, const float *a, int lda, const float *b, int ldb, float beta,
                               float *c, int ldc)
{
    st->pg__api->gemm_f32(st, op, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

static inline void pg_gemm_f64(pg_state *st, const char *op, int trans_a, int trans_b, int m, int n, int k,
                               double alpha, const double *a, int lda, const double *b, int ldb, double beta,
                               double *c, int ldc)
{
    st->pg__api->gemm_f64(st, op, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/** Marks the case SKIPPED with `reason`; return from the benchmark after it. */
static inline void pg_skip(pg_state *st, const char *reason)
{
    st->pg__api->skip(st, reason);
}

/** Marks the case as an ERROR with `message`; return from the benchmark after it. */
static inline void pg_error(pg_state *st, const char *message)
{
    st->pg__api->error(st, message);
}

/** The CUDA stream (a cudaStream_t) to launch on in `device: cuda` cases;
 *  NULL on CPU cases. The runner synchronises it before reading the clock. */
static inline void *pg_cuda_stream(pg_state *st)
{
    return st->pg__api->cuda_stream(st);
}

/** "cpu" or "cuda". */
static inline const char *pg_device(pg_state *st)
{
    return st->pg__api->device(st);
}

#ifdef __cplusplus
}
#endif
#endif
