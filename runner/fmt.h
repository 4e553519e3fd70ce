/*
 * fmt.h - numbers with units and SI scaling, for people: "812 ns",
 * "1.27 ms", "12.3 GFLOP/s". Below every module that prints a measurement
 * (reporters, trace tables), so none of them reaches up to another for it.
 */
#ifndef PG_FMT_H
#define PG_FMT_H

#include <stddef.h>
#include <stdint.h>

/** Formats seconds with a scaled unit, three significant digits ("812 ns", "1.27 ms", "2.00 s"); "-" when not finite. */
void pg_fmt_duration(char *out, size_t len, double seconds);
/** Formats a rate with SI scaling ("12.3 GFLOP/s", "8.10 GB/s"); `unit` is "FLOP/s" or "B/s"; "-" when not positive. */
void pg_fmt_rate(char *out, size_t len, double per_second, const char *unit);

/** An integer with thousands separators ("3,072"). */
void pg_fmt_int(char *out, size_t len, int64_t v);

#endif
