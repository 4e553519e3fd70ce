/*
 * reader.c - a streaming reader of Chrome / Perfetto trace files.
 *
 * The Trace Event Format comes in two forms: a bare JSON array of events
 * (torch.profiler before Kineto, chrome://tracing; the closing ']' is
 * optional) and an object whose "traceEvents" member holds that array
 * (Kineto, Perfetto). Traces of real training runs reach hundreds of
 * megabytes, so the file is tokenized in 64 KiB chunks and each event is
 * reduced to a fixed-size record with interned strings as soon as its object
 * closes: memory grows with the number of kept events, never with the size
 * of the file or of its args. Every malformed input stops with one line
 * naming the byte offset.
 */
#include "trace/trace.h"

#include "perfgate/errors.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CHUNK (64 * 1024)
#define MAX_STRING (1 << 20)     /* longest string kept (kernel names are ~1 KiB) */
#define MAX_DEPTH 128            /* nesting of skipped values */
#define MAX_SHAPE 512            /* bytes of "Input Dims" kept */
#define MAX_OPEN 100000          /* open B events per track */
#define TS_LIMIT (INT64_C(1) << 61) /* |ns| beyond this cannot be real and could overflow */

typedef struct open_b {
    size_t idx;                  /* event index, or SIZE_MAX when the event was dropped */
} open_b;

typedef struct track {
    uint32_t pid, tid;
    open_b *open;
    size_t nopen, cap;
} track;

typedef struct reader {
    FILE *f;
    const char *name;
    const char *p, *end;         /* current window */
    const char *win;             /* start of the window */
    uint64_t base;               /* byte offset of the window start */
    int eof;
    char *chunk;
    pg_buf *tee;                 /* when set, consumed bytes are copied here (bounded) */
    pg_trace *t;
    const pg_trace_read_options *opts;
    pg_buf key, name_b, cat_b, ph_b, pid_b, tid_b, shape_b, tmp, skip;
    track *tracks;
    size_t ntracks, last_track;
    int64_t max_ts, min_ts;
    int any_ts;
} reader;

static uint64_t offset(const reader *r)
{
    return r->base + (uint64_t)(r->p - r->win);
}

static int bad_at(const reader *r, uint64_t at, const char *what)
{
    return pg_error_set(PG_EFORMAT, "%s: malformed trace at byte %llu: %s", r->name, (unsigned long long)at, what);
}

static int bad(const reader *r, const char *what)
{
    return bad_at(r, offset(r), what);
}

static int refill(reader *r)
{
    size_t n;

    if (r->eof)
        return 0;
    if (!r->f) {
        r->eof = 1;
        return 0;
    }
    r->base += (uint64_t)(r->end - r->win);
    n = fread(r->chunk, 1, CHUNK, r->f);
    if (n == 0) {
        if (ferror(r->f))
            return pg_error_set(PG_EIO, "%s: read error at byte %llu: %s", r->name, (unsigned long long)r->base,
                                strerror(errno));
        r->eof = 1;
    }
    r->win = r->p = r->chunk;
    r->end = r->chunk + n;
    return 0;
}

static int peek_slow(reader *r)
{
    if (refill(r) != 0 || r->p == r->end)
        return r->eof ? -1 : -2;
    return (unsigned char)*r->p;
}

/* The next byte without consuming it; -1 at the end of input, -2 on a read error. */
static inline int peek(reader *r)
{
    return r->p < r->end ? (unsigned char)*r->p : peek_slow(r);
}

static inline void advance(reader *r)
{
    if (r->tee && r->tee->len < MAX_SHAPE)
        pg__buf_put(r->tee, r->p, 1);
    r->p++;
}

static int skip_ws(reader *r)
{
    int c;

    for (;;) {
        /* Whitespace runs are skipped inside the window without per-byte calls. */
        if (!r->tee)
            while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t'))
                r->p++;
        c = peek(r);
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            return c;
        advance(r);
    }
}

