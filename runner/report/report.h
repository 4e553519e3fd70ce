/*
 * report.h - turning runs and comparisons into text for people and tools.
 */
#ifndef PG_REPORT_H
#define PG_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "model.h"
#include "verdict.h"

/** Formats seconds with a scaled unit ("812 ns", "1.27 ms", "2.00 s"). */
void pg_fmt_duration(char *out, size_t len, double seconds);
/** Formats a rate with SI scaling ("12.3 GFLOP/s", "8.1 GB/s"); `unit` is "FLOP/s" or "B/s". */
void pg_fmt_rate(char *out, size_t len, double per_second, const char *unit);
/** Formats a fractional change as a signed percentage ("+7.2%"). */
void pg_fmt_change(char *out, size_t len, double ratio);

typedef struct pg_term_style {
    int color;            /* ANSI colours */
} pg_term_style;

/** Colour on when `f` is a terminal and neither NO_COLOR nor TERM=dumb is set. */
pg_term_style pg_term_style_auto(FILE *f);

/** The results table of one run: median, IQR, n, threads, throughput, MFU, warnings. */
void pg_report_run_terminal(FILE *f, const pg_run *run, const pg_term_style *style);

/** The comparison table: case, base, head, change with interval, verdict, reason. */
void pg_report_compare_terminal(FILE *f, const pg_comparison *cmp, const pg_term_style *style);

#endif
