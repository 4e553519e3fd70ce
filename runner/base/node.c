/*
 * node.c - a YAML document as a tree of positioned nodes (libyaml).
 *
 * The tree is built from the parser's events, so limits apply while the
 * file is read: nesting past a fixed depth stops the parse at that depth.
 * Conversion rejects what would make the tree unsafe to walk or silently
 * wrong: an alias that contains itself (a cycle), an alias to no anchor, a
 * merge key whose value is not a mapping, and a second document.
 */
#include "base/node.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct pg_doc {
    char *file;
    pg_node *root;
    pg_node **all;      /* every node allocated, for freeing */
    size_t nall, capall;
};

static pg_node *new_node(pg_doc *d, pg_node_type type, const yaml_mark_t *mark)
{
    pg_node *n;

    if (d->nall == d->capall) {
        size_t cap = d->capall ? d->capall * 2 : 64;
        pg_node **p = realloc(d->all, cap * sizeof(*p));
        if (!p)
            return NULL;
        d->all = p;
        d->capall = cap;
    }
    n = calloc(1, sizeof(*n));
    if (!n)
        return NULL;
    n->type = type;
    n->file = d->file;
    n->line = (int)mark->line + 1;
    n->col = (int)mark->column + 1;
    d->all[d->nall++] = n;
    return n;
}

static int append_pair(pg_node *map, pg_node *k, pg_node *v)
{
    pg_node **ks = realloc(map->keys, (map->count + 1) * sizeof(*ks));
    pg_node **vs;

    if (!ks)
        return -1;
    map->keys = ks;
    vs = realloc(map->items, (map->count + 1) * sizeof(*vs));
    if (!vs)
        return -1;
    map->items = vs;
    ks[map->count] = k;
    vs[map->count] = v;
    map->count++;
    return 0;
}

#define MAX_DEPTH 64

/* One collection being built, with the anchor that names it (if any). */
typedef struct frame {
    pg_node *n;
    pg_node *key;       /* MAP: a key read, its value still to come */
    long anchor;        /* index into conv.anchors, or -1 */
} frame;

typedef struct anchor {
    char *name;
    pg_node *n;
    int busy;           /* the collection is still open: an alias to it is a cycle */
    long next;          /* hash chain */
} anchor;

/*
 * State of one conversion from libyaml events: the open collections, the
 * anchors by name (a small chained hash, so many aliases stay linear) and
 * the first error.
 */
typedef struct conv {
    pg_doc *d;
    frame *stack;
    size_t depth, capdepth;
    anchor *anchors;
    size_t nanchors, capanchors;
    long heads[256];
    char msg[320];      /* first error, "LINE:COL: message" */
} conv;

static int conv_fail_at(conv *cv, int line, int col, const char *what)
{
    if (!cv->msg[0])
        snprintf(cv->msg, sizeof(cv->msg), "%d:%d: %s", line, col, what);
    return -1;
}

static int conv_fail(conv *cv, const yaml_mark_t *m, const char *what)
{
    return conv_fail_at(cv, (int)m->line + 1, (int)m->column + 1, what);
}

static unsigned anchor_hash(const char *s)
{
    unsigned h = 2166136261u;

    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h & 255u;
}

/* The latest anchor of that name: YAML lets a later anchor shadow an earlier one. */
static anchor *anchor_find(conv *cv, const char *name)
{
    long i;

    for (i = cv->heads[anchor_hash(name)]; i >= 0; i = cv->anchors[i].next)
        if (strcmp(cv->anchors[i].name, name) == 0)
            return &cv->anchors[i];
    return NULL;
}

static long anchor_add(conv *cv, const char *name, pg_node *n, int busy)
{
    unsigned h = anchor_hash(name);
    anchor *a;

    if (cv->nanchors == cv->capanchors) {
        size_t cap = cv->capanchors ? cv->capanchors * 2 : 16;
        anchor *p = realloc(cv->anchors, cap * sizeof(*p));
        if (!p)
            return -1;
        cv->anchors = p;
        cv->capanchors = cap;
    }
    a = &cv->anchors[cv->nanchors];
    if (!(a->name = pg__strdup(name)))
        return -1;
    a->n = n;
    a->busy = busy;
    a->next = cv->heads[h];
    cv->heads[h] = (long)cv->nanchors;
    return (long)cv->nanchors++;
}

