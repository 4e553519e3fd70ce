/*
 * fields.c - reading one field of a suite: known keys with advice for
 * misplaced ones, typed scalars, names, and finding repeated strings.
 */
#include "suite/internal.h"

#include "perfgate/errors.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *hint_for(const pg__hint *hints, const char *key)
{
    for (; hints && hints->key; hints++)
        if (strcmp(hints->key, key) == 0)
            return hints->advice;
    return NULL;
}

int pg__in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (strcmp(*list, s) == 0)
            return 1;
    return 0;
}

int pg__keys_check(pg_diags *d, const pg_node *map, const char *const *known, const char *where,
                   pg__unknown_key_fn unknown, void *payload)
{
    size_t i;
    int bad = 0;

    for (i = 0; i < map->count; i++) {
        const pg_node *k = map->keys[i];
        if (k->type != PG_NODE_SCALAR) {
            pg__diag_add(d, k, "keys in %s must be plain names, not %s", where, pg_node_kind(k));
            bad = 1;
            continue;
        }
        if (!pg__in_list(known, k->scalar) && unknown(d, k, known, where, payload) != 0)
            bad = 1;
    }
    return bad;
}

typedef struct advice {
    const pg__hint *hints;
    int extensions;
} advice;

/* Advice for a misplaced key, else a did-you-mean over the known keys. */
static int advise(pg_diags *d, const pg_node *k, const char *const *known, const char *where, void *payload)
{
    const advice *a = payload;
    const char *text;
    char sug[96];

    /* Top-level "x-..." keys hold anchors for reuse (as in docker-compose files). */
    if (a->extensions && strncmp(k->scalar, "x-", 2) == 0)
        return 0;
    if ((text = hint_for(a->hints, k->scalar)) != NULL)
        pg__diag_add(d, k, "unknown key '%s' in %s; %s", k->scalar, where, text);
    else
        pg__diag_add(d, k, "unknown key '%s' in %s%s", k->scalar, where,
                     pg__dym(sug, sizeof(sug), k->scalar, known));
    return -1;
}

int pg__keys_known(pg_diags *d, const pg_node *map, const char *const *known, const char *where,
                   const pg__hint *hints, int extensions)
{
    advice a = {hints, extensions};

    return pg__keys_check(d, map, known, where, advise, &a);
}

int pg__scalar_of(pg_diags *d, const pg_node *n, const char *what)
{
    if (!n || n->type != PG_NODE_SCALAR) {
        if (n && n->type == PG_NODE_NULL)
            pg__diag_add(d, n, "%s has no value", what);
        else
            pg__diag_add(d, n, "%s must be a single value, not %s", what, pg_node_kind(n));
        return -1;
    }
    return 0;
}

int pg__get_enum(pg_diags *d, const char **out, const pg_node *n, const char *what,
                 const char *const *allowed, const char *choices)
{
    char sug[96];

    if (pg__scalar_of(d, n, what) != 0)
        return -1;
    if (!pg__in_list(allowed, n->scalar)) {
        /* "gpu" is closer to "cpu" in letters but means "cuda". */
        const char *c = strcmp(what, "device") == 0 && strcasecmp(n->scalar, "gpu") == 0
                            ? "cuda" : pg__closest(n->scalar, allowed);
        if (c)
            snprintf(sug, sizeof(sug), "; did you mean '%s'?", c);
        else
            sug[0] = '\0';
        pg__diag_add(d, n, "%s must be %s, not '%s'%s", what, choices, n->scalar, sug);
        return -1;
    }
    *out = n->scalar;
    return 0;
}

int pg__get_duration(pg_diags *d, double *out, const pg_node *n, const char *what)
{
    double v;

    if (pg__scalar_of(d, n, what) != 0)
        return -1;
    if (pg_parse_duration(&v, n->scalar) != 0) {
        pg__diag_add(d, n, "%s: '%s' is not a duration (write e.g. 250ms, 0.5s, 2m)", what, n->scalar);
        return -1;
    }
    if (v <= 0) {
        pg__diag_add(d, n, "%s must be a positive duration, not '%s'", what, n->scalar);
        return -1;
    }
    /* Past a week a duration is a typo, and past ~292 years it no longer fits the nanosecond clock. */
    if (v > PG_DURATION_MAX_S) {
        pg__diag_add(d, n, "%s must be at most 7 days (%.0f s), not '%s'", what, PG_DURATION_MAX_S, n->scalar);
        return -1;
    }
    *out = v;
    return 0;
}

