/*
 * roofline.h - the machine's two roofs and where each timed case sits under
 * them: compute-, memory- or overhead-bound.
 *
 * The roofs belong to the machine: they are measured once per machine and
 * thread count (pg_roofline_measure) and kept in the store (pg_roof_table,
 * store.h), and every run copies the ones its CPU cases need into its
 * fingerprint (machine_json, "roofline"), measuring only those the store
 * lacks: peak FLOP/s (the sgemm 1024^3 ceiling MFU uses, raised for that run
 * to any case's faster sample and then flagged unreliable) and memory
 * bandwidth (a STREAM-like triad and copy over arrays four times the
 * last-level cache). A case is then classified from its FLOPs and bytes per
 * iteration and its fastest sample, as the roofs are best-of figures too
 * (docs/measuring.md states the rule and thresholds):
 *   intensity   I = FLOPs / bytes
 *   attainable  min(peak, I x bandwidth)   (bandwidth alone with no FLOPs;
 *               peak alone when the bytes fit in the last-level cache, where
 *               the memory roof does not hold a GEMM back)
 *   fraction    achieved / attainable
 *   overhead-bound  no counted work, the roofs would do the work in under
 *                   PG_ROOF_OVERHEAD_S, or fraction < PG_ROOF_OVERHEAD_FRACTION
 *   compute-bound   otherwise, I at or above the ridge peak / bandwidth
 *   memory-bound    otherwise
 */
#ifndef PG_ROOFLINE_H
#define PG_ROOFLINE_H

#include <stddef.h>

#include "base/model.h"

#define PG_ROOF_OVERHEAD_FRACTION 0.10
#define PG_ROOF_OVERHEAD_S 1e-6

typedef enum pg_roof_bound {
    PG_ROOF_UNKNOWN = 0,  /* no roofs for this case (another device, an old run, not timed) */
    PG_ROOF_COMPUTE,
    PG_ROOF_MEMORY,
    PG_ROOF_OVERHEAD
} pg_roof_bound;

/** "compute-bound", "memory-bound", "overhead-bound", "-". */
const char *pg_roof_bound_name(pg_roof_bound b);

typedef struct pg_roofs {
    double peak_flops;     /* FLOP/s */
    double bandwidth;      /* bytes/s (triad) */
    int peak_reliable;     /* 0: a case beat the measured ceiling; peak is that case's best */
    double llc_bytes;      /* last-level cache size; 0: unknown */
} pg_roofs;

typedef struct pg_roof_point {
    pg_roof_bound bound;
    double intensity;      /* FLOP/byte; 0 with no FLOPs; <0 with no bytes */
    double attainable;     /* FLOP/s, or bytes/s for a case without FLOPs */
    double achieved;       /* same unit as attainable */
    double fraction;       /* achieved / attainable; may pass 1 for data that fits in cache */
    double ridge;          /* FLOP/byte where the roofs meet */
    pg_roofs roofs;
    const char *why;       /* one phrase: which rule decided */
} pg_roof_point;

/**
 * The last-level cache the process's CPUs reach, in bytes: the sum of the
 * distinct last-level cache instances sysfs lists for the CPUs this process
 * may run on (glibc's sysconf reports far more on some AMD CPUs: 320 MiB for
 * a 32 MiB L3), else sysconf, else 32 MiB.
 */
size_t pg_roofline_llc_bytes(void);

/** The arrays' footprint the bandwidth is measured over: 4 x `llc` in all, 64 MiB to 1 GiB. */
size_t pg_roofline_bandwidth_bytes(size_t llc);

/** STREAM-like bandwidth at `threads` over `bytes` in all (0: pg_roofline_bandwidth_bytes()), best of 5 passes. */
int pg_roofline_bandwidth(double *triad_bps, double *copy_bps, int threads, size_t bytes);

/** The roofs of one device and thread count as measured on a machine. */
typedef struct pg_roof_entry {
    char device[8];        /* "cpu" */
    int threads;
    double peak_gflops;    /* the sgemm 1024^3 ceiling, fastest of its samples */
    double triad_gbs;
    double copy_gbs;
    double llc_bytes;
    char blas[64];         /* the BLAS version the peak was measured with ("" unknown) */
    int64_t measured_at;   /* unix seconds */
    int fresh;             /* measured by this process and not yet stored */
} pg_roof_entry;

/** A machine's roofs: what the store keeps (store.h) and a run reuses. */
typedef struct pg_roof_table {
    pg_roof_entry *items;
    size_t n;
} pg_roof_table;

/** Adds `e` (copied), replacing an entry of the same device and thread count. */
int pg_roof_table_put(pg_roof_table *t, const pg_roof_entry *e);

/** The entry for `device`/`threads`, or NULL. */
const pg_roof_entry *pg_roof_table_find(const pg_roof_table *t, const char *device, int threads);

void pg_roof_table_clear(pg_roof_table *t);

/**
 * Measures the CPU roofs at `threads` into `out` (fresh, stamped now): the
 * sgemm 1024^3 ceiling and the bandwidth over pg_roofline_bandwidth_bytes().
 */
int pg_roofline_measure(pg_roof_entry *out, int threads);

/** The BLAS version a fingerprint names (its "openblas_version"), "" when none; into `out` of `len`. */
void pg_roofline_blas(char *out, size_t len, const char *machine_json);

/**
 * Puts the roofs for every thread count the run's OK CPU results ran at into
 * run->machine_json under "roofline" (nothing when the run has no
 * fingerprint): those `known` holds for the run's BLAS are copied (no
 * measuring), the others measured with pg_roofline_measure() and added to
 * `known` as fresh entries, for the caller to store. `known` NULL: measure
 * every one. `peak_gflops` > 0 is a user's peak, taken as is.
 */
int pg_roofline_record(pg_run *run, double peak_gflops, pg_roof_table *known);

/** The roofs stored for `device`/`threads` in a fingerprint; 1 when there are none. */
int pg_roofline_roofs(pg_roofs *out, const char *machine_json, const char *device, int threads);

/** Classifies one result against the roofs in `machine_json`; bound UNKNOWN when it cannot. */
void pg_roofline_classify(pg_roof_point *out, const pg_result *r, const char *machine_json);

/** Classifies against given roofs (the rule itself, for tests and the doctor). */
void pg_roofline_point(pg_roof_point *out, double flops, double bytes, double seconds, const pg_roofs *roofs);

#endif
