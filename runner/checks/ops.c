/*
 * ops.c - `kind: ops` checks: which ops a recording holds.
 *
 * The recording is perfgate's own (a workload run under the op recorder,
 * each step inside a "ProfilerStep#N" range like torch.profiler's) or a
 * Chrome trace file. `contains`, `not_contains` and `count` take glob
 * patterns over event names; a pattern "A > B" asks for a B nested (at any
 * depth) inside an A. With `within: GLOB` every occurrence of a matching
 * range is checked on its own, so a failure names the step that broke.
 *
 * Three names stand for classes of GPU events rather than names: `@kernel`
 * (any kernel), `@dtoh` (a device-to-host memcpy) and `@sync` (a
 * cudaStreamSynchronize or cudaDeviceSynchronize call): the host syncs of
 * the profiling lesson. `no_host_sync: true` is `not_contains: [@dtoh,
 * @sync]` and `max_kernels: K` is `count: {"@kernel": {max: K}}`.
 */
#include "checks/checks.h"
#include "checks/kinds.h"

#include "perfgate/errors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_CHAIN 16
#define MAX_REPORTED 3
#define FILTER_ABOVE (32 << 20) /* bytes */

typedef enum { P_CONTAINS, P_NOT_CONTAINS, P_COUNT } pkind;

typedef struct pattern {
    pkind kind;
    const char *text;            /* as written (points into the suite) */
    int globs[MAX_CHAIN];        /* indices into the glob table, outermost first */
    size_t n;
    int64_t min, max;            /* P_COUNT bounds */
} pattern;

typedef struct spec {
    char **globs;                /* distinct globs (copies) */
    size_t nglobs;
    int within;                  /* glob index, -1 for the whole recording */
    const char *within_text;
    pattern *pats;
    size_t npats;
} spec;

static void spec_free(spec *s)
{
    size_t i;

    for (i = 0; i < s->nglobs; i++)
        free(s->globs[i]);
    free(s->globs);
    free(s->pats);
}

static int add_glob(spec *s, const char *g, size_t len)
{
    size_t i;
    char **p;

    for (i = 0; i < s->nglobs; i++)
        if (strlen(s->globs[i]) == len && strncmp(s->globs[i], g, len) == 0)
            return (int)i;
    if (!(p = realloc(s->globs, (s->nglobs + 1) * sizeof(*p))))
        return -1;
    s->globs = p;
    if (!(p[s->nglobs] = strndup(g, len)))
        return -1;
    return (int)s->nglobs++;
}

/* Splits "A > B > C" into globs; surrounding spaces are trimmed. */
static int add_pattern(spec *s, const pg_node *n, pkind kind, int64_t min, int64_t max)
{
    pattern p = {0};
    const char *t;
    pattern *arr;

    if (!n || n->type != PG_NODE_SCALAR || !n->scalar || !n->scalar[0])
        return pg_error_set(PG_ESUITE, "%s:%d:%d: an op pattern must be a non-empty string, not %s", n->file,
                            n->line, n->col, pg_node_kind(n));
    p.kind = kind;
    p.text = n->scalar;
    p.min = min;
    p.max = max;
    for (t = n->scalar;;) {
        const char *sep = strstr(t, " > "), *e = sep ? sep : t + strlen(t);
        int g;
        while (*t == ' ')
            t++;
        while (e > t && e[-1] == ' ')
            e--;
        if (e == t)
            return pg_error_set(PG_ESUITE, "%s:%d:%d: empty name in op pattern '%s'", n->file, n->line, n->col,
                                n->scalar);
        if (p.n == MAX_CHAIN)
            return pg_error_set(PG_ESUITE, "%s:%d:%d: op pattern '%s' nests more than %d names", n->file, n->line,
                                n->col, n->scalar, MAX_CHAIN);
        if ((g = add_glob(s, t, (size_t)(e - t))) < 0)
            return pg_error_set(PG_ENOMEM, "out of memory reading op patterns");
        p.globs[p.n++] = g;
        if (!sep)
            break;
        t = sep + 3;
    }
    if (!(arr = realloc(s->pats, (s->npats + 1) * sizeof(*arr))))
        return pg_error_set(PG_ENOMEM, "out of memory reading op patterns");
    s->pats = arr;
    s->pats[s->npats++] = p;
    return 0;
}

