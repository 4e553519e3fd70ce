/*
 * params.c - parameter values in canonical form, so that equal values give
 * equal case keys, and the `params` mappings that list them.
 */
#include "suite/internal.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pg__dim_clear(pg__dim *dm)
{
    size_t i;

    if (dm->owned) {
        for (i = 0; i < dm->count; i++)
            free(dm->vals[i].text);
        free(dm->vals);
    }
    memset(dm, 0, sizeof(*dm));
}

int pg__is_number_text(const char *s, double *out)
{
    char *end;
    double v;

    if (!*s || isspace((unsigned char)*s))
        return 0;
    errno = 0;
    v = strtod(s, &end);
    if (*end || errno || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

/* Integers exactly; other numbers in the shortest form that reads back. */
static char *number_text(double v)
{
    char buf[48];
    int prec;

    if (v == 0)
        return pg__strdup("0");
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        return pg__asprintf("%lld", (long long)v);
    for (prec = 15; prec < 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return pg__strdup(buf);
    }
    snprintf(buf, sizeof(buf), "%.17g", v);
    return pg__strdup(buf);
}

static int has_size_unit(const char *s)
{
    size_t n = strlen(s);

    return n >= 3 && s[n - 1] == 'B' && isalpha((unsigned char)s[n - 2]);
}

/*
 * Canonical text of a value, so that equal values give equal case keys: 128,
 * 128.0 and 1.28e2 are "128", 64KiB is "65536", True is "true". Quoted
 * scalars stay text exactly as written.
 */
int pg__canon_value(pg_diags *d, pg__pval *out, const pg_node *v, const char *pname)
{
    const char *s, *bad;
    char *end;
    long long ll;
    double x;

    memset(out, 0, sizeof(*out));
    out->node = v;
    if (v->type == PG_NODE_NULL) {
        pg__diag_add(d, v, "parameter '%s' has no value", pname);
        return -1;
    }
    if (v->type != PG_NODE_SCALAR) {
        pg__diag_add(d, v, "values of parameter '%s' must be single values, not %s", pname, pg_node_kind(v));
        return -1;
    }
    s = v->scalar;
    if (!*s) {
        pg__diag_add(d, v, "parameter '%s' has an empty value", pname);
        return -1;
    }
    if ((bad = strpbrk(s, ",=[]")) != NULL) {
        pg__diag_add(d, v, "value '%s' of parameter '%s' contains '%c', which case keys use as a separator",
                     s, pname, *bad);
        return -1;
    }
    if (!v->quoted) {
        errno = 0;
        x = strtod(s, &end);
        if (end != s && !*end && errno == ERANGE && !isspace((unsigned char)*s)) {
            /* 1e400 is a number no double holds: never a word, and never the kernel's default in disguise. */
            pg__diag_add(d, v, "parameter '%s': %s is out of range for a number (%s)", pname, s,
                         fabs(x) > 1 ? "past 1.8e308" : "below 2.2e-308");
            return -1;
        }
        errno = 0;
        ll = strtoll(s, &end, 10);
        if (end != s && !*end && !errno && !isspace((unsigned char)*s)) {
            out->text = pg__asprintf("%lld", ll);
            out->is_number = 1;
            out->num = (double)ll;
        } else if (pg__is_number_text(s, &x)) {
            out->text = number_text(x);
            out->is_number = 1;
            out->num = x;
        } else if (has_size_unit(s) && pg_parse_size(&x, s) == 0) {
            if (x < 0 || x != floor(x) || x >= 9007199254740992.0) {
                pg__diag_add(d, v, "parameter '%s': '%s' is not a whole number of bytes", pname, s);
                return -1;
            }
            out->text = number_text(x);
            out->is_number = 1;
            out->num = x;
        } else if (!strcmp(s, "True") || !strcmp(s, "TRUE")) {
            out->text = pg__strdup("true");
        } else if (!strcmp(s, "False") || !strcmp(s, "FALSE")) {
            out->text = pg__strdup("false");
        }
    }
    if (!out->text)
        out->text = pg__strdup(s);
    if (!out->text) {
        pg__diag_add(d, v, "out of memory");
        return -1;
    }
    return 0;
}

static void report_repeat(pg_diags *d, size_t later, size_t first, void *payload)
{
    const pg__dim *dm = payload;
    const pg__pval *a = &dm->vals[first], *b = &dm->vals[later];
    char what[96];

    snprintf(what, sizeof(what), "parameter '%s'", dm->name);
    pg__diag_add(d, b->node, "%s lists %s twice (also at %d:%d)", what, b->text, a->node->line, a->node->col);
}

/* Reads a parameter's scalar or non-empty list into canonical values. */
static int parse_dim(pg_diags *d, pg__dim *dm, const pg_node *key, const pg_node *v)
{
    size_t i, n = v->type == PG_NODE_SEQ ? v->count : 1;
    int bad = 0;

    memset(dm, 0, sizeof(*dm));
    dm->name = key->scalar;
    dm->key = key;
    dm->value = v;
    dm->owned = 1;
    dm->zip = -1;
    if (v->type == PG_NODE_SEQ && v->count == 0) {
        pg__diag_add(d, v, "parameter '%s' is an empty list; give at least one value", dm->name);
        return -1;
    }
    if (v->type == PG_NODE_MAP) {
        pg__diag_add(d, v, "parameter '%s' must be a value or a list of values, not a mapping", dm->name);
        return -1;
    }
    if (!(dm->vals = calloc(n, sizeof(pg__pval))))
        return pg__diag_add(d, v, "out of memory");
    for (i = 0; i < n; i++) {
        if (pg__canon_value(d, &dm->vals[dm->count], v->type == PG_NODE_SEQ ? v->items[i] : v, dm->name) != 0)
            bad = 1;
        else
            dm->count++;
    }
    return bad ? -1 : 0;
}

/*
 * A value listed twice would give the same case twice. Zipped lists may
 * repeat values (the pairs differ); repeated pairs are caught by case key.
 */
int pg__check_repeats(pg_diags *d, const pg__dim *dm)
{
    const char **texts;
    size_t i, before = d->count;

    if (dm->count < 2 || dm->zip >= 0 || !(texts = malloc(dm->count * sizeof(*texts))))
        return 0;
    for (i = 0; i < dm->count; i++)
        texts[i] = dm->vals[i].text;
    pg__each_dup(d, texts, dm->count, report_repeat, (void *)dm);
    free(texts);
    return d->count > before ? -1 : 0;
}

/* Parses the parameters of a `params` mapping (first of duplicate keys wins). */
int pg__parse_params(pg_diags *d, pg__dim **out, size_t *nout, const pg_node *params)
{
    pg__dim *dims;
    size_t i, n = 0;
    int bad = 0;

    *out = NULL;
    *nout = 0;
    if (params->type != PG_NODE_MAP) {
        pg__diag_add(d, params, "params must be a mapping of NAME: value or NAME: [values], not %s",
                     pg_node_kind(params));
        return -1;
    }
    if (!(dims = calloc(params->count ? params->count : 1, sizeof(*dims))))
        return pg__diag_add(d, params, "out of memory");
    for (i = 0; i < params->count; i++) {
        const pg_node *k = params->keys[i];
        size_t j;
        int seen = 0;
        if (pg__check_param_name(d, k) != 0) {
            bad = 1;
            continue;
        }
        if (!strcmp(k->scalar, "threads") || !strcmp(k->scalar, "device") || !strcmp(k->scalar, "kernel")) {
            pg__diag_add(d, k, "'%s' is a benchmark key, not a parameter: move it out of params", k->scalar);
            bad = 1;
            continue;
        }
        for (j = 0; j < n; j++)
            if (strcmp(dims[j].name, k->scalar) == 0)
                seen = 1;
        if (seen)
            continue; /* reported as a duplicate key */
        if (parse_dim(d, &dims[n], k, params->items[i]) != 0) {
            pg__dim_clear(&dims[n]);
            bad = 1;
            continue;
        }
        n++;
    }
    *out = dims;
    *nout = n;
    return bad ? -1 : 0;
}
