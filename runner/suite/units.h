/*
 * units.h - the units a suite writes values in: durations, percentages and
 * sizes, parsed the same way wherever they appear (suites, the command line).
 */
#ifndef PG_SUITE_UNITS_H
#define PG_SUITE_UNITS_H

/** The longest duration a suite may give (a timeout, max_run_time): 7 days, in seconds. */
#define PG_DURATION_MAX_S 604800.0

/** Parses "250ms", "0.5s", "2m", "1h" or a bare number of seconds. */
int pg_parse_duration(double *out, const char *text);
/** Parses "5%" (-> 0.05) or a bare fraction. */
int pg_parse_percent(double *out, const char *text);
/** Parses "64KiB", "1GiB", "10MB", "1TiB" or a bare number of bytes. */
int pg_parse_size(double *out, const char *text);

#endif
