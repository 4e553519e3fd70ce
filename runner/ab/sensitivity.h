/*
 * sensitivity.h - would a change of real work be caught here?
 *
 * `perfgate doctor --sensitivity SUITE` gates every case of a suite against
 * itself on this machine, the head side doing a known amount more of the
 * case's own work: each block runs its iterations (1 + change) times and
 * counts them once (the same kernel, more of it, never a spin), exactly as
 * an interleaved gate would gate a commit. A case is caught (REGRESSED),
 * missed (SAME or IMPROVED: the gate would pass the change) or UNSURE (the
 * gate could not tell here). Run it on a new runner, and after changing
 * min_run_time or the threshold (docs/statistics.md, "Sensitivity").
 */
#ifndef PG_AB_SENSITIVITY_H
#define PG_AB_SENSITIVITY_H

#include "ab/ab.h"

typedef enum pg_sensitivity_outcome {
    PG_SENS_CAUGHT = 0,       /* REGRESSED */
    PG_SENS_MISSED,           /* SAME or IMPROVED on a real slowdown */
    PG_SENS_UNSURE,           /* the gate could not tell at this noise */
    PG_SENS_FAILED,           /* ERROR or SKIPPED on a side */
    PG_SENS_NOT_INJECTED      /* a case whose work cannot be repeated from outside (command, GPU, trace) */
} pg_sensitivity_outcome;

typedef struct pg_sensitivity_case {
    const char *key;          /* the case's key (owned by the suite set) */
    pg_sensitivity_outcome outcome;
    const pg_case_verdict *v; /* its verdict in ab.cmp; NULL when not measured */
} pg_sensitivity_case;

typedef struct pg_sensitivity {
    pg_ab_result ab;          /* the gate of the injected change */
    double change;            /* the change injected, as made exact: whole / unit */
    int64_t unit, whole;      /* `whole` more iterations in every `unit` counted */
    pg_sensitivity_case *cases;
    size_t ncases;
    size_t counts[PG_SENS_NOT_INJECTED + 1];
} pg_sensitivity;

/** Whether case `c`'s work can be repeated from outside: a CPU plugin or built-in kernel case. */
int pg_sensitivity_injectable(const pg_case *c);

/**
 * Gates every case of `set` (opts->filter, opts->rounds and the rest as for
 * pg_ab_run()) against itself with opts->extra_work more of its own work on
 * the head side; base and head are the suite as written unless opts names
 * builds. Cases that cannot take the change are listed as NOT_INJECTED.
 * @param[out] out free with pg_sensitivity_clear().
 * @return 0; PG_EUSAGE when extra_work is not in (0, 1] or no case can take
 *         the change; an error of pg_ab_run().
 */
int pg_sensitivity_run(pg_sensitivity *out, const pg_suite_set *set, const pg_ab_options *opts);
void pg_sensitivity_clear(pg_sensitivity *s);

#endif
