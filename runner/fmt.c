/* fmt.c - numbers with units and SI scaling (fmt.h). */
#include "fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/*
 * Three significant digits with trailing zeros kept ("2.00", "12.3", "123"),
 * so columns read alike. Returns 1 when rounding reached 1000 and the caller
 * should move to the next unit.
 */
static int sig3(char *out, size_t len, double v)
{
    double a = fabs(v);

    if (a < 9.995)
        snprintf(out, len, "%.2f", v);
    else if (a < 99.95)
        snprintf(out, len, "%.1f", v);
    else if (a < 999.5)
        snprintf(out, len, "%.0f", v);
    else
        return 1;
    return 0;
}

/*
 * Prints `v` into `num` (32 bytes) in three significant digits, moving up a
 * unit (dividing by 1000) while the rounded value would print as 1000 or
 * more, but never past unit `top`. Returns the unit's index.
 */
static int scaled(char num[32], double v, int top)
{
    int i = 0;

    while (i < top && sig3(num, 32, v)) {
        v /= 1000;
        i++;
    }
    if (i == top && sig3(num, 32, v))
        snprintf(num, 32, "%.0f", v);
    return i;
}

void pg_fmt_duration(char *out, size_t len, double s)
{
    static const char *const units[] = {"ns", "µs", "ms", "s"};
    char num[32];
    int i;

    if (!isfinite(s)) {
        snprintf(out, len, "-");
        return;
    }
    if (s == 0) {
        snprintf(out, len, "0 s");
        return;
    }
    i = scaled(num, s * 1e9, 3);
    snprintf(out, len, "%s %s", num, units[i]);
}

void pg_fmt_rate(char *out, size_t len, double v, const char *unit)
{
    static const char *const prefix[] = {"", "k", "M", "G", "T", "P", "E"};
    char num[32];
    int i;

    if (!isfinite(v) || v <= 0) {
        snprintf(out, len, "-");
        return;
    }
    i = scaled(num, v, 6);
    snprintf(out, len, "%s %s%s", num, prefix[i], unit);
}

void pg_fmt_count(char *out, size_t len, double v)
{
    char digits[48];
    size_t n, i, j = 0, whole;

    if (!isfinite(v) || fabs(v) >= 1e18) {
        snprintf(out, len, "-");
        return;
    }
    snprintf(digits, sizeof(digits), v == floor(v) ? "%.0f" : "%.1f", v);
    n = strlen(digits);
    whole = strcspn(digits, ".");
    for (i = 0; i < n && j + 2 < len; i++) {
        if (i > 0 && i < whole && digits[i - 1] != '-' && (whole - i) % 3 == 0)
            out[j++] = ',';
        out[j++] = digits[i];
    }
    if (len)
        out[j < len ? j : len - 1] = '\0';
}

void pg_fmt_value(char *out, size_t len, double v, const char *unit)
{
    char count[64];

    if (!unit || strcmp(unit, "s") == 0) {
        pg_fmt_duration(out, len, v);
        return;
    }
    pg_fmt_count(count, sizeof(count), v);
    if (strcmp(count, "-") == 0)
        snprintf(out, len, "-");
    else
        snprintf(out, len, "%s %s", count, unit);
}

void pg_fmt_int(char *out, size_t len, int64_t v)
{
    char digits[32], tmp[48];
    uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    size_t n, i, j = 0;

    n = (size_t)snprintf(digits, sizeof(digits), "%llu", (unsigned long long)a);
    if (v < 0)
        tmp[j++] = '-';
    for (i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            tmp[j++] = ',';
        tmp[j++] = digits[i];
    }
    tmp[j] = '\0';
    snprintf(out, len, "%s", tmp);
}
