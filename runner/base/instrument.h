/*
 * instrument.h - the hooks through which kernels report what they do.
 *
 * Every kernel op (a GEMM, an elementwise pass, a count or gather) is
 * bracketed by pg__op_begin()/pg__op_end(), and every GEMM also reports its
 * shape through pg__op_gemm(). Named ranges (like torch's record_function)
 * open and close with pg__range_push()/pg__range_pop(), and the module
 * executing (for per-module FLOP tables) with pg__module_push()/pop(). With no instrument
 * installed each hook costs one load and a branch; the FLOP counter and the
 * op recorder of the exact checks install one while a workload runs.
 */
#ifndef PG_INSTRUMENT_H
#define PG_INSTRUMENT_H

#include <stdint.h>

typedef struct pg_instrument {
    /* An op starts; `shape` is a short text such as "[64,256]x[256,256]" or NULL. */
    void (*op_begin)(void *payload, const char *name, const char *shape);
    void (*op_end)(void *payload, const char *name);
    /* A GEMM of C[m,n] += A[m,k]·B[k,n] ran inside the current op: 2·m·n·k FLOPs. */
    void (*gemm)(void *payload, const char *name, int64_t m, int64_t n, int64_t k);
    void (*range_push)(void *payload, const char *name);
    void (*range_pop)(void *payload, const char *name);
    /* A module starts or ends (ModuleTracker's idea): "mlp.1"; `backward` marks backward passes. */
    void (*module_push)(void *payload, const char *path, int backward);
    void (*module_pop)(void *payload, const char *path);
    void *payload;
} pg_instrument;

/** The installed instrument (NULL when none). Not thread-safe by design:
 *  kernels report from the thread that drives them. */
extern const pg_instrument *pg__instrument;

/** Installs `ins` (NULL uninstalls); returns the previous one. */
const pg_instrument *pg__instrument_set(const pg_instrument *ins);

static inline void pg__op_begin(const char *name, const char *shape)
{
    if (pg__instrument && pg__instrument->op_begin)
        pg__instrument->op_begin(pg__instrument->payload, name, shape);
}

static inline void pg__op_end(const char *name)
{
    if (pg__instrument && pg__instrument->op_end)
        pg__instrument->op_end(pg__instrument->payload, name);
}

static inline void pg__op_gemm(const char *name, int64_t m, int64_t n, int64_t k)
{
    if (pg__instrument && pg__instrument->gemm)
        pg__instrument->gemm(pg__instrument->payload, name, m, n, k);
}

static inline void pg__range_push(const char *name)
{
    if (pg__instrument && pg__instrument->range_push)
        pg__instrument->range_push(pg__instrument->payload, name);
}

static inline void pg__range_pop(const char *name)
{
    if (pg__instrument && pg__instrument->range_pop)
        pg__instrument->range_pop(pg__instrument->payload, name);
}

static inline void pg__module_push(const char *path, int backward)
{
    if (pg__instrument && pg__instrument->module_push)
        pg__instrument->module_push(pg__instrument->payload, path, backward);
}

static inline void pg__module_pop(const char *path)
{
    if (pg__instrument && pg__instrument->module_pop)
        pg__instrument->module_pop(pg__instrument->payload, path);
}

#endif
