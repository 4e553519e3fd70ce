/* progs.h - building the programs and libraries the count tests run, as a user builds them: the system
   compiler, no sanitizers, nothing of perfgate. */
#ifndef PG_TEST_COUNT_PROGS_H
#define PG_TEST_COUNT_PROGS_H

#include <stdint.h>

struct json_t;

/** Compiles C source `src` into dir/name with `flags` after it (e.g. "-lopenblas"); asserts it built. */
char *pg_test_cc(const char *dir, const char *name, const char *src, const char *flags);

/** Compiles `src` into the shared library dir/lib`name`.so with `flags`; asserts it built. */
char *pg_test_cc_shared(const char *dir, const char *name, const char *src, const char *flags);

/** FLOPs of the rows of `perfgate count --json` whose `field` equals `value`. */
int64_t pg_test_row_flops(struct json_t *rows, const char *field, const char *value);

/** Calls of the rows whose `field` equals `value`. */
int64_t pg_test_row_calls(struct json_t *rows, const char *field, const char *value);

#endif
