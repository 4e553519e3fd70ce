/*
 * node.h - a YAML document as a tree of positioned nodes.
 *
 * The suite loader and the exact checks read suites through this tree, so
 * every value keeps the file, line and column it came from. Anchors and
 * aliases resolve to shared subtrees; merge keys (`<<: *x`) are applied.
 * The tree has no cycles (a recursive alias is a load error), so walking it
 * always ends.
 */
#ifndef PG_NODE_H
#define PG_NODE_H

#include <stddef.h>
#include <stdint.h>

typedef enum pg_node_type {
    PG_NODE_NULL = 0,
    PG_NODE_SCALAR,
    PG_NODE_SEQ,
    PG_NODE_MAP
} pg_node_type;

typedef struct pg_node pg_node;

struct pg_node {
    pg_node_type type;
    const char *file;   /* owned by the document */
    int line;           /* 1-based */
    int col;            /* 1-based */
    char *scalar;       /* PG_NODE_SCALAR: the text */
    int quoted;         /* scalar was quoted: never a number or a bool */
    size_t count;       /* SEQ: items; MAP: pairs */
    pg_node **items;    /* SEQ items, or MAP values */
    pg_node **keys;     /* MAP keys (scalars) */
};

typedef struct pg_doc pg_doc;

/* The largest suite file read: real suites are kilobytes; this bounds memory. */
#define PG_DOC_MAX_BYTES ((uint64_t)4 << 20)

/**
 * Parses a YAML file (or an in-memory buffer when `data` is non-NULL; `file`
 * then only names it in messages). The first document is used.
 * @param[out] out the document; free with pg_doc_free().
 * @return 0, or PG_ESUITE with "FILE:LINE:COL: message" set.
 */
int pg_doc_load(pg_doc **out, const char *file, const char *data, size_t len);
void pg_doc_free(pg_doc *doc);
pg_node *pg_doc_root(pg_doc *doc);
const char *pg_doc_file(pg_doc *doc);

/**
 * Every node of the document, each once (shared alias targets included
 * once), in creation order: for whole-file checks such as duplicate keys.
 * @param[out] count the number of nodes. The array belongs to the document.
 */
pg_node *const *pg_doc_nodes(pg_doc *doc, size_t *count);

/** Map lookup; NULL when absent or when `map` is not a map. */
pg_node *pg_node_get(const pg_node *map, const char *key);

/** True when the node is a scalar equal to `s`. */
int pg_node_is(const pg_node *n, const char *s);

/** A short name of the node's type for messages ("a list", "a mapping"...). */
const char *pg_node_kind(const pg_node *n);

#endif
