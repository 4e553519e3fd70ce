/*
 * stream.h - reading an importer's JSON one array element at a time.
 * Private to runner/import/.
 *
 * The harnesses write one top-level object whose one array ("results",
 * "benchmarks") holds every case. The walker reads the file in a single pass,
 * skips the other members after checking their brackets, and hands each
 * element of that array, parsed on its own, to the format's callback, so
 * memory is bounded by the largest element (PG_IMPORT_ELEMENT_MAX), never
 * by the size of the file. Bare NaN/Infinity (Google Benchmark, Python's
 * json) are quoted first so the element parses.
 */
#ifndef PG_IMPORT_STREAM_H
#define PG_IMPORT_STREAM_H

#include <stddef.h>
#include <stdio.h>

struct json_t;

#define PG_IMPORT_ELEMENT_MAX ((size_t)16 << 20) /* bytes of one array element */

/**
 * Called per element: `where` is "NAME:LINE:COL" of the element's start.
 * A non-zero return stops the walk and is returned.
 */
typedef int (*pg__import_element_fn)(void *ctx, const struct json_t *element, size_t index, const char *where);

/**
 * Walks the JSON text in `f` (named `name` in messages), calling `fn` for each
 * element of the top-level member `array_key`.
 * @param format the harness, for messages ("as hyperfine writes").
 * @param missing the message (after "NAME: ") when the file has no such array.
 * @return 0; PG_EIO; PG_EFORMAT "NAME:LINE:COL: ..." for malformed JSON, an
 *         element over PG_IMPORT_ELEMENT_MAX or nesting deeper than 128; what `fn` returned.
 */
int pg__import_walk(FILE *f, const char *name, const char *format, const char *array_key, const char *missing,
                    pg__import_element_fn fn, void *ctx);

#endif
