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

/** The one recount of verdict.c (counts, exit code, outcome), for the stages kept in other files. */
void pg__comparison_recount(pg_comparison *c);

/**
 * The ACCEPTED outcome's reason when every REGRESSED case is accepted and
 * there is at least one ("1 regression accepted by label, applied by
 * @alice"); NULL otherwise (caller frees).
 */
char *pg__accept_reason(const pg_comparison *c);

#endif
