/*
 * expect.h - the expected values of exact checks: integer expressions over
 * a case's parameters (`6*B*in*out`), evaluated exactly.
 */
#ifndef PG_SUITE_EXPECT_H
#define PG_SUITE_EXPECT_H

#include <stdint.h>

#include "base/case.h"
#include "base/node.h"

/**
 * Evaluates an integer expression (a scalar node such as an `expect` value,
 * e.g. `6*B*in*out`) over the case's integer parameters, in checked 64-bit
 * arithmetic.
 * @param[out] out the value
 * @return 0, or PG_ESUITE with "FILE:LINE:COL: message" set, the column
 *         pointing at the offending character (unknown name, overflow...).
 */
int pg_expect_eval(int64_t *out, const pg_case *c, const pg_node *expr);

#endif