static int is_merge_key(const pg_node *k)
{
    return k->type == PG_NODE_SCALAR && !k->quoted && strcmp(k->scalar, "<<") == 0;
}

/* Hangs a finished node on the open collection, or makes it the root. */
static int attach(conv *cv, pg_node *n, const yaml_mark_t *m)
{
    frame *f;

    if (cv->depth == 0) {
        cv->d->root = n;
        return 0;
    }
    f = &cv->stack[cv->depth - 1];
    if (f->n->type == PG_NODE_SEQ) {
        pg_node **p = realloc(f->n->items, (f->n->count + 1) * sizeof(*p));
        if (!p)
            return conv_fail(cv, m, "out of memory");
        f->n->items = p;
        p[f->n->count++] = n;
        return 0;
    }
    if (!f->key) {
        f->key = n;
        return 0;
    }
    if (append_pair(f->n, f->key, n) != 0)
        return conv_fail(cv, m, "out of memory");
    f->key = NULL;
    return 0;
}

/*
 * A mapping is complete: explicit pairs stay (duplicates kept, so the
 * schema can report them), then merge keys add only what is not set; of
 * several merged mappings the first one listed wins, as in YAML 1.1.
 */
static int apply_merges(conv *cv, pg_node *map)
{
    size_t i, kept = 0, nmerge = 0, s, j;
    pg_node **merges;

    for (i = 0; i < map->count; i++)
        nmerge += is_merge_key(map->keys[i]);
    if (!nmerge)
        return 0;
    if (!(merges = malloc(nmerge * sizeof(*merges))))
        return conv_fail_at(cv, map->line, map->col, "out of memory");
    nmerge = 0;
    for (i = 0; i < map->count; i++) {
        if (is_merge_key(map->keys[i])) {
            merges[nmerge++] = map->items[i];
            continue;
        }
        map->keys[kept] = map->keys[i];
        map->items[kept++] = map->items[i];
    }
    map->count = kept;
    for (i = 0; i < nmerge; i++) {
        pg_node *v = merges[i];
        size_t nsrc = v->type == PG_NODE_SEQ ? v->count : 1;
        for (s = 0; s < nsrc; s++) {
            pg_node *src = v->type == PG_NODE_SEQ ? v->items[s] : v;
            if (src->type != PG_NODE_MAP) {
                free(merges);
                return conv_fail_at(cv, src->line, src->col,
                                    "a merge key '<<' takes a mapping or a list of mappings (e.g. <<: *common)");
            }
            for (j = 0; j < src->count; j++)
                if (src->keys[j]->scalar && !pg_node_get(map, src->keys[j]->scalar) &&
                    append_pair(map, src->keys[j], src->items[j]) != 0) {
                    free(merges);
                    return conv_fail_at(cv, map->line, map->col, "out of memory");
                }
        }
    }
    free(merges);
    return 0;
}

static int push_frame(conv *cv, pg_node *n, long anchor_at)
{
    if (cv->depth == cv->capdepth) {
        size_t cap = cv->capdepth ? cv->capdepth * 2 : 16;
        frame *p = realloc(cv->stack, cap * sizeof(*p));
        if (!p)
            return conv_fail_at(cv, n->line, n->col, "out of memory");
        cv->stack = p;
        cv->capdepth = cap;
    }
    cv->stack[cv->depth].n = n;
    cv->stack[cv->depth].key = NULL;
    cv->stack[cv->depth].anchor = anchor_at;
    cv->depth++;
    return 0;
}

/*
 * Handles one node event. Aliases share the anchored subtree (no
 * expansion, so alias bombs stay small); an alias to a collection still
 * open would make a cycle and is refused. Nesting is checked here, as the
 * parser goes, so a deeply nested file is refused after MAX_DEPTH levels,
 * never after reading it all.
 */
