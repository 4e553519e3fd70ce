/*
 * confirm.h - confirmation re-runs: a REGRESSED verdict fails the build only
 * when a fresh re-measurement of the case, compared with the same baseline,
 * is REGRESSED too (false alarms then need two flukes in a row: about
 * alpha squared instead of alpha).
 */
#ifndef PG_CONFIRM_H
#define PG_CONFIRM_H

#include "model.h"
#include "verdict.h"

/* pg_case_verdict.confirm */
enum {
    PG_CONFIRM_NONE = 0,    /* not a candidate (or confirmation was off) */
    PG_CONFIRM_CONFIRMED,   /* the re-run is REGRESSED too: the verdict stands */
    PG_CONFIRM_REFUTED,     /* the re-run is not: UNSURE with both measurements */
    PG_CONFIRM_NOT_RUN      /* no re-run (budget spent, or it failed): the verdict stands, said so */
};

/**
 * Confirms every REGRESSED case of `cmp` with `rerun`, a run holding fresh
 * results for some of them (looked up by key). Each re-run is estimated
 * against the same baseline runs (`bases`, as given to pg_compare()) on its
 * own, at the case's alpha (a single hypothesis: the one the first
 * measurement raised), and decided by the usual rule. Fills the confirm
 * fields, rewrites the reason to show both measurements, turns refuted
 * cases into UNSURE and recomputes counts and the exit code.
 * @return 0, or PG_ENOMEM.
 */
int pg_confirm_apply(pg_comparison *cmp, const pg_run *rerun, const pg_run *const *bases, size_t nbases,
                     const pg_compare_options *opts);

/**
 * The same for interleaved A/B gates: `again` is a fresh interleaved
 * comparison of (at least) the REGRESSED cases of `cmp`, decided on its own
 * rounds; a case stays REGRESSED only when it is REGRESSED in `again` too.
 * @return 0, or PG_ENOMEM.
 */
int pg_confirm_apply_paired(pg_comparison *cmp, const pg_comparison *again, const pg_compare_options *opts);

#endif
