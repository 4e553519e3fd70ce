/* json_text.c - JSON documents written as text, as jansson writes them (json_text.h). */
#include "cli/json_text.h"

#include "base/fmt.h"
#include "perfgate/errors.h"

#include <math.h>
#include <string.h>

static const char spaces[] = "                    ";

void pg_jt_put(pg_jt *w, const char *s, size_t n)
{
    if (!w->err)
        w->err = pg__buf_put(&w->b, s, n);
}

void pg_jt_puts(pg_jt *w, const char *s)
{
    pg_jt_put(w, s, strlen(s));
}

char *pg_jt_room(pg_jt *w, size_t n)
{
    if (!w->err)
        w->err = pg__buf_grow(&w->b, n);
    return w->err ? NULL : w->b.ptr + w->b.len;
}

void pg_jt_next(pg_jt *w, int depth, int *first, const char *name)
{
    size_t len = name ? strlen(name) : 0;
    char *o = pg_jt_room(w, len + 2 * (size_t)depth + 8);

    if (!o)
        return;
    if (!*first)
        *o++ = ',';
    *first = 0;
    *o++ = '\n';
    memcpy(o, spaces, (size_t)(2 * depth));
    o += 2 * depth;
    if (name) {
        *o++ = '"';
        memcpy(o, name, len);
        o += len;
        memcpy(o, "\": ", 3);
        o += 3;
    }
    w->b.len = (size_t)(o - w->b.ptr);
    *o = '\0';
}

void pg_jt_close(pg_jt *w, int depth, int first, const char *closer)
{
    if (!first) {
        pg_jt_put(w, "\n", 1);
        pg_jt_put(w, spaces, (size_t)(2 * depth));
    }
    pg_jt_puts(w, closer);
}

/* Which bytes a JSON string escapes: the control characters, the quote and the backslash. */
static int needs_escape(unsigned char c)
{
    return c < 0x20 || c == '"' || c == '\\';
}

void pg_jt_str(pg_jt *w, const char *s)
{
    const char *run;
    char esc[8];

    size_t len = 0;
    char *o;

    if (!s) {
        pg_jt_put(w, "null", 4);
        return;
    }
    while (s[len] && !needs_escape((unsigned char)s[len]))
        len++;
    if (!s[len]) { /* nothing to escape: the usual case, one copy */
        if ((o = pg_jt_room(w, len + 2)) != NULL) {
            *o++ = '"';
            memcpy(o, s, len);
            o[len] = '"';
            o[len + 1] = '\0';
            w->b.len += len + 2;
        }
        return;
    }
    pg_jt_put(w, "\"", 1);
    for (run = s; *s; s++) {
        unsigned char c = (unsigned char)*s;
        const char *e;
        if (!needs_escape(c))
            continue;
        e = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\b' ? "\\b" : c == '\f' ? "\\f"
          : c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;
        pg_jt_put(w, run, (size_t)(s - run));
        if (!e) {
            snprintf(esc, sizeof(esc), "\\u%04X", c);
            e = esc;
        }
        pg_jt_puts(w, e);
        run = s + 1;
    }
    pg_jt_put(w, run, (size_t)(s - run));
    pg_jt_put(w, "\"", 1);
}

/* jansson's rule (utf.c): no stray continuation byte, overlong form, surrogate or code point past U+10FFFF. */
int pg_jt_utf8(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    while (*p) {
        unsigned char u = *p;
        size_t len, i;
        int32_t v;
        if (u < 0x80) {
            p++;
            continue;
        }
        if (u >= 0xC2 && u <= 0xDF)
            len = 2, v = u & 0x1F;
        else if (u >= 0xE0 && u <= 0xEF)
            len = 3, v = u & 0x0F;
        else if (u >= 0xF0 && u <= 0xF4)
            len = 4, v = u & 0x07;
        else
            return 0;
        for (i = 1; i < len; i++) {
            if (p[i] < 0x80 || p[i] > 0xBF) /* also the terminating NUL */
                return 0;
            v = (v << 6) + (p[i] & 0x3F);
        }
        if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF) || (len == 2 && v < 0x80) || (len == 3 && v < 0x800) ||
            (len == 4 && v < 0x10000))
            return 0;
        p += len;
    }
    return 1;
}

char *pg_jt_int_text(char *o, int64_t v)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    char digits[24], *p = digits + sizeof(digits);
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

    while (u >= 100) {
        p -= 2;
        memcpy(p, pairs + 2 * (u % 100), 2);
        u /= 100;
    }
    if (u >= 10) {
        p -= 2;
        memcpy(p, pairs + 2 * u, 2);
    } else {
        *--p = (char)('0' + u);
    }
    if (v < 0)
        *--p = '-';
    memcpy(o, p, (size_t)(digits + sizeof(digits) - p));
    return o + (digits + sizeof(digits) - p);
}

void pg_jt_int(pg_jt *w, int depth, int *first, const char *name, int64_t v)
{
    char *o;

    pg_jt_next(w, depth, first, name);
    if ((o = pg_jt_room(w, 24)) != NULL) {
        w->b.len += (size_t)(pg_jt_int_text(o, v) - o);
        w->b.ptr[w->b.len] = '\0';
    }
}

void pg_jt_real(pg_jt *w, int depth, int *first, const char *name, double v)
{
    char text[48];
    size_t n;

    if (!isfinite(v))
        return;
    n = pg_fmt_json_real(text, v, 10);
    pg_jt_next(w, depth, first, name);
    pg_jt_put(w, text, n);
}

void pg_jt_null(pg_jt *w, int depth, int *first, const char *name)
{
    pg_jt_next(w, depth, first, name);
    pg_jt_put(w, "null", 4);
}

void pg_jt_string(pg_jt *w, int depth, int *first, const char *name, const char *s)
{
    if (s && !pg_jt_utf8(s))
        return;
    pg_jt_next(w, depth, first, name);
    pg_jt_str(w, s);
}

int pg_jt_flush(pg_jt *w, FILE *out)
{
    int err = w->err;

    if (err)
        return pg_error_set(err, "out of memory writing JSON");
    if (w->b.len && fwrite(w->b.ptr, 1, w->b.len, out) != w->b.len)
        return pg_error_set(PG_EIO, "writing JSON to standard output failed");
    w->b.len = 0;
    return 0;
}

void pg_jt_clear(pg_jt *w)
{
    pg__buf_clear(&w->b);
}
