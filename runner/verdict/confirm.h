/*
 * confirm.h - confirmation re-runs: a REGRESSED verdict fails the build (and
 * an IMPROVED one is claimed) only when a fresh re-measurement of the case,
 * compared with the same baseline, gives the same verdict (false verdicts
 * then need two flukes in a row: about alpha squared instead of alpha).
 *
 * The confirmation stage of the verdict (verdict.h) measures nothing: it
 * hands each REGRESSED (or IMPROVED) case and its re-measurement, decided on
 * its own, to pg_confirm_settle().
 */
#ifndef PG_CONFIRM_H
#define PG_CONFIRM_H

#include "verdict/model.h"

/**
 * Settles the REGRESSED or IMPROVED case `v` on `again`, its re-measurement decided on
 * its own (NULL when no re-run was made; a non-finite ratio when the re-run
 * produced no samples): fills v->confirm, rewrites the reason to show both
 * measurements (or why there is no second one) and turns a refuted case
 * (the re-run's verdict differs) UNSURE. Leaves the comparison's counts alone.
 * @return 0 or PG_ENOMEM.
 */
int pg_confirm_settle(pg_case_verdict *v, const pg_case_verdict *again);

/**
 * Settles the REGRESSED or IMPROVED case `v` on its re-runs in `n` fresh
 * processes: `alone[i]` each re-run decided on its own, `pooled` every
 * process of the head (the first run and the re-runs) decided together
 * with the drift between them (NULL when n is 0: no re-run produced
 * samples). The verdict stands only when every re-run and the pool give it
 * (agreement across processes); otherwise the case is UNSURE. The reason
 * shows every measurement. Leaves the comparison's counts alone.
 * @return 0 or PG_ENOMEM.
 */
int pg_confirm_settle_processes(pg_case_verdict *v, const pg_case_verdict *const *alone, size_t n,
                                const pg_case_verdict *pooled);

#endif
