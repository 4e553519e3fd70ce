/*
 * verdict.h - per-case verdicts between a head run and its baseline.
 *
 * Verdicts: SAME, REGRESSED, IMPROVED, UNSURE (never fails the build),
 * NEW and MISSING (reported, not failed), ERROR and SKIPPED (the case did
 * not produce samples on one side).
 */
#ifndef PG_VERDICT_H
#define PG_VERDICT_H

#include <stddef.h>

#include "model.h"

typedef enum pg_verdict {
    PG_VERDICT_SAME = 0,
    PG_VERDICT_REGRESSED,
    PG_VERDICT_IMPROVED,
    PG_VERDICT_UNSURE,
    PG_VERDICT_NEW,
    PG_VERDICT_MISSING,
    PG_VERDICT_ERROR,
    PG_VERDICT_SKIPPED,
    PG_VERDICT__COUNT
} pg_verdict;

const char *pg_verdict_name(pg_verdict v);

typedef struct pg_case_verdict {
    char *key;
    char *suite;
    char *name;
    const pg_result *head;   /* NULL for MISSING; points into the head run */
    const pg_result *base;   /* NULL for NEW; points into the first base run */
    size_t base_n, head_n;   /* samples compared */
    double base_median, head_median; /* seconds per iteration */
    double ratio;            /* head/base of medians */
    double ci_lo, ci_hi;     /* interval of the ratio */
    double p, p_adj;         /* one-sided p-value (direction of the change), adjusted */
    double threshold, alpha;
    double resolution;       /* smallest change detectable at this noise, as a fraction */
    pg_verdict verdict;
    char *reason;            /* one line; always set for UNSURE, ERROR, SKIPPED */
} pg_case_verdict;

typedef struct pg_comparison {
    pg_case_verdict *cases;
    size_t ncases;
    size_t counts[PG_VERDICT__COUNT];
    size_t checks_total, checks_failed;
    const pg_run *head;      /* not owned */
    const pg_run *base;      /* first base run, not owned; NULL when none */
    size_t nbases;
    char *method;            /* one line naming the decision rule */
    int exit_code;           /* 0 pass, 1 regression or failed check */
} pg_comparison;

typedef struct pg_compare_options {
    unsigned version;
    double threshold;        /* <0: take each case's own (suite) value */
    double alpha;            /* <0: take each case's own (suite) value */
    int fail_on_missing;
} pg_compare_options;

#define PG_COMPARE_OPTIONS_VERSION 1
#define PG_COMPARE_OPTIONS_INIT {PG_COMPARE_OPTIONS_VERSION, -1.0, -1.0, 0}

/**
 * Compares `head` with the pooled baseline runs `bases` (may be empty: the
 * first run passes with every case NEW). Failed exact checks of the head
 * run count towards the exit code.
 * @param[out] out free with pg_comparison_free().
 */
int pg_compare(pg_comparison **out, const pg_run *head, const pg_run *const *bases, size_t nbases,
               const pg_compare_options *opts);
void pg_comparison_free(pg_comparison *cmp);

#endif
