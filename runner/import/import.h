/*
 * import.h - storing other harnesses' results as perfgate runs.
 *
 * Formats: "google-benchmark" (JSON from --benchmark_format=json or
 * --benchmark_out), "hyperfine" (--export-json), "pytest-benchmark"
 * (--benchmark-json, or a saved .benchmarks/ file). Each case becomes one
 * result whose samples are the harness's own per-iteration times in seconds,
 * keyed like native cases (suite/name[params]@threads:cpu), so imported runs
 * are compared and gated like native ones. run->source is the format name.
 */
#ifndef PG_IMPORT_H
#define PG_IMPORT_H

#include <stddef.h>
#include <stdio.h>

#include "base/model.h"

#define PG_IMPORT_MAX_CASES 100000 /* cases in one import: bounds memory and the store's transaction */
#define PG_IMPORT_MAX_PARAMS 32
#define PG_IMPORT_MAX_THREADS 65536 /* Google Benchmark threads: more is not a machine */

typedef struct pg_import_options {
    unsigned version;
    const char *suite;        /* suite name for the keys; NULL: the format's default */
} pg_import_options;

#define PG_IMPORT_OPTIONS_VERSION 1
#define PG_IMPORT_OPTIONS_INIT {PG_IMPORT_OPTIONS_VERSION, NULL}

/** Notes about what an import skipped or could only summarise. */
typedef struct pg_import_notes {
    char **lines;
    size_t count;
} pg_import_notes;

void pg_import_notes_clear(pg_import_notes *notes);

/** The supported format names, NULL-terminated. */
extern const char *const pg_import_formats[];

/** 1 when `format` is one of pg_import_formats. */
int pg_import_format_known(const char *format);

/**
 * Reads `path` in `format` and appends its cases to `run` (the caller has
 * created the run and fills commit, branch and machine). Sets run->source
 * and, when empty, run->suite_set. Only a regular file is read; it is read
 * in one pass with memory bounded by its largest case (stream.h), not by its size.
 * @param notes receives one line per dropped repetition, skipped row or
 *        summary-only case (may be NULL).
 * @return 0; PG_EINVAL for an unknown format; PG_ENOTFOUND/PG_EIO when the file
 *         cannot be read; PG_EFORMAT ("FILE:LINE:COL: ..." or "FILE: ...") when it is
 *         not valid output of that harness or holds impossible values (a time
 *         that is not positive, lengths that disagree, a thread count below 1,
 *         two cases with one key). On an error no case of this file stays in `run`.
 */
int pg_import_file(pg_run *run, const char *format, const char *path, const pg_import_options *opts,
                   pg_import_notes *notes);

/** As pg_import_file(), from an open stream (a file, a pipe, fmemopen()); `name` names it in messages. */
int pg_import_stream(pg_run *run, const char *format, FILE *f, const char *name, const pg_import_options *opts,
                     pg_import_notes *notes);

/* ---- for the per-format readers ------------------------------------------- */

struct json_t;

/** One case parameter as text; `is_number` writes it unquoted in params_json. */
typedef struct pg_import_param {
    const char *name;
    const char *value;
    int is_number;
} pg_import_param;

/**
 * Appends a result for suite/name with `params` (any order; sorted here),
 * metric "time" in seconds; identity fields filled, status OK, no samples.
 */
int pg__import_add(pg_result **out, pg_run *run, const char *suite, const char *name, pg_import_param *params,
                   size_t nparams, int threads);

/** Takes ownership of `samples` (seconds per iteration) and summarises them. */
int pg__import_set_samples(pg_result *r, double *samples, size_t n);

/** Adds a parameter to a case (re-sorting its params and re-making its key), to tell duplicates apart. */
int pg__import_add_param(pg_result *r, const char *name, const char *value);

/**
 * Cases from run->results[from] on that share a key get the parameter `param`
 * with values[i - from] (a NULL value leaves that case as it is); `changed`
 * is increased by the number of cases given it.
 */
int pg__import_disambiguate(pg_run *run, size_t from, const char *param, char *const *values, size_t *changed);

int pg__import_note(pg_import_notes *notes, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** A JSON number, or a "NaN"/"Infinity"/"-Infinity" string (bare ones are quoted on load). */
int pg__import_number(double *out, const struct json_t *v);

/**
 * A time in seconds: 0 when `v` is a positive finite number; -1 not a number,
 * -2 NaN or infinite, -3 zero or negative. pg__import_time_problem() words the code.
 */
int pg__import_time(double *out, const struct json_t *v);
const char *pg__import_time_problem(int code);

/** Called per element of the harness's results array; `where` is "NAME:LINE:COL" of its start. */
typedef int (*pg__import_element_fn)(void *ctx, const struct json_t *element, size_t index, const char *where);

/**
 * Walks the harness's JSON in `f` with the bounded reader (base/json_walk.h),
 * calling `fn` for each element of the top-level member `array_key`.
 * @param format the harness, for messages ("as hyperfine writes").
 * @param missing the message (after "NAME: ") when the file has no such array.
 */
int pg__import_walk(FILE *f, const char *name, const char *format, const char *array_key, const char *missing,
                    pg__import_element_fn fn, void *ctx);

int pg__import_gbench(pg_run *run, FILE *f, const char *path, const char *suite, pg_import_notes *notes);
int pg__import_hyperfine(pg_run *run, FILE *f, const char *path, const char *suite, pg_import_notes *notes);
int pg__import_pytest(pg_run *run, FILE *f, const char *path, const char *suite, pg_import_notes *notes);

#endif
