/* fmt.c - numbers with units and SI scaling (fmt.h). */
#include "base/fmt.h"

#include <math.h>
#include <stdint.h>
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

/* jansson's jsonp_dtostr() after its snprintf: the slow path, and the reference. */
static size_t json_real_printf(char *out, double v, int precision)
{
    char *e, *start, *end;
    size_t len;

    snprintf(out, 32, "%.*g", precision, v);
    if (!strchr(out, '.') && !strchr(out, 'e'))
        strcat(out, ".0");
    if ((e = strchr(out, 'e')) != NULL) {
        start = e + 1;
        end = start + 1;
        if (*start == '-')
            start++;
        while (*end == '0')
            end++;
        if (end != start)
            memmove(start, end, strlen(end) + 1);
    }
    len = strlen(out);
    return len;
}

/*
 * The fast path: the value scaled by an exact power of ten to `precision`
 * integer digits in one rounding, rounded to an integer, and laid out by
 * %g's rules. A product within a few units in the last place of a half
 * (where the one rounding could decide) goes to printf.
 */
size_t pg_fmt_json_real(char *out, double v, int precision)
{
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    double a = fabs(v), x, r;
    char digits[24], *o = out;
    int e, k, nd, i, last, b;
    uint64_t n, bits;

    if (precision < 1 || precision > 15 || !(a >= 1e-200 && a <= 1e200))
        return json_real_printf(out, v, precision < 1 ? 17 : precision);
    /*
     * The decimal exponent from the binary one: with a = m 2^b, m in [0.5, 1),
     * floor(log10 a) is floor((b - 1) log10 2) or one more, which the loop
     * below settles.
     */
    memcpy(&bits, &a, sizeof(bits));
    b = (int)((bits >> 52) & 0x7ff) - 1022;
    e = (int)((double)(b - 1) * 0.30102999566398120 + 1000.0) - 1000;
    for (i = 0; i < 3; i++) {
        k = precision - 1 - e;
        if (k > 22 || k < -22)
            return json_real_printf(out, v, precision);
        x = k >= 0 ? a * p10[k] : a / p10[-k];
        if (x < p10[precision - 1])
            e--;
        else if (x >= p10[precision])
            e++;
        else
            break;
    }
    if (i == 3)
        return json_real_printf(out, v, precision);
    r = (double)(uint64_t)x; /* floor: 0 < x < 10^15 */
    if (fabs(x - r - 0.5) <= x * 0x1p-49)
        return json_real_printf(out, v, precision);
    n = (uint64_t)r + (x - r > 0.5);
    if (n >= (uint64_t)p10[precision]) {
        n /= 10;
        e++;
    }
    for (i = precision; i >= 2; i -= 2) {
        memcpy(digits + i - 2, pairs + 2 * (n % 100), 2);
        n /= 100;
    }
    if (i == 1)
        digits[0] = (char)('0' + n);
    for (last = precision - 1; last > 0 && digits[last] == '0'; last--)
        ;
    nd = last + 1; /* significant digits left after %g drops trailing zeros */
    if (v < 0)
        *o++ = '-';
    if (e < -4 || e >= precision) {
        *o++ = digits[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)(nd - 1));
            o += nd - 1;
        }
        *o++ = 'e';
        if (e < 0) {
            *o++ = '-';
            e = -e;
        }
        if (e >= 100)
            *o++ = (char)('0' + e / 100);
        if (e >= 10)
            *o++ = (char)('0' + e / 10 % 10);
        *o++ = (char)('0' + e % 10);
    } else if (e >= 0) {
        memcpy(o, digits, (size_t)e + 1);
        o += e + 1;
        if (nd > e + 1) {
            *o++ = '.';
            memcpy(o, digits + e + 1, (size_t)(nd - e - 1));
            o += nd - e - 1;
        } else {
            memcpy(o, ".0", 2);
            o += 2;
        }
    } else {
        *o++ = '0';
        *o++ = '.';
        for (i = 0; i < -e - 1; i++)
            *o++ = '0';
        memcpy(o, digits, (size_t)nd);
        o += nd;
    }
    *o = '\0';
    return (size_t)(o - out);
}
