/*
 * internal.h - what the files of the verdict pipeline share and nothing else
 * calls: estimate.c fills one case, verdict.c runs the stages over a
 * comparison.
 */
#ifndef PG_VERDICT_INTERNAL_H
#define PG_VERDICT_INTERNAL_H

#include "verdict/model.h"

/** Replaces a case's reason with `reason` (owned by the case from now on; may be NULL). */
void pg__verdict_set_reason(pg_case_verdict *v, char *reason);

/**
 * Widens a case's interval by a drift half-width `wd` (log scale) added in
 * quadrature on each side, and recomputes its resolution.
 */
void pg__verdict_widen(pg_case_verdict *v, double wd);

/**
 * The reason of a case whose verdict is set, from its estimate (the
 * single-estimator reasons: the p of a REGRESSED case, why an UNSURE one is
 * open, with advice). Replaces v->reason.
 */
int pg__verdict_explain(pg_case_verdict *v, size_t ntested);

/**
 * pg_verdict_decide() of a case with two estimators (v->dual.on, dual.c):
 * the verdict from both, the estimate shown from the one that decided, the
 * reason naming what each saw and the rounds' regimes, and v->regime.
 */
int pg__verdict_decide_dual(pg_case_verdict *v, size_t ntested);

#endif
