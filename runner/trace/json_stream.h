/*
 * json_stream.h - a pull tokenizer for one JSON text, read from a FILE in
 * fixed chunks or from memory. Private to runner/trace/.
 *
 * The trace reader walks the document itself and asks this layer for the
 * next byte, string, number or skipped value, so memory stays bounded by
 * the chunk and the longest kept string, never by the size of the input.
 * Every malformed input stops with one line "NAME: malformed trace at byte
 * N: WHAT", N counted from the start of the input.
 */
#ifndef PG_TRACE_JSON_STREAM_H
#define PG_TRACE_JSON_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/util.h"

#define PG_JSON_CHUNK (64 * 1024) /* bytes read from the file at a time */
#define PG_JSON_TEE_MAX 512       /* bytes a tee keeps (the "Input Dims" text of an event) */

/*
 * The input window. For a file, set `f` and `chunk` (PG_JSON_CHUNK bytes)
 * and start with an empty window at `chunk`; for memory, leave `f` NULL and
 * let the window cover the whole buffer. Zero the rest.
 */
typedef struct pg__json {
    FILE *f;
    const char *name;            /* names the input in messages */
    const char *p, *end;         /* current window */
    const char *win;             /* start of the window */
    uint64_t base;               /* byte offset of the window start */
    int eof;
    char *chunk;
    pg_buf *tee;                 /* when set, consumed bytes are copied here (bounded) */
    pg_buf key, tmp, skip;       /* scratch: object keys, number text, strings only validated */
} pg__json;

/** Byte offset of the next byte, from the start of the input. */
static inline uint64_t pg__json_offset(const pg__json *js)
{
    return js->base + (uint64_t)(js->p - js->win);
}

/** Sets the PG_EFORMAT message for byte `at` (or the next byte) and returns PG_EFORMAT. */
int pg__json_bad_at(const pg__json *js, uint64_t at, const char *what);
int pg__json_bad(const pg__json *js, const char *what);

int pg__json_peek_slow(pg__json *js);

/* The next byte without consuming it; -1 at the end of input, -2 on a read error. */
static inline int pg__json_peek(pg__json *js)
{
    return js->p < js->end ? (unsigned char)*js->p : pg__json_peek_slow(js);
}

/** Consumes the byte pg__json_peek() returned (there must be one). */
static inline void pg__json_advance(pg__json *js)
{
    if (js->tee && js->tee->len < PG_JSON_TEE_MAX)
        pg__buf_put(js->tee, js->p, 1);
    js->p++;
}

/** Skips whitespace. @return the next byte as pg__json_peek() does. */
int pg__json_skip_ws(pg__json *js);

/** Skips whitespace and consumes `ch`; else PG_EFORMAT with `what`. */
int pg__json_expect(pg__json *js, char ch, const char *what);

/**
 * Reads a JSON string (the opening quote is next) into `into`, decoded and
 * NUL-terminated; `into` NULL only validates. Strings over 1 MiB and
 * "\u0000" are errors.
 */
int pg__json_string(pg__json *js, pg_buf *into);

/** Reads a JSON number's text (validated against the grammar, at most 64 characters) into `into`. */
int pg__json_number(pg__json *js, pg_buf *into);

/** Reads an object key into `into` (NULL only validates), then the ':' after it. */
int pg__json_key(pg__json *js, pg_buf *into);

/**
 * After a member of an object or an element of an array: consumes ',' and
 * the whitespace after it, or the closing `close`.
 * @return 1 after ',', 0 after `close`; PG_EIO; PG_EFORMAT with `what` on anything else.
 */
int pg__json_next(pg__json *js, char close, const char *what);

/** Validates and skips one value, `depth` levels down (at most 128). */
int pg__json_skip(pg__json *js, int depth);

/** Frees the scratch buffers (not `f` nor `chunk`, which the caller owns). */
void pg__json_clear(pg__json *js);

#endif
