/*
 * canary.h - reference workloads that tell a machine phase from a change.
 *
 * A canary is a small fixed workload per device class and kind: a
 * compute-bound GEMM and a memory-bound copy on CPU. The executor measures
 * them in short rounds interleaved with the suite (before the first case,
 * every few cases, after the last) and stores them as ordinary results of
 * the reserved suite "canary", so history and reports see them. This module
 * reads the canaries of a comparison (did one move beyond its own sample
 * noise?) and says whether such a move explains a case's change; the
 * canary stage of the verdict (verdict.h) then makes an explained REGRESSED
 * (IMPROVED) case UNSURE ("machine drift: memory canary +38%").
 */
#ifndef PG_CANARY_H
#define PG_CANARY_H

#include "base/model.h"
#include "base/util.h"
#include "suite/suite.h"
#include "verdict/model.h"

/* The reserved suite name of canary results. */
#define PG_CANARY_SUITE "canary"

/* Case names inside the canary suite. */
#define PG_CANARY_COMPUTE "compute"
#define PG_CANARY_MEMORY "memory"

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
 * Reads the canary cases among `cases` (their ratio and the interval from
 * their samples alone): the head/base ratio of each, which of them drifted,
 * and the line every report shows, e.g. "canaries: compute -0.4%, memory
 * +38.0% (machine drift: memory; ...)".
 * @param[out] out out->summary is NULL when neither canary was measured on
 *             both sides, else a new string the caller frees.
 * @return 0 or PG_ENOMEM.
 */
int pg_canary_read(pg_canary_reading *out, const pg_case_verdict *cases, size_t ncases);

/**
 * The line every report shows for a reading's figures (compute, memory,
 * drift), made from them alone. @param[out] out NULL when neither canary
 * was measured on both sides; else caller frees.
 */
int pg_canary_summary(char **out, const pg_canary_reading *r);

/**
 * Whether a drifted canary explains the change of `v`, a REGRESSED or
 * IMPROVED case: the canary of its kind (pg_canary_bound() of its head
 * result; for an unknown kind the larger move in the case's direction) moved
 * the same way, and the case's interval with that shift taken out no longer
 * clears the threshold.
 * @param[out] out the canary's ratio; @param[out] which "compute" or "memory".
 * @return 1 when explained, else 0.
 */
int pg_canary_explains(double *out, const char **which, const pg_canary_reading *r, const pg_case_verdict *v);

/**
 * Appends the samples of `more` (a fresh round of the same case) to `acc`
 * and recomputes its summary. A failed round turns `acc` into its error.
 */
int pg_canary_merge(pg_result *acc, const pg_result *more);

#endif