static int on_node(conv *cv, const yaml_event_t *e)
{
    const yaml_mark_t *m = &e->start_mark;
    const char *anchor_name = NULL;
    pg_node *n;
    long a = -1;

    if (cv->depth > MAX_DEPTH)
        return conv_fail(cv, m, "nested more than 64 levels deep");
    switch (e->type) {
    case YAML_ALIAS_EVENT: {
        anchor *t = anchor_find(cv, (const char *)e->data.alias.anchor);
        if (!t) {
            char what[160];
            snprintf(what, sizeof(what), "alias '*%.100s' names no anchor defined before it",
                     (const char *)e->data.alias.anchor);
            return conv_fail(cv, m, what);
        }
        if (t->busy)
            return conv_fail_at(cv, t->n->line, t->n->col, "recursive alias: this node contains an alias to itself");
        return attach(cv, t->n, m);
    }
    case YAML_SCALAR_EVENT:
        /* "x\0y" would be the name "x" once kept as a C string: refused rather than cut short. */
        if (memchr(e->data.scalar.value, '\0', e->data.scalar.length))
            return conv_fail(cv, m, "a value holds a NUL character (\\0); names and values are text without one");
        n = new_node(cv->d, PG_NODE_SCALAR, m);
        if (!n || !(n->scalar = malloc(e->data.scalar.length + 1)))
            return conv_fail(cv, m, "out of memory");
        memcpy(n->scalar, e->data.scalar.value, e->data.scalar.length);
        n->scalar[e->data.scalar.length] = '\0';
        n->quoted = e->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                    e->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
        if (!n->quoted && (strcmp(n->scalar, "~") == 0 || strcmp(n->scalar, "null") == 0 ||
                           strcmp(n->scalar, "Null") == 0 || strcmp(n->scalar, "NULL") == 0 ||
                           (e->data.scalar.length == 0 && e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)))
            n->type = PG_NODE_NULL;
        if (e->data.scalar.anchor && anchor_add(cv, (const char *)e->data.scalar.anchor, n, 0) < 0)
            return conv_fail(cv, m, "out of memory");
        return attach(cv, n, m);
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
        n = new_node(cv->d, e->type == YAML_SEQUENCE_START_EVENT ? PG_NODE_SEQ : PG_NODE_MAP, m);
        if (!n)
            return conv_fail(cv, m, "out of memory");
        anchor_name = (const char *)(e->type == YAML_SEQUENCE_START_EVENT ? e->data.sequence_start.anchor
                                                                          : e->data.mapping_start.anchor);
        if (anchor_name && (a = anchor_add(cv, anchor_name, n, 1)) < 0)
            return conv_fail(cv, m, "out of memory");
        return push_frame(cv, n, a);
    default:
        return 0;
    }
}

/* A collection ends: merges applied, its anchor usable, itself attached. */
static int on_end(conv *cv, const yaml_event_t *e)
{
    frame f;

    if (cv->depth == 0)
        return conv_fail(cv, &e->start_mark, "malformed document");
    f = cv->stack[--cv->depth];
    if (f.n->type == PG_NODE_MAP && apply_merges(cv, f.n) != 0)
        return -1;
    if (f.anchor >= 0)
        cv->anchors[f.anchor].busy = 0;
    return attach(cv, f.n, &e->start_mark);
}

static void conv_free(conv *cv)
{
    size_t i;

    for (i = 0; i < cv->nanchors; i++)
        free(cv->anchors[i].name);
    free(cv->anchors);
    free(cv->stack);
}

static const char *problem_or(const char *p, const char *dflt)
{
    return p && *p ? p : dflt;
}

static int syntax_error(yaml_parser_t *parser, const char *file)
{
    const yaml_mark_t *m = parser->problem ? &parser->problem_mark : &parser->context_mark;

    return pg_error_set(PG_ESUITE, "%s:%zu:%zu: YAML syntax error: %s%s%s", file, m->line + 1,
                        m->column + 1, problem_or(parser->problem, "malformed document"),
                        parser->context ? " " : "", parser->context ? parser->context : "");
}

