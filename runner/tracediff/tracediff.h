/*
 * tracediff.h - what changed between two traces of the same training step.
 *
 * Both sides are split into steps (trace/steps.h). Each op (by name) is
 * then one of:
 *
 * - APPEARED / DISAPPEARED: it occurs in no step of one side and in some
 *   step of the other; listed with its path below the step
 *   ("train_step > aten::index > aten::nonzero");
 * - a count change: its per-step count differs. Counts are exact, so the
 *   change is too: when every step of a side has the same count it is
 *   shown as that number, else as the side's median;
 * - a time verdict: its per-step self times are one case each for the
 *   verdict engine (verdict.h), base steps against head steps, so the
 *   decision is the one every perfgate comparison makes: Mann-Whitney on
 *   the log samples, Holm over every timed op, the threshold, the interval
 *   widened by run-to-run drift, the suite guard. The step time is a case
 *   too. An op whose median self time is under the timing floor (5 µs per
 *   step on both sides: the trace rounds to microseconds) is not timed and
 *   is UNSURE with that reason.
 *
 * Paired: when both sides were captured in interleaved rounds (a file of
 * the base, a file of the head, and again; the i-th files of the two sides
 * pair up), each op's median self time per round gives one log ratio per
 * round, and the verdict is the paired one of `perfgate ab` (Wilcoxon
 * signed rank, Hodges-Lehmann/Tukey interval, Holm over the ops): a
 * machine phase slows both sides of a round alike and cancels. A loaded
 * machine moves whole rounds by tens of percent, which leaves the unpaired
 * comparison UNSURE about anything smaller.
 *
 * The movers are ranked by the change of their median per-step self time.
 *
 * Who frees what: pg_trace_diff_free() releases the diff; names point into
 * the diff, which copies them.
 */
#ifndef PG_TRACEDIFF_H
#define PG_TRACEDIFF_H

#include <stddef.h>
#include <stdio.h>

#include "trace/steps.h"
#include "base/util.h"
#include "verdict/model.h"

typedef enum pg_op_change {
    PG_OP_KEPT = 0,
    PG_OP_APPEARED,
    PG_OP_DISAPPEARED
} pg_op_change;

typedef struct pg_trace_op_diff {
    char *name;
    char *path;                   /* head's path, base's for a disappeared op */
    pg_trace_op_kind kind;
    pg_op_change change;
    double base_count, head_count; /* per step: exact when *_exact, else the median */
    int base_exact, head_exact;
    double base_self, head_self;  /* median per-step self time, ns */
    int clamped;                  /* some self time was clamped on either side */
    pg_verdict verdict;           /* of the self time; UNSURE with `reason` when not timed */
    char *reason;
    double ratio, ci_lo, ci_hi, p_adj;
} pg_trace_op_diff;

typedef struct pg_trace_diff {
    pg_trace_op_diff *ops;        /* appeared, disappeared, then by |change of median self| */
    size_t nops;
    pg_trace_op_diff step;        /* the step time ("step" as its name) */
    size_t base_steps, head_steps;
    size_t counts[PG_VERDICT__COUNT]; /* over timed ops */
    size_t appeared, disappeared, count_changed, timed;
    char *method;                 /* the decision rule, one line */
} pg_trace_diff;

typedef struct pg_trace_diff_options {
    unsigned version;
    double threshold;             /* <=0: 5% */
    double alpha;                 /* <=0: 0.05 */
    double floor_ns;              /* <=0: 1 µs / threshold (20 µs at 5%) */
    int paired;                   /* the i-th file of each side was captured beside the other's i-th */
} pg_trace_diff_options;

#define PG_TRACE_DIFF_OPTIONS_VERSION 1
#define PG_TRACE_DIFF_OPTIONS_INIT {PG_TRACE_DIFF_OPTIONS_VERSION, 0, 0, 0, 0}

/**
 * Compares the steps of `head` with those of `base`.
 * @param[out] out free with pg_trace_diff_free().
 * @return 0; PG_EINVAL when a side has fewer than 2 steps; PG_ENOMEM.
 */
int pg_trace_diff_new(pg_trace_diff **out, const pg_trace_steps *base, const pg_trace_steps *head,
                      const pg_trace_diff_options *opts);
void pg_trace_diff_free(pg_trace_diff *d);

/**
 * Whether the diff decided nothing: the step time and every timed op UNSURE,
 * and no op appeared, disappeared or changed its count per step.
 */
int pg_trace_diff_undecided(const pg_trace_diff *d);

/** 1 when the step time or a timed op REGRESSED. */
int pg_trace_diff_regressed(const pg_trace_diff *d);

/** The report for a terminal: appeared/disappeared with paths, count changes, then the `limit` top movers. */
void pg_trace_diff_print(FILE *f, const pg_trace_diff *d, size_t limit);

/** A short markdown table of the same (for a case in a PR comment). */
int pg_trace_diff_markdown(pg_buf *b, const pg_trace_diff *d, size_t limit);

/** Every op as JSON (schema_version 1). */
int pg_trace_diff_json(FILE *f, const pg_trace_diff *d);

#endif
