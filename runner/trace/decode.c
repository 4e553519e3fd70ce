/*
 * decode.c - one Trace Event Format object into the trace model: the fields
 * perfgate keeps (name, cat, ph, ts, dur, pid, tid and from args the
 * correlation ids, input shapes and Kineto's FLOPs), microseconds to nanoseconds, the keep
 * filter and the event limit, and the pairing of 'B' and 'E' per thread.
 */
#include "trace/decode.h"

#include "perfgate/errors.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_OPEN 100000          /* open B events per track */
#define TS_LIMIT (INT64_C(1) << 61) /* |ns| beyond this cannot be real and could overflow */

typedef struct open_b {
    size_t idx;                  /* event index, or SIZE_MAX when the event was dropped */
} open_b;

struct pg__trace_track {
    uint32_t pid, tid;
    open_b *open;
    size_t nopen, cap;
};

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

/* One event's fields as read, before it is kept or dropped. */
typedef struct fields {
    int has_ts, has_dur, has_name;
    int64_t ts, dur, corr, ext;
    int64_t flops;               /* args.flops, -1 when absent */
    uint64_t at;                 /* byte offset of the event */
} fields;

/* Reads a value that names a process or thread: a number or a string, kept as text. */
static int read_id_text(pg__json *js, pg_buf *into)
{
    int c = pg__json_skip_ws(js);

    if (c == '"')
        return pg__json_string(js, into);
    if (c == '-' || (c >= '0' && c <= '9'))
        return pg__json_number(js, into);
    return c == -2 ? PG_EIO : pg__json_bad(js, "pid and tid must be numbers or strings");
}

static int read_micros(pg__json *js, int64_t *out, const char *what)
{
    int c = pg__json_skip_ws(js), err;

    if (c != '-' && !(c >= '0' && c <= '9'))
        return c == -2 ? PG_EIO : pg__json_bad(js, what);
    if ((err = pg__json_number(js, &js->tmp)) != 0)
        return err;
    if (micros_to_ns(out, js->tmp.ptr) != 0)
        return pg__json_bad(js, "timestamp or duration out of range");
    return 0;
}

/* Reads an integer id (correlation, External id); non-integers leave it absent. */
static int read_int_id(pg__json *js, int64_t *out)
{
    int c = pg__json_skip_ws(js), err;

    if (c != '-' && !(c >= '0' && c <= '9'))
        return pg__json_skip(js, 1);
    if ((err = pg__json_number(js, &js->tmp)) != 0)
        return err;
    if (!strpbrk(js->tmp.ptr, ".eE-") && js->tmp.len < 19)
        *out = strtoll(js->tmp.ptr, NULL, 10);
    return 0;
}

/* args.flops (torch.profiler's with_flops=True): a non-negative number, kept as an integer. */
static int read_flops(pg__json *js, int64_t *out)
{
    int c = pg__json_skip_ws(js), err;
    double d;

    if (c == 'n')
        return pg__json_skip(js, 2); /* null: no count */
    if (c != '-' && !(c >= '0' && c <= '9'))
        return c == -2 ? PG_EIO : pg__json_bad(js, "args.flops must be a number");
    if ((err = pg__json_number(js, &js->tmp)) != 0)
        return err;
    if (!strpbrk(js->tmp.ptr, ".eE-") && js->tmp.len < 19) {
        *out = strtoll(js->tmp.ptr, NULL, 10);
        return 0;
    }
    d = strtod(js->tmp.ptr, NULL);
    if (!(d >= 0 && d < 9.2e18))
        return pg__json_bad(js, "args.flops must be a non-negative number below 2^63");
    *out = llround(d);
    return 0;
}

static int read_args(pg__trace_reader *r, fields *fl)
{
    pg__json *js = &r->js;
    int c, err;

    if ((c = pg__json_skip_ws(js)) != '{')
        return pg__json_skip(js, 1);
    pg__json_advance(js);
    if ((c = pg__json_skip_ws(js)) == '}') {
        pg__json_advance(js);
        return 0;
    }
    do {
        if ((err = pg__json_key(js, &js->key)) != 0)
            return err;
        if (strcmp(js->key.ptr, "correlation") == 0) {
            err = read_int_id(js, &fl->corr);
        } else if (strcmp(js->key.ptr, "External id") == 0) {
            err = read_int_id(js, &fl->ext);
        } else if (strcmp(js->key.ptr, "flops") == 0) {
            err = read_flops(js, &fl->flops);
        } else if (strcasecmp(js->key.ptr, "Input Dims") == 0 || strcmp(js->key.ptr, "input_shapes") == 0) {
            /* Shapes are kept as their JSON text, bounded. */
            pg__json_skip_ws(js);
            r->shape_b.len = 0;
            js->tee = &r->shape_b;
            err = pg__json_skip(js, 2);
            js->tee = NULL;
        } else {
            err = pg__json_skip(js, 2);
        }
        if (err)
            return err;
    } while ((err = pg__json_next(js, '}', "expected ',' or '}' in args")) > 0);
    return err;
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

static int find_track(pg__trace_reader *r, pg__trace_track **out, uint32_t pid, uint32_t tid)
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
        pg__trace_track *p = realloc(r->tracks, (r->ntracks + 1) * sizeof(*p));
        if (!p)
            return pg_error_set(PG_ENOMEM, "out of memory reading %s", r->js.name);
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

static int add_event(pg__trace_reader *r, const fields *fl, char ph, size_t *out_idx)
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
        return pg__json_bad_at(&r->js, fl->at, "more events than the reader's limit");
    if ((err = pg_trace_intern(&ev.name, r->t, r->name_b.ptr ? r->name_b.ptr : "", r->name_b.len)) != 0 ||
        (err = pg_trace_intern(&ev.cat, r->t, r->cat_b.ptr ? r->cat_b.ptr : "", r->cat_b.len)) != 0 ||
        (r->shape_b.len && (err = pg_trace_intern(&ev.shape, r->t, r->shape_b.ptr, r->shape_b.len)) != 0) ||
        (err = pg_trace_intern(&ev.pid, r->t, r->pid_b.ptr ? r->pid_b.ptr : "", r->pid_b.len)) != 0 ||
        (err = pg_trace_intern(&ev.tid, r->t, r->tid_b.ptr ? r->tid_b.ptr : "", r->tid_b.len)) != 0 ||
        (err = pg__trace_add(out_idx, r->t, &ev)) != 0)
        return err;
    return fl->flops >= 0 ? pg__trace_set_flops(r->t, r->t->events[*out_idx].seq, fl->flops) : 0;
}