int pg__get_int(pg_diags *d, int64_t *out, const pg_node *n, const char *what, int64_t min, int64_t max)
{
    char *end;
    long long v;

    if (pg__scalar_of(d, n, what) != 0)
        return -1;
    errno = 0;
    v = strtoll(n->scalar, &end, 10);
    if (end == n->scalar || *end || errno || isspace((unsigned char)n->scalar[0])) {
        pg__diag_add(d, n, "%s must be an integer, not '%s'", what, n->scalar);
        return -1;
    }
    if (v < min || v > max) {
        if (max == INT64_MAX)
            pg__diag_add(d, n, "%s must be at least %lld, not %lld", what, (long long)min, v);
        else
            pg__diag_add(d, n, "%s must be between %lld and %lld, not %lld", what, (long long)min,
                         (long long)max, v);
        return -1;
    }
    *out = v;
    return 0;
}

int pg__get_bool(pg_diags *d, int *out, const pg_node *n, const char *what)
{
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "on", NULL};
    static const char *const no[] = {"false", "False", "FALSE", "no", "off", NULL};

    if (pg__scalar_of(d, n, what) != 0)
        return -1;
    if (!n->quoted && pg__in_list(yes, n->scalar))
        *out = 1;
    else if (!n->quoted && pg__in_list(no, n->scalar))
        *out = 0;
    else {
        pg__diag_add(d, n, "%s must be true or false, not '%s'", what, n->scalar);
        return -1;
    }
    return 0;
}

/* Names of suites and entries become parts of case keys: keep them plain. */
int pg__check_name(pg_diags *d, const pg_node *n, const char *what)
{
    const char *p;

    if (pg__scalar_of(d, n, what) != 0)
        return -1;
    if (!*n->scalar) {
        pg__diag_add(d, n, "%s is empty", what);
        return -1;
    }
    for (p = n->scalar; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_-.+", *p)) {
            pg__diag_add(d, n, "%s '%s' may hold only letters, digits and _ - . + (it is part of case keys)",
                         what, n->scalar);
            return -1;
        }
    return 0;
}

/* Parameter names are identifiers, so expressions can use them. */
int pg__check_param_name(pg_diags *d, const pg_node *k)
{
    const char *p = k->scalar;

    if (k->type != PG_NODE_SCALAR || !*p || !(isalpha((unsigned char)*p) || *p == '_'))
        goto bad;
    for (; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            goto bad;
    return 0;
bad:
    if (k->type == PG_NODE_SCALAR)
        pg__diag_add(d, k, "parameter name '%s' must be an identifier (letters, digits, _)", k->scalar);
    else
        pg__diag_add(d, k, "parameter names must be plain names, not %s", pg_node_kind(k));
    return -1;
}

/* ---- repeated strings ---- */

typedef struct keyed {
    const char *s;
    size_t index;
} keyed;

static int keyed_cmp(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->s, y->s);

    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

int pg__each_dup(pg_diags *d, const char *const *strs, size_t n, pg__dup_fn fn, void *payload)
{
    keyed *k;
    size_t i, run;

    if (n < 2)
        return 0;
    if (!(k = malloc(n * sizeof(*k))))
        return PG_ENOMEM;
    for (i = 0; i < n; i++) {
        k[i].s = strs[i];
        k[i].index = i;
    }
    qsort(k, n, sizeof(*k), keyed_cmp);
    for (run = 0, i = 1; i < n; i++) {
        if (strcmp(k[i].s, k[run].s) != 0)
            run = i;
        else
            fn(d, k[i].index, k[run].index, payload);
    }
    free(k);
    return 0;
}
