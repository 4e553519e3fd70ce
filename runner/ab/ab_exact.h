/*
 * ab_exact.h - the A/B of two builds under a counting instrument
 * (instructions, memory).
 *
 * Counts do not move between processes, so nothing is interleaved: each
 * case is measured once per side by the meter (meter.h: two processes per
 * side, whose counts must agree: the determinism check), and decided by
 * the exact verdict (verdict_exact.h), REGRESSED when the head's count grew
 * beyond the case's exact threshold.
 */
#ifndef PG_AB_EXACT_H
#define PG_AB_EXACT_H

#include "ab/ab.h"
#include "meter/meter.h"

/**
 * Measures every case of `set` (opts->filter, opts->keys narrow it) on
 * opts->base and opts->head with each counting instrument in `instruments`
 * (PG_INSTRUMENT_* bits; time is ignored) and compares the head with the
 * base. Fills base, head and cmp of `out`; no rounds (rounds 0, paired
 * NULL).
 * @return 0; PG_ENOTFOUND when a build path does not exist; PG_EUSAGE when
 *         an instrument cannot run here (no Valgrind); an infrastructure
 *         error. A case that fails on either side is an ERROR verdict.
 */
int pg_ab_exact_run(pg_ab_result *out, const pg_suite_set *set, const pg_ab_options *opts, unsigned instruments,
                    const pg_meter_options *meter);

#endif
