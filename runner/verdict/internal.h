/*
 * internal.h - what the files of the verdict pipeline share and nothing else
 * calls: estimate.c fills one case, verdict.c runs the stages over a
 * comparison.
 */
#ifndef PG_VERDICT_INTERNAL_H
#define PG_VERDICT_INTERNAL_H

#include "verdict/model.h"
#include "base/util.h"

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

/**
 * History mode: when the head's samples of `v` hold two regimes (stats.h,
 * pg_stats_shape), v->regime says which one its median measured.
 * @return 0 or PG_ENOMEM.
 */
int pg__verdict_note_regimes(pg_case_verdict *v, const pg_result *head);

/** The samples of `key` in every base run that measured it (`maps` index the runs, or NULL); *first its result. */
struct pg_sample_set;
size_t pg__verdict_base_sets(struct pg_sample_set *out, const pg_result **first, const pg_run *const *bases,
                             const pg_keymap *maps, size_t nbases, const char *key);


/** Settles every case to confirm on again[i], its re-measurement decided on its own (NULL: none; confirm.h). */
int pg__verdict_stage_confirm(pg_comparison *c, const pg_case_verdict *const *again, int improved_too);

/** The one recount: counts, exit code and outcome from the verdicts as they stand. */
void pg__verdict_recount(pg_comparison *c);

/**
 * The ACCEPTED outcome's reason when every REGRESSED case is accepted and
 * there is at least one ("1 regression accepted by label, applied by
 * @alice"); NULL otherwise (caller frees).
 */
char *pg__accept_reason(const pg_comparison *c);

#endif
