/* json_walk.c - one pass over a JSON document, one parsed member or array element at a time (json_walk.h). */
#include "base/json_walk.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 128

typedef struct walker {
    FILE *f;
    const char *name;
    int ch;                 /* the next byte, -1 at the end */
    unsigned long line, col; /* of `ch` */
    pg_buf *copy;           /* when set, consumed bytes are appended here */
    int too_big;
} walker;

static void step(walker *w)
{
    if (w->copy && w->ch >= 0) {
        if (w->copy->len >= PG_JSON_ELEMENT_MAX) {
            /* Checked first: the buffer's room doubles past the cap, and nothing may be kept beyond it. */
            w->too_big = 1;
        } else if (w->copy->len + 1 < w->copy->cap) {
            /* The common case, without a call per byte; the buffer stays NUL-terminated. */
            w->copy->ptr[w->copy->len++] = (char)w->ch;
            w->copy->ptr[w->copy->len] = '\0';
        } else {
            char c = (char)w->ch;
            pg__buf_put(w->copy, &c, 1);
        }
    }
    if (w->ch == '\n') {
        w->line++;
        w->col = 1;
    } else if (w->ch >= 0) {
        w->col++;
    }
    w->ch = getc_unlocked(w->f);
}

static void skip_ws(walker *w)
{
    while (w->ch == ' ' || w->ch == '\t' || w->ch == '\n' || w->ch == '\r')
        step(w);
}

static int bad(const walker *w, const char *what)
{
    if (ferror(w->f))
        return pg_error_set(PG_EIO, "%s: read error", w->name);
    return pg_error_set(PG_EFORMAT, "%s:%lu:%lu: not valid JSON: %s", w->name, w->line, w->col,
                        w->ch < 0 ? "unexpected end of input" : what);
}

/* A string, the opening quote next; its raw text (escapes kept) into `into` when set, at most 4 KiB. */
static int string(walker *w, pg_buf *into)
{
    step(w);
    for (;;) {
        if (w->ch < 0 || w->ch == '\n')
            return bad(w, "unterminated string");
        if (w->ch == '"')
            break;
        if (w->ch == '\\') {
            if (into && into->len < 4096)
                pg__buf_put(into, "\\", 1);
            step(w);
            if (w->ch < 0)
                return bad(w, "unterminated string");
        }
        if (into && into->len < 4096) {
            char c = (char)w->ch;
            pg__buf_put(into, &c, 1);
        }
        step(w);
    }
    step(w);
    return 0;
}

static int is_delimiter(int ch)
{
    switch (ch) {
    case ',': case ':': case ']': case '}': case '[': case '{': case '"': case ' ': case '\t': case '\r': case '\n':
        return 1;
    default:
        return 0;
    }
}

/* One value, brackets checked (the element parser checks the rest); copied when w->copy is set. */
static int value(walker *w)
{
    char stack[MAX_DEPTH];
    int depth = 0, err;

    for (;;) {
        skip_ws(w);
        if (w->ch == '"') {
            if ((err = string(w, NULL)) != 0)
                return err;
        } else if (w->ch == '{' || w->ch == '[') {
            if (depth == MAX_DEPTH)
                return bad(w, "nested deeper than 128 levels");
            stack[depth++] = w->ch == '{' ? '}' : ']';
            step(w);
            continue;
        } else if (w->ch == '}' || w->ch == ']') {
            if (depth == 0 || stack[depth - 1] != w->ch)
                return bad(w, "unbalanced bracket");
            depth--;
            step(w);
        } else if (w->ch == ',' || w->ch == ':') {
            if (depth == 0)
                return bad(w, "expected a value");
            step(w);
            continue;
        } else if (w->ch < 0) {
            return bad(w, "unexpected end of input");
        } else {
            /* A number, true/false/null or a bare NaN/Infinity: up to the next delimiter. */
            while (w->ch >= 0 && !is_delimiter(w->ch))
                step(w);
        }
        if (depth == 0)
            return 0;
    }
}

/* Bare NaN and Infinity are not JSON; quote them outside strings so the element parses. */
static char *quote_bare_nonfinite(const char *in, size_t len)
{
    static const char *const words[] = {"-Infinity", "Infinity", "-NaN", "NaN"};
    pg_buf b = PG_BUF_INIT;
    size_t i = 0, w;
    int in_str = 0;

    while (i < len) {
        char ch = in[i];
        if (in_str) {
            if (ch == '\\' && i + 1 < len) {
                pg__buf_put(&b, in + i, 2);
                i += 2;
                continue;
            }
            in_str = ch != '"';
            pg__buf_put(&b, in + i, 1);
            i++;
            continue;
        }
        if (ch == '"') {
            in_str = 1;
            pg__buf_put(&b, in + i, 1);
            i++;
            continue;
        }
        for (w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
            size_t wl = strlen(words[w]);
            if (i + wl <= len && memcmp(in + i, words[w], wl) == 0) {
                pg__buf_printf(&b, "\"%s\"", words[w]);
                i += wl;
                break;
            }
        }
        if (w == sizeof(words) / sizeof(words[0])) {
            pg__buf_put(&b, in + i, 1);
            i++;
        }
    }
    if (!b.ptr)
        pg__buf_puts(&b, "");
    return pg__buf_detach(&b);
}

/*
 * The next value, copied and parsed on its own; handed to the element
 * callback (index >= 0) or the member one (index < 0).
 */
