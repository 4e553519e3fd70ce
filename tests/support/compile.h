/* compile.h - test helpers that run the system C/C++ compiler (plugins, header checks). */
#ifndef PG_TEST_COMPILE_H
#define PG_TEST_COMPILE_H

/**
 * Runs `cmdline` through /bin/sh, capturing stdout and stderr together into
 * `*out` (caller frees; may be NULL). @return the exit status.
 */
int pg_test_sh(char **out, const char *cmdline);

/**
 * Runs the command line `fmt` (printf) through /bin/sh and asserts it exits
 * with `want`, and with no sanitizer report. @return its stdout and stderr
 * (caller frees).
 */
char *pg_test_sh_expect(int want, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/**
 * Compiles tests/data/`src` into dir/lib`name`.so against include/perfgate
 * with `flags` (may be NULL) and asserts it built. @return the library's
 * path (caller frees).
 */
char *pg_test_build_plugin(const char *dir, const char *src, const char *name, const char *flags);

/** The directory of the perfgate binary under test (the build directory); caller frees. */
char *pg_test_build_dir(void);

#endif