/* A pattern on an event class (@dtoh...) written by a shorthand key at `at`: the node is copied so messages show the class. */
static int add_class(spec *s, const pg_node *at, const char *cls, pkind kind, int64_t min, int64_t max)
{
    pg_node n = *at;

    n.type = PG_NODE_SCALAR;
    n.scalar = (char *)cls; /* static text: a pattern's `text` points at it */
    return add_pattern(s, &n, kind, min, max);
}

static int add_list(spec *s, const pg_node *v, pkind kind)
{
    size_t i;
    int err;

    if (v->type == PG_NODE_SCALAR)
        return add_pattern(s, v, kind, 0, 0);
    if (v->type != PG_NODE_SEQ)
        return pg_error_set(PG_ESUITE, "%s:%d:%d: expected a list of op patterns, not %s", v->file, v->line, v->col,
                            pg_node_kind(v));
    for (i = 0; i < v->count; i++)
        if ((err = add_pattern(s, v->items[i], kind, 0, 0)) != 0)
            return err;
    return 0;
}

static int parse_spec(spec *s, const pg_node *ex, const pg_case *c)
{
    size_t i;
    int err;

    s->within = -1;
    if (ex->type != PG_NODE_MAP)
        return pg_error_set(PG_ESUITE, "%s:%d:%d: expect must be a mapping (within, contains, not_contains, count, "
                                       "no_host_sync, max_kernels)",
                            ex->file, ex->line, ex->col);
    for (i = 0; i < ex->count; i++) {
        const pg_node *k = ex->keys[i], *v = ex->items[i];
        if (pg_node_is(k, "within")) {
            if (v->type != PG_NODE_SCALAR || !v->scalar || !v->scalar[0])
                return pg_error_set(PG_ESUITE, "%s:%d:%d: within must be a range name or glob", v->file, v->line,
                                    v->col);
            if ((s->within = add_glob(s, v->scalar, strlen(v->scalar))) < 0)
                return pg_error_set(PG_ENOMEM, "out of memory reading op patterns");
            s->within_text = v->scalar;
        } else if (pg_node_is(k, "contains")) {
            if ((err = add_list(s, v, P_CONTAINS)) != 0)
                return err;
        } else if (pg_node_is(k, "not_contains")) {
            if ((err = add_list(s, v, P_NOT_CONTAINS)) != 0)
                return err;
        } else if (pg_node_is(k, "no_host_sync")) {
            if (v->type != PG_NODE_SCALAR || !v->scalar || strcmp(v->scalar, "true") != 0)
                return pg_error_set(PG_ESUITE, "%s:%d:%d: no_host_sync takes only 'true'", v->file, v->line, v->col);
            if ((err = add_class(s, v, "@dtoh", P_NOT_CONTAINS, 0, 0)) != 0 ||
                (err = add_class(s, v, "@sync", P_NOT_CONTAINS, 0, 0)) != 0)
                return err;
        } else if (pg_node_is(k, "max_kernels")) {
            int64_t mx = 0;
            if ((err = pg__check_eval(&mx, v, c, "expect.max_kernels")) != 0)
                return err;
            if (mx < 0)
                return pg_error_set(PG_ESUITE, "%s:%d:%d: max_kernels must be 0 or more", v->file, v->line, v->col);
            if ((err = add_class(s, v, "@kernel", P_COUNT, 0, mx)) != 0)
                return err;
        } else if (pg_node_is(k, "count")) {
            size_t j;
            if (v->type != PG_NODE_MAP)
                return pg_error_set(PG_ESUITE, "%s:%d:%d: count must map op patterns to N or {min: N, max: M}",
                                    v->file, v->line, v->col);
            for (j = 0; j < v->count; j++) {
                const pg_node *cv = v->items[j], *mn, *mx;
                int64_t lo = 0, hi = INT64_MAX;
                char what[160];
                snprintf(what, sizeof(what), "expect.count.%s", v->keys[j]->scalar);
                if (cv->type == PG_NODE_MAP) {
                    size_t q;
                    for (q = 0; q < cv->count; q++)
                        if (!pg_node_is(cv->keys[q], "min") && !pg_node_is(cv->keys[q], "max"))
                            return pg__check_unknown_key(cv->keys[q], "ops count", "min, max");
                    mn = pg_node_get(cv, "min");
                    mx = pg_node_get(cv, "max");
                    if ((mn && (err = pg__check_eval(&lo, mn, c, what)) != 0) ||
                        (mx && (err = pg__check_eval(&hi, mx, c, what)) != 0))
                        return err;
                    if (lo > hi)
                        return pg_error_set(PG_ESUITE, "%s:%d:%d: count min %lld is above max %lld", cv->file,
                                            cv->line, cv->col, (long long)lo, (long long)hi);
                } else {
                    if ((err = pg__check_eval(&lo, cv, c, what)) != 0)
                        return err;
                    hi = lo;
                }
                if ((err = add_pattern(s, v->keys[j], P_COUNT, lo, hi)) != 0)
                    return err;
            }
        } else {
            return pg__check_unknown_key(k, "ops", "within, contains, not_contains, count, no_host_sync, max_kernels");
        }
    }
    if (s->npats == 0)
        return pg_error_set(PG_ESUITE, "%s:%d:%d: an ops check expects contains, not_contains or count", ex->file,
                            ex->line, ex->col);
    return 0;
}

