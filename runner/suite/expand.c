/*
 * expand.c - a benchmark's parameter matrix into cases: `zip` groups,
 * the cap on cases per suite, and the expansion itself.
 */
#include "suite/internal.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static int dim_cmp(const void *a, const void *b)
{
    return strcmp(((const pg__dim *)a)->name, ((const pg__dim *)b)->name);
}

/* Copies the settings every expanded case of a benchmark shares. */
static int fill_common(pg_case *c, const pg_case *proto)
{
    size_t i;

    c->suite = pg__strdup(proto->suite);
    c->name = pg__strdup(proto->name);
    c->kernel = pg__strdup(proto->kernel);
    c->plugin = pg__strdup(proto->plugin);
    c->symbol = pg__strdup(proto->symbol);
    c->device = pg__strdup(proto->device);
    c->timeout = proto->timeout;
    c->metrics = pg__strdup(proto->metrics);
    c->keep_output = proto->keep_output;
    if ((proto->trace && !(c->trace = pg__strdup(proto->trace))) ||
        (proto->trace_step && !(c->trace_step = pg__strdup(proto->trace_step))))
        return PG_ENOMEM;
    if (proto->ntrace_ops) {
        if (!(c->trace_ops = calloc(proto->ntrace_ops, sizeof(char *))))
            return PG_ENOMEM;
        for (i = 0; i < proto->ntrace_ops; i++)
            if (!(c->trace_ops[c->ntrace_ops++] = pg__strdup(proto->trace_ops[i])))
                return PG_ENOMEM;
    }
    if (proto->ntrace_metrics) {
        if (!(c->trace_metrics = calloc(proto->ntrace_metrics, sizeof(char *))))
            return PG_ENOMEM;
        for (i = 0; i < proto->ntrace_metrics; i++)
            if (!(c->trace_metrics[c->ntrace_metrics++] = pg__strdup(proto->trace_metrics[i])))
                return PG_ENOMEM;
    }
    c->cold = proto->cold;
    c->count_blas = proto->count_blas;
    c->min_run_time = proto->min_run_time;
    c->max_run_time = proto->max_run_time;
    c->warmup = proto->warmup;
    c->min_samples = proto->min_samples;
    c->threshold = proto->threshold;
    c->alpha = proto->alpha;
    c->instruments = proto->instruments;
    c->exact_threshold = proto->exact_threshold;
    c->node = proto->node;
    if (!c->suite || !c->name || !c->device)
        return PG_ENOMEM;
    if (proto->command) {
        size_t n = 0;
        while (proto->command[n])
            n++;
        if (!(c->command = calloc(n + 1, sizeof(char *))))
            return PG_ENOMEM;
        for (i = 0; i < n; i++)
            if (!(c->command[i] = pg__strdup(proto->command[i])))
                return PG_ENOMEM;
    }
    if (proto->nenv) {
        if (!(c->env = calloc(proto->nenv + 1, sizeof(char *))))
            return PG_ENOMEM;
        for (i = 0; i < proto->nenv; i++)
            if (!(c->env[c->nenv++] = pg__strdup(proto->env[i])))
                return PG_ENOMEM;
    }
    if (proto->ntags) {
        if (!(c->tags = calloc(proto->ntags, sizeof(char *))))
            return PG_ENOMEM;
        for (i = 0; i < proto->ntags; i++)
            if (!(c->tags[c->ntags++] = pg__strdup(proto->tags[i])))
                return PG_ENOMEM;
    }
    return 0;
}

static int push_case(pg__loader *L, pg_case *c)
{
    pg_suite *s = L->s;

    if (s->ncases == L->cap_cases) {
        size_t cap = L->cap_cases ? L->cap_cases * 2 : 16;
        pg_case *p = realloc(s->cases, cap * sizeof(*p));
        if (!p)
            return PG_ENOMEM;
        s->cases = p;
        L->cap_cases = cap;
    }
    s->cases[s->ncases++] = *c;
    memset(c, 0, sizeof(*c));
    return 0;
}

/*
 * Expands the matrix: dims are sorted by name, each axis is one parameter or
 * one zip group, the last axis varies fastest and threads innermost. The
 * order follows names, never the order of keys in the file.
 */
static int expand(pg__loader *L, const pg_case *proto, const pg__dim *dims, size_t ndims, size_t naxes,
                  const size_t *axis_count, const int64_t *threads, size_t nthreads)
{
    size_t *idx = calloc(naxes ? naxes : 1, sizeof(*idx)), i, t;
    pg_case c = {0};

    if (!idx)
        goto oom;
    for (;;) {
        for (t = 0; t < nthreads; t++) {
            if (fill_common(&c, proto) != 0)
                goto oom;
            c.threads = (int)threads[t];
            if (!(c.params = calloc(ndims ? ndims : 1, sizeof(pg_param))))
                goto oom;
            for (i = 0; i < ndims; i++) {
                const pg__pval *v = &dims[i].vals[dims[i].count > 1 ? idx[dims[i].axis] : 0];
                c.params[i].name = pg__strdup(dims[i].name);
                c.params[i].value = pg__strdup(v->text);
                c.params[i].is_number = v->is_number;
                c.params[i].num = v->num;
                c.nparams++;
                if (!c.params[i].name || !c.params[i].value)
                    goto oom;
            }
            if (pg__case_finish(&c) != 0 || push_case(L, &c) != 0)
                goto oom;
        }
        /* Odometer: the last axis turns fastest. */
        for (i = naxes; i > 0; i--) {
            if (++idx[i - 1] < axis_count[i - 1])
                break;
            idx[i - 1] = 0;
        }
        if (i == 0)
            break;
    }
    free(idx);
    return 0;
oom:
    pg_case_clear(&c);
    free(idx);
    pg__diag_add(L->d, proto->node, "out of memory expanding '%s'", proto->name);
    return -1;
}