int pg__trace_read_event(pg__trace_reader *r)
{
    pg__json *js = &r->js;
    fields fl = {0};
    int c, err;
    char ph = 0;

    fl.corr = fl.ext = fl.flops = -1;
    fl.at = pg__json_offset(js);
    r->name_b.len = r->cat_b.len = r->ph_b.len = r->pid_b.len = r->tid_b.len = r->shape_b.len = 0;
    if (r->name_b.ptr)
        r->name_b.ptr[0] = '\0';
    if (r->cat_b.ptr)
        r->cat_b.ptr[0] = '\0';
    if (r->pid_b.ptr)
        r->pid_b.ptr[0] = '\0';
    if (r->tid_b.ptr)
        r->tid_b.ptr[0] = '\0';
    if ((c = pg__json_skip_ws(js)) != '{')
        return c == -2 ? PG_EIO : pg__json_bad(js, "expected an event object");
    pg__json_advance(js);
    if ((c = pg__json_skip_ws(js)) == '}') {
        pg__json_advance(js);
        return 0;
    }
    do {
        const char *k;
        if ((err = pg__json_key(js, &js->key)) != 0)
            return err;
        pg__json_skip_ws(js);
        k = js->key.ptr;
        if (strcmp(k, "name") == 0 && pg__json_peek(js) == '"') {
            err = pg__json_string(js, &r->name_b);
            fl.has_name = 1;
        } else if (strcmp(k, "cat") == 0 && pg__json_peek(js) == '"') {
            err = pg__json_string(js, &r->cat_b);
        } else if (strcmp(k, "ph") == 0) {
            if ((err = pg__json_string(js, &r->ph_b)) == 0)
                ph = r->ph_b.len == 1 ? r->ph_b.ptr[0] : '?';
        } else if (strcmp(k, "ts") == 0) {
            err = read_micros(js, &fl.ts, "ts must be a number of microseconds");
            fl.has_ts = 1;
        } else if (strcmp(k, "dur") == 0) {
            err = read_micros(js, &fl.dur, "dur must be a number of microseconds");
            fl.has_dur = 1;
        } else if (strcmp(k, "pid") == 0) {
            err = read_id_text(js, &r->pid_b);
        } else if (strcmp(k, "tid") == 0) {
            err = read_id_text(js, &r->tid_b);
        } else if (strcmp(k, "args") == 0) {
            err = read_args(r, &fl);
        } else {
            err = pg__json_skip(js, 1);
        }
        if (err)
            return err;
    } while ((err = pg__json_next(js, '}', "expected ',' or '}' in an event")) > 0);
    if (err)
        return err;
    r->t->nread++;
    if (ph == 'X' || ph == 'B' || ph == 'E' || ph == 'i' || ph == 'I') {
        pg__trace_track *tr = NULL;
        size_t idx;
        if (!fl.has_ts)
            return pg__json_bad_at(js, fl.at, "event without 'ts'");
        if (fl.dur < 0)
            return pg__json_bad_at(js, fl.at, "negative 'dur'");
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
                return pg__json_bad_at(js, fl.at, "more than 100000 nested 'B' events on one thread");
            if ((err = add_event(r, &fl, 'B', &idx)) != 0)
                return err;
            if (tr->nopen == tr->cap) {
                size_t cap = tr->cap ? tr->cap * 2 : 16;
                open_b *p = realloc(tr->open, cap * sizeof(*p));
                if (!p)
                    return pg_error_set(PG_ENOMEM, "out of memory reading %s", js->name);
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

void pg__trace_close_open(pg__trace_reader *r)
{
    size_t i, j;

    /* A 'B' never closed lasts until the end of the trace (as Perfetto shows it). */
    for (i = 0; i < r->ntracks; i++)
        for (j = 0; j < r->tracks[i].nopen; j++) {
            size_t idx = r->tracks[i].open[j].idx;
            if (idx != SIZE_MAX)
                r->t->events[idx].dur = r->max_ts - r->t->events[idx].ts;
        }
}

void pg__trace_reader_clear(pg__trace_reader *r)
{
    size_t i;

    for (i = 0; i < r->ntracks; i++)
        free(r->tracks[i].open);
    free(r->tracks);
    pg__json_clear(&r->js);
    pg__buf_clear(&r->name_b);
    pg__buf_clear(&r->cat_b);
    pg__buf_clear(&r->ph_b);
    pg__buf_clear(&r->pid_b);
    pg__buf_clear(&r->tid_b);
    pg__buf_clear(&r->shape_b);
}
