/* support.h - shared helpers for the Criterion tests. */
#ifndef PG_TEST_SUPPORT_H
#define PG_TEST_SUPPORT_H

#include <criterion/criterion.h>
#include <stddef.h>

#include "perfgate/errors.h"

/** Asserts a library call returned 0, printing the library's message if not. */
#define pg_assert_ok(expr)                                                                   \
    do {                                                                                     \
        int pg__rc = (expr);                                                                 \
        cr_assert(pg__rc == 0, "%s failed: %s (%s)", #expr, pg_strerror(pg__rc), pg_error_last()); \
    } while (0)

/** A fresh temporary directory (caller frees the string; removed by pg_test_rmtree). */
char *pg_test_tmpdir(void);
void pg_test_rmtree(const char *path);

/** Writes `text` to dir/name and returns the full path (caller frees). */
char *pg_test_write(const char *dir, const char *name, const char *text);

/** The result of running the perfgate binary. */
typedef struct pg_proc {
    int status;        /* exit code, or 128+signal */
    char *out;         /* captured stdout */
    char *err;         /* captured stderr */
} pg_proc;

/**
 * Runs the built perfgate binary with `argv` (NULL-terminated, without the
 * program name) in directory `cwd` (NULL: current) and extra environment
 * `env` ("K=V", NULL-terminated, may be NULL). Captures output.
 */
int pg_test_run(pg_proc *out, const char *cwd, const char *const *env, const char *const *argv);
void pg_proc_free(pg_proc *p);

/** Path under tests/data (caller frees). */
char *pg_test_data(const char *rel);

/**
 * Compares `actual` with the file tests/data/REL and fails naming a copy of
 * `actual` in /tmp when they differ. With PG_UPDATE_SNAPSHOTS set it writes
 * the file first (review the diff).
 */
void pg_test_snapshot(const char *rel, const char *actual);

/** Re-dumps a JSON report with the writing tool's version (and a run's, when it is this build's) as "<VERSION>". Caller frees. */
char *pg_test_scrub_version(const char *json);

#endif
