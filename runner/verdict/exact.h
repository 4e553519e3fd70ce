/*
 * verdict_exact.h - the verdict of a counted metric (instructions,
 * simulated cycles, bytes allocated): the branch of the verdict pipeline
 * for measures that do not move between runs.
 *
 * No significance test: counts that repeat exactly carry no sampling error,
 * so the change is the ratio of the counts, and the rule is the threshold
 * alone: REGRESSED when head - base > threshold * base (strictly: a change
 * of exactly the threshold is SAME), IMPROVED when base - head > threshold *
 * head (the same rule read backwards), SAME otherwise (identical counts say
 * so). Counts that differ between the
 * processes of one side are nondeterministic: UNSURE with their spread,
 * never gated as exact. These cases stay out of Holm's family, the suite
 * guard, the canary stage and confirmation (a re-count gives the same count).
 */
#ifndef PG_VERDICT_EXACT_H
#define PG_VERDICT_EXACT_H

#include <stddef.h>

#include "verdict/model.h"

/** Whether `v` is decided by this branch: its head or base result holds a counted metric. */
int pg_verdict_is_exact(const pg_case_verdict *v);

/** What the method line says of counted cases. */
#define PG_VERDICT_EXACT_METHOD                                                                              \
    "counted metrics (instructions, cycles, bytes): exact counts against the base (the base build, or the "  \
    "newest baseline run), no test; REGRESSED when the count grew beyond the case's exact threshold, UNSURE " \
    "when its processes disagreed"

/** Whether any case of `c` is a counted metric. */
int pg_comparison_has_exact(const pg_comparison *c);

/** The unit of the case's values, for reporters: "s" for time, else the counted result's unit ("Ir", "B"). */
const char *pg_verdict_unit(const pg_case_verdict *v);

/**
 * Decides `v` (head, base, threshold set) on `head` and `base`, the
 * per-process counts of each side (`base` from the newest base run).
 * Fills est (medians, ratio; p stays NAN), verdict and reason.
 * @return 0, or PG_ENOMEM.
 */
int pg_verdict_exact(pg_case_verdict *v, const double *head, size_t nhead, const double *base, size_t nbase);

#endif
