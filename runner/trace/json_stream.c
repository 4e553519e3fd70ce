/*
 * json_stream.c - the JSON tokenizer under the trace reader: the input
 * window and its refills, whitespace, strings (escapes, surrogates, UTF-8),
 * numbers, and validating skips of values the reader does not keep.
 */
#include "trace/json_stream.h"

#include "perfgate/errors.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STRING (1 << 20)     /* longest string kept (kernel names are ~1 KiB) */
#define MAX_DEPTH 128            /* nesting of skipped values */

int pg__json_bad_at(const pg__json *js, uint64_t at, const char *what)
{
    return pg_error_set(PG_EFORMAT, "%s: malformed trace at byte %llu: %s", js->name, (unsigned long long)at, what);
}

int pg__json_bad(const pg__json *js, const char *what)
{
    return pg__json_bad_at(js, pg__json_offset(js), what);
}

static int refill(pg__json *js)
{
    size_t n;

    if (js->eof)
        return 0;
    if (!js->f) {
        js->eof = 1;
        return 0;
    }
    js->base += (uint64_t)(js->end - js->win);
    n = fread(js->chunk, 1, PG_JSON_CHUNK, js->f);
    if (n == 0) {
        if (ferror(js->f))
            return pg_error_set(PG_EIO, "%s: read error at byte %llu: %s", js->name, (unsigned long long)js->base,
                                strerror(errno));
        js->eof = 1;
    }
    js->win = js->p = js->chunk;
    js->end = js->chunk + n;
    return 0;
}

int pg__json_peek_slow(pg__json *js)
{
    if (refill(js) != 0 || js->p == js->end)
        return js->eof ? -1 : -2;
    return (unsigned char)*js->p;
}

int pg__json_skip_ws(pg__json *js)
{
    int c;

    for (;;) {
        /* Whitespace runs are skipped inside the window without per-byte calls. */
        if (!js->tee)
            while (js->p < js->end && (*js->p == ' ' || *js->p == '\n' || *js->p == '\r' || *js->p == '\t'))
                js->p++;
        c = pg__json_peek(js);
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            return c;
        pg__json_advance(js);
    }
}

