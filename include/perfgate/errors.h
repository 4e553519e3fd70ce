/*
 * perfgate/errors.h - the runner's error codes.
 *
 * Every fallible function returns 0 on success or a negative PG_E* code.
 * Codes are appended to the table, never removed or renumbered.
 *
 * Not part of the plugin API (perfgate/perfgate.h): the functions below are
 * defined in the runner (runner/base/error.c) and the perfgate binary does not
 * export them, so a plugin cannot call them. A plugin reports failure with
 * pg_skip()/pg_error() from perfgate/plugin.h.
 */
#ifndef PERFGATE_ERRORS_H
#define PERFGATE_ERRORS_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * X(name, value, exit class, description)
 * The exit class is the process exit code a command returns when it fails
 * with this error: 2 for usage or invalid input, 3 for infrastructure.
 */
#define PG_ERRNO_MAP(X)                                                      \
    X(PG_ENOMEM,    -1,  3, "out of memory")                                 \
    X(PG_EINVAL,    -2,  2, "invalid argument")                              \
    X(PG_ESUITE,    -3,  2, "invalid suite")                                 \
    X(PG_EIO,       -4,  3, "input/output error")                            \
    X(PG_ESTORE,    -5,  3, "database error")                                \
    X(PG_EKERNEL,   -6,  3, "kernel failed")                                 \
    X(PG_EDEVICE,   -7,  3, "device error")                                  \
    X(PG_ENOTFOUND, -8,  2, "not found")                                     \
    X(PG_EMACHINE,  -9,  2, "baseline is from another machine")              \
    X(PG_EPLUGIN,   -10, 3, "plugin error")                                  \
    X(PG_EFORMAT,   -11, 2, "malformed input file")                          \
    X(PG_ENET,      -12, 3, "network error")                                 \
    X(PG_EUSAGE,    -13, 2, "usage error")                                   \
    X(PG_ESKIP,     -14, 0, "skipped")                                       \
    X(PG_ETIMEOUT,  -15, 3, "timed out")                                     \
    X(PG_ESCHEMA,   -16, 3, "database schema is newer than this perfgate")

typedef enum pg_errno {
    PG_OK = 0,
#define PG__ERR_ENUM(name, value, cls, desc) name = value,
    PG_ERRNO_MAP(PG__ERR_ENUM)
#undef PG__ERR_ENUM
    PG__ELAST
} pg_errno;

/** @return a static description of `code` ("unknown error" if not one). */
const char *pg_strerror(int code);

/** @return the process exit code for a failure with `code` (2 or 3). */
int pg_error_exit_code(int code);

/**
 * @return the last detailed message set on this thread: one line, no
 * trailing newline, saying what failed and where. Never NULL.
 */
const char *pg_error_last(void);

/** Sets the thread's detailed error message (printf format); returns `code`. */
int pg_error_set(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** Clears the thread's detailed error message. */
void pg_error_clear(void);

#ifdef __cplusplus
}
#endif
#endif
