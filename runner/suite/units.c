/*
 * units.c - durations, percentages and sizes as suites write them.
 */
#include "suite/units.h"
#include "suite/suite.h"

#include "perfgate/errors.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int parse_number_suffix(double *out, const char **suffix, const char *text)
{
    char *end;
    double v;

    if (!text || !*text || isspace((unsigned char)*text))
        return -1;
    errno = 0;
    v = strtod(text, &end);
    if (end == text || errno || !isfinite(v))
        return -1;
    while (*end == ' ')
        end++;
    *out = v;
    *suffix = end;
    return 0;
}

/* A unit suffix and what it multiplies by; "" is the bare number. */
typedef struct unit {
    const char *name;
    double scale;
} unit;

/* A number followed by one of `units` (the list ends with a NULL name). */
static int parse_scaled(double *out, const char *text, const unit *units)
{
    const char *suffix;
    double v;

    if (parse_number_suffix(&v, &suffix, text) != 0)
        return PG_EINVAL;
    for (; units->name; units++)
        if (strcmp(suffix, units->name) == 0) {
            *out = v * units->scale;
            return 0;
        }
    return PG_EINVAL;
}

int pg_parse_duration(double *out, const char *text)
{
    static const unit units[] = {
        {"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"µs", 1e-6}, {"ns", 1e-9},
        {"m", 60}, {"min", 60}, {"h", 3600}, {NULL, 0}};

    return parse_scaled(out, text, units);
}

int pg_parse_percent(double *out, const char *text)
{
    const char *suffix;
    double v;

    if (parse_number_suffix(&v, &suffix, text) != 0)
        return PG_EINVAL;
    if (strcmp(suffix, "%") == 0)
        *out = v / 100.0;
    else if (*suffix == '\0')
        *out = v;
    else
        return PG_EINVAL;
    return 0;
}

int pg_parse_size(double *out, const char *text)
{
    static const unit units[] = {
        {"", 1}, {"B", 1}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
        {"TiB", 1099511627776.0}, {"KB", 1e3}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
        {NULL, 0}};

    return parse_scaled(out, text, units);
}
