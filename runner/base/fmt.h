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

/** A count with thousands separators ("1,234,567", "12.5" when not whole); "-" when not finite. */
void pg_fmt_count(char *out, size_t len, double v);

/**
 * Formats a measured value in its unit: seconds ("s" or NULL) as a duration,
 * anything else (a count: "Ir", "cycles", "B", "allocs") with thousands
 * separators and the unit ("1,234,567 Ir", "12.5 B" when not whole); "-" when not finite.
 */
void pg_fmt_value(char *out, size_t len, double v, const char *unit);

/** An integer with thousands separators ("3,072"). */
void pg_fmt_int(char *out, size_t len, int64_t v);

/**
 * A finite double as JSON text, byte for byte as jansson writes it with
 * JSON_REAL_PRECISION(`precision`): "%.*g", a ".0" added when that looks
 * integral, the exponent without '+' or leading zeros ("1.5e-5"). Fast for
 * precision <= 15 (no printf unless the rounding is too close to call).
 * @param out at least 40 bytes.
 * @return the length written.
 */
size_t pg_fmt_json_real(char *out, double v, int precision);

#endif