/* Keeps only events some pattern could match: a big trace stays small. */
static int keep_event(const char *name, const char *cat, void *payload)
{
    const spec *s = payload;
    size_t i;

    for (i = 0; i < s->nglobs; i++)
        if (s->globs[i][0] == '@' || pg__glob(s->globs[i], name))
            return 1;
    return 0;
}

/* An event class: 1 or 0, or -1 when `g` is an ordinary glob. */
static int match_class(const char *g, const pg_trace *t, const pg_trace_event *e)
{
    const char *name = pg_trace_str(t, e->name), *cat = pg_trace_str(t, e->cat);

    if (strcmp(g, "@kernel") == 0)
        return e->device && strcmp(cat, "kernel") == 0;
    if (strcmp(g, "@dtoh") == 0)
        return e->device && strcmp(cat, "gpu_memcpy") == 0 && strstr(name, "DtoH") != NULL;
    if (strcmp(g, "@sync") == 0)
        return strcmp(name, "cudaStreamSynchronize") == 0 || strcmp(name, "cudaDeviceSynchronize") == 0;
    return -1;
}

/* Glob results per (glob, interned name), computed once. */
typedef struct matcher {
    const spec *s;
    const pg_trace *t;
    signed char *cache;          /* nglobs × nstrs, -1 unknown */
} matcher;

static int match(matcher *m, int g, size_t ev)
{
    uint32_t name = m->t->events[ev].name;
    signed char *c = &m->cache[(size_t)g * m->t->nstrs + name];
    int cls = m->s->globs[g][0] == '@' ? match_class(m->s->globs[g], m->t, &m->t->events[ev]) : -1;

    if (cls >= 0)
        return cls;

    if (*c < 0)
        *c = (signed char)pg__glob(m->s->globs[g], pg_trace_str(m->t, name));
    return *c;
}

/* Times in messages count from the start of the trace, as Perfetto shows them. */
static void fmt_ms(char *out, size_t len, const pg_trace *t, int64_t ns)
{
    snprintf(out, len, "%.3f ms", (double)(ns - t->origin) * 1e-6);
}

/* "ProfilerStep#2 > forward > aten::index" for the ancestors of an event (innermost last). */
static void describe_path(pg_buf *b, const pg_trace *t, size_t ev)
{
    int32_t chain[8];
    int n = 0, more = 0;
    int32_t p = t->events[ev].parent;

    while (p >= 0 && n < 8) {
        chain[n++] = p;
        p = t->events[p].parent;
    }
    more = p >= 0;
    if (n == 0) {
        pg__buf_puts(b, "at the top level");
        return;
    }
    pg__buf_printf(b, "under %s", more ? "... > " : "");
    while (n-- > 0)
        pg__buf_printf(b, "%s%s", pg_trace_str(t, t->events[chain[n]].name), n ? " > " : "");
}

typedef struct evaluation {
    size_t *occ;                 /* occurrence events (within), in time order */
    size_t nocc;
    int64_t *scope;              /* per event: occurrence index, -1 outside every one */
    int64_t *counts;             /* npats × nocc */
    int64_t *first;              /* npats × nocc: first matching event, -1 */
} evaluation;

static void eval_free(evaluation *e)
{
    free(e->occ);
    free(e->scope);
    free(e->counts);
    free(e->first);
}

