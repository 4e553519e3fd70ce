/*
 * html.h - one self-contained HTML page: summary, verdict table and a grid of trend plots.
 *
 * No network, no scripts: inline CSS and inline SVG only, so the file can be
 * uploaded as a CI artifact and opened anywhere.
 */
#ifndef PG_REPORT_HTML_H
#define PG_REPORT_HTML_H

#include <stdio.h>

#include "history/history.h"
#include "verdict/verdict.h"

/**
 * Writes the page: the title, a summary line with a badge per verdict count
 * (with `cmp`), the verdict table of `cmp` (may be NULL), then one small plot
 * per case: medians over commits with the IQR band, change points, commit
 * labels (short SHA, date), the threshold band around the baseline, and the
 * base and head commits of `cmp` marked. Each part is a <section class="panel">.
 */
int pg_report_html(FILE *f, const char *title, const pg_history *hs, size_t nh, const pg_comparison *cmp);

/**
 * One trend plot (inline SVG): the medians of `h` over commits with the
 * IQR band, the change points, commit labels, and with `v` and `cmp` (both
 * may be NULL) the threshold band around the baseline and the base and
 * head commits marked. Its classes are styled by pg_report_html_style.
 */
void pg_report_html_plot(FILE *f, const pg_history *h, const pg_case_verdict *v, const pg_comparison *cmp);

/** The CSS of the page: every class the plots, badges and tables use. */
extern const char pg_report_html_style[];

/** The roofline section (html_roofline.c): a log-log SVG of the run's roofs and cases; nothing without roofs. */
void pg__html_roofline(FILE *f, const pg_run *run);

/**
 * The "What changed" section (html_flame.c): per REGRESSED or IMPROVED case
 * with a diagnosis, its line, the top functions and the differential flame
 * graph of its two Callgrind profiles; nothing without such a case.
 */
void pg__html_cause(FILE *f, const pg_comparison *cmp);

/** Text into HTML or SVG: the five XML specials as entities, control characters as '?'. */
void pg__html_esc(FILE *f, const char *s);

#endif