/* Reads `zip: [[a, b], [c, d]]`: each group's lists are paired element by element. */
int pg__parse_zip(pg_diags *d, pg__dim *dims, size_t ndims, const pg_node *zip)
{
    size_t g, i, j;
    int bad = 0;
    char sug[96];

    if (zip->type != PG_NODE_SEQ || zip->count == 0) {
        pg__diag_add(d, zip, "zip must be a non-empty list of groups of parameter names, e.g. [[m, n]]");
        return -1;
    }
    for (g = 0; g < zip->count; g++) {
        const pg_node *grp = zip->items[g];
        size_t first = (size_t)-1;
        if (grp->type != PG_NODE_SEQ || grp->count < 2) {
            pg__diag_add(d, grp, "each zip group is a list of two or more parameter names, e.g. [m, n]");
            bad = 1;
            continue;
        }
        for (i = 0; i < grp->count; i++) {
            const pg_node *nm = grp->items[i];
            const char *names[65];
            size_t nn = 0;
            pg__dim *dm = NULL;
            if (pg__scalar_of(d, nm, "a zipped name") != 0) {
                bad = 1;
                continue;
            }
            for (j = 0; j < ndims; j++) {
                if (strcmp(dims[j].name, nm->scalar) == 0)
                    dm = &dims[j];
                if (nn < 64)
                    names[nn++] = dims[j].name;
            }
            names[nn] = NULL;
            if (!dm) {
                pg__diag_add(d, nm, "zip names '%s', which is not a parameter of this benchmark%s",
                             nm->scalar, pg__dym(sug, sizeof(sug), nm->scalar, names));
                bad = 1;
                continue;
            }
            if (dm->zip >= 0) {
                pg__diag_add(d, nm, "parameter '%s' is zipped twice", dm->name);
                bad = 1;
                continue;
            }
            dm->zip = (int)g;
            if (first == (size_t)-1) {
                first = (size_t)(dm - dims);
            } else if (dims[first].count != dm->count) {
                pg__diag_add(d, nm, "zip pairs lists of equal length: '%s' has %zu value%s, '%s' has %zu",
                             dims[first].name, dims[first].count, dims[first].count == 1 ? "" : "s",
                             dm->name, dm->count);
                bad = 1;
            }
        }
    }
    return bad ? -1 : 0;
}

/* Counts the cases a benchmark expands to and reports the cap once. */
static int within_cap(pg__loader *L, const char *name, const pg_node *at, const pg__dim *dims, size_t ndims,
                      size_t naxes, const size_t *axis_count, size_t nthreads)
{
    double count = (double)nthreads;
    size_t i, cap = L->opts->max_cases;
    pg_buf why = PG_BUF_INIT;
    int ok;

    for (i = 0; i < naxes; i++)
        count *= (double)axis_count[i];
    L->planned += count;
    ok = L->planned <= (double)cap;
    if (ok || L->over_cap)
        return ok;
    L->over_cap = 1;
    for (i = 0; i < ndims; i++)
        if (dims[i].count > 1)
            pg__buf_printf(&why, "%s%s:%zu", why.len ? " x " : "", dims[i].name, dims[i].count);
    if (nthreads > 1)
        pg__buf_printf(&why, "%sthreads:%zu", why.len ? " x " : "", nthreads);
    if (L->planned == count)
        pg__diag_add(L->d, at, "benchmark '%s' expands to %.0f cases%s%s%s, over the cap of %zu cases per suite",
                     name, count, why.len ? " (" : "", why.len ? why.ptr : "", why.len ? ")" : "", cap);
    else
        pg__diag_add(L->d, at, "benchmark '%s' expands to %.0f cases%s%s%s, bringing the suite to %.0f, "
                     "over the cap of %zu cases per suite", name, count, why.len ? " (" : "",
                     why.len ? why.ptr : "", why.len ? ")" : "", L->planned, cap);
    pg__buf_clear(&why);
    return 0;
}

void pg__expand(pg__loader *L, const pg_case *proto, pg__dim *dims, size_t ndims, const int64_t *threads,
                size_t nthreads)
{
    size_t *axis_count, naxes = 0, i, j;

    /* Axes: one per listed parameter or zip group, in parameter-name order. */
    qsort(dims, ndims, sizeof(*dims), dim_cmp);
    if (!(axis_count = calloc(ndims + 1, sizeof(*axis_count))))
        return;
    for (i = 0; i < ndims; i++) {
        if (dims[i].count <= 1)
            continue;
        for (j = 0; j < i; j++)
            if (dims[i].zip >= 0 && dims[j].zip == dims[i].zip)
                break;
        if (j < i) {
            dims[i].axis = dims[j].axis;
            continue;
        }
        dims[i].axis = naxes;
        axis_count[naxes++] = dims[i].count;
    }
    if (within_cap(L, proto->name, proto->node, dims, ndims, naxes, axis_count, nthreads))
        expand(L, proto, dims, ndims, naxes, axis_count, threads, nthreads);
    free(axis_count);
}