static int evaluate(evaluation *ev, const spec *s, const pg_trace *t, matcher *m)
{
    size_t i, p, nev = t->nevents;
    int64_t *is_occ = NULL;
    int err = PG_ENOMEM;

    memset(ev, 0, sizeof(*ev));
    if (!(ev->scope = malloc((nev ? nev : 1) * sizeof(*ev->scope))) ||
        !(is_occ = malloc((nev ? nev : 1) * sizeof(*is_occ))) || !(ev->occ = malloc((nev + 1) * sizeof(*ev->occ))))
        goto cleanup;
    for (i = 0; i < nev; i++) {
        is_occ[i] = -1;
        ev->scope[i] = -2; /* unresolved */
        if (s->within >= 0 && match(m, s->within, i)) {
            is_occ[i] = (int64_t)ev->nocc;
            ev->occ[ev->nocc++] = i;
        }
    }
    if (s->within < 0) {
        ev->nocc = 1; /* the whole recording is one scope */
        for (i = 0; i < nev; i++)
            ev->scope[i] = 0;
    } else {
        /* Each event's scope is its nearest enclosing occurrence (memoised walk up the parents). */
        for (i = 0; i < nev; i++) {
            int32_t a = t->events[i].parent;
            int64_t sc;
            size_t guard = 0;
            while (a >= 0 && is_occ[a] < 0 && ev->scope[a] == -2 && guard++ < nev)
                a = t->events[a].parent;
            sc = a < 0 ? -1 : is_occ[a] >= 0 ? is_occ[a] : ev->scope[a] == -2 ? -1 : ev->scope[a];
            for (a = t->events[i].parent, guard = 0; a >= 0 && is_occ[a] < 0 && ev->scope[a] == -2 && guard++ < nev;
                 a = t->events[a].parent)
                ev->scope[a] = sc;
            ev->scope[i] = sc;
        }
    }
    if (!(ev->counts = calloc(s->npats * ev->nocc + 1, sizeof(*ev->counts))) ||
        !(ev->first = malloc((s->npats * ev->nocc + 1) * sizeof(*ev->first))))
        goto cleanup;
    for (i = 0; i < s->npats * ev->nocc; i++)
        ev->first[i] = -1;
    for (p = 0; p < s->npats; p++) {
        const pattern *pt = &s->pats[p];
        for (i = 0; i < nev; i++) {
            int64_t o = ev->scope[i];
            int32_t a;
            int k = (int)pt->n - 2;
            size_t guard = 0;
            if (o < 0 || !match(m, pt->globs[pt->n - 1], i))
                continue;
            /* The rest of the chain, matched greedily among the ancestors inside the scope. */
            for (a = t->events[i].parent; k >= 0 && a >= 0 && guard++ < nev; a = t->events[a].parent) {
                if (s->within >= 0 && (size_t)a == ev->occ[o])
                    break;
                if (match(m, pt->globs[k], (size_t)a))
                    k--;
            }
            if (k >= 0)
                continue;
            if (ev->counts[p * ev->nocc + (size_t)o]++ == 0)
                ev->first[p * ev->nocc + (size_t)o] = (int64_t)i;
        }
    }
    err = 0;

cleanup:
    if (err)
        pg_error_set(err, "out of memory checking %zu events", nev);
    free(is_occ);
    return err;
}

static void where(pg_buf *b, const spec *s, const pg_trace *t, const evaluation *ev, size_t o, const char *source)
{
    char at[32];

    if (s->within < 0) {
        pg__buf_printf(b, "in %s (%zu events)", source, t->nevents);
        return;
    }
    fmt_ms(at, sizeof(at), t, t->events[ev->occ[o]].ts);
    pg__buf_printf(b, "inside '%s' (occurrence %zu of %zu, at %s) in %s", pg_trace_str(t, t->events[ev->occ[o]].name),
                   o + 1, ev->nocc, at, source);
}

