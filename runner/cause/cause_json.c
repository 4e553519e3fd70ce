/*
 * cause_json.c - a diagnosis as JSON and back (cause.h): the "diagnosis" of
 * a verdict in the JSON report and in a stored decision. What is read back
 * may come from a report a pull request's code wrote: every list is cut to
 * its limit and every value checked for its type; the profiles stay text,
 * checked when the flame graph reads them (meter/profile.h).
 */
#include "cause/cause.h"

#include "base/util.h"
#include "perfgate/errors.h"
#include "verdict/verdict.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The most count changes kept from a report. */
#define MAX_COUNTS 50

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *pair(double base, double head)
{
    if (!isfinite(base) && !isfinite(head))
        return json_null();
    return json_pack("{s:o, s:o}", "base", num(base), "head", num(head));
}

static json_t *fns_json(const pg_fn_delta *f, size_t n)
{
    json_t *a = json_array();
    size_t i;

    for (i = 0; a && i < n; i++)
        json_array_append_new(a, json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "name", f[i].name, "file",
                                           str(f[i].file), "line", f[i].line > 0 ? json_integer(f[i].line) : json_null(),
                                           "base", num(f[i].base), "head", num(f[i].head), "share",
                                           num(f[i].share)));
    return a;
}

/* A profile's text as an embedded object (it is JSON already); null without one. */
static json_t *embedded(const char *text)
{
    json_t *v = text ? json_loads(text, 0, NULL) : NULL;

    return v ? v : json_null();
}

char *pg_cause_to_json(const pg_diagnosis *d)
{
    json_t *o = json_object(), *counts = json_array();
    char *text;
    size_t i;

    if (!o || !counts) {
        json_decref(o);
        json_decref(counts);
        return NULL;
    }
    json_object_set_new(o, "what_changed", str(d->line));
    json_object_set_new(o, "source", str(d->source));
    json_object_set_new(o, "note", str(d->note));
    json_object_set_new(o, "instructions", pair(d->ir_base, d->ir_head));
    json_object_set_new(o, "est_cycles", pair(d->cycles_base, d->cycles_head));
    json_object_set_new(o, "bytes_per_iter", pair(d->bytes_base, d->bytes_head));
    json_object_set_new(o, "allocs_per_iter", pair(d->allocs_base, d->allocs_head));
    json_object_set_new(o, "flops", pair(d->flops_base, d->flops_head));
    json_object_set_new(o, "nondeterministic", json_boolean(d->nondeterministic));
    json_object_set_new(o, "seconds", num(d->seconds));
    json_object_set_new(o, "functions", json_pack("{s:o, s:o}", "exclusive", fns_json(d->self, d->nself),
                                                  "inclusive", fns_json(d->incl, d->nincl)));
    for (i = 0; i < d->ncounts; i++)
        json_array_append_new(counts, json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "what", d->counts[i].what,
                                                "where", str(d->counts[i].where), "base", num(d->counts[i].base),
                                                "head", num(d->counts[i].head), "base_s", num(d->counts[i].base_s),
                                                "head_s", num(d->counts[i].head_s)));
    json_object_set_new(o, "counts", counts);
    json_object_set_new(o, "profiles", json_pack("{s:o, s:o}", "base", embedded(d->base_profile), "head",
                                                 embedded(d->head_profile)));
    text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    json_decref(o);
    return text;
}

/* ---- reading back ------------------------------------------------------- */

static char *get_str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));

    return s ? pg__strdup(s) : NULL;
}

static double get_num(const json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);

    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void get_pair(double *base, double *head, const json_t *o)
{
    *base = get_num(o, "base");
    *head = get_num(o, "head");
}

