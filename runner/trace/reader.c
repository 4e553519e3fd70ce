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
 *
 * This file walks the document (a byte order mark, the two forms, nothing
 * after them) and owns the entry points; json_stream.c tokenizes and
 * decode.c turns each event object into the trace model.
 */
#include "trace/trace.h"

#include "perfgate/errors.h"
#include "trace/decode.h"
#include "trace/json_stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The array of events; `top` allows the unterminated form of a bare array. */
static int read_events(pg__trace_reader *r, int top)
{
    pg__json *js = &r->js;
    int c, err;

    pg__json_advance(js); /* '[' */
    c = pg__json_skip_ws(js);
    if (c == ']') {
        pg__json_advance(js);
        return 0;
    }
    for (;;) {
        if (c == -1 && top)
            return 0;
        if (c == ']' && top) {
            /* A trailing comma before ']' is common in hand-closed traces. */
            pg__json_advance(js);
            return 0;
        }
        if ((err = pg__trace_read_event(r)) != 0)
            return err;
        c = pg__json_skip_ws(js);
        if (c == ',') {
            pg__json_advance(js);
            c = pg__json_skip_ws(js);
            continue;
        }
        if (c == ']') {
            pg__json_advance(js);
            return 0;
        }
        if (c == -1 && top)
            return 0;
        if (c == -2)
            return PG_EIO;
        return pg__json_bad(js, c == -1 ? "unexpected end of input in traceEvents"
                                         : "expected ',' or ']' after an event");
    }
}

static int read_top(pg__trace_reader *r)
{
    pg__json *js = &r->js;
    int c, err, found = 0;

    c = pg__json_peek(js);
    if (c == 0xef) {
        /* A UTF-8 byte order mark, as some Windows tools write. */
        pg__json_advance(js);
        if (pg__json_peek(js) != 0xbb)
            return pg__json_bad(js, "expected '[' or '{' at the start of a Chrome trace");
        pg__json_advance(js);
        if (pg__json_peek(js) != 0xbf)
            return pg__json_bad(js, "expected '[' or '{' at the start of a Chrome trace");
        pg__json_advance(js);
    }
    c = pg__json_skip_ws(js);
    if (c == -2)
        return PG_EIO;
    if (c == -1)
        return pg__json_bad(js, "empty file: not a Chrome trace");
    if (c == '[') {
        if ((err = read_events(r, 1)) != 0)
            return err;
    } else if (c == '{') {
        pg__json_advance(js);
        if ((c = pg__json_skip_ws(js)) == '}') {
            pg__json_advance(js);
        } else {
            do {
                if ((err = pg__json_key(js, &js->key)) != 0)
                    return err;
                c = pg__json_skip_ws(js);
                if (strcmp(js->key.ptr, "traceEvents") == 0) {
                    if (c != '[')
                        return c == -2 ? PG_EIO : pg__json_bad(js, "traceEvents must be an array");
                    if (found)
                        return pg__json_bad(js, "traceEvents appears twice");
                    if ((err = read_events(r, 0)) != 0)
                        return err;
                    found = 1;
                } else if ((err = pg__json_skip(js, 1)) != 0) {
                    return err;
                }
            } while ((err = pg__json_next(js, '}', "expected ',' or '}' in the trace object")) > 0);
            if (err)
                return err;
        }
        if (!found)
            return pg__json_bad(js, "the trace object has no 'traceEvents' array");
    } else {
        return pg__json_bad(js, "expected '[' or '{' at the start of a Chrome trace");
    }
    c = pg__json_skip_ws(js);
    if (c == -2)
        return PG_EIO;
    if (c != -1)
        return pg__json_bad(js, "unexpected data after the trace");
    return 0;
}

static int read_all(pg_trace **out, pg__trace_reader *r)
{
    pg_trace_read_options dflt = PG_TRACE_READ_OPTIONS_INIT;
    int err;

    *out = NULL;
    if (!r->opts)
        r->opts = &dflt;
    if ((err = pg_trace_new(&r->t)) != 0)
        goto cleanup;
    if ((err = read_top(r)) != 0)
        goto cleanup;
    pg__trace_close_open(r);
    r->t->bytes_read = (size_t)pg__json_offset(&r->js);
    r->t->origin = r->min_ts;
    if ((err = pg_trace_nest(r->t)) != 0)
        goto cleanup;
    *out = r->t;
    r->t = NULL;

cleanup:
    pg_trace_free(r->t);
    pg__trace_reader_clear(r);
    return err;
}

int pg_trace_read_buffer(pg_trace **out, const char *name, const char *data, size_t len,
                         const pg_trace_read_options *opts)
{
    pg__trace_reader r;

    memset(&r, 0, sizeof(r));
    r.js.name = name ? name : "trace";
    r.js.win = r.js.p = data;
    r.js.end = data + len;
    r.opts = opts;
    return read_all(out, &r);
}

int pg_trace_read_file(pg_trace **out, const char *path, const pg_trace_read_options *opts)
{
    pg__trace_reader r;
    int err;

    *out = NULL;
    memset(&r, 0, sizeof(r));
    r.js.name = path;
    r.opts = opts;
    /* No size cap: the reader streams, its memory is bounded by the tokenizer's window. */
    if ((err = pg__open_input(&r.js.f, NULL, path, "trace", 0)) != 0)
        return err;
    if (!(r.js.chunk = malloc(PG_JSON_CHUNK))) {
        fclose(r.js.f);
        return pg_error_set(PG_ENOMEM, "out of memory reading %s", path);
    }
    r.js.win = r.js.p = r.js.end = r.js.chunk;
    err = read_all(out, &r);
    free(r.js.chunk);
    fclose(r.js.f);
    return err;
}