static int run_ops(pg_check_result *out, const spec *s, const pg_trace *t, const char *source)
{
    matcher m = {s, t, NULL};
    evaluation ev;
    pg_buf expected = PG_BUF_INIT, actual = PG_BUF_INIT, msg = PG_BUF_INIT;
    size_t p, o, failures = 0;
    int err;

    memset(&ev, 0, sizeof(ev));
    if (!(m.cache = malloc(s->nglobs * t->nstrs + 1))) {
        err = pg_error_set(PG_ENOMEM, "out of memory checking %s", source);
        goto cleanup;
    }
    memset(m.cache, 0xff, s->nglobs * t->nstrs + 1);
    if ((err = evaluate(&ev, s, t, &m)) != 0)
        goto cleanup;

    if (s->within >= 0)
        pg__buf_printf(&expected, "within %s: ", s->within_text);
    for (p = 0; p < s->npats; p++) {
        const pattern *pt = &s->pats[p];
        if (pt->kind == P_COUNT && pt->min == pt->max)
            pg__buf_printf(&expected, "%scount %s = %lld", p ? "; " : "", pt->text, (long long)pt->min);
        else if (pt->kind == P_COUNT)
            pg__buf_printf(&expected, "%scount %s in %lld..%lld", p ? "; " : "", pt->text, (long long)pt->min,
                           (long long)pt->max);
        else
            pg__buf_printf(&expected, "%s%s %s", p ? "; " : "", pt->kind == P_CONTAINS ? "contains" : "not_contains",
                           pt->text);
    }
    if (s->within >= 0)
        pg__buf_printf(&actual, "%zu occurrence%s of %s", ev.nocc, ev.nocc == 1 ? "" : "s", s->within_text);
    else
        pg__buf_printf(&actual, "%zu events", t->nevents);
    for (p = 0; p < s->npats; p++) {
        pg__buf_printf(&actual, "; %s:", s->pats[p].text);
        for (o = 0; o < ev.nocc && o < 20; o++)
            pg__buf_printf(&actual, "%s%lld", o ? "," : " ", (long long)ev.counts[p * ev.nocc + o]);
        if (ev.nocc > 20)
            pg__buf_puts(&actual, ",...");
    }

    if (s->within >= 0 && ev.nocc == 0) {
        pg__buf_printf(&msg, "no range matching '%s' in %s (%zu events kept of %zu read)", s->within_text, source,
                       t->nevents, t->nread ? t->nread : t->nevents);
        failures = 1;
    }
    /* Per pattern: the first failing occurrence in full, then how many others fail and which. */
    for (p = 0; p < s->npats; p++) {
        const pattern *pt = &s->pats[p];
        size_t nbad = 0, shown = 0;
        for (o = 0; o < ev.nocc; o++) {
            int64_t n = ev.counts[p * ev.nocc + o], first = ev.first[p * ev.nocc + o];
            char at[32];
            int bad = pt->kind == P_CONTAINS ? n == 0 : pt->kind == P_NOT_CONTAINS ? n > 0 : n < pt->min || n > pt->max;
            if (!bad)
                continue;
            if (nbad++ > 0) {
                if (shown++ < 3)
                    pg__buf_printf(&msg, "%s'%s'", shown == 1 ? " (also in " : ", ",
                                   pg_trace_str(t, t->events[ev.occ[o]].name));
                continue;
            }
            if (failures++ >= MAX_REPORTED)
                continue;
            if (msg.len)
                pg__buf_puts(&msg, "; ");
            if (pt->kind == P_CONTAINS) {
                pg__buf_printf(&msg, "expected '%s' but found none ", pt->text);
            } else if (pt->kind == P_NOT_CONTAINS) {
                pg__buf_printf(&msg, "'%s' must not occur but occurs %lld time%s ", pt->text, (long long)n,
                               n == 1 ? "" : "s");
            } else if (pt->min == pt->max) {
                pg__buf_printf(&msg, "expected %lld x '%s', found %lld (%+lld) ", (long long)pt->min, pt->text,
                               (long long)n, (long long)(n - pt->min));
            } else if (pt->max == INT64_MAX) {
                pg__buf_printf(&msg, "expected at least %lld x '%s', found %lld ", (long long)pt->min, pt->text,
                               (long long)n);
            } else {
                pg__buf_printf(&msg, "expected %lld..%lld x '%s', found %lld ", (long long)pt->min,
                               (long long)pt->max, pt->text, (long long)n);
            }
            where(&msg, s, t, &ev, o, source);
            if (first >= 0) {
                fmt_ms(at, sizeof(at), t, t->events[first].ts);
                pg__buf_printf(&msg, "; first at %s ", at);
                describe_path(&msg, t, (size_t)first);
            }
        }
        if (nbad > 1 && failures <= MAX_REPORTED)
            pg__buf_printf(&msg, "%s: %zu of %zu occurrences fail)", shown > 3 ? ", ..." : "", nbad, ev.nocc);
    }
    if (failures > MAX_REPORTED)
        pg__buf_printf(&msg, "; and %zu more failing pattern%s", failures - MAX_REPORTED,
                       failures - MAX_REPORTED == 1 ? "" : "s");
    err = pg__check_fill(out, expected.ptr, actual.ptr, failures ? msg.ptr : NULL, NULL);

cleanup:
    free(m.cache);
    eval_free(&ev);
    pg__buf_clear(&expected);
    pg__buf_clear(&actual);
    pg__buf_clear(&msg);
    return err;
}

/* A trace path is relative to the directory of the suite file that names it. */
/* An ops check of a program: its counted BLAS calls (ops named sgemm, dgemv, cublasSgemm...) inside the
   ranges it marked, replayed into a recording. */
