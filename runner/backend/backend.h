/*
 * backend.h - the ways a benchmark case is measured.
 *
 * exec.c picks one per case: a built-in CPU kernel, a built-in CUDA kernel,
 * a benchmark inside a user plugin, or an external command. Each fills the
 * result's samples, summary, status and message; a failure of the case is
 * an ERROR result (return 0), and only a failure that must stop the whole
 * run returns an error code.
 */
#ifndef PG_BACKEND_H
#define PG_BACKEND_H

#include "exec.h"
#include "measure.h"
#include "model.h"
#include "case.h"

int pg__backend_cpu_case(pg_result *out, const pg_case *c, const pg_exec_options *opts);
int pg__backend_cuda_case(pg_result *out, const pg_case *c, const pg_exec_options *opts);
int pg__backend_plugin_case(pg_result *out, const pg_case *c, const pg_exec_options *opts);
/* Two libraries of one plugin case in lockstep (plugin.h: pg_plugin_run_pair). */
int pg__backend_plugin_pair(pg_result out[2], const pg_case *const c[2], const pg_exec_options *opts, uint64_t seed);
int pg__backend_command_case(pg_result *out, const pg_case *c, const pg_exec_options *opts);

/**
 * The timing engine's options for case `c` under `opts` (time_scale applied
 * to min_run_time and warm-up; max_run_time only ever shrinks).
 */
void pg__backend_measure_options(pg_measure_options *out, const pg_case *c, const pg_exec_options *opts);

/** Moves the samples and block size of `m` into `out` (status OK); m->samples becomes NULL. */
struct pg_measurement;
void pg__result_take(pg_result *out, struct pg_measurement *m);

/** Marks `out` as an ERROR with `message` (copied); returns 0. */
int pg__result_error(pg_result *out, const char *message);
/** Marks `out` as SKIPPED with `reason` (copied); returns 0. */
int pg__result_skip(pg_result *out, const char *reason);

#endif
