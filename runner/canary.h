/*
 * canary.h - reference workloads that tell a machine phase from a change.
 *
 * A canary is a small fixed workload per device class and kind: a
 * compute-bound GEMM and a memory-bound copy on CPU. The executor measures
 * them in short rounds interleaved with the suite (before the first case,
 * every few cases, after the last) and stores them as ordinary results of
 * the reserved suite "canary", so history and reports see them. When a
 * canary moved between head and base beyond its own sample noise, the
 * comparison is marked as drifted and a REGRESSED (IMPROVED) case whose
 * change that canary shift explains becomes UNSURE with the reason
 * ("machine drift: memory canary +38%"), never REGRESSED.
 */
#ifndef PG_CANARY_H
#define PG_CANARY_H

#include "model.h"
#include "util.h"
#include "suite.h"
#include "verdict.h"

/* The reserved suite name of canary results. */
#define PG_CANARY_SUITE "canary"

/* Case names inside the canary suite. */
#define PG_CANARY_COMPUTE "compute"
#define PG_CANARY_MEMORY "memory"

/* Bits of pg_comparison.canary_drift. */
enum { PG_CANARY_DRIFT_COMPUTE = 1 << 0, PG_CANARY_DRIFT_MEMORY = 1 << 1 };

/* What limits a case, from its FLOPs and bytes per iteration. */
typedef enum pg_bound { PG_BOUND_UNKNOWN = 0, PG_BOUND_COMPUTE, PG_BOUND_MEMORY } pg_bound;

/*
 * Arithmetic intensity (FLOP per byte) at and above which a case counts as
 * compute-bound. A CPU core streams some 10-20 GB/s and computes some
 * 50-100 GFLOP/s in SGEMM, so the ridge lies near 5 FLOP/byte; 4 keeps
 * copies and elementwise chains (0-0.5) and small GEMMs (>= 10) well apart.
 */
#define PG_CANARY_RIDGE 4.0

/*
 * Smallest canary move reported as drift: medians of separate processes
 * move about 2% typically on our machines (notes/noise.md).
 */
#define PG_CANARY_MIN_SHIFT 0.02

/** Classifies a result: compute when flops/bytes >= ridge, memory when bytes but less intensity. */
pg_bound pg_canary_bound(const pg_result *r);

/** 1 when the result or verdict key belongs to the canary suite. */
int pg_canary_is(const char *suite);

/**
 * Loads the built-in canary suite for CPU: two cases, "canary/compute"
 * (sgemm 256x256x256, 1 thread) and "canary/memory" (a copy of 8 Mi floats,
 * 64 MiB moved per iteration: beyond the last-level cache), each with a
 * short min_run_time because it is measured in several rounds.
 * @param[out] out free with pg_suite_free().
 */
int pg_canary_suite(pg_suite **out);

/**
 * The drift rule, applied by pg_comparison_adjust() after the per-case
 * decisions: reads the canary cases of `c` (their ratio and the interval
 * from the samples alone), records their shifts in c->canary_compute and
 * c->canary_memory and the drifted kinds in c->canary_drift, turns explained
 * REGRESSED/IMPROVED cases into UNSURE with the reason, and keeps the
 * canaries themselves from ever being REGRESSED or IMPROVED. Does not
 * recompute counts: the caller does.
 * @return 0 or PG_ENOMEM.
 */
int pg__canary_rule(pg_comparison *c);

/**
 * Appends one line (no newline) describing the canaries of a comparison to
 * `b`, e.g. "canaries: compute -0.4%, memory +38.0% (machine drift: memory)",
 * for every report. Appends nothing and returns 0 when neither canary was
 * measured on both sides.
 * @return 1 when a line was appended, else 0.
 */
int pg_canary_describe(pg_buf *b, const pg_comparison *c);

/**
 * Appends the samples of `more` (a fresh round of the same case) to `acc`
 * and recomputes its summary. A failed round turns `acc` into its error.
 */
int pg__canary_merge(pg_result *acc, const pg_result *more);

#endif
