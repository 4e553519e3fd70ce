/*
 * cause.h - what changed behind a verdict: the diagnosis of a REGRESSED or
 * IMPROVED case (verdict/model.h, pg_diagnosis), and the one "what changed"
 * line its report row shows.
 *
 * Three sources, all exact counts:
 *
 * - counted cases (`instrument: instructions`): the per-function Callgrind
 *   profiles both results carry (meter/profile.h): the functions whose
 *   exclusive and inclusive instructions changed most, with file:line and
 *   their share of the case's change. "+10.0 % instructions, 98 % of it in
 *   `sweep` (mylib.c:5)".
 * - timed regressions of an interleaved gate, which the gate counts on
 *   both builds for that case (gate/diagnose.c): the same functions, est.
 *   cycles, heap bytes and allocations per iteration, the BLAS calls of a
 *   `count: blas` command. Instructions that did not move beyond the
 *   case's exact threshold while time regressed say so: "same
 *   instructions: a memory or layout effect".
 * - trace cases: the ops that appeared, disappeared or changed count per
 *   step, from the trace summaries both results carry.
 */
#ifndef PG_CAUSE_H
#define PG_CAUSE_H

#include <stddef.h>

#include "base/model.h"
#include "meter/count.h"
#include "verdict/model.h"

/**
 * Diagnoses every REGRESSED and IMPROVED case of `cmp` that its own
 * results explain: a counted metric (instructions with the profiles of
 * both results; est. cycles and memory figures with the instructions
 * beside them in cmp->head and cmp->base) or a trace case. A case that has
 * a diagnosis keeps it.
 * @return 0 or PG_ENOMEM.
 */
int pg_cause_attach(pg_comparison *cmp);

/** What an interleaved gate counted on both builds for one timed case (gate/diagnose.c). */
typedef struct pg_cause_counts {
    const pg_run *base, *head;       /* the meter's results of the case on each build (KEY#instructions, ...) */
    const pg_counts *base_blas;      /* the BLAS calls of one run of each build (count: blas); NULL: not counted */
    const pg_counts *head_blas;
    const char *note;                /* what could not be counted and why; NULL */
    double seconds;                  /* what the counting took */
} pg_cause_counts;

/**
 * The diagnosis of timed case `v` from the counts of both builds.
 * @param[out] out free with pg_diagnosis_free(); NULL when nothing was counted and there is no note.
 * @return 0 or PG_ENOMEM.
 */
int pg_cause_from_counts(pg_diagnosis **out, const pg_case_verdict *v, const pg_cause_counts *in);

/** The diagnosis as a JSON object's text (the report's and the stored decision's "diagnosis"); NULL on ENOMEM. */
char *pg_cause_to_json(const pg_diagnosis *d);

/**
 * A diagnosis read back from pg_cause_to_json()'s text, or from a report
 * (untrusted): lists are cut to their limits, strings and numbers of the
 * wrong type are left out.
 * @param[out] out NULL when `text` holds no diagnosis.
 * @return 0 or PG_ENOMEM.
 */
int pg_cause_from_json(pg_diagnosis **out, const char *text);

struct json_t;
/** pg_cause_from_json() for a JSON object already parsed (a report's verdict, read by report/json_read.c). */
int pg_cause_from_json_value(pg_diagnosis **out, const struct json_t *o);

/** The file name a report shows for a path: its last component ("src/mylib.c" -> "mylib.c"). */
const char *pg_cause_file_name(const char *path);

#endif
