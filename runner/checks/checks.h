/*
 * checks.h - exact checks: FLOP counts, op presence and schedules.
 */
#ifndef PG_CHECKS_H
#define PG_CHECKS_H

#include "model.h"
#include "suite.h"

/**
 * Runs one exact check of `suite` and fills `out` (expected, actual,
 * passed, message).
 * @return 0 when the check ran (passed or not); an error when it could not.
 */
int pg_check_run(pg_check_result *out, const pg_suite *suite, const pg_check *check);

#endif
