/* util.h - small internal helpers: strings, growable buffers, files, time. */
#ifndef PG_UTIL_H
#define PG_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** strdup that returns NULL for NULL. Caller frees. */
char *pg__strdup(const char *s);

/** printf into a new string. Caller frees; NULL on allocation failure. */
char *pg__asprintf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/** A growable, always NUL-terminated byte buffer. */
typedef struct pg_buf {
    char *ptr;
    size_t len;
    size_t cap;
} pg_buf;

#define PG_BUF_INIT {NULL, 0, 0}

/*
 * A map from strings to indices (open addressing, FNV-1a): looking cases up
 * by key in runs of thousands of results without a scan per lookup. Keys are
 * borrowed, not copied: they must outlive the map. The first value put for a
 * key stays (as a linear search would find it).
 */
typedef struct pg_keymap {
    const char **keys;
    size_t *vals;
    size_t cap, n;
} pg_keymap;

#define PG_KEYMAP_INIT {NULL, NULL, 0, 0}

int pg__keymap_put(pg_keymap *m, const char *key, size_t val);
/** @return 1 and *val when `key` is in the map, else 0. */
int pg__keymap_get(const pg_keymap *m, const char *key, size_t *val);
void pg__keymap_clear(pg_keymap *m);

int pg__buf_grow(pg_buf *b, size_t extra);
int pg__buf_put(pg_buf *b, const char *data, size_t len);
int pg__buf_puts(pg_buf *b, const char *s);
int pg__buf_printf(pg_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/** Appends `s` as a JSON string literal (quotes, escapes for '"', '\\' and control bytes). */
int pg__buf_json_string(pg_buf *b, const char *s);
/** Transfers ownership of the contents to the caller; the buffer is reset. */
char *pg__buf_detach(pg_buf *b);

/**
 * A file perfgate ships beside its program: `name` in the running program's
 * directory, in the companions' directory of an installed tree
 * (PG_PKGLIBDIR_FROM_BINDIR from it, ../lib/perfgate by default), or, for a
 * program that runs inside `build_dir` (perfgate and the tests in the build
 * tree), there; the first readable one.
 * @return the path (caller frees), or NULL when none is readable.
 */
char *pg__find_companion(const char *name, const char *build_dir);

/**
 * A fresh private directory `$TMPDIR/PREFIX.XXXXXX` (/tmp without TMPDIR).
 * @return its path (caller frees and removes), or NULL with errno set.
 */
char *pg__mkdtemp(const char *prefix);
void pg__buf_clear(pg_buf *b);

/** Reads a whole file. On failure sets the error message naming `path`. */
int pg__read_file(char **out, size_t *out_len, const char *path);

/**
 * Opens an input file (a suite, a trace, a result file to import) for
 * reading. What is not a regular file (a directory, a FIFO, a socket, a
 * device such as /dev/zero) is refused at once, without blocking on it or
 * reading from it, and so is a file over `max_bytes` (0: no cap), so bad
 * input fails in bounded time and memory. `what` names the input in
 * messages ("suite", "trace", "result").
 * @param[out] out a stream the caller closes with fclose().
 * @param[out] size the file's size when opened; may be NULL.
 * @return 0; PG_ENOTFOUND when there is no such file; PG_EINVAL (an input
 *   error, exit 2) when it is not a regular file or is over the cap; PG_EIO
 *   when it cannot be opened. The message names `path`.
 */
int pg__open_input(FILE **out, uint64_t *size, const char *path, const char *what, uint64_t max_bytes);

/**
 * Reads a whole input file opened as pg__open_input() does, with the same
 * refusals; never more than `max_bytes` even when the file grows meanwhile.
 * @param[out] out the bytes, NUL-terminated; the caller frees.
 */
int pg__read_input(char **out, size_t *out_len, const char *path, const char *what, uint64_t max_bytes);

/** Wall-clock time as an ISO-8601 UTC string ("2026-11-29T07:18:27Z"). */
void pg__iso_time(char out[32], int64_t unix_seconds);

/** Seconds since the epoch. */
int64_t pg__now_unix(void);

/** Monotonic time in nanoseconds. */
int64_t pg__mono_ns(void);

/** Case-sensitive glob match ('*', '?', '[...]'), as fnmatch without flags. */
int pg__glob(const char *pattern, const char *s);

#endif