static int parsed(walker *w, const pg__json_walk_spec *spec, const char *key, long index)
{
    pg_buf raw = PG_BUF_INIT;
    unsigned long line = w->line, col = w->col;
    char *fixed = NULL, *where = NULL;
    json_error_t jerr;
    json_t *elem = NULL;
    int err;

    w->copy = &raw;
    w->too_big = 0;
    err = value(w);
    w->copy = NULL;
    if (err)
        goto cleanup;
    if (w->too_big) {
        if (index >= 0)
            err = pg_error_set(PG_EFORMAT, "%s:%lu:%lu: %s[%ld] is larger than %zu MiB; perfgate reads elements of "
                                           "at most that size", w->name, line, col, key, index,
                               PG_JSON_ELEMENT_MAX >> 20);
        else
            err = pg_error_set(PG_EFORMAT, "%s:%lu:%lu: '%s' is larger than %zu MiB; perfgate reads members of at "
                                           "most that size", w->name, line, col, key, PG_JSON_ELEMENT_MAX >> 20);
        goto cleanup;
    }
    fixed = spec->nonfinite ? quote_bare_nonfinite(raw.ptr ? raw.ptr : "", raw.len) : pg__buf_detach(&raw);
    if (!fixed) {
        err = pg_error_set(PG_ENOMEM, "out of memory reading %s", w->name);
        goto cleanup;
    }
    pg__buf_clear(&raw);
    if (!(elem = json_loads(fixed, JSON_DECODE_ANY, &jerr))) {
        unsigned long l = line + (unsigned long)(jerr.line > 0 ? jerr.line - 1 : 0);
        unsigned long c = jerr.line <= 1 ? col + (unsigned long)(jerr.column > 0 ? jerr.column - 1 : 0)
                                         : (unsigned long)jerr.column;
        err = pg_error_set(PG_EFORMAT, "%s:%lu:%lu: not valid JSON: %s", w->name, l, c, jerr.text);
        goto cleanup;
    }
    free(fixed);
    fixed = NULL;
    if (!(where = pg__asprintf("%s:%lu:%lu", w->name, line, col))) {
        err = pg_error_set(PG_ENOMEM, "out of memory reading %s", w->name);
        goto cleanup;
    }
    err = index >= 0 ? spec->element(spec->ctx, key, elem, (size_t)index, where)
                     : spec->member(spec->ctx, key, elem, where);
cleanup:
    json_decref(elem);
    free(where);
    free(fixed);
    pg__buf_clear(&raw);
    return err;
}

/* The bit of `key` among spec->arrays (at most 32), or 0 when it is not streamed. */
static unsigned streamed(const pg__json_walk_spec *spec, const char *key)
{
    unsigned i;

    for (i = 0; spec->arrays && spec->arrays[i] && i < 32; i++)
        if (strcmp(spec->arrays[i], key) == 0)
            return 1u << i;
    return 0;
}

/* The elements of an array (its '[' next), each parsed on its own. */
static int array(walker *w, const pg__json_walk_spec *spec, const char *key)
{
    long index = 0;
    int err;

    step(w);
    skip_ws(w);
    while (w->ch != ']') {
        if ((err = parsed(w, spec, key, index++)) != 0)
            return err;
        skip_ws(w);
        if (w->ch == ',') {
            step(w);
            skip_ws(w);
        } else if (w->ch != ']') {
            return bad(w, "expected ',' or ']'");
        }
    }
    step(w);
    return 0;
}

int pg__json_walk(size_t *found, FILE *f, const pg__json_walk_spec *spec)
{
    walker w = {f, spec->name, 0, 1, 1, NULL, 0};
    pg_buf key = PG_BUF_INIT;
    size_t arrays = 0;
    unsigned seen = 0, bit;
    int err = 0;

    if (found)
        *found = 0;
    w.ch = getc_unlocked(f);
    skip_ws(&w);
    if (w.ch != '{') {
        if (ferror(f))
            return pg_error_set(PG_EIO, "%s: read error", spec->name);
        return pg_error_set(PG_EFORMAT, "%s:%lu:%lu: expected a JSON object at the top, as %s writes", spec->name,
                            w.line, w.col, spec->format);
    }
    step(&w);
    skip_ws(&w);
    while (w.ch != '}') {
        if (w.ch != '"') {
            err = bad(&w, "expected a member name");
            goto cleanup;
        }
        key.len = 0;
        if ((err = string(&w, &key)) != 0)
            goto cleanup;
        pg__buf_puts(&key, "");
        skip_ws(&w);
        if (w.ch != ':') {
            err = bad(&w, "expected ':'");
            goto cleanup;
        }
        step(&w);
        skip_ws(&w);
        /* A repeated member is read once, as the first occurrence, the way a JSON object is. */
        if ((bit = streamed(spec, key.ptr)) != 0 && !(seen & bit) && w.ch == '[') {
            seen |= bit;
            arrays++;
            err = array(&w, spec, key.ptr);
        } else if (bit) {
            err = value(&w);
        } else {
            err = spec->member ? parsed(&w, spec, key.ptr, -1) : value(&w);
        }
        if (err)
            goto cleanup;
        skip_ws(&w);
        if (w.ch == ',') {
            step(&w);
            skip_ws(&w);
        } else if (w.ch != '}') {
            err = bad(&w, "expected ',' or '}'");
            goto cleanup;
        }
    }
    step(&w);
    skip_ws(&w);
    if (w.ch >= 0) {
        err = bad(&w, "more data after the top-level object");
        goto cleanup;
    }
    if (ferror(f)) {
        err = pg_error_set(PG_EIO, "%s: read error", spec->name);
        goto cleanup;
    }
    if (found)
        *found = arrays;
cleanup:
    pg__buf_clear(&key);
    return err;
}
