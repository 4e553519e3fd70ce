/*
 * report.h - turning runs and comparisons into text for people and tools.
 *
 * One result model (a head run plus its comparison with the baseline) feeds
 * every format through a multiplexer of reporters (after nvbench's
 * printer_multiplex and hyperfine's exporters). A format renders the whole
 * model into a buffer; a reporter pairs a format with a destination (a file,
 * stdout, the GitHub job summary). Formats: terminal, markdown, json, junit
 * and GitHub workflow annotations.
 */
#ifndef PG_REPORT_H
#define PG_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/fmt.h"
#include "base/model.h"
#include "base/text.h"
#include "base/util.h"
#include "verdict/verdict.h"

/** Formats a fractional change as a signed percentage ("+7.2%"); "-" when not finite. */
void pg_fmt_change(char *out, size_t len, double ratio);
/**
 * A change with its interval: "+7.2% [+5.1, +9.4]" (interval in percent).
 * Without a proper interval (not finite, or lo == hi == ratio) only the change.
 */
void pg_fmt_change_ci(char *out, size_t len, double ratio, double lo, double hi);
/** A p-value: "0.0123", "<0.0001", "-" when not finite. */
void pg_fmt_p(char *out, size_t len, double p);
/** The smallest change a case resolves, as "7.5%" (two significant digits); "-" when unknown. */
void pg_fmt_resolution(char *out, size_t len, double fraction);
/** Display width in terminal columns of a UTF-8 string (one per code point). */
size_t pg__utf8_width(const char *s);

typedef struct pg_term_style {
    int color;            /* ANSI colours */
} pg_term_style;

/** Colour on when `f` is a terminal and neither NO_COLOR nor TERM=dumb is set. */
pg_term_style pg_term_style_auto(FILE *f);

/**
 * Resolves a --style value: "auto" (or NULL: pg_term_style_auto), "color"
 * (always), "nocolor", "none" (no terminal table: *out_quiet set to 1).
 * @return 0, or PG_EUSAGE for another value.
 */
int pg_term_style_parse(pg_term_style *out, int *out_quiet, const char *style, FILE *f);

/** The results table of one run: median, IQR, n, threads, throughput, MFU, warnings. */
void pg_report_run_terminal(FILE *f, const pg_run *run, const pg_term_style *style);

/** The comparison table: case, base, head, change with interval, verdict, reason. */
void pg_report_compare_terminal(FILE *f, const pg_comparison *cmp, const pg_term_style *style);

/**
 * The title line after a blank line for the outcomes a table does not show:
 * "nothing compared", ERROR, a pass of new cases alone; nothing otherwise.
 */
void pg_report_outcome_terminal(FILE *f, const pg_comparison *cmp);

/*
 * Where a run sits on GitHub. Filled from GITHUB_EVENT_PATH and the
 * environment when the run is made, and carried in the JSON report so that
 * a later, trusted workflow can post for a fork's pull request.
 * Strings are owned by the struct; free with pg_report_origin_clear().
 */
typedef struct pg_report_origin {
    char *repository;     /* "owner/name", NULL when unknown */
    int64_t pr;           /* pull request number, 0 when none */
    char *head_sha;       /* the PR head (not the test merge commit), else the run's commit */
    char *base_sha;
    char *base_ref;
    int fork;             /* the PR comes from a fork: its token is read-only */
    char *run_url;        /* the CI run page, for links in trimmed output */
} pg_report_origin;

void pg_report_origin_clear(pg_report_origin *o);

/** What every format renders. */
typedef struct pg_report_data {
    const pg_run *run;              /* the head run; required */
    const pg_comparison *cmp;       /* its verdicts; required (no baseline: every case NEW) */
    const pg_report_origin *origin; /* may be NULL */
} pg_report_data;

typedef struct pg_report_options {
    unsigned version;
    size_t max_bytes;      /* markdown: stay under this many bytes by leaving rows out (0: no limit) */
    int color;             /* terminal: ANSI colours */
    int max_annotations;   /* annotations: at most this many ::error and this many ::warning */
    const char *marker;    /* markdown: a hidden first line (sticky comments), NULL for none */
} pg_report_options;

#define PG_REPORT_OPTIONS_VERSION 1
#define PG_REPORT_OPTIONS_INIT {PG_REPORT_OPTIONS_VERSION, 0, 0, 10, NULL}

/** Renders the whole model, appending to `out`. */
typedef int (*pg_render_fn)(pg_buf *out, const pg_report_data *data, const pg_report_options *opts);

typedef struct pg_format {
    const char *name;      /* "terminal", "markdown", "json", "junit", "annotations" */
    pg_render_fn render;
} pg_format;

/** Finds a format by name ("md" is markdown, "github" is annotations); NULL when unknown. */
const pg_format *pg_format_find(const char *name);

int pg_render_terminal(pg_buf *out, const pg_report_data *data, const pg_report_options *opts);
int pg_render_markdown(pg_buf *out, const pg_report_data *data, const pg_report_options *opts);
int pg_render_json(pg_buf *out, const pg_report_data *data, const pg_report_options *opts);
int pg_render_junit(pg_buf *out, const pg_report_data *data, const pg_report_options *opts);
int pg_render_annotations(pg_buf *out, const pg_report_data *data, const pg_report_options *opts);

