/* format.c - numbers with units and sensible scaling. */
#include "report/report.h"

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

void pg_fmt_duration(char *out, size_t len, double s)
{
    static const char *const units[] = {"ns", "µs", "ms", "s"};
    double v = s * 1e9;
    char num[32];
    int i = 0;

    if (!isfinite(s)) {
        snprintf(out, len, "-");
        return;
    }
    if (s == 0) {
        snprintf(out, len, "0 s");
        return;
    }
    /* Move up a unit while the rounded value would print as 1000 or more. */
    while (i < 3 && sig3(num, sizeof(num), v)) {
        v /= 1000;
        i++;
    }
    if (i == 3 && sig3(num, sizeof(num), v))
        snprintf(num, sizeof(num), "%.0f", v);
    snprintf(out, len, "%s %s", num, units[i]);
}

void pg_fmt_rate(char *out, size_t len, double v, const char *unit)
{
    static const char *const prefix[] = {"", "k", "M", "G", "T", "P", "E"};
    char num[32];
    int i = 0;

    if (!isfinite(v) || v <= 0) {
        snprintf(out, len, "-");
        return;
    }
    while (i < 6 && sig3(num, sizeof(num), v)) {
        v /= 1000;
        i++;
    }
    if (i == 6 && sig3(num, sizeof(num), v))
        snprintf(num, sizeof(num), "%.0f", v);
    snprintf(out, len, "%s %s%s", num, prefix[i], unit);
}

void pg_fmt_change(char *out, size_t len, double ratio)
{
    double pct = (ratio - 1) * 100;

    if (!isfinite(ratio))
        snprintf(out, len, "-");
    else if (fabs(pct) < 0.05)
        snprintf(out, len, "%+.1f%%", 0.0); /* never "-0.0%" */
    else
        snprintf(out, len, "%+.1f%%", pct);
}

static void pct1(char *out, size_t len, double ratio)
{
    double pct = (ratio - 1) * 100;

    snprintf(out, len, "%+.1f", fabs(pct) < 0.05 ? 0.0 : pct);
}

void pg_fmt_change_ci(char *out, size_t len, double ratio, double lo, double hi)
{
    char c[32], l[32], h[32];

    pg_fmt_change(c, sizeof(c), ratio);
    if (!isfinite(ratio) || !isfinite(lo) || !isfinite(hi) || (lo == ratio && hi == ratio)) {
        snprintf(out, len, "%s", c);
        return;
    }
    pct1(l, sizeof(l), lo);
    pct1(h, sizeof(h), hi);
    snprintf(out, len, "%s [%s, %s]", c, l, h);
}

void pg_fmt_p(char *out, size_t len, double p)
{
    if (!isfinite(p))
        snprintf(out, len, "-");
    else if (p < 0.0001)
        snprintf(out, len, "<0.0001");
    else
        snprintf(out, len, "%.4f", p);
}

size_t pg__utf8_width(const char *s)
{
    size_t w = 0;

    /* Count bytes that do not continue a multi-byte sequence. */
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    return w;
}

const char *pg__warning_name(unsigned bit)
{
    switch (bit) {
    case PG_WARN_NOISY:
        return "noisy";
    case PG_WARN_VERY_NOISY:
        return "very_noisy";
    case PG_WARN_FEW_SAMPLES:
        return "few_samples";
    case PG_WARN_MAX_TIME:
        return "max_time";
    case PG_WARN_THROTTLED:
        return "throttled";
    default:
        return NULL;
    }
}
