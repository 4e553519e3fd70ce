/* format.c - changes, p-values and resolutions for the reports (durations and rates: fmt.h). */
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

void pg_fmt_resolution(char *out, size_t len, double fraction)
{
    if (!isfinite(fraction) || fraction <= 0)
        snprintf(out, len, "-");
    else
        snprintf(out, len, "%.2g%%", 100 * fraction);
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
    case PG_WARN_CONTENDED:
        return "contended";
    case PG_WARN_NOT_STEADY:
        return "not_steady";
    default:
        return NULL;
    }
}