int pg_doc_load(pg_doc **out, const char *file, const char *data, size_t len)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    pg_doc *d = NULL;
    char *buf = NULL;
    size_t buflen = 0, i;
    conv cv;
    int err = PG_ESUITE, have_parser = 0, docs = 0, done = 0, rc;

    *out = NULL;
    memset(&cv, 0, sizeof(cv));
    for (i = 0; i < sizeof(cv.heads) / sizeof(cv.heads[0]); i++)
        cv.heads[i] = -1;
    d = calloc(1, sizeof(*d));
    if (!d || !(d->file = pg__strdup(file))) {
        err = pg_error_set(PG_ENOMEM, "out of memory loading %s", file);
        goto cleanup;
    }
    cv.d = d;
    if (!data) {
        if ((err = pg__read_input(&buf, &buflen, file, "suite", PG_DOC_MAX_BYTES)) != 0) {
            if (err != PG_ENOMEM)
                err = PG_ESUITE;
            goto cleanup;
        }
        data = buf;
        len = buflen;
    }
    if (!yaml_parser_initialize(&parser)) {
        err = pg_error_set(PG_ENOMEM, "out of memory starting the YAML parser");
        goto cleanup;
    }
    have_parser = 1;
    yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
    while (!done) {
        if (!yaml_parser_parse(&parser, &ev)) {
            err = syntax_error(&parser, file);
            goto cleanup;
        }
        rc = 0;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_DOCUMENT_START_EVENT:
            /* A second document would be silently ignored: say so instead. */
            if (docs++)
                rc = conv_fail(&cv, &ev.start_mark, "a suite file holds one YAML document; a second one starts here");
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            rc = on_end(&cv, &ev);
            break;
        default:
            rc = on_node(&cv, &ev);
            break;
        }
        yaml_event_delete(&ev);
        if (rc) {
            err = pg_error_set(PG_ESUITE, "%s:%s", file, cv.msg[0] ? cv.msg : "1:1: malformed document");
            goto cleanup;
        }
    }
    if (!docs) {
        err = pg_error_set(PG_ESUITE, "%s:1:1: the file is empty", file);
        goto cleanup;
    }
    if (!d->root) {
        err = pg_error_set(PG_ESUITE, "%s:1:1: malformed document", file);
        goto cleanup;
    }
    *out = d;
    d = NULL;
    err = 0;

cleanup:
    conv_free(&cv);
    if (have_parser)
        yaml_parser_delete(&parser);
    free(buf);
    pg_doc_free(d);
    return err;
}

void pg_doc_free(pg_doc *d)
{
    size_t i;

    if (!d)
        return;
    for (i = 0; i < d->nall; i++) {
        free(d->all[i]->scalar);
        free(d->all[i]->items);
        free(d->all[i]->keys);
        free(d->all[i]);
    }
    free(d->all);
    free(d->file);
    free(d);
}

pg_node *pg_doc_root(pg_doc *d)
{
    return d->root;
}

const char *pg_doc_file(pg_doc *d)
{
    return d->file;
}

pg_node *const *pg_doc_nodes(pg_doc *d, size_t *count)
{
    *count = d->nall;
    return d->all;
}

pg_node *pg_node_get(const pg_node *map, const char *key)
{
    size_t i;

    if (!map || map->type != PG_NODE_MAP)
        return NULL;
    for (i = 0; i < map->count; i++)
        if (map->keys[i]->scalar && strcmp(map->keys[i]->scalar, key) == 0)
            return map->items[i];
    return NULL;
}

int pg_node_is(const pg_node *n, const char *s)
{
    return n && n->type == PG_NODE_SCALAR && strcmp(n->scalar, s) == 0;
}

const char *pg_node_kind(const pg_node *n)
{
    if (!n)
        return "nothing";
    switch (n->type) {
    case PG_NODE_SCALAR:
        return "a scalar";
    case PG_NODE_SEQ:
        return "a list";
    case PG_NODE_MAP:
        return "a mapping";
    default:
        return "null";
    }
}