int pg__json_expect(pg__json *js, char ch, const char *what)
{
    int c = pg__json_skip_ws(js);

    if (c == -2)
        return PG_EIO;
    if (c != ch)
        return pg__json_bad(js, what);
    pg__json_advance(js);
    return 0;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int read_hex4(pg__json *js, unsigned *out)
{
    unsigned v = 0;
    int i, c, h;

    for (i = 0; i < 4; i++) {
        if ((c = pg__json_peek(js)) < 0 || (h = hexval(c)) < 0)
            return pg__json_bad(js, "bad \\u escape in a string");
        v = v * 16 + (unsigned)h;
        pg__json_advance(js);
    }
    *out = v;
    return 0;
}

static int put_utf8(pg_buf *b, unsigned cp)
{
    char u[4];
    size_t n;

    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xc0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xe0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        u[0] = (char)(0xf0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[3] = (char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    return pg__buf_put(b, u, n);
}

/* pg__buf_put without the call when the room is there: the reader appends millions of short runs. */
static inline int append(pg_buf *b, const char *data, size_t len)
{
    if (b->len + len + 1 > b->cap)
        return pg__buf_put(b, data, len);
    memcpy(b->ptr + b->len, data, len);
    b->len += len;
    b->ptr[b->len] = '\0';
    return 0;
}

/* Reads a JSON string (the opening quote is next) into `into`, decoded; `into` NULL only validates. */
int pg__json_string(pg__json *js, pg_buf *into)
{
    int c, err;
    uint64_t start = pg__json_offset(js);

    if (!into) {
        into = &js->skip;
        into->len = 0;
    }
    into->len = 0;
    if ((err = pg__buf_grow(into, 0)) != 0)
        return err;
    into->ptr[0] = '\0';
    if ((c = pg__json_peek(js)) != '"')
        return c == -2 ? PG_EIO : pg__json_bad(js, "expected a string");
    pg__json_advance(js);
    for (;;) {
        const char *q;
        /* Copy runs of plain bytes at once: this loop is the reader's hot path. */
        for (q = js->p; q < js->end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20; q++)
            ;
        if (q > js->p) {
            if (into->len + (size_t)(q - js->p) > MAX_STRING)
                return pg__json_bad_at(js, start, "string longer than 1 MiB");
            if (into != &js->skip && (err = append(into, js->p, (size_t)(q - js->p))) != 0)
                return err;
            if (js->tee && js->tee->len < PG_JSON_TEE_MAX) {
                size_t n = (size_t)(q - js->p), room = PG_JSON_TEE_MAX - js->tee->len;
                pg__buf_put(js->tee, js->p, n < room ? n : room);
            }
            js->p = q;
        }
        c = pg__json_peek(js);
        if (c == -2)
            return PG_EIO;
        if (c == -1)
            return pg__json_bad_at(js, start, "unterminated string");
        if (c < 0x20)
            return pg__json_bad(js, "control character inside a string");
        if (c != '"' && c != '\\')
            continue; /* a plain byte at the start of a new chunk: the run above copies it */
        pg__json_advance(js);
        if (c == '"')
            return 0;
        if (c == '\\') {
            uint64_t esc = pg__json_offset(js) - 1;
            unsigned cp;
            if ((c = pg__json_peek(js)) < 0)
                return pg__json_bad(js, "unterminated escape in a string");
            pg__json_advance(js);
            switch (c) {
            case '"': case '\\': case '/':
                err = pg__buf_put(into, (const char *)&(char){(char)c}, 1);
                break;
            case 'b': err = pg__buf_put(into, "\b", 1); break;
            case 'f': err = pg__buf_put(into, "\f", 1); break;
            case 'n': err = pg__buf_put(into, "\n", 1); break;
            case 'r': err = pg__buf_put(into, "\r", 1); break;
            case 't': err = pg__buf_put(into, "\t", 1); break;
            case 'u':
                if ((err = read_hex4(js, &cp)) != 0)
                    return err;
                if (cp >= 0xd800 && cp < 0xdc00) {
                    unsigned lo;
                    if (pg__json_peek(js) != '\\')
                        return pg__json_bad(js, "unpaired surrogate in a string");
                    pg__json_advance(js);
                    if (pg__json_peek(js) != 'u')
                        return pg__json_bad(js, "unpaired surrogate in a string");
                    pg__json_advance(js);
                    if ((err = read_hex4(js, &lo)) != 0)
                        return err;
                    if (lo < 0xdc00 || lo > 0xdfff)
                        return pg__json_bad(js, "unpaired surrogate in a string");
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                } else if (cp >= 0xdc00 && cp < 0xe000) {
                    return pg__json_bad(js, "unpaired surrogate in a string");
                }
                /* Names are C strings: a NUL would silently cut them. */
                if (cp == 0)
                    return pg__json_bad(js, "\\u0000 inside a string is not supported");
                err = put_utf8(into, cp);
                break;
            default:
                return pg__json_bad_at(js, esc, "bad escape in a string");
            }
            if (err)
                return err;
            if (into->len > MAX_STRING)
                return pg__json_bad_at(js, start, "string longer than 1 MiB");
        }
    }
}

/* Takes byte `c` into the number's text; returns from the caller when the text is too long. */
#define TAKE()                                                               \
    do {                                                                     \
        if (into->len >= 64)                                                 \
            return pg__json_bad(js, "number longer than 64 characters");     \
        append(into, &(char){(char)c}, 1);                                   \
        pg__json_advance(js);                                                \
    } while (0)

/* Takes a run of digits. @return how many, or an error; *next is the byte after them. */
static int take_digits(pg__json *js, pg_buf *into, int *next)
{
    int c, n = 0;

    while ((c = pg__json_peek(js)) >= '0' && c <= '9') {
        TAKE();
        n++;
    }
    *next = c;
    return n;
}

/* Reads a JSON number's text (validated against the grammar) into `into`. */
int pg__json_number(pg__json *js, pg_buf *into)
{
    int c, digits = 0;

    into->len = 0;
    if ((c = pg__json_peek(js)) == '-')
        TAKE();
    c = pg__json_peek(js);
    if (c == '0') {
        TAKE();
        digits = 1;
    } else if ((digits = take_digits(js, into, &c)) < 0) {
        return digits;
    }
    if (!digits)
        return c == -2 ? PG_EIO : pg__json_bad(js, "expected a number");
    if ((c = pg__json_peek(js)) == '.') {
        TAKE();
        if ((digits = take_digits(js, into, &c)) < 0)
            return digits;
        if (!digits)
            return pg__json_bad(js, "expected digits after '.' in a number");
    }
    if ((c = pg__json_peek(js)) == 'e' || c == 'E') {
        TAKE();
        if ((c = pg__json_peek(js)) == '+' || c == '-')
            TAKE();
        if ((digits = take_digits(js, into, &c)) < 0)
            return digits;
        if (!digits)
            return pg__json_bad(js, "expected digits in a number's exponent");
    }
    if (c == -2)
        return PG_EIO;
    return 0;
}
#undef TAKE

int pg__json_key(pg__json *js, pg_buf *into)
{
    int err;

    if ((err = pg__json_string(js, into)) != 0)
        return err;
    return pg__json_expect(js, ':', "expected ':' after a key");
}

int pg__json_next(pg__json *js, char close, const char *what)
{
    int c = pg__json_skip_ws(js);

    if (c == ',') {
        pg__json_advance(js);
        pg__json_skip_ws(js);
        return 1;
    }
    if (c == close) {
        pg__json_advance(js);
        return 0;
    }
    return c == -2 ? PG_EIO : pg__json_bad(js, what);
}

static int skip_container(pg__json *js, int depth, int obj)
{
    int c, err;

    if (depth > MAX_DEPTH)
        return pg__json_bad(js, "values nested deeper than 128 levels");
    pg__json_advance(js); /* '{' or '[' */
    if ((c = pg__json_skip_ws(js)) == (obj ? '}' : ']')) {
        pg__json_advance(js);
        return 0;
    }
    do {
        if (obj && (err = pg__json_key(js, NULL)) != 0)
            return err;
        if ((err = pg__json_skip(js, depth + 1)) != 0)
            return err;
    } while ((err = pg__json_next(js, obj ? '}' : ']',
                                  obj ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array")) > 0);
    return err;
}

static int skip_literal(pg__json *js, const char *lit)
{
    for (; *lit; lit++) {
        if (pg__json_peek(js) != (unsigned char)*lit)
            return pg__json_bad(js, "unexpected character");
        pg__json_advance(js);
    }
    return 0;
}

int pg__json_skip(pg__json *js, int depth)
{
    int c = pg__json_skip_ws(js);

    switch (c) {
    case '{': return skip_container(js, depth, 1);
    case '[': return skip_container(js, depth, 0);
    case '"': return pg__json_string(js, NULL);
    case 't': return skip_literal(js, "true");
    case 'f': return skip_literal(js, "false");
    case 'n': return skip_literal(js, "null");
    case -1: return pg__json_bad(js, "unexpected end of input, expected a value");
    case -2: return PG_EIO;
    default:
        if (c == '-' || (c >= '0' && c <= '9'))
            return pg__json_number(js, &js->tmp);
        return pg__json_bad(js, "unexpected character, expected a value");
    }
}
void pg__json_clear(pg__json *js)
{
    pg__buf_clear(&js->key);
    pg__buf_clear(&js->tmp);
    pg__buf_clear(&js->skip);
}
