/*
 * fixture.h - result models built by hand for the report and post tests:
 * a fixed run with every verdict kind and a failed exact check, and large
 * generated runs. They do not depend on the statistics of the day. And
 * stored runs from another machine, for the baseline searches.
 */
#ifndef PG_TEST_FIXTURE_H
#define PG_TEST_FIXTURE_H

#include "base/model.h"
#include "store/store.h"
#include "verdict/verdict.h"

/** The fixed model: head and base runs and their comparison; free with pg_test_model_free(). */
typedef struct pg_test_model {
    pg_run *head, *base;
    pg_comparison *cmp;
} pg_test_model;

void pg_test_fixed_model(pg_test_model *out);
/** `n` cases: a few regressions and improvements, the rest unchanged, long keys. */
void pg_test_big_model(pg_test_model *out, size_t n);
void pg_test_model_free(pg_test_model *m);

/**
 * Stores `count` runs without results on `branch`, measured on another
 * machine (fingerprint `machine_hash`, CPU `cpu_model`), as a hosted
 * runner with another CPU leaves them in the database.
 */
/**
 * Appends the ok result SUITE/NAME@1:cpu to `run` with room for `n`
 * samples (zeroed; the caller fills them and summarizes).
 */
pg_result *pg_test_add_result(pg_run *run, const char *suite, const char *name, size_t n);

/**
 * Appends the counted result KEY#METRIC (unit Ir for instructions, else
 * cycles) with `value` per iteration in both of its two processes, at the
 * default exact threshold, and `extra` (JSON; may be NULL) as its extra.
 */
pg_result *pg_test_add_count(pg_run *run, const char *key, const char *metric, double value, const char *extra);

void pg_test_store_foreign_runs(pg_store *store, size_t count, const char *branch, const char *machine_hash,
                                const char *cpu_model);

#endif
