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

/*
 * ASan and UBSan end a process with this code in tests (exitcode=86 in
 * ASAN_OPTIONS/UBSAN_OPTIONS, set by ctest and by pg_test_run() for the
 * binary), so a sanitizer report can never pass as a verdict's exit 1.
 */
#define PG_TEST_SANITIZER_EXIT 86

/**
 * Fails the test when `status` is the sanitizer exit code or `err` (a
 * process's stderr) holds a sanitizer report; `what` names the process.
 * pg_test_run() does this for every run of the binary.
 */
void pg_test_assert_no_sanitizer(int status, const char *err, const char *what);

/** The environment entries that give sanitizers their test exit code (for callers that exec on their own). */
extern const char *const pg_test_sanitizer_env[];

/** The result of running the perfgate binary. */
typedef struct pg_proc {
    int status;        /* exit code, or 128+signal */
    char *out;         /* captured stdout */
    char *err;         /* captured stderr */
} pg_proc;

/**
 * Runs the built perfgate binary with `argv` (NULL-terminated, without the
 * program name) in directory `cwd` (NULL: current) and extra environment
 * `env` ("K=V", NULL-terminated, may be NULL). Captures output. Fails the
 * test when the run ended in a sanitizer report (pg_test_assert_no_sanitizer()),
 * whatever exit code the caller then expects.
 */
int pg_test_run(pg_proc *out, const char *cwd, const char *const *env, const char *const *argv);

/**
 * The exit code a gate, compare or report run owes, read from the JSON
 * report it wrote to `json_path` (--json FILE): outcome PASS 0, FAIL 1,
 * ERROR 3, NOTHING_COMPARED 4. For runs whose verdicts a loaded machine may move:
 * the test still pins the one exit code that goes with what was decided.
 */
int pg_test_report_exit(const char *json_path);

/**
 * pg_test_run() of a command that writes a JSON report (gate, compare,
 * report), with "--json FILE" added after the subcommand, asserting that
 * the exit code is exactly the one the report's outcome owes. For runs
 * whose verdicts this machine's noise decides.
 * @return that exit code.
 */
int pg_test_run_judged(pg_proc *out, const char *cwd, const char *const *env, const char *const *argv);
void pg_proc_free(pg_proc *p);

/** Path under tests/data (caller frees). */
char *pg_test_data(const char *rel);

/**
 * Compares `actual` with the file tests/data/REL and fails naming a copy of
 * `actual` in /tmp when they differ. A test run never writes a snapshot:
 * ci/update-snapshots.sh regenerates them (it sets PG_SNAPSHOT_DIR, where
 * this writes `actual` as REL, and copies only what differs; review the diff).
 */
void pg_test_snapshot(const char *rel, const char *actual);

/** Re-dumps a JSON report with the writing tool's version (and a run's, when it is this build's) as "<VERSION>". Caller frees. */
char *pg_test_scrub_version(const char *json);

/*
 * Skipping a test: cr_skip_test() with the reason. Criterion reports each
 * skip with its reason in the TAP file ctest asks for (tests/CMakeLists.txt),
 * and ci/checks.d/skips.sh fails CI for any skip that tests/allowed-skips.txt
 * does not list, so a test that must run cannot quietly stop running.
 */

#endif