static int fns_from(pg_fn_delta **out, size_t *n, const json_t *a)
{
    json_t *e;
    size_t i;

    *out = NULL;
    *n = 0;
    if (!json_is_array(a) || !json_array_size(a))
        return 0;
    if (!(*out = calloc(json_array_size(a) < PG_DIAG_TOP ? json_array_size(a) : PG_DIAG_TOP, sizeof(**out))))
        return pg_error_set(PG_ENOMEM, "out of memory reading a diagnosis");
    json_array_foreach(a, i, e) {
        pg_fn_delta *f = &(*out)[*n];
        if (*n >= PG_DIAG_TOP)
            break;
        if (!json_is_string(json_object_get(e, "name")))
            continue;
        f->name = get_str(e, "name");
        f->file = get_str(e, "file");
        f->line = json_is_integer(json_object_get(e, "line")) ? (int)json_integer_value(json_object_get(e, "line"))
                                                               : 0;
        f->base = get_num(e, "base");
        f->head = get_num(e, "head");
        f->share = get_num(e, "share");
        (*n)++;
        if (!f->name)
            return pg_error_set(PG_ENOMEM, "out of memory reading a diagnosis");
    }
    return 0;
}

static int counts_from(pg_diagnosis *d, const json_t *a)
{
    json_t *e;
    size_t i;

    if (!json_is_array(a) || !json_array_size(a))
        return 0;
    if (!(d->counts = calloc(json_array_size(a) < MAX_COUNTS ? json_array_size(a) : MAX_COUNTS, sizeof(*d->counts))))
        return pg_error_set(PG_ENOMEM, "out of memory reading a diagnosis");
    json_array_foreach(a, i, e) {
        pg_count_delta *c = &d->counts[d->ncounts];
        if (d->ncounts >= MAX_COUNTS)
            break;
        if (!json_is_string(json_object_get(e, "what")))
            continue;
        c->what = get_str(e, "what");
        c->where = get_str(e, "where");
        c->base = get_num(e, "base");
        c->head = get_num(e, "head");
        c->base_s = get_num(e, "base_s");
        c->head_s = get_num(e, "head_s");
        d->ncounts++;
        if (!c->what)
            return pg_error_set(PG_ENOMEM, "out of memory reading a diagnosis");
    }
    return 0;
}

static char *profile_from(const json_t *o, const char *k)
{
    json_t *p = json_object_get(o, k);

    return json_is_object(p) ? json_dumps(p, JSON_COMPACT | JSON_REAL_PRECISION(12)) : NULL;
}

int pg_cause_from_json_value(pg_diagnosis **out, const struct json_t *o)
{
    json_t *fns, *prof;
    pg_diagnosis *d;
    int err;

    *out = NULL;
    if (!json_is_object(o))
        return 0;
    if (!(d = calloc(1, sizeof(*d))))
        return pg_error_set(PG_ENOMEM, "out of memory reading a diagnosis");
    d->line = get_str(o, "what_changed");
    d->source = get_str(o, "source");
    d->note = get_str(o, "note");
    get_pair(&d->ir_base, &d->ir_head, json_object_get(o, "instructions"));
    get_pair(&d->cycles_base, &d->cycles_head, json_object_get(o, "est_cycles"));
    get_pair(&d->bytes_base, &d->bytes_head, json_object_get(o, "bytes_per_iter"));
    get_pair(&d->allocs_base, &d->allocs_head, json_object_get(o, "allocs_per_iter"));
    get_pair(&d->flops_base, &d->flops_head, json_object_get(o, "flops"));
    d->nondeterministic = json_is_true(json_object_get(o, "nondeterministic"));
    d->seconds = isfinite(get_num(o, "seconds")) ? get_num(o, "seconds") : 0;
    fns = json_object_get(o, "functions");
    prof = json_object_get(o, "profiles");
    if ((err = fns_from(&d->self, &d->nself, json_object_get(fns, "exclusive"))) == 0 &&
        (err = fns_from(&d->incl, &d->nincl, json_object_get(fns, "inclusive"))) == 0)
        err = counts_from(d, json_object_get(o, "counts"));
    d->base_profile = profile_from(prof, "base");
    d->head_profile = profile_from(prof, "head");
    if (!d->source && !err)
        d->source = pg__strdup("counted");
    if (err || !d->source) {
        pg_diagnosis_free(d);
        return err ? err : pg_error_set(PG_ENOMEM, "out of memory reading a diagnosis");
    }
    *out = d;
    return 0;
}

int pg_cause_from_json(pg_diagnosis **out, const char *text)
{
    json_t *o = text ? json_loads(text, 0, NULL) : NULL;
    int err = pg_cause_from_json_value(out, o);

    json_decref(o);
    return err;
}
