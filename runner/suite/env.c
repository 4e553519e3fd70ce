/*
 * env.c - `env:` on benchmarks and under `defaults`: variables the
 * processes of a command or plugin benchmark get (the program, the plugin's
 * child, and every counted process), and part of the case's key.
 */
#include "suite/internal.h"

#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* Variables perfgate sets itself, and why a suite may not. */
static const struct {
    const char *name;
    const char *why;
} reserved[] = {
    {"OMP_NUM_THREADS", "is set from the case's thread count; use 'threads:'"},
    {"OPENBLAS_NUM_THREADS", "is set from the case's thread count; use 'threads:'"},
    {"MKL_NUM_THREADS", "is set from the case's thread count; use 'threads:'"},
    {"OPENBLAS_CORETYPE", "is part of the machine id; set it for the whole run, outside the suite"},
    {"LD_PRELOAD", "is how perfgate's counters load themselves into a counted process"},
};

static int is_name(const char *s)
{
    size_t i;

    if (!s || !*s || (*s >= '0' && *s <= '9'))
        return 0;
    for (i = 0; s[i]; i++)
        if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= '0' && s[i] <= '9')))
            return 0;
    return 1;
}

int pg__check_env(pg_diags *d, const pg_node *n)
{
    size_t i, j;
    int bad = 0;

    if (n->type != PG_NODE_MAP) {
        pg__diag_add(d, n, "env must be a mapping of variable names to values, such as {OMP_PROC_BIND: close}, "
                           "not %s", pg_node_kind(n));
        return -1;
    }
    for (i = 0; i < n->count; i++) {
        const pg_node *k = n->keys[i];
        const char *name = k->scalar;
        if (!is_name(name)) {
            pg__diag_add(d, k, "env: '%s' is not a variable name (letters, digits and _, not starting with a digit)",
                         name ? name : "");
            bad = 1;
            continue;
        }
        if (strncmp(name, "PERFGATE_", 9) == 0) {
            pg__diag_add(d, k, "env: %s: PERFGATE_ variables are perfgate's own, read by perfgate itself and the "
                               "processes it starts to count", name);
            bad = 1;
            continue;
        }
        for (j = 0; j < sizeof(reserved) / sizeof(reserved[0]); j++)
            if (strcmp(name, reserved[j].name) == 0) {
                pg__diag_add(d, k, "env: %s %s", name, reserved[j].why);
                bad = 1;
            }
        if (n->items[i]->type == PG_NODE_NULL) {
            pg__diag_add(d, n->items[i], "env: %s has no value; an empty one is written \"\"", name);
            bad = 1;
        } else if (n->items[i]->type != PG_NODE_SCALAR) {
            pg__diag_add(d, n->items[i], "env: %s must be one value (text or a number), not %s", name,
                         pg_node_kind(n->items[i]));
            bad = 1;
        }
    }
    return bad ? -1 : 0;
}

/* Whether `map` (may be NULL) sets `name`. */
static int sets(const pg_node *map, const char *name)
{
    size_t i;

    for (i = 0; map && i < map->count; i++)
        if (map->keys[i]->scalar && strcmp(map->keys[i]->scalar, name) == 0)
            return 1;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    size_t nx = strcspn(x, "="), ny = strcspn(y, "=");
    int c = strncmp(x, y, nx < ny ? nx : ny);

    return c ? c : (nx > ny) - (nx < ny);
}

/* Appends NAME=VALUE of every scalar pair of `map` (may be NULL) that `over` (may be NULL) does not set. */
static int add_pairs(pg_diags *d, pg_case *proto, const pg_node *map, const pg_node *over)
{
    size_t i;

    for (i = 0; map && map->type == PG_NODE_MAP && i < map->count; i++) {
        const pg_node *k = map->keys[i], *v = map->items[i];
        if (!k->scalar || v->type != PG_NODE_SCALAR || sets(over, k->scalar))
            continue;
        if (!(proto->env[proto->nenv] = pg__asprintf("%s=%s", k->scalar, v->scalar)))
            return pg__diag_add(d, k, "out of memory");
        proto->nenv++;
    }
    return 0;
}

int pg__merge_env(pg_diags *d, pg_case *proto, const pg_node *defaults, const pg_node *own)
{
    size_t cap = (defaults && defaults->type == PG_NODE_MAP ? defaults->count : 0) +
                 (own && own->type == PG_NODE_MAP ? own->count : 0);

    if (!cap)
        return 0;
    if (!(proto->env = calloc(cap + 1, sizeof(char *))))
        return pg__diag_add(d, own ? own : defaults, "out of memory");
    if (add_pairs(d, proto, defaults, own) != 0 || add_pairs(d, proto, own, NULL) != 0)
        return -1;
    qsort(proto->env, proto->nenv, sizeof(char *), by_name);
    return 0;
}
