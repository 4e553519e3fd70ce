/*
 * kinds.h - what the check kinds share, below both them and the dispatcher
 * (checks.c): running a check's workload under
 * an instrument, evaluating expectations, filling results, exporting traces.
 */
#ifndef PG_CHECKS_KINDS_H
#define PG_CHECKS_KINDS_H

#include "checks/options.h"
#include "meter/count.h"
#include "base/fmt.h"
#include "base/model.h"
#include "suite/suite.h"
#include "kernels/kernels.h"
#include "trace/trace.h"
#include "base/util.h"

/** A check's workload: the case built from `workload:`, its kernel and state. */
typedef struct pg__workload {
    pg_case c;
    const pg_kernel *kernel;
    void *state;
    const char *range;       /* `range:` param: each step runs inside this range */
    int64_t step;            /* steps run so far */
} pg__workload;

/**
 * Builds the case and sets the kernel up. @return 0; PG_ESKIP (message set)
 * when it cannot run here (CUDA); else an error naming the suite position.
 */
int pg__workload_open(pg__workload *w, const pg_suite *suite, const pg_check *check);
/** Runs one step: range "ProfilerStep#N" (when `profiler_step`), the `range:`, one iteration. */
int pg__workload_step(pg__workload *w, int profiler_step);
void pg__workload_close(pg__workload *w);

/** 1 when the check's workload is a program ({command: [...], count: blas}) rather than a kernel. */
int pg__workload_is_command(const pg_check *check);
/** Runs a command workload's case `c` once under the BLAS counter (count.h) into `out`. */
int pg__workload_count(pg_counts *out, const pg_case *c);
/**
 * Replays counted calls through the installed instrument: each range path
 * opened once (paths in tree order), each call an op with its shape. More
 * than 1,000,000 calls is an error (a recording that large is not a check).
 */
int pg__counts_replay(const pg_counts *c);

/** Evaluates the integer expression in scalar `n` over the workload's numeric params (c may be NULL). */
int pg__check_eval(int64_t *out, const pg_node *n, const pg_case *c, const char *what);

/** A trace path of a suite: absolute as given, else relative to the suite file's folder. Caller frees. */
char *pg__check_path(const char *suite_path, const char *rel);

/**
 * Reads the trace a check's `trace:` names (relative to the suite file) with `ro`; a bad path or file is an
 * error naming the suite position and the file's own.
 */
int pg__check_read_trace(pg_trace **out, const pg_suite *suite, const pg_node *tn, const pg_trace_read_options *ro);

/** Reports an expect key no kind knows, with its position. */
int pg__check_unknown_key(const pg_node *key, const char *kind, const char *known);

/** Sets expected/actual/message/passed (strings copied; message NULL when passed). */
int pg__check_fill(pg_check_result *out, const char *expected, const char *actual, const char *message,
                   const char *detail);

/** Exports `t` to opts->trace_dir as SUITE.CHECK[.SUFFIX].json when a directory is set. */
int pg__check_export(const pg_check_options *opts, const pg_suite *suite, const pg_check *check,
                     const char *suffix, const pg_trace *t);


/* The kinds. Each returns like pg_check_run(). */
int pg__check_flops(pg_check_result *out, const pg_suite *suite, const pg_check *check, const pg_check_options *opts);
int pg__check_ops(pg_check_result *out, const pg_suite *suite, const pg_check *check, const pg_check_options *opts);
int pg__check_schedule(pg_check_result *out, const pg_suite *suite, const pg_check *check,
                       const pg_check_options *opts);
int pg__check_memory(pg_check_result *out, const pg_suite *suite, const pg_check *check,
                     const pg_check_options *opts);

#endif
