/*
 * json_walk.h - reading a large JSON document one member, or one array
 * element, at a time: the bounded reader of the JSON files perfgate takes
 * from outside (other harnesses' results, saved reports).
 *
 * The document is one top-level object. The walker reads it in a single
 * pass; the members named in `arrays` are arrays whose elements are handed,
 * each parsed on its own, to `element`; every other member is handed whole,
 * parsed on its own, to `member` (or skipped, its brackets checked, when
 * `member` is NULL). So memory is bounded by the largest element or member
 * (PG_JSON_ELEMENT_MAX), never by the size of the file, and time is linear
 * in it. With `nonfinite`, bare NaN/Infinity (Google Benchmark, Python's
 * json) are quoted first so the element parses.
 */
#ifndef PG_JSON_WALK_H
#define PG_JSON_WALK_H

#include <stddef.h>
#include <stdio.h>

struct json_t;

#define PG_JSON_ELEMENT_MAX ((size_t)16 << 20) /* bytes of one array element or member */

/**
 * Called per element of a streamed array: `key` names the array, `where` is
 * "NAME:LINE:COL" of the element's start. A non-zero return stops the walk
 * and is returned.
 */
typedef int (*pg__json_element_fn)(void *ctx, const char *key, const struct json_t *element, size_t index,
                                   const char *where);

/** Called per other member of the top-level object, as pg__json_element_fn. */
typedef int (*pg__json_member_fn)(void *ctx, const char *key, const struct json_t *value, const char *where);

typedef struct pg__json_walk_spec {
    const char *name;                /* names the input in messages */
    const char *format;              /* who writes it, for messages ("hyperfine", "perfgate") */
    const char *const *arrays;       /* members streamed element by element; NULL-terminated */
    pg__json_element_fn element;
    pg__json_member_fn member;       /* NULL: other members are only checked */
    int nonfinite;                   /* quote bare NaN/Infinity before parsing an element */
    void *ctx;
} pg__json_walk_spec;

/**
 * Walks the JSON text in `f`.
 * @param[out] found how many members named in spec->arrays were arrays (may be NULL).
 * @return 0; PG_EIO; PG_EFORMAT "NAME:LINE:COL: ..." for malformed JSON, an
 *         element or member over PG_JSON_ELEMENT_MAX or nesting deeper than
 *         128; what a callback returned.
 */
int pg__json_walk(size_t *found, FILE *f, const pg__json_walk_spec *spec);

#endif
