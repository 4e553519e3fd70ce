/*
 * checks.h - exact checks: FLOP counts, op presence and profiler schedules.
 *
 * Timing is noisy, counts are not: a check runs a workload under an
 * instrument (or reads a trace file) and compares counts exactly with the
 * suite's expectations, so it fails every time or never.
 *   flops    - FLOPs of every GEMM (2·m·n·k) by op and module (FlopCounterMode)
 *   ops      - ops present, absent or counted, overall or within each range
 *   schedule - windows fired by a wait/warmup/active/repeat profiler schedule
 */
#ifndef PG_CHECKS_H
#define PG_CHECKS_H

#include <stdint.h>

#include "checks/options.h"
#include "base/instrument.h"
#include "base/model.h"
#include "suite/suite.h"


/**
 * Runs one exact check of `suite` and fills `out` (expected, actual,
 * passed, message, detail). A check that cannot run here (a CUDA workload
 * without a device) is marked skipped and passes.
 * @return 0 when the check ran (passed or not) or was skipped; an error
 *         (with a one-line message naming file:line:col) when it could not run.
 * @param opts NULL: PG_CHECK_OPTIONS_INIT.
 */
int pg_check_run(pg_check_result *out, const pg_suite *suite, const pg_check *check, const pg_check_options *opts);

#endif