/** A short one-line summary ("1 regression, 3 unchanged; exact checks: 2 passed"). */
int pg_render_summary_line(pg_buf *out, const pg_comparison *cmp);

/**
 * The title of a comparison, by its outcome: "perfgate: PASS" (with " —
 * <reason>" for new cases alone), "perfgate: FAIL (1 regression)",
 * "perfgate: ERROR — <reason>" or "perfgate: nothing compared — <reason>".
 * @param reason_text appends the reason (markdown escapes it); NULL: as is.
 */
int pg_render_title(pg_buf *out, const pg_comparison *cmp, void (*reason_text)(pg_buf *out, const char *s));

/** The schema version written in the JSON report. */
#define PG_REPORT_JSON_SCHEMA 1

/*
 * A reporter: a format and a destination, as a struct of function pointers
 * so the multiplexer treats a file, stdout and the job summary alike.
 */
typedef struct pg_reporter pg_reporter;
struct pg_reporter {
    const pg_format *format;
    pg_report_options opts;
    /* Writes the rendered text to the destination. */
    int (*deliver)(pg_reporter *self, const char *text, size_t len);
    /* Prepares options before rendering (e.g. the room left in the job summary); may be NULL. */
    int (*prepare)(pg_reporter *self);
    /* A shorter text when the format's own does not fit (the job summary: title and counts); may be NULL. */
    int (*fallback)(pg_reporter *self, pg_buf *out, const pg_report_data *data);
    char *path;            /* "-" is stdout */
    int advisory;          /* a failure is a warning: the job summary never turns a verdict into an error */
};

/**
 * A reporter writing `format` to `path` ("-": stdout), replacing the file.
 * @param[out] out free with pg_reporter_free().
 * @return PG_EUSAGE for an unknown format.
 */
int pg_reporter_file(pg_reporter **out, const char *format, const char *path);

/**
 * A markdown reporter appending to the GitHub job summary file `path`,
 * trimmed so that the file stays under PG_STEP_SUMMARY_LIMIT bytes.
 */
int pg_reporter_step_summary(pg_reporter **out, const char *path);
#define PG_STEP_SUMMARY_LIMIT (1024u * 1024u)

void pg_reporter_free(pg_reporter *r);

/** The multiplexer: every reporter gets the same model. */
typedef struct pg_report_mux {
    pg_reporter **items;
    size_t count;
} pg_report_mux;

/** Takes ownership of `r` (also on failure). */
int pg_report_mux_add(pg_report_mux *mux, pg_reporter *r);
/** Does any reporter write to stdout? (Then the terminal table goes to stderr.) */
int pg_report_mux_uses_stdout(const pg_report_mux *mux);
/**
 * Renders and delivers to every reporter; one failing reporter does not
 * stop the others. @return 0 or the first error.
 */
int pg_report_mux_emit(pg_report_mux *mux, const pg_report_data *data);
void pg_report_mux_clear(pg_report_mux *mux);

/*
 * A JSON report read back (for `perfgate post --from`): the run, the metadata of
 * its first baseline run (without results) and the comparison, whose cases point into `run`.
 */
typedef struct pg_report_doc {
    pg_run *run;
    pg_run *base;          /* uuid, id, commit, branch, started_at only; NULL when none */
    pg_comparison *cmp;
    pg_report_origin origin;
} pg_report_doc;

/**
 * Reads a JSON report written by pg_render_json().
 * @param[out] out free with pg_report_doc_free().
 * @return 0; PG_EFORMAT naming file:line:col for malformed input, a newer
 *         schema or a report past the bounds below; PG_EINVAL for a file that
 *         is not a regular one or is over PG_REPORT_JSON_MAX_BYTES.
 */
int pg_report_doc_load(pg_report_doc **out, const char *path);

/*
 * Bounds on a JSON report read back (a fork may write it): a file over
 * PG_REPORT_JSON_MAX_BYTES is refused at once, and one with more than
 * PG_REPORT_MAX_ITEMS results, checks or verdicts as the walk passes that
 * many (exit 2), so memory stays that of the model read.
 */
#define PG_REPORT_JSON_MAX_BYTES ((uint64_t)1 << 30)
#define PG_REPORT_MAX_ITEMS 100000
int pg_report_doc_parse(pg_report_doc **out, const char *text, size_t len, const char *name);
void pg_report_doc_free(pg_report_doc *doc);

/*
 * Helpers shared by the formats.
 */
/** The name of one PG_WARN_* bit ("noisy"), NULL for an unknown bit. */
const char *pg__warning_name(unsigned bit);
/** The JSON name of a pg_decided_by ("fastest_tenth"), NULL past the last. */
const char *pg__decided_by_name(unsigned by);
/** Indices of the comparison's cases ordered for reports: worst regression first. */
size_t *pg__report_order(const pg_comparison *cmp, pg_verdict only, size_t *out_n);

/** One result's place under the roofs as text: bound, intensity, attainable, achieved, fraction, and why. */
typedef struct pg__roof_cells {
    char bound[24], intensity[32], attainable[32], achieved[32], fraction[16];
    const char *why;
} pg__roof_cells;
/** 0 with `out` filled when the run's fingerprint has roofs for `r`; 1 when it cannot be placed. */
int pg__report_roof_cells(pg__roof_cells *out, const pg_result *r, const char *machine_json);

#endif