static int command_ops(pg_check_result *out, spec *s, const pg_suite *suite, const pg_check *check,
                       const pg_check_options *opts)
{
    pg_case c;
    pg_counts counts = {0};
    pg_recorder *rec = NULL;
    char *source = NULL;
    int64_t i, steps = check->steps > 0 ? check->steps : 1;
    int err;

    if ((err = pg_case_from_workload(&c, check->workload, suite->name, check->name)) != 0)
        return err;
    if ((err = parse_spec(s, check->expect, &c)) == 0 && (err = pg_recorder_new(&rec)) == 0) {
        const pg_instrument *prev = pg__instrument_set(pg_recorder_instrument(rec, NULL));
        for (i = 0; i < steps && !err; i++) {
            pg_counts_clear(&counts);
            if ((err = pg__workload_count(&counts, &c)) == 0)
                err = pg__counts_replay(&counts);
        }
        pg__instrument_set(prev);
    }
    if (!err && !(err = pg_recorder_status(rec)) &&
        !(err = pg__check_export(opts, suite, check, NULL, pg_recorder_trace(rec)))) {
        source = pg__asprintf("the BLAS calls of command '%s'", c.command[0]);
        err = source ? run_ops(out, s, pg_recorder_trace(rec), source) : PG_ENOMEM;
    }
    free(source);
    pg_recorder_free(rec);
    pg_counts_clear(&counts);
    pg_case_clear(&c);
    return err;
}

int pg__check_ops(pg_check_result *out, const pg_suite *suite, const pg_check *check, const pg_check_options *opts)
{
    spec s = {0};
    pg__workload w;
    pg_recorder *rec = NULL;
    pg_trace *read = NULL;
    char *path = NULL, *source = NULL;
    int err;

    memset(&w, 0, sizeof(w));
    if (check->trace && check->workload) {
        err = pg_error_set(PG_ESUITE, "%s:%d:%d: an ops check reads either a 'trace' or a 'workload', not both",
                           check->node->file, check->node->line, check->node->col);
        goto cleanup;
    }
    if (check->trace) {
        pg_trace_read_options ro = PG_TRACE_READ_OPTIONS_INIT;
        const pg_node *tn = check->trace;
        struct stat st;
        if ((err = parse_spec(&s, check->expect, NULL)) != 0)
            goto cleanup;
        /* Small traces are read whole so messages can show every ancestor; big ones keep
         * only what the patterns can match, which bounds memory. */
        if (tn->scalar && (path = pg__check_path(suite->path, tn->scalar)) != NULL && stat(path, &st) == 0 &&
            st.st_size > FILTER_ABOVE) {
            ro.keep = keep_event;
            ro.payload = &s;
        }
        if ((err = pg__check_read_trace(&read, suite, tn, &ro)) != 0)
            goto cleanup;
        source = pg__asprintf("trace %s", tn->scalar);
        if (!source) {
            err = PG_ENOMEM;
            goto cleanup;
        }
        err = run_ops(out, &s, read, source);
        goto cleanup;
    }
    if (pg__workload_is_command(check)) {
        err = command_ops(out, &s, suite, check, opts);
        goto cleanup;
    }
    if ((err = pg__workload_open(&w, suite, check)) != 0)
        goto cleanup;
    if ((err = parse_spec(&s, check->expect, &w.c)) != 0)
        goto cleanup;
    if ((err = pg_recorder_new(&rec)) != 0)
        goto cleanup;
    {
        const pg_instrument *prev = pg__instrument_set(pg_recorder_instrument(rec, NULL));
        int64_t i, steps = check->steps > 0 ? check->steps : 1;
        for (i = 0, err = 0; i < steps && !err; i++)
            err = pg__workload_step(&w, 1);
        pg__instrument_set(prev);
    }
    if (err || (err = pg_recorder_status(rec)) != 0)
        goto cleanup;
    if ((err = pg__check_export(opts, suite, check, NULL, pg_recorder_trace(rec))) != 0)
        goto cleanup;
    if (!(source = pg__asprintf("the recording of kernel '%s'", w.c.kernel))) {
        err = PG_ENOMEM;
        goto cleanup;
    }
    err = run_ops(out, &s, pg_recorder_trace(rec), source);

cleanup:
    pg__workload_close(&w);
    pg_recorder_free(rec);
    pg_trace_free(read);
    spec_free(&s);
    free(path);
    free(source);
    return err;
}
