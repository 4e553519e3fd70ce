/*
 * node.c - a YAML document as a tree of positioned nodes (libyaml).
 *
 * Conversion rejects what would make the tree unsafe to walk or silently
 * wrong: an alias that contains itself (a cycle), a merge key whose value is
 * not a mapping, nesting past a fixed depth and a second document.
 */
#include "node.h"

#include "perfgate/errors.h"
#include "util.h"

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

/* State of one conversion: memoised nodes, nodes being built, first error. */
typedef struct conv {
    pg_doc *d;
    yaml_document_t *doc;
    pg_node **memo;     /* by libyaml node index - 1 */
    char *busy;         /* node is still being built: an alias to it is a cycle */
    char msg[320];      /* first error, "LINE:COL: message" */
} conv;

static pg_node *conv_fail(conv *cv, const yaml_mark_t *m, const char *what)
{
    if (!cv->msg[0])
        snprintf(cv->msg, sizeof(cv->msg), "%zu:%zu: %s", m->line + 1, m->column + 1, what);
    return NULL;
}

static int is_merge_key(const pg_node *k)
{
    return k->type == PG_NODE_SCALAR && !k->quoted && strcmp(k->scalar, "<<") == 0;
}

/*
 * Converts a libyaml document node. Aliases in libyaml's document API point
 * at the same node index, so `memo` maps indices to converted nodes and an
 * alias shares the subtree (no expansion, so alias bombs stay small). An
 * alias to a collection still being built would make a cycle: rejected.
 */
