/*
 * cause.c - the diagnosis of a REGRESSED or IMPROVED case and its "what
 * changed" line (cause.h). cause_json.c writes and reads it back.
 */
#include "cause/cause.h"

#include "base/case.h"
#include "base/fmt.h"
#include "base/util.h"
#include "meter/profile.h"
#include "perfgate/errors.h"
#include "verdict/verdict.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static pg_diagnosis *diagnosis_new(const char *source)
{
    pg_diagnosis *d = calloc(1, sizeof(*d));

    if (!d)
        return NULL;
    d->ir_base = d->ir_head = d->cycles_base = d->cycles_head = NAN;
    d->bytes_base = d->bytes_head = d->allocs_base = d->allocs_head = NAN;
    d->flops_base = d->flops_head = NAN;
    if (!(d->source = pg__strdup(source))) {
        free(d);
        return NULL;
    }
    return d;
}

const char *pg_cause_file_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;

    return slash ? slash + 1 : path;
}

/* ---- the results a case's counts sit in ------------------------------- */

/* KEY#METRIC of the case `key` (itself KEY or KEY#OTHER) in `run`; NULL when absent or not measured. */
static const pg_result *sibling(const pg_run *run, const char *key, const char *metric)
{
    const char *hash = strchr(key, '#');
    char *k;
    const pg_result *r;

    if (!run)
        return NULL;
    k = pg__asprintf("%.*s#%s", (int)(hash ? hash - key : (long)strlen(key)), key, metric);
    r = k ? pg_run_find(run, k) : NULL;
    free(k);
    return r && r->status == PG_STATUS_OK && r->nsamples ? r : NULL;
}

static double median_of(const pg_result *r)
{
    return r ? r->summary.median : NAN;
}

/* The object `name` of a result's extra (new reference), or NULL. */
static json_t *extra_get(const pg_result *r, const char *name)
{
    json_t *doc = r && r->extra_json ? json_loads(r->extra_json, 0, NULL) : NULL;
    json_t *v = json_object_get(doc, name);

    if (v)
        json_incref(v);
    json_decref(doc);
    return v;
}

/* ---- functions ------------------------------------------------------- */

typedef struct fn_pair {
    const pg_profile_fn *base, *head;
    double delta;
} fn_pair;