static int expect(reader *r, char ch, const char *what)
{
    int c = skip_ws(r);

    if (c == -2)
        return PG_EIO;
    if (c != ch)
        return bad(r, what);
    advance(r);
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

static int read_hex4(reader *r, unsigned *out)
{
    unsigned v = 0;
    int i, c, h;

    for (i = 0; i < 4; i++) {
        if ((c = peek(r)) < 0 || (h = hexval(c)) < 0)
            return bad(r, "bad \\u escape in a string");
        v = v * 16 + (unsigned)h;
        advance(r);
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
static int read_string(reader *r, pg_buf *into)
{
    int c, err;
    uint64_t start = offset(r);

    if (!into) {
        into = &r->skip;
        into->len = 0;
    }
    into->len = 0;
    if ((err = pg__buf_grow(into, 0)) != 0)
        return err;
    into->ptr[0] = '\0';
    if ((c = peek(r)) != '"')
        return c == -2 ? PG_EIO : bad(r, "expected a string");
    advance(r);
    for (;;) {
        const char *q;
        /* Copy runs of plain bytes at once: this loop is the reader's hot path. */
        for (q = r->p; q < r->end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20; q++)
            ;
        if (q > r->p) {
            if (into->len + (size_t)(q - r->p) > MAX_STRING)
                return bad_at(r, start, "string longer than 1 MiB");
            if (into != &r->skip && (err = append(into, r->p, (size_t)(q - r->p))) != 0)
                return err;
            if (r->tee && r->tee->len < MAX_SHAPE) {
                size_t n = (size_t)(q - r->p), room = MAX_SHAPE - r->tee->len;
                pg__buf_put(r->tee, r->p, n < room ? n : room);
            }
            r->p = q;
        }
        c = peek(r);
        if (c == -2)
            return PG_EIO;
        if (c == -1)
            return bad_at(r, start, "unterminated string");
        if (c < 0x20)
            return bad(r, "control character inside a string");
        if (c != '"' && c != '\\')
            continue; /* a plain byte at the start of a new chunk: the run above copies it */
        advance(r);
        if (c == '"')
            return 0;
        if (c == '\\') {
            uint64_t esc = offset(r) - 1;
            unsigned cp;
            if ((c = peek(r)) < 0)
                return bad(r, "unterminated escape in a string");
            advance(r);
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
                if ((err = read_hex4(r, &cp)) != 0)
                    return err;
                if (cp >= 0xd800 && cp < 0xdc00) {
                    unsigned lo;
                    if (peek(r) != '\\')
                        return bad(r, "unpaired surrogate in a string");
                    advance(r);
                    if (peek(r) != 'u')
                        return bad(r, "unpaired surrogate in a string");
                    advance(r);
                    if ((err = read_hex4(r, &lo)) != 0)
                        return err;
                    if (lo < 0xdc00 || lo > 0xdfff)
                        return bad(r, "unpaired surrogate in a string");
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                } else if (cp >= 0xdc00 && cp < 0xe000) {
                    return bad(r, "unpaired surrogate in a string");
                }
                /* Names are C strings: a NUL would silently cut them. */
                if (cp == 0)
                    return bad(r, "\\u0000 inside a string is not supported");
                err = put_utf8(into, cp);
                break;
            default:
                return bad_at(r, esc, "bad escape in a string");
            }
            if (err)
                return err;
            if (into->len > MAX_STRING)
                return bad_at(r, start, "string longer than 1 MiB");
        }
    }
}

/* Reads a JSON number's text (validated against the grammar) into `into`. */
static int read_number(reader *r, pg_buf *into)
{
    int c, digits = 0;

    into->len = 0;
#define TAKE()                                                     \
    do {                                                           \
        if (into->len >= 64)                                       \
            return bad(r, "number longer than 64 characters");    \
        append(into, &(char){(char)c}, 1);                         \
        advance(r);                                                \
    } while (0)
    if ((c = peek(r)) == '-')
        TAKE();
    c = peek(r);
    if (c == '0') {
        TAKE();
        digits = 1;
    } else {
        while ((c = peek(r)) >= '0' && c <= '9') {
            TAKE();
            digits++;
        }
    }
    if (!digits)
        return c == -2 ? PG_EIO : bad(r, "expected a number");
    if ((c = peek(r)) == '.') {
        TAKE();
        digits = 0;
        while ((c = peek(r)) >= '0' && c <= '9') {
            TAKE();
            digits++;
        }
        if (!digits)
            return bad(r, "expected digits after '.' in a number");
    }
    if ((c = peek(r)) == 'e' || c == 'E') {
        TAKE();
        if ((c = peek(r)) == '+' || c == '-')
            TAKE();
        digits = 0;
        while ((c = peek(r)) >= '0' && c <= '9') {
            TAKE();
            digits++;
        }
        if (!digits)
            return bad(r, "expected digits in a number's exponent");
    }
#undef TAKE
    if (c == -2)
        return PG_EIO;
    return 0;
}

/* Converts a number of microseconds (JSON text) to nanoseconds, exactly for
 * plain decimals; 0 when in range. */
static int micros_to_ns(int64_t *out, const char *txt)
{
    const char *q = txt;
    int neg = 0, frac = 0;
    int64_t v = 0;

    if (strpbrk(txt, "eE")) {
        double d = strtod(txt, NULL) * 1000.0;
        if (!(fabs(d) < (double)TS_LIMIT))
            return -1;
        *out = llround(d);
        return 0;
    }
    if (*q == '-') {
        neg = 1;
        q++;
    }
    for (; *q >= '0' && *q <= '9'; q++) {
        v = v * 10 + (*q - '0');
        if (v >= TS_LIMIT / 1000)
            return -1;
    }
    v *= 1000;
    if (*q == '.') {
        int scale = 100;
        for (q++; *q >= '0' && *q <= '9'; q++, frac++) {
            if (frac < 3)
                v += (*q - '0') * scale;
            else if (frac == 3 && *q >= '5')
                v += 1; /* round half up on the first dropped digit */
            scale /= 10;
        }
    }
    *out = neg ? -v : v;
    return 0;
}

static int skip_value(reader *r, int depth);

static int skip_container(reader *r, int depth, int obj)
{
    int c, err;

    if (depth > MAX_DEPTH)
        return bad(r, "values nested deeper than 128 levels");
    advance(r); /* '{' or '[' */
    if ((c = skip_ws(r)) == (obj ? '}' : ']')) {
        advance(r);
        return 0;
    }
    for (;;) {
        if (obj) {
            if ((err = read_string(r, NULL)) != 0)
                return err;
            if ((err = expect(r, ':', "expected ':' after a key")) != 0)
                return err;
        }
        if ((err = skip_value(r, depth + 1)) != 0)
            return err;
        c = skip_ws(r);
        if (c == ',') {
            advance(r);
            skip_ws(r);
            continue;
        }
        if (c == (obj ? '}' : ']')) {
            advance(r);
            return 0;
        }
        if (c == -2)
            return PG_EIO;
        return bad(r, obj ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array");
    }
}

static int skip_literal(reader *r, const char *lit)
{
    for (; *lit; lit++) {
        if (peek(r) != (unsigned char)*lit)
            return bad(r, "unexpected character");
        advance(r);
    }
    return 0;
}

static int skip_value(reader *r, int depth)
{
    int c = skip_ws(r);

    switch (c) {
    case '{': return skip_container(r, depth, 1);
    case '[': return skip_container(r, depth, 0);
    case '"': return read_string(r, NULL);
    case 't': return skip_literal(r, "true");
    case 'f': return skip_literal(r, "false");
    case 'n': return skip_literal(r, "null");
    case -1: return bad(r, "unexpected end of input, expected a value");
    case -2: return PG_EIO;
    default:
        if (c == '-' || (c >= '0' && c <= '9'))
            return read_number(r, &r->tmp);
        return bad(r, "unexpected character, expected a value");
    }
}

/* One event's fields as read, before it is kept or dropped. */
typedef struct fields {
    int has_ts, has_dur, has_name;
    int64_t ts, dur, corr, ext;
    uint64_t at;                 /* byte offset of the event */
} fields;

/* Reads a value that names a process or thread: a number or a string, kept as text. */
static int read_id_text(reader *r, pg_buf *into)
{
    int c = skip_ws(r);

    if (c == '"')
        return read_string(r, into);
    if (c == '-' || (c >= '0' && c <= '9'))
        return read_number(r, into);
    return c == -2 ? PG_EIO : bad(r, "pid and tid must be numbers or strings");
}

static int read_micros(reader *r, int64_t *out, const char *what)
{
    int c = skip_ws(r), err;

    if (c != '-' && !(c >= '0' && c <= '9'))
        return c == -2 ? PG_EIO : bad(r, what);
    if ((err = read_number(r, &r->tmp)) != 0)
        return err;
    if (micros_to_ns(out, r->tmp.ptr) != 0)
        return bad(r, "timestamp or duration out of range");
    return 0;
}

/* Reads an integer id (correlation, External id); non-integers leave it absent. */
static int read_int_id(reader *r, int64_t *out)
{
    int c = skip_ws(r), err;

    if (c != '-' && !(c >= '0' && c <= '9'))
        return skip_value(r, 1);
    if ((err = read_number(r, &r->tmp)) != 0)
        return err;
    if (!strpbrk(r->tmp.ptr, ".eE-") && r->tmp.len < 19)
        *out = strtoll(r->tmp.ptr, NULL, 10);
    return 0;
}

static int read_args(reader *r, fields *fl)
{
    int c, err;

    if ((c = skip_ws(r)) != '{')
        return skip_value(r, 1);
    advance(r);
    if ((c = skip_ws(r)) == '}') {
        advance(r);
        return 0;
    }
    for (;;) {
        if ((err = read_string(r, &r->key)) != 0)
            return err;
        if ((err = expect(r, ':', "expected ':' after a key")) != 0)
            return err;
        if (strcmp(r->key.ptr, "correlation") == 0) {
            err = read_int_id(r, &fl->corr);
        } else if (strcmp(r->key.ptr, "External id") == 0) {
            err = read_int_id(r, &fl->ext);
        } else if (strcasecmp(r->key.ptr, "Input Dims") == 0 || strcmp(r->key.ptr, "input_shapes") == 0) {
            /* Shapes are kept as their JSON text, bounded. */
            skip_ws(r);
            r->shape_b.len = 0;
            r->tee = &r->shape_b;
            err = skip_value(r, 2);
            r->tee = NULL;
        } else {
            err = skip_value(r, 2);
        }
        if (err)
            return err;
        c = skip_ws(r);
        if (c == ',') {
            advance(r);
            skip_ws(r);
            continue;
        }
        if (c == '}') {
            advance(r);
            return 0;
        }
        return c == -2 ? PG_EIO : bad(r, "expected ',' or '}' in args");
    }
}

static int is_device_cat(const char *cat)
{
    static const char *const cats[] = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", NULL};
    size_t i;

    for (i = 0; cats[i]; i++)
        if (strcasecmp(cat, cats[i]) == 0)
            return 1;
    return 0;
}

static int find_track(reader *r, track **out, uint32_t pid, uint32_t tid)
{
    size_t i;

    if (r->last_track < r->ntracks && r->tracks[r->last_track].pid == pid && r->tracks[r->last_track].tid == tid) {
        *out = &r->tracks[r->last_track];
        return 0;
    }
    for (i = 0; i < r->ntracks; i++)
        if (r->tracks[i].pid == pid && r->tracks[i].tid == tid)
            break;
    if (i == r->ntracks) {
        track *p = realloc(r->tracks, (r->ntracks + 1) * sizeof(*p));
        if (!p)
            return pg_error_set(PG_ENOMEM, "out of memory reading %s", r->name);
        r->tracks = p;
        memset(&p[i], 0, sizeof(p[i]));
        p[i].pid = pid;
        p[i].tid = tid;
        r->ntracks++;
    }
    r->last_track = i;
    *out = &r->tracks[i];
    return 0;
}

static int add_event(reader *r, const fields *fl, char ph, size_t *out_idx)
{
    pg_trace_event ev = {0};
    int err;

    *out_idx = SIZE_MAX;
    ev.ts = fl->ts;
    ev.dur = ph == 'X' ? fl->dur : 0;
    ev.correlation = fl->corr;
    ev.external_id = fl->ext;
    ev.parent = -1;
    ev.device = (uint8_t)is_device_cat(r->cat_b.ptr ? r->cat_b.ptr : "");
    if (r->opts->keep && !ev.device && ev.correlation < 0 &&
        !r->opts->keep(r->name_b.ptr ? r->name_b.ptr : "", r->cat_b.ptr ? r->cat_b.ptr : "", r->opts->payload))
        return 0;
    if (r->opts->max_events && r->t->nevents >= r->opts->max_events)
        return bad_at(r, fl->at, "more events than the reader's limit");
    if ((err = pg_trace_intern(&ev.name, r->t, r->name_b.ptr ? r->name_b.ptr : "", r->name_b.len)) != 0 ||
        (err = pg_trace_intern(&ev.cat, r->t, r->cat_b.ptr ? r->cat_b.ptr : "", r->cat_b.len)) != 0 ||
        (r->shape_b.len && (err = pg_trace_intern(&ev.shape, r->t, r->shape_b.ptr, r->shape_b.len)) != 0) ||
        (err = pg_trace_intern(&ev.pid, r->t, r->pid_b.ptr ? r->pid_b.ptr : "", r->pid_b.len)) != 0 ||
        (err = pg_trace_intern(&ev.tid, r->t, r->tid_b.ptr ? r->tid_b.ptr : "", r->tid_b.len)) != 0)
        return err;
    return pg__trace_add(out_idx, r->t, &ev);
}

static int read_event(reader *r)
{
    fields fl = {0};
    int c, err;
    char ph = 0;

    fl.corr = fl.ext = -1;
    fl.at = offset(r);
    r->name_b.len = r->cat_b.len = r->ph_b.len = r->pid_b.len = r->tid_b.len = r->shape_b.len = 0;
    if (r->name_b.ptr)
        r->name_b.ptr[0] = '\0';
    if (r->cat_b.ptr)
        r->cat_b.ptr[0] = '\0';
    if (r->pid_b.ptr)
        r->pid_b.ptr[0] = '\0';
    if (r->tid_b.ptr)
        r->tid_b.ptr[0] = '\0';
    if ((c = skip_ws(r)) != '{')
        return c == -2 ? PG_EIO : bad(r, "expected an event object");
    advance(r);
    if ((c = skip_ws(r)) == '}') {
        advance(r);
        return 0;
    }
    for (;;) {
        const char *k;
        if ((err = read_string(r, &r->key)) != 0)
            return err;
        if ((err = expect(r, ':', "expected ':' after a key")) != 0)
            return err;
        skip_ws(r);
        k = r->key.ptr;
        if (strcmp(k, "name") == 0 && peek(r) == '"') {
            err = read_string(r, &r->name_b);
            fl.has_name = 1;
        } else if (strcmp(k, "cat") == 0 && peek(r) == '"') {
            err = read_string(r, &r->cat_b);
        } else if (strcmp(k, "ph") == 0) {
            if ((err = read_string(r, &r->ph_b)) == 0)
                ph = r->ph_b.len == 1 ? r->ph_b.ptr[0] : '?';
        } else if (strcmp(k, "ts") == 0) {
            err = read_micros(r, &fl.ts, "ts must be a number of microseconds");
            fl.has_ts = 1;
        } else if (strcmp(k, "dur") == 0) {
            err = read_micros(r, &fl.dur, "dur must be a number of microseconds");
            fl.has_dur = 1;
        } else if (strcmp(k, "pid") == 0) {
            err = read_id_text(r, &r->pid_b);
        } else if (strcmp(k, "tid") == 0) {
            err = read_id_text(r, &r->tid_b);
        } else if (strcmp(k, "args") == 0) {
            err = read_args(r, &fl);
        } else {
            err = skip_value(r, 1);
        }
        if (err)
            return err;
        c = skip_ws(r);
        if (c == ',') {
            advance(r);
            skip_ws(r);
            continue;
        }
        if (c == '}') {
            advance(r);
            break;
        }
        return c == -2 ? PG_EIO : bad(r, "expected ',' or '}' in an event");
    }
    r->t->nread++;
    if (ph == 'X' || ph == 'B' || ph == 'E' || ph == 'i' || ph == 'I') {
        track *tr = NULL;
        size_t idx;
        if (!fl.has_ts)
            return bad_at(r, fl.at, "event without 'ts'");
        if (fl.dur < 0)
            return bad_at(r, fl.at, "negative 'dur'");
        if (!r->any_ts || fl.ts + fl.dur > r->max_ts)
            r->max_ts = fl.ts + fl.dur;
        if (!r->any_ts || fl.ts < r->min_ts)
            r->min_ts = fl.ts;
        r->any_ts = 1;
        if (ph == 'X' || ph == 'i' || ph == 'I')
            return add_event(r, &fl, ph, &idx);
        {
            uint32_t pid, tid;
            if ((err = pg_trace_intern(&pid, r->t, r->pid_b.ptr ? r->pid_b.ptr : "", r->pid_b.len)) != 0 ||
                (err = pg_trace_intern(&tid, r->t, r->tid_b.ptr ? r->tid_b.ptr : "", r->tid_b.len)) != 0 ||
                (err = find_track(r, &tr, pid, tid)) != 0)
                return err;
        }
        if (ph == 'B') {
            if (tr->nopen >= MAX_OPEN)
                return bad_at(r, fl.at, "more than 100000 nested 'B' events on one thread");
            if ((err = add_event(r, &fl, 'B', &idx)) != 0)
                return err;
            if (tr->nopen == tr->cap) {
                size_t cap = tr->cap ? tr->cap * 2 : 16;
                open_b *p = realloc(tr->open, cap * sizeof(*p));
                if (!p)
                    return pg_error_set(PG_ENOMEM, "out of memory reading %s", r->name);
                tr->open = p;
                tr->cap = cap;
            }
            tr->open[tr->nopen++].idx = idx;
            return 0;
        }
        /* 'E' closes the innermost open 'B' of its thread; a stray one is ignored. */
        if (tr->nopen) {
            idx = tr->open[--tr->nopen].idx;
            if (idx != SIZE_MAX) {
                pg_trace_event *e = &r->t->events[idx];
                e->dur = fl.ts >= e->ts ? fl.ts - e->ts : 0;
            }
        }
    }
    return 0;
}

/* The array of events; `top` allows the unterminated form of a bare array. */
static int read_events(reader *r, int top)
{
    int c, err;

    advance(r); /* '[' */
    c = skip_ws(r);
    if (c == ']') {
        advance(r);
        return 0;
    }
    for (;;) {
        if (c == -1 && top)
            return 0;
        if (c == ']' && top) {
            /* A trailing comma before ']' is common in hand-closed traces. */
            advance(r);
            return 0;
        }
        if ((err = read_event(r)) != 0)
            return err;
        c = skip_ws(r);
        if (c == ',') {
            advance(r);
            c = skip_ws(r);
            continue;
        }
        if (c == ']') {
            advance(r);
            return 0;
        }
        if (c == -1 && top)
            return 0;
        if (c == -2)
            return PG_EIO;
        return bad(r, c == -1 ? "unexpected end of input in traceEvents" : "expected ',' or ']' after an event");
    }
}

static int read_top(reader *r)
{
    int c, err, found = 0;

    c = peek(r);
    if (c == 0xef) {
        /* A UTF-8 byte order mark, as some Windows tools write. */
        advance(r);
        if (peek(r) != 0xbb)
            return bad(r, "expected '[' or '{' at the start of a Chrome trace");
        advance(r);
        if (peek(r) != 0xbf)
            return bad(r, "expected '[' or '{' at the start of a Chrome trace");
        advance(r);
    }
    c = skip_ws(r);
    if (c == -2)
        return PG_EIO;
    if (c == -1)
        return bad(r, "empty file: not a Chrome trace");
    if (c == '[') {
        if ((err = read_events(r, 1)) != 0)
            return err;
    } else if (c == '{') {
        advance(r);
        if ((c = skip_ws(r)) == '}') {
            advance(r);
        } else {
            for (;;) {
                if ((err = read_string(r, &r->key)) != 0)
                    return err;
                if ((err = expect(r, ':', "expected ':' after a key")) != 0)
                    return err;
                c = skip_ws(r);
                if (strcmp(r->key.ptr, "traceEvents") == 0) {
                    if (c != '[')
                        return c == -2 ? PG_EIO : bad(r, "traceEvents must be an array");
                    if (found)
                        return bad(r, "traceEvents appears twice");
                    if ((err = read_events(r, 0)) != 0)
                        return err;
                    found = 1;
                } else if ((err = skip_value(r, 1)) != 0) {
                    return err;
                }
                c = skip_ws(r);
                if (c == ',') {
                    advance(r);
                    skip_ws(r);
                    continue;
                }
                if (c == '}') {
                    advance(r);
                    break;
                }
                return c == -2 ? PG_EIO : bad(r, "expected ',' or '}' in the trace object");
            }
        }
        if (!found)
            return bad(r, "the trace object has no 'traceEvents' array");
    } else {
        return bad(r, "expected '[' or '{' at the start of a Chrome trace");
    }
    c = skip_ws(r);
    if (c == -2)
        return PG_EIO;
    if (c != -1)
        return bad(r, "unexpected data after the trace");
    return 0;
}

static int read_all(pg_trace **out, reader *r)
{
    pg_trace_read_options dflt = PG_TRACE_READ_OPTIONS_INIT;
    size_t i, j;
    int err;

    *out = NULL;
    if (!r->opts)
        r->opts = &dflt;
    if ((err = pg_trace_new(&r->t)) != 0)
        goto cleanup;
    if ((err = read_top(r)) != 0)
        goto cleanup;
    /* A 'B' never closed lasts until the end of the trace (as Perfetto shows it). */
    for (i = 0; i < r->ntracks; i++)
        for (j = 0; j < r->tracks[i].nopen; j++) {
            size_t idx = r->tracks[i].open[j].idx;
            if (idx != SIZE_MAX)
                r->t->events[idx].dur = r->max_ts - r->t->events[idx].ts;
        }
    r->t->bytes_read = (size_t)offset(r);
    r->t->origin = r->min_ts;
    if ((err = pg_trace_nest(r->t)) != 0)
        goto cleanup;
    *out = r->t;
    r->t = NULL;

cleanup:
    pg_trace_free(r->t);
    for (i = 0; i < r->ntracks; i++)
        free(r->tracks[i].open);
    free(r->tracks);
    pg__buf_free(&r->key);
    pg__buf_free(&r->name_b);
    pg__buf_free(&r->cat_b);
    pg__buf_free(&r->ph_b);
    pg__buf_free(&r->pid_b);
    pg__buf_free(&r->tid_b);
    pg__buf_free(&r->shape_b);
    pg__buf_free(&r->tmp);
    pg__buf_free(&r->skip);
    return err;
}

int pg_trace_read_buffer(pg_trace **out, const char *name, const char *data, size_t len,
                         const pg_trace_read_options *opts)
{
    reader r;

    memset(&r, 0, sizeof(r));
    r.name = name ? name : "trace";
    r.win = r.p = data;
    r.end = data + len;
    r.opts = opts;
    return read_all(out, &r);
}

int pg_trace_read_file(pg_trace **out, const char *path, const pg_trace_read_options *opts)
{
    reader r;
    int err;

    *out = NULL;
    memset(&r, 0, sizeof(r));
    r.name = path;
    r.opts = opts;
    if (!(r.f = fopen(path, "rb")))
        return pg_error_set(PG_EIO, "%s: cannot open trace: %s", path, strerror(errno));
    if (!(r.chunk = malloc(CHUNK))) {
        fclose(r.f);
        return pg_error_set(PG_ENOMEM, "out of memory reading %s", path);
    }
    r.win = r.p = r.end = r.chunk;
    err = read_all(out, &r);
    free(r.chunk);
    fclose(r.f);
    return err;
}
