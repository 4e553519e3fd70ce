/*
 * internal.h - what the files of the gate share: finding a case of the
 * loaded suites, and the diagnosis of an interleaved gate's timed
 * regressions (diagnose.c).
 */
#ifndef PG_GATE_INTERNAL_H
#define PG_GATE_INTERNAL_H

#include "base/util.h"
#include "gate/gate.h"

/** The case with this key among the loaded suites; NULL when absent. */
const pg_case *pg__gate_find_case(const pg_suite_set *set, const char *key);

/**
 * For every REGRESSED timed case of an interleaved gate's comparison that
 * has no diagnosis yet (a trace case has its trace's): counts it on both
 * builds (instructions per function and est. cycles where Valgrind is,
 * heap bytes and allocations, the BLAS calls of a `count: blas` command)
 * and attaches what changed (cause.h). Nothing runs without such a case.
 * Counting that fails is said in the case's diagnosis and in `said` (one
 * line for the gate's progress), never an error of the gate.
 * @return 0 or PG_ENOMEM.
 */
int pg__gate_diagnose(pg_comparison *cmp, const pg_suite_set *set, const pg_gate_options *o, pg_buf *said);

/**
 * The suites' `accept:` entries (suite.h) in a history-mode gate: an entry
 * accepts the REGRESSED cases it names while the run's commit is its
 * `since` or one of the next recorded on the run's branch, `commits` in
 * all. An interleaved gate, or one without a store, applies none (a pull
 * request accepts with a label) and says so when one would have mattered.
 * What was done is said in `said`.
 * @return 0, a store error, or PG_ENOMEM.
 */
int pg__gate_accept_suites(pg_gate_result *r, const pg_suite_set *set, const pg_gate_options *o, pg_buf *said);

#endif