static int by_abs_delta(const void *a, const void *b)
{
    double x = fabs(((const fn_pair *)a)->delta), y = fabs(((const fn_pair *)b)->delta);

    return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * A frame that holds the whole region (main, the harness around the
 * benchmark): its inclusive change is the case's, which says nothing.
 */
static int holds_all(const pg_profile_fn *f, const pg_profile *p)
{
    return p->total > 0 && f->incl >= 0.999 * p->total;
}

/*
 * The functions whose self (`incl` 0) or inclusive cost changed most, into
 * out[0..PG_DIAG_TOP); the inclusive list leaves out the frames around the
 * whole region.
 */
static int fn_deltas(pg_fn_delta **out, size_t *nout, const pg_profile *b, const pg_profile *h, int incl,
                     double change)
{
    fn_pair *pairs = calloc(b->nfns + h->nfns + 1, sizeof(*pairs));
    size_t i, n = 0;
    long j;

    *out = NULL;
    *nout = 0;
    if (!pairs)
        return pg_error_set(PG_ENOMEM, "out of memory diagnosing a case");
    for (i = 0; i < h->nfns; i++) {
        j = pg_profile_find(b, h->fns[i].name);
        if (incl && holds_all(&h->fns[i], h) && (j < 0 || holds_all(&b->fns[j], b)))
            continue;
        pairs[n].head = &h->fns[i];
        pairs[n].base = j >= 0 ? &b->fns[j] : NULL;
        pairs[n].delta = (incl ? h->fns[i].incl : h->fns[i].self) -
                         (j >= 0 ? (incl ? b->fns[j].incl : b->fns[j].self) : 0);
        n++;
    }
    for (i = 0; i < b->nfns; i++)
        if (pg_profile_find(h, b->fns[i].name) < 0 && !(incl && holds_all(&b->fns[i], b))) {
            pairs[n].base = &b->fns[i];
            pairs[n].delta = -(incl ? b->fns[i].incl : b->fns[i].self);
            n++;
        }
    qsort(pairs, n, sizeof(*pairs), by_abs_delta);
    while (n > 0 && pairs[n - 1].delta == 0)
        n--;
    if (n > PG_DIAG_TOP)
        n = PG_DIAG_TOP;
    if (n && !(*out = calloc(n, sizeof(**out)))) {
        free(pairs);
        return pg_error_set(PG_ENOMEM, "out of memory diagnosing a case");
    }
    for (i = 0; i < n; i++) {
        const pg_profile_fn *f = pairs[i].head ? pairs[i].head : pairs[i].base;
        pg_fn_delta *d = &(*out)[i];
        d->name = pg__strdup(f->name);
        d->file = f->file ? pg__strdup(f->file) : NULL;
        d->line = f->line;
        d->base = pairs[i].base ? (incl ? pairs[i].base->incl : pairs[i].base->self) : 0;
        d->head = pairs[i].head ? (incl ? pairs[i].head->incl : pairs[i].head->self) : 0;
        d->share = change != 0 ? pairs[i].delta / change : NAN;
        *nout = i + 1;
        if (!d->name || (f->file && !d->file)) {
            free(pairs);
            return pg_error_set(PG_ENOMEM, "out of memory diagnosing a case");
        }
    }
    free(pairs);
    return 0;
}

/* The profile a counted result carries, as pg_profile_to_json() text; NULL without one. */
static char *profile_text(const pg_result *r)
{
    json_t *p = extra_get(r, "profile");
    char *text = json_is_object(p) ? json_dumps(p, JSON_COMPACT | JSON_REAL_PRECISION(12)) : NULL;

    json_decref(p);
    return text;
}

static int add_count(pg_diagnosis *d, const char *what, const char *where, double base, double head, double base_s,
                     double head_s);

/* The calls from `from` to `to` per iteration in `p`, and their cost; 0 when none. */
static double calls_between(double *cost, const pg_profile *p, const char *from, const char *to)
{
    size_t i;

    *cost = 0;
    for (i = 0; i < p->ncalls; i++)
        if (strcmp(p->fns[p->calls[i].from].name, from) == 0 && strcmp(p->fns[p->calls[i].to].name, to) == 0) {
            *cost = p->calls[i].cost;
            return p->calls[i].count;
        }
    return 0;
}

/*
 * The call whose count per iteration changed (by one call at least) and
 * whose cost moved most: "+1 call of `sweep` per iteration under
 * `relax_iterate`". Only that one: the calls made inside it change with it.
 */
static int calls_changed(pg_diagnosis *d, const pg_profile *b, const pg_profile *h)
{
    const pg_profile *side[2] = {h, b};
    const char *from = NULL, *to = NULL;
    double best = 0, nb = 0, nh = 0;
    size_t i, k;

    for (k = 0; k < 2; k++)
        for (i = 0; i < side[k]->ncalls; i++) {
            const char *f = side[k]->fns[side[k]->calls[i].from].name, *t = side[k]->fns[side[k]->calls[i].to].name;
            double cb, ch, xb = calls_between(&cb, b, f, t), xh = calls_between(&ch, h, f, t);
            if (fabs(xh - xb) >= 0.5 && fabs(ch - cb) > best) {
                best = fabs(ch - cb);
                from = f;
                to = t;
                nb = xb;
                nh = xh;
            }
        }
    return to ? add_count(d, to, from, round(nb * 100) / 100, round(nh * 100) / 100, NAN, NAN) : 0;
}

/* Function deltas and both profiles, from the instructions results of each side. */
static int functions(pg_diagnosis *d, const pg_result *base, const pg_result *head)
{
    pg_profile b, h;
    double change;
    int err;

    d->base_profile = profile_text(base);
    d->head_profile = profile_text(head);
    if (!d->base_profile || !d->head_profile || pg_profile_from_json(&b, d->base_profile) != 0)
        return 0;
    if (pg_profile_from_json(&h, d->head_profile) != 0) {
        pg_profile_clear(&b);
        return 0;
    }
    change = isfinite(d->ir_head - d->ir_base) ? d->ir_head - d->ir_base : h.total - b.total;
    if ((err = fn_deltas(&d->self, &d->nself, &b, &h, 0, change)) == 0 &&
        (err = fn_deltas(&d->incl, &d->nincl, &b, &h, 1, change)) == 0 && !d->ncounts)
        err = calls_changed(d, &b, &h);
    pg_profile_clear(&b);
    pg_profile_clear(&h);
    return err;
}

/* ---- the line --------------------------------------------------------- */

/*
 * A name as a code span of the line. Names come from the build's symbols
 * and from traces: a backtick or a line break in one would end the span or
 * the line, so they become ' and a space; reporters escape the rest.
 */
static void code(pg_buf *b, const char *s)
{
    pg__buf_puts(b, "`");
    for (; s && *s; s++)
        pg__buf_put(b, *s == '`' ? "'" : *s == '\n' || *s == '\r' ? " " : s, 1);
    pg__buf_puts(b, "`");
}

/* Text outside the code spans: no backtick may open one. */
static void plain(pg_buf *b, const char *s)
{
    for (; s && *s; s++)
        pg__buf_put(b, *s == '`' ? "'" : *s == '\n' || *s == '\r' ? " " : s, 1);
}

static void fn_where(pg_buf *b, const pg_fn_delta *f)
{
    code(b, f->name);
    if (f->file) {
        pg__buf_puts(b, " (");
        plain(b, pg_cause_file_name(f->file));
        if (f->line > 0)
            pg__buf_printf(b, ":%d", f->line);
        pg__buf_puts(b, ")");
    }
}

static double pct(double base, double head)
{
    return base > 0 ? 100.0 * (head / base - 1) : NAN;
}

/* "+10.0 % instructions, 98 % of it in `sweep` (mylib.c:5)", or the two functions that share it. */
static void instructions_clause(pg_buf *b, const pg_diagnosis *d)
{
    const pg_fn_delta *top = d->nself ? &d->self[0] : NULL, *next = d->nself > 1 ? &d->self[1] : NULL;

    pg__buf_printf(b, "%+.1f %% instructions", pct(d->ir_base, d->ir_head));
    if (!top || !isfinite(top->share) || top->share <= 0)
        return;
    if (top->share >= 0.5) {
        pg__buf_printf(b, ", %.0f %% of it in ", 100 * fmin(top->share, 9.99));
        fn_where(b, top);
    } else if (next && isfinite(next->share) && next->share > 0 && top->share + next->share >= 0.5) {
        pg__buf_printf(b, ": %.0f %% in ", 100 * top->share);
        fn_where(b, top);
        pg__buf_printf(b, ", %.0f %% in ", 100 * next->share);
        fn_where(b, next);
    } else {
        pg__buf_printf(b, ", spread over many functions (the most, %.0f %%, in ", 100 * top->share);
        fn_where(b, top);
        pg__buf_puts(b, ")");
    }
}

/* "same instructions: a memory or layout effect" when they did not move beyond `threshold`. */
static int same_instructions(const pg_diagnosis *d, double threshold)
{
    return d->ir_base > 0 && fabs(d->ir_head - d->ir_base) <= threshold * d->ir_base;
}

static void same_clause(pg_buf *b, const pg_diagnosis *d)
{
    double c = pct(d->cycles_base, d->cycles_head);

    pg__buf_printf(b, "same instructions (%+.2f %%): a memory or layout effect", pct(d->ir_base, d->ir_head));
    if (isfinite(c) && fabs(c) >= 0.05)
        pg__buf_printf(b, " (est. cycles %+.1f %%)", c);
}

/* Heap traffic that moved: "+1 allocation (+4.0 KiB) per iteration". */
static int memory_clause(pg_buf *b, const pg_diagnosis *d)
{
    double da = d->allocs_head - d->allocs_base, db = d->bytes_head - d->bytes_base;
    char bytes[32];

    if (!isfinite(da) || !isfinite(db) || (da == 0 && db == 0))
        return 0;
    pg_fmt_value(bytes, sizeof(bytes), fabs(db), "B");
    if (da != 0)
        pg__buf_printf(b, "%+g allocation%s (%s%s) per iteration", da, fabs(da) == 1 ? "" : "s", db < 0 ? "-" : "+",
                       bytes);
    else
        pg__buf_printf(b, "%s%s more heap bytes per iteration", db < 0 ? "-" : "+", bytes);
    return 1;
}

/* The time an op's change moved per step (trace ops); 0 when unknown. */
static double moved(const pg_count_delta *c)
{
    double t = c->head_s - c->base_s;

    return isfinite(t) ? fabs(t) : 0;
}

/* The first count that changed: "+1 call of sgemm [64,96]x[96,64] per iteration", or an op per step. */
static void count_clause(pg_buf *b, const pg_diagnosis *d, const char *unit)
{
    const pg_count_delta *c = &d->counts[0];
    double delta = c->head - c->base;
    int trace = strcmp(d->source, "trace") == 0;

    if (trace) {
        pg__buf_printf(b, "%+g ", delta);
        code(b, c->what);
        pg__buf_printf(b, " per %s", unit);
    } else {
        pg__buf_printf(b, "%+g call%s of ", delta, fabs(delta) == 1 ? "" : "s");
        code(b, c->what);
        pg__buf_printf(b, " per %s", unit);
    }
    if (c->where && *c->where) {
        pg__buf_puts(b, " under ");
        code(b, c->where);
    }
    if (c->base == 0 || c->head == 0) {
        char t[32];
        pg_fmt_duration(t, sizeof(t), c->base == 0 ? c->head_s : c->base_s);
        pg__buf_printf(b, " (%s", c->base == 0 ? "new" : "gone");
        if (trace && moved(c) > 0)
            pg__buf_printf(b, ", %s of self time a step", t);
        pg__buf_puts(b, ")");
    }
    if (d->ncounts > 1)
        pg__buf_printf(b, "; %zu more %s%s changed", d->ncounts - 1, trace ? "op" : "call site",
                       d->ncounts > 2 ? "s" : "");
}

/*
 * The line: counts that changed first (they name the work), then the
 * instructions (or that they did not move), then the heap; two clauses at
 * most. `threshold` is the case's exact threshold; `timed`: the case's
 * change is not one of instructions, so unchanged ones are worth saying;
 * `cycles`: the case is the estimated cycles.
 */
static int make_line(pg_diagnosis *d, double threshold, int timed, int cycles)
{
    pg_buf b = PG_BUF_INIT;
    int clauses = 0;

    if (d->ncounts) {
        count_clause(&b, d, strcmp(d->source, "trace") == 0 ? "step" : "iteration");
        clauses++;
    }
    if (d->ir_base > 0 && isfinite(d->ir_head)) {
        pg__buf_puts(&b, clauses++ ? "; " : "");
        if (timed && same_instructions(d, threshold)) {
            same_clause(&b, d);
        } else {
            /* A change of the estimated cycles says first how far they moved, then where the instructions went. */
            if (cycles && d->cycles_base > 0)
                pg__buf_printf(&b, "est. cycles %+.1f %%: ", pct(d->cycles_base, d->cycles_head));
            instructions_clause(&b, d);
        }
    }
    if (clauses < 2) {
        size_t at = b.len;
        if (clauses)
            pg__buf_puts(&b, "; ");
        if (memory_clause(&b, d))
            clauses++;
        else if (b.ptr)
            b.ptr[b.len = at] = '\0';
    }
    if (!clauses)
        return 0;
    if (!b.ptr)
        return pg_error_set(PG_ENOMEM, "out of memory diagnosing a case");
    free(d->line);
    d->line = pg__buf_detach(&b);
    return 0;
}

/* ---- counted cases ------------------------------------------------------ */

static const char *metric_of(const pg_case_verdict *v)
{
    return v->head && v->head->metric ? v->head->metric : "";
}

static int counted_metric(const char *m)
{
    return strcmp(m, "instructions") == 0 || strcmp(m, "est_cycles") == 0 || strcmp(m, "bytes_per_iter") == 0 ||
           strcmp(m, "allocs_per_iter") == 0 || strcmp(m, "peak") == 0;
}

/* Whether a counted result's measurements agreed (meter.c writes extra.deterministic). */
static int deterministic(const pg_result *r)
{
    json_t *v = extra_get(r, "deterministic");
    int ok = !json_is_false(v);

    json_decref(v);
    return ok;
}

static void side_counts(pg_diagnosis *d, const pg_run *base, const pg_run *head, const char *key)
{
    d->ir_base = median_of(sibling(base, key, "instructions"));
    d->ir_head = median_of(sibling(head, key, "instructions"));
    d->cycles_base = median_of(sibling(base, key, "est_cycles"));
    d->cycles_head = median_of(sibling(head, key, "est_cycles"));
    d->bytes_base = median_of(sibling(base, key, "bytes_per_iter"));
    d->bytes_head = median_of(sibling(head, key, "bytes_per_iter"));
    d->allocs_base = median_of(sibling(base, key, "allocs_per_iter"));
    d->allocs_head = median_of(sibling(head, key, "allocs_per_iter"));
    d->nondeterministic = !deterministic(sibling(base, key, "instructions")) ||
                          !deterministic(sibling(head, key, "instructions"));
}

static int counted_case(pg_case_verdict *v, const pg_run *base, const pg_run *head)
{
    pg_diagnosis *d = diagnosis_new("counted");
    const char *m = metric_of(v);
    int err;

    if (!d)
        return pg_error_set(PG_ENOMEM, "out of memory diagnosing a case");
    side_counts(d, base, head, v->key);
    err = functions(d, sibling(base, v->key, "instructions"), sibling(head, v->key, "instructions"));
    /* Only the cycles can move by layout with the instructions unchanged; say so for them alone. */
    if (!err)
        err = make_line(d, isfinite(v->threshold) && v->threshold > 0 ? v->threshold : PG_EXACT_THRESHOLD,
                        strcmp(m, "est_cycles") == 0, strcmp(m, "est_cycles") == 0);
    if (!err && d->nondeterministic)
        d->note = pg__strdup("the instruction counts differed between measurements: the function deltas may be "
                             "off by as much");
    if (err || (!d->line && !d->nself)) {
        pg_diagnosis_free(d);
        return err;
    }
    v->diag = d;
    return 0;
}

/* ---- trace cases ---------------------------------------------------------- */

/* The ops of a trace summary (backend/trace.c: [name, path, count, exact]) as a new reference, or NULL. */
static json_t *trace_ops(const pg_result *r)
{
    json_t *t = extra_get(r, "trace"), *ops = json_object_get(t, "ops");

    if (json_is_array(ops))
        json_incref(ops);
    else
        ops = NULL;
    json_decref(t);
    return ops;
}

static json_t *find_op(json_t *ops, const char *name)
{
    json_t *e;
    size_t i;

    json_array_foreach(ops, i, e) if (json_is_string(json_array_get(e, 0)) &&
                                      strcmp(json_string_value(json_array_get(e, 0)), name) == 0) return e;
    return NULL;
}

/* "train_step > aten::index > aten::nonzero" below the step: what lies above the op ("train_step > aten::index"). */
static char *above(const char *path)
{
    const char *last = path ? strstr(path, " > ") : NULL, *p;

    if (!last)
        return NULL;
    while ((p = strstr(last + 3, " > ")) != NULL)
        last = p;
    return pg__asprintf("%.*s", (int)(last - path), path);
}

static int depth(const char *path)
{
    int n = 0;

    while (path && (path = strstr(path, " > ")) != NULL) {
        n++;
        path += 3;
    }
    return n;
}

static int add_count(pg_diagnosis *d, const char *what, const char *where, double base, double head, double base_s,
                     double head_s)
{
    pg_count_delta *p = realloc(d->counts, (d->ncounts + 1) * sizeof(*p));

    if (!p)
        return pg_error_set(PG_ENOMEM, "out of memory diagnosing a case");
    d->counts = p;
    p[d->ncounts].what = pg__strdup(what);
    p[d->ncounts].where = where ? pg__strdup(where) : NULL;
    p[d->ncounts].base = base;
    p[d->ncounts].head = head;
    p[d->ncounts].base_s = base_s;
    p[d->ncounts].head_s = head_s;
    d->ncounts++;
    return p[d->ncounts - 1].what ? 0 : pg_error_set(PG_ENOMEM, "out of memory diagnosing a case");
}

/* An op's median self time per step in seconds (the summary's fifth field; 0 in summaries made before it). */
static double self_s(json_t *e)
{
    json_t *t = json_array_get(e, 4);

    return json_is_number(t) ? json_number_value(t) * 1e-9 : 0;
}

static int trace_side(pg_diagnosis *d, json_t *mine, json_t *other, int head_side)
{
    json_t *e, *o;
    size_t i;
    int err = 0;

    json_array_foreach(mine, i, e) {
        const char *name = json_string_value(json_array_get(e, 0));
        const char *path = json_string_value(json_array_get(e, 1));
        double n = json_number_value(json_array_get(e, 2)), m, t = self_s(e), u;
        char *where;
        if (!name || err)
            continue;
        o = find_op(other, name);
        m = o ? json_number_value(json_array_get(o, 2)) : 0;
        u = o ? self_s(o) : 0;
        /* Changed counts are found from the head's side; the base's adds the ops that disappeared. */
        if ((head_side && m == n) || (!head_side && o))
            continue;
        where = above(path);
        err = head_side ? add_count(d, name, where, m, n, u, t) : add_count(d, name, where, n, 0, t, 0);
        free(where);
    }
    return err;
}

/*
 * Appeared and disappeared first; among them the one that moved the most
 * time per step (where a trace says), then the outermost; then the largest
 * count changes.
 */
static int by_news(const void *a, const void *b)
{
    const pg_count_delta *x = a, *y = b;
    int nx = x->base == 0 || x->head == 0, ny = y->base == 0 || y->head == 0;
    int dx = depth(x->where), dy = depth(y->where);
    double cx = fabs(x->head - x->base), cy = fabs(y->head - y->base), tx = moved(x), ty = moved(y);

    if (nx != ny)
        return ny - nx;
    if (tx != ty)
        return tx < ty ? 1 : -1;
    if (dx != dy)
        return dx - dy;
    return cx < cy ? 1 : cx > cy ? -1 : strcmp(x->what, y->what);
}

static int trace_case(pg_case_verdict *v)
{
    json_t *h = trace_ops(v->head), *b = trace_ops(v->base);
    pg_diagnosis *d = NULL;
    int err = 0;

    if (h && b && !(d = diagnosis_new("trace")))
        err = pg_error_set(PG_ENOMEM, "out of memory diagnosing a case");
    if (d && !(err = trace_side(d, h, b, 1)) && !(err = trace_side(d, b, h, 0)) && d->ncounts) {
        qsort(d->counts, d->ncounts, sizeof(*d->counts), by_news);
        err = make_line(d, 0, 1, 0);
    }
    if (!err && d && d->ncounts == 0)
        d->line = pg__strdup("the same ops per step: the ops' own times changed (see their self times)");
    json_decref(h);
    json_decref(b);
    if (err || !d) {
        pg_diagnosis_free(d);
        return err;
    }
    v->diag = d;
    return 0;
}

int pg_cause_attach(pg_comparison *cmp)
{
    size_t i;
    int err = 0;

    for (i = 0; i < cmp->ncases && !err; i++) {
        pg_case_verdict *v = &cmp->cases[i];
        json_t *t;
        if (v->diag || (v->verdict != PG_VERDICT_REGRESSED && v->verdict != PG_VERDICT_IMPROVED) || !v->head ||
            !v->base)
            continue;
        if (counted_metric(metric_of(v))) {
            err = counted_case(v, cmp->base, cmp->head);
            continue;
        }
        if ((t = trace_ops(v->head)) != NULL) {
            json_decref(t);
            err = trace_case(v);
        }
    }
    return err;
}

/* ---- timed cases counted by the gate -------------------------------------- */

/* Calls of one (op, shape) on each side. */
typedef struct call_sum {
    char *what;              /* "sgemm [64,96]x[96,64]" */
    const char *where;       /* the range of its first call site */
    double calls[2];
} call_sum;

/* The BLAS calls per (op, shape) that changed between the two runs of a `count: blas` command. */
static int blas_counts(pg_diagnosis *d, const pg_counts *b, const pg_counts *h)
{
    const pg_counts *side[2] = {b, h};
    call_sum *s = calloc(b->n + h->n + 1, sizeof(*s));
    pg_keymap seen = PG_KEYMAP_INIT;
    size_t n = 0, i, k, at;
    int err = s ? 0 : pg_error_set(PG_ENOMEM, "out of memory diagnosing a case");

    d->flops_base = (double)b->total;
    d->flops_head = (double)h->total;
    for (k = 0; k < 2 && !err; k++)
        for (i = 0; i < side[k]->n && !err; i++) {
            const pg_count_row *r = &side[k]->rows[i];
            char *what = pg__asprintf("%s %s", r->op, r->shape ? r->shape : "");
            if (!what) {
                err = pg_error_set(PG_ENOMEM, "out of memory diagnosing a case");
            } else if (pg__keymap_get(&seen, what, &at)) {
                s[at].calls[k] += (double)r->calls;
                free(what);
            } else {
                s[n].what = what;
                s[n].where = r->range && *r->range ? r->range : NULL;
                s[n].calls[k] = (double)r->calls;
                if (pg__keymap_put(&seen, what, n++) != 0)
                    err = pg_error_set(PG_ENOMEM, "out of memory diagnosing a case");
            }
        }
    for (i = 0; i < n && !err; i++)
        if (s[i].calls[0] != s[i].calls[1])
            err = add_count(d, s[i].what, s[i].where, s[i].calls[0], s[i].calls[1], NAN, NAN);
    if (!err && d->ncounts)
        qsort(d->counts, d->ncounts, sizeof(*d->counts), by_news);
    pg__keymap_clear(&seen);
    for (i = 0; s && i < n; i++)
        free(s[i].what);
    free(s);
    return err;
}

int pg_cause_from_counts(pg_diagnosis **out, const pg_case_verdict *v, const pg_cause_counts *in)
{
    pg_diagnosis *d = diagnosis_new("recounted");
    const pg_result *ir;
    int err = 0;

    *out = NULL;
    if (!d)
        return pg_error_set(PG_ENOMEM, "out of memory diagnosing a case");
    d->seconds = in->seconds;
    side_counts(d, in->base, in->head, v->key);
    if (!isfinite(d->ir_base))
        d->cycles_base = d->cycles_head = NAN;
    /* The BLAS calls first: when they changed, they name the work better than a call between functions. */
    if (in->base_blas && in->head_blas)
        err = blas_counts(d, in->base_blas, in->head_blas);
    if (!err)
        err = functions(d, sibling(in->base, v->key, "instructions"), sibling(in->head, v->key, "instructions"));
    ir = sibling(in->head, v->key, "instructions");
    if (!err)
        err = make_line(d, ir && ir->threshold > 0 ? ir->threshold : PG_EXACT_THRESHOLD, 1, 0);
    if (!err && (in->note || d->nondeterministic))
        d->note = pg__asprintf("%s%s%s", in->note ? in->note : "", in->note && d->nondeterministic ? "; " : "",
                               d->nondeterministic ? "the instruction counts differed between measurements of one "
                                                     "build: the deltas may be off by as much"
                                                   : "");
    if (err || (!d->line && !d->note)) {
        pg_diagnosis_free(d);
        return err;
    }
    *out = d;
    return 0;
}
