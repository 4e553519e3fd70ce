/*
 * json_text.h - JSON documents written as text while they are put together,
 * byte for byte what jansson's json_dumps() writes for the same values with
 * JSON_INDENT(2) | JSON_REAL_PRECISION(10): a report of ten thousand cases,
 * or a year of history, is written without a tree of JSON values (which
 * holds the document several times over and spends most of its time
 * formatting reals through snprintf).
 *
 * The writer collects text in a buffer; the command writes the buffer out
 * (pg_jt_flush) whenever it likes. An allocation failure is remembered and
 * stops the document: pg_jt_flush reports it rather than write broken JSON.
 */
#ifndef PG_CLI_JSON_TEXT_H
#define PG_CLI_JSON_TEXT_H

#include "base/util.h"

#include <stdint.h>
#include <stdio.h>

typedef struct pg_jt {
    pg_buf b;
    int err;
} pg_jt;

#define PG_JT_INIT {PG_BUF_INIT, 0}

void pg_jt_put(pg_jt *w, const char *s, size_t n);
void pg_jt_puts(pg_jt *w, const char *s);
/* Room for `n` more bytes at w->b.ptr + w->b.len, which the caller fills and counts; NULL after an error. */
char *pg_jt_room(pg_jt *w, size_t n);

/* Before a member at `depth` (objects and arrays inside it are one deeper): the comma, newline, indent, "name": . */
void pg_jt_next(pg_jt *w, int depth, int *first, const char *name);
/* Closes an object or array whose members were at depth + 1 (`closer` is "}" or "]", or more text). */
void pg_jt_close(pg_jt *w, int depth, int first, const char *closer);
/* A string value as jansson escapes it (UTF-8 passed through); NULL is null. */
void pg_jt_str(pg_jt *w, const char *s);
/* Whether jansson takes `s` as a string (json_string() refuses text that is not UTF-8). */
int pg_jt_utf8(const char *s);

/* Members: an integer; a real (left out when not finite, as json_real() refuses it); a string or null. */
void pg_jt_int(pg_jt *w, int depth, int *first, const char *name, int64_t v);
void pg_jt_real(pg_jt *w, int depth, int *first, const char *name, double v);
void pg_jt_null(pg_jt *w, int depth, int *first, const char *name);
/* A string member, left out when the text is not UTF-8 (as json_object_set_new() of a refused string). */
void pg_jt_string(pg_jt *w, int depth, int *first, const char *name, const char *s);

/* Digits of v at o; returns the end. */
char *pg_jt_int_text(char *o, int64_t v);

/* Writes out what is collected and empties the buffer; PG_EIO or PG_ENOMEM (set) on failure. */
int pg_jt_flush(pg_jt *w, FILE *out);
void pg_jt_clear(pg_jt *w);

#endif
