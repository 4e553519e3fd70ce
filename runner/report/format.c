/* format.c - numbers with units and sensible scaling. */
#include "report/report.h"

#include <math.h>
#include <stdio.h>

void pg_fmt_duration(char *out, size_t len, double s)
{
    double a = fabs(s);

    if (!isfinite(s))
        snprintf(out, len, "-");
    else if (a < 1e-6)
        snprintf(out, len, "%.3g ns", s * 1e9);
    else if (a < 1e-3)
        snprintf(out, len, "%.3g µs", s * 1e6);
    else if (a < 1)
        snprintf(out, len, "%.3g ms", s * 1e3);
    else
        snprintf(out, len, "%.3g s", s);
}

void pg_fmt_rate(char *out, size_t len, double v, const char *unit)
{
    static const char *const prefix[] = {"", "k", "M", "G", "T", "P"};
    int i = 0;

    if (!isfinite(v) || v <= 0) {
        snprintf(out, len, "-");
        return;
    }
    while (v >= 1000 && i < 5) {
        v /= 1000;
        i++;
    }
    snprintf(out, len, "%.3g %s%s", v, prefix[i], unit);
}

void pg_fmt_change(char *out, size_t len, double ratio)
{
    if (!isfinite(ratio))
        snprintf(out, len, "-");
    else
        snprintf(out, len, "%+.1f%%", (ratio - 1) * 100);
}