static pg_node *convert(conv *cv, int index, int depth)
{
    yaml_node_t *y = yaml_document_get_node(cv->doc, index);
    pg_node *n = NULL;
    pg_doc *d = cv->d;

    if (!y)
        return conv_fail(cv, &cv->doc->start_mark, "malformed document");
    if (depth > 64)
        return conv_fail(cv, &y->start_mark, "nested more than 64 levels deep");
    if (cv->memo[index - 1]) {
        if (cv->busy[index - 1])
            return conv_fail(cv, &y->start_mark, "recursive alias: this node contains an alias to itself");
        return cv->memo[index - 1];
    }
    switch (y->type) {
    case YAML_SCALAR_NODE:
        n = new_node(d, PG_NODE_SCALAR, &y->start_mark);
        if (!n)
            return conv_fail(cv, &y->start_mark, "out of memory");
        n->scalar = malloc(y->data.scalar.length + 1);
        if (!n->scalar)
            return conv_fail(cv, &y->start_mark, "out of memory");
        memcpy(n->scalar, y->data.scalar.value, y->data.scalar.length);
        n->scalar[y->data.scalar.length] = '\0';
        n->quoted = y->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                    y->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
        if (!n->quoted && (strcmp(n->scalar, "~") == 0 || strcmp(n->scalar, "null") == 0 ||
                           strcmp(n->scalar, "Null") == 0 || strcmp(n->scalar, "NULL") == 0 ||
                           (y->data.scalar.length == 0 && y->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)))
            n->type = PG_NODE_NULL;
        cv->memo[index - 1] = n;
        return n;
    case YAML_SEQUENCE_NODE: {
        yaml_node_item_t *it;
        n = new_node(d, PG_NODE_SEQ, &y->start_mark);
        if (!n)
            return conv_fail(cv, &y->start_mark, "out of memory");
        cv->memo[index - 1] = n;
        cv->busy[index - 1] = 1;
        for (it = y->data.sequence.items.start; it < y->data.sequence.items.top; it++) {
            pg_node *c = convert(cv, *it, depth + 1);
            pg_node **p;
            if (!c)
                return NULL;
            p = realloc(n->items, (n->count + 1) * sizeof(*p));
            if (!p)
                return conv_fail(cv, &y->start_mark, "out of memory");
            n->items = p;
            p[n->count++] = c;
        }
        cv->busy[index - 1] = 0;
        return n;
    }
    case YAML_MAPPING_NODE: {
        yaml_node_pair_t *pr;
        n = new_node(d, PG_NODE_MAP, &y->start_mark);
        if (!n)
            return conv_fail(cv, &y->start_mark, "out of memory");
        cv->memo[index - 1] = n;
        cv->busy[index - 1] = 1;
        /*
         * Two passes: explicit pairs first (duplicates kept, so the schema
         * can report them), then merge keys add only what is not set; of
         * several merged mappings the first one listed wins, as in YAML 1.1.
         */
        for (pr = y->data.mapping.pairs.start; pr < y->data.mapping.pairs.top; pr++) {
            pg_node *k = convert(cv, pr->key, depth + 1);
            pg_node *v = k ? convert(cv, pr->value, depth + 1) : NULL;
            if (!k || !v)
                return NULL;
            if (is_merge_key(k))
                continue;
            if (append_pair(n, k, v) != 0)
                return conv_fail(cv, &y->start_mark, "out of memory");
        }
        for (pr = y->data.mapping.pairs.start; pr < y->data.mapping.pairs.top; pr++) {
            pg_node *k = convert(cv, pr->key, depth + 1);
            pg_node *v = k ? convert(cv, pr->value, depth + 1) : NULL;
            size_t nsrc, s, j;
            if (!k || !v)
                return NULL;
            if (!is_merge_key(k))
                continue;
            nsrc = v->type == PG_NODE_SEQ ? v->count : 1;
            for (s = 0; s < nsrc; s++) {
                pg_node *src = v->type == PG_NODE_SEQ ? v->items[s] : v;
                if (src->type != PG_NODE_MAP) {
                    yaml_mark_t m = {0, (size_t)src->line - 1, (size_t)src->col - 1};
                    return conv_fail(cv, &m, "a merge key '<<' takes a mapping or a list of mappings "
                                             "(e.g. <<: *common)");
                }
                for (j = 0; j < src->count; j++)
                    if (src->keys[j]->scalar && !pg_node_get(n, src->keys[j]->scalar) &&
                        append_pair(n, src->keys[j], src->items[j]) != 0)
                        return conv_fail(cv, &y->start_mark, "out of memory");
            }
        }
        cv->busy[index - 1] = 0;
        return n;
    }
    default:
        n = new_node(d, PG_NODE_NULL, &y->start_mark);
        if (!n)
            return conv_fail(cv, &y->start_mark, "out of memory");
        cv->memo[index - 1] = n;
        return n;
    }
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
    yaml_document_t doc, next;
    pg_doc *d = NULL;
    char *buf = NULL;
    size_t buflen = 0;
    conv cv = {0};
    int err = PG_ESUITE, have_parser = 0, have_doc = 0;
    yaml_node_t *root;
    size_t nnodes;

    *out = NULL;
    d = calloc(1, sizeof(*d));
    if (!d || !(d->file = pg__strdup(file))) {
        err = pg_error_set(PG_ENOMEM, "out of memory loading %s", file);
        goto cleanup;
    }
    if (!data) {
        if ((err = pg__read_file(&buf, &buflen, file)) != 0) {
            if (err == PG_ENOTFOUND)
                err = pg_error_set(PG_ESUITE, "%s: no such file", file);
            else
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
    if (!yaml_parser_load(&parser, &doc)) {
        err = syntax_error(&parser, file);
        goto cleanup;
    }
    have_doc = 1;
    root = yaml_document_get_root_node(&doc);
    if (!root) {
        err = pg_error_set(PG_ESUITE, "%s:1:1: the file is empty", file);
        goto cleanup;
    }
    /* A second document would be silently ignored: say so instead. */
    if (!yaml_parser_load(&parser, &next)) {
        err = syntax_error(&parser, file);
        goto cleanup;
    }
    if (yaml_document_get_root_node(&next)) {
        err = pg_error_set(PG_ESUITE, "%s:%zu:%zu: a suite file holds one YAML document; a second one starts here",
                           file, next.start_mark.line + 1, next.start_mark.column + 1);
        yaml_document_delete(&next);
        goto cleanup;
    }
    yaml_document_delete(&next);
    nnodes = (size_t)(doc.nodes.top - doc.nodes.start);
    cv.d = d;
    cv.doc = &doc;
    cv.memo = calloc(nnodes ? nnodes : 1, sizeof(*cv.memo));
    cv.busy = calloc(nnodes ? nnodes : 1, 1);
    if (!cv.memo || !cv.busy) {
        err = pg_error_set(PG_ENOMEM, "out of memory loading %s", file);
        goto cleanup;
    }
    d->root = convert(&cv, 1, 0);
    if (!d->root) {
        err = pg_error_set(PG_ESUITE, "%s:%s", file, cv.msg[0] ? cv.msg : "1:1: malformed document");
        goto cleanup;
    }
    *out = d;
    d = NULL;
    err = 0;

cleanup:
    free(cv.memo);
    free(cv.busy);
    if (have_doc)
        yaml_document_delete(&doc);
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
