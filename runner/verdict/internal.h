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

#endif
