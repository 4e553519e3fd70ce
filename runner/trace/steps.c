/*
 * steps.c - splitting a trace into steps and computing per-step metrics
 * (steps.h has the definitions): which step each event belongs to, self
 * times with clamping, first-occurrence paths, and the GPU stream analysis.
 */
#include "trace/steps.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define PATH_DEPTH 6

const char *pg_trace_op_kind_name(pg_trace_op_kind k)
{
    switch (k) {
    case PG_TRACE_OP_RUNTIME: return "runtime";
    case PG_TRACE_OP_KERNEL: return "kernel";
    case PG_TRACE_OP_MEMCPY: return "memcpy";
    case PG_TRACE_OP_MEMSET: return "memset";
    case PG_TRACE_OP_CPU: break;
    }
    return "cpu";
}

int pg_trace_steps_new(pg_trace_steps **out)
{
    *out = calloc(1, sizeof(**out));
    return *out ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
}

void pg_trace_steps_free(pg_trace_steps *s)
{
    size_t i;

    if (!s)
        return;
    for (i = 0; i < s->nsteps; i++) {
        free(s->steps[i].name);
        free(s->steps[i].source);
    }
    for (i = 0; i < s->nops; i++) {
        free(s->ops[i].name);
        free(s->ops[i].path);
    }
    free(s->steps);
    free(s->ops);
    free(s->cells);
    free(s->hash);
    free(s);
}

static uint64_t hash_str(const char *p)
{
    uint64_t h = 1469598103934665603ULL;

    for (; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    return h;
}

long pg_trace_steps_find(const pg_trace_steps *s, const char *name)
{
    size_t i;

    if (!s->hcap)
        return -1;
    for (i = hash_str(name) & (s->hcap - 1); s->hash[i]; i = (i + 1) & (s->hcap - 1))
        if (strcmp(s->ops[s->hash[i] - 1].name, name) == 0)
            return (long)s->hash[i] - 1;
    return -1;
}

static int rehash(pg_trace_steps *s, size_t cap)
{
    uint32_t *h = calloc(cap, sizeof(*h));
    size_t i, j;

    if (!h)
        return PG_ENOMEM;
    for (i = 0; i < s->nops; i++) {
        for (j = hash_str(s->ops[i].name) & (cap - 1); h[j]; j = (j + 1) & (cap - 1))
            ;
        h[j] = (uint32_t)(i + 1);
    }
    free(s->hash);
    s->hash = h;
    s->hcap = cap;
    return 0;
}

static pg_trace_op_kind kind_of(const char *cat)
{
    if (strcasecmp(cat, "kernel") == 0)
        return PG_TRACE_OP_KERNEL;
    if (strcasecmp(cat, "gpu_memcpy") == 0)
        return PG_TRACE_OP_MEMCPY;
    if (strcasecmp(cat, "gpu_memset") == 0)
        return PG_TRACE_OP_MEMSET;
    if (strcasecmp(cat, "cuda_runtime") == 0 || strcasecmp(cat, "cuda_driver") == 0)
        return PG_TRACE_OP_RUNTIME;
    return PG_TRACE_OP_CPU;
}

/* Index of the op `name` (added when new, with `path`); -1 on out of memory. */
static long op_index(pg_trace_steps *s, const char *name, pg_trace_op_kind kind, size_t *cap)
{
    long i = pg_trace_steps_find(s, name);
    pg_trace_op *op;

    if (i >= 0)
        return i;
    if ((s->nops + 1) * 2 > s->hcap && rehash(s, s->hcap ? s->hcap * 2 : 64) != 0)
        return -1;
    if (s->nops == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        pg_trace_op *p = realloc(s->ops, nc * sizeof(*p));
        if (!p)
            return -1;
        s->ops = p;
        *cap = nc;
    }
    op = &s->ops[s->nops];
    memset(op, 0, sizeof(*op));
    op->kind = kind;
    if (!(op->name = pg__strdup(name)))
        return -1;
    {
        size_t j;
        for (j = hash_str(name) & (s->hcap - 1); s->hash[j]; j = (j + 1) & (s->hcap - 1))
            ;
        s->hash[j] = (uint32_t)(s->nops + 1);
    }
    return (long)s->nops++;
}

/* "train_step > aten::index > aten::nonzero": the ancestors below `step`, then the event. */
static char *path_of(const pg_trace *t, size_t ev, size_t step)
{
    int32_t chain[PATH_DEPTH];
    int n = 0;
    int32_t p = t->events[ev].parent;
    pg_buf b = PG_BUF_INIT;

    while (p >= 0 && (size_t)p != step && n < PATH_DEPTH) {
        chain[n++] = p;
        p = t->events[p].parent;
    }
    if (p >= 0 && (size_t)p != step)
        pg__buf_puts(&b, "... > ");
    while (n-- > 0)
        pg__buf_printf(&b, "%s > ", pg_trace_str(t, t->events[chain[n]].name));
    pg__buf_puts(&b, pg_trace_str(t, t->events[ev].name));
    return pg__buf_detach(&b);
}

/* The CPU call an event hangs under (itself for CPU events). */
static size_t anchor_of(const pg_trace *t, size_t ev)
{
    size_t guard = 0;

    while (t->events[ev].device && t->events[ev].parent >= 0 && guard++ < 64)
        ev = (size_t)t->events[ev].parent;
    return ev;
}

/* The step (index into `steps`, sorted by ts) whose range holds `ts`, or -1. */
static long step_at(const pg_trace *t, const size_t *steps, size_t n, int64_t ts)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->events[steps[mid]].ts <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    lo--;
    return ts < t->events[steps[lo]].ts + t->events[steps[lo]].dur || ts == t->events[steps[lo]].ts ? (long)lo : -1;
}

typedef struct dev_ev {
    uint64_t stream;
    int64_t ts, end, launch;     /* launch: start of the CPU call that launched it, -1 unknown */
    long step;
} dev_ev;

static int dev_cmp(const void *pa, const void *pb)
{
    const dev_ev *a = pa, *b = pb;

    if (a->step != b->step)
        return a->step < b->step ? -1 : 1;
    if (a->stream != b->stream)
        return a->stream < b->stream ? -1 : 1;
    return a->ts < b->ts ? -1 : a->ts > b->ts;
}

/* HTA's idle-time breakdown per stream, summed per step. */
static void gpu_analysis(pg_trace_step *steps, dev_ev *d, size_t n, const pg_trace_steps_options *o)
{
    size_t i;
    int64_t end = 0; /* furthest end so far on this stream in this step */

    qsort(d, n, sizeof(*d), dev_cmp);
    for (i = 0; i < n; i++) {
        pg_trace_gpu *g = &steps[d[i].step].gpu;
        int first = i == 0 || d[i - 1].step != d[i].step || d[i - 1].stream != d[i].stream;
        if (first) {
            g->busy_ns += d[i].end - d[i].ts;
            end = d[i].end;
            continue;
        }
        if (d[i].ts > end) {
            int64_t gap = d[i].ts - end;
            g->idle_ns += gap;
            if (d[i].launch >= 0 && d[i].launch > end)
                g->host_wait_ns += gap;
            else if (gap < o->kernel_wait_ns)
                g->kernel_wait_ns += gap;
            else
                g->other_wait_ns += gap;
            g->busy_ns += d[i].end - d[i].ts;
            end = d[i].end;
        } else if (d[i].end > end) {
            g->busy_ns += d[i].end - end;
            end = d[i].end;
        }
    }
}

static int is_sync(const char *name)
{
    return strcmp(name, "cudaStreamSynchronize") == 0 || strcmp(name, "cudaDeviceSynchronize") == 0;
}

int pg_trace_steps_add(pg_trace_steps *s, const pg_trace *t, const char *source, const pg_trace_steps_options *opts)
{
    pg_trace_steps_options o = PG_TRACE_STEPS_OPTIONS_INIT;
    const char *glob;
    size_t *steps = NULL, nsteps = 0, i, opcap = s->nops, ndev = 0, old_ops = s->nops;
    int64_t *self = NULL;
    long *step_of = NULL, *op_of = NULL;
    dev_ev *dev = NULL;
    char *is_step = NULL;
    pg_trace_cell *cells = NULL;
    pg_trace_step *ns;
    int err = PG_ENOMEM;

    if (opts)
        o = *opts;
    glob = o.step ? o.step : "ProfilerStep#*";
    if (!o.small_kernel_ns)
        o.small_kernel_ns = PG_TRACE_SMALL_KERNEL_NS;
    if (!o.kernel_wait_ns)
        o.kernel_wait_ns = PG_TRACE_KERNEL_WAIT_NS;
    if (t->nevents == 0)
        return 0;
    if (!(steps = malloc(t->nevents * sizeof(*steps))) || !(is_step = calloc(t->nevents, 1)) ||
        !(self = malloc(t->nevents * sizeof(*self))) || !(step_of = malloc(t->nevents * sizeof(*step_of))) ||
        !(op_of = malloc(t->nevents * sizeof(*op_of))) || !(dev = malloc(t->nevents * sizeof(*dev))))
        goto cleanup;
    /* Steps: matching CPU ranges, outermost only (events are in start order, parents come first). */
    for (i = 0; i < t->nevents; i++) {
        const pg_trace_event *e = &t->events[i];
        int32_t p;
        int nested = 0;
        if (e->device || !pg__glob(glob, pg_trace_str(t, e->name)))
            continue;
        for (p = e->parent; p >= 0 && !nested; p = t->events[p].parent)
            nested = is_step[p];
        if (nested)
            continue;
        is_step[i] = 1;
        steps[nsteps++] = i;
    }
    if (nsteps == 0) {
        err = 0;
        goto cleanup;
    }
    /* Self time: duration minus the children on the same thread; GPU work is another timeline. */
    for (i = 0; i < t->nevents; i++)
        self[i] = t->events[i].dur;
    for (i = 0; i < t->nevents; i++) {
        const pg_trace_event *e = &t->events[i];
        if (e->parent >= 0) {
            const pg_trace_event *p = &t->events[e->parent];
            if (!e->device && !p->device && p->pid == e->pid && p->tid == e->tid)
                self[e->parent] -= e->dur;
        }
    }
    for (i = 0; i < t->nevents; i++) {
        size_t a = anchor_of(t, i);
        const pg_trace_event *e = &t->events[i];
        const char *cat = pg_trace_str(t, e->cat);
        long op;
        op_of[i] = -1;
        step_of[i] = is_step[i] ? -1 : step_at(t, steps, nsteps, t->events[a].ts);
        if (step_of[i] < 0 || strcasecmp(cat, "gpu_user_annotation") == 0)
            continue;
        if ((op = op_index(s, pg_trace_str(t, e->name), kind_of(cat), &opcap)) < 0)
            goto cleanup;
        op_of[i] = op;
        if (!s->ops[op].path && !(s->ops[op].path = path_of(t, i, steps[step_of[i]])))
            goto cleanup;
        if (e->device) {
            dev_ev *d = &dev[ndev++];
            d->stream = ((uint64_t)e->pid << 32) | e->tid;
            d->ts = e->ts;
            d->end = e->ts + e->dur;
            d->launch = a != i ? t->events[a].ts : -1;
            d->step = step_of[i];
        }
    }
    /* Grow the steps and the cell matrix (nops x nsteps, old cells copied). */
    if (!(ns = realloc(s->steps, (s->nsteps + nsteps) * sizeof(*ns))))
        goto cleanup;
    s->steps = ns;
    if (!(cells = calloc(s->nops * (s->nsteps + nsteps) + 1, sizeof(*cells))))
        goto cleanup;
    for (i = 0; i < old_ops; i++)
        memcpy(&cells[i * (s->nsteps + nsteps)], &s->cells[i * s->nsteps], s->nsteps * sizeof(*cells));
    for (i = 0; i < nsteps; i++) {
        pg_trace_step *st = &s->steps[s->nsteps + i];
        memset(st, 0, sizeof(*st));
        st->ts = t->events[steps[i]].ts - t->origin;
        st->dur = t->events[steps[i]].dur;
        st->round = s->sources;
        if (!(st->name = pg__strdup(pg_trace_str(t, t->events[steps[i]].name))) ||
            !(st->source = pg__strdup(source ? source : "trace"))) {
            s->nsteps += i + 1; /* freed with the object */
            goto cleanup;
        }
    }
    for (i = 0; i < t->nevents; i++) {
        const pg_trace_event *e = &t->events[i];
        size_t st = s->nsteps + (size_t)step_of[i];
        pg_trace_cell *c;
        pg_trace_op *op;
        if (op_of[i] < 0)
            continue;
        op = &s->ops[op_of[i]];
        c = &cells[(size_t)op_of[i] * (s->nsteps + nsteps) + st];
        c->count++;
        c->total_ns += e->dur;
        if (self[i] < 0) {
            op->clamped++;
            s->clamped++;
        } else {
            c->self_ns += self[i];
        }
        if (e->device) {
            pg_trace_gpu *g = &s->steps[st].gpu;
            s->gpu = 1;
            if (op->kind == PG_TRACE_OP_KERNEL) {
                g->kernels++;
                g->small_kernels += e->dur < o.small_kernel_ns;
            }
            if (op->kind == PG_TRACE_OP_MEMCPY && strstr(op->name, "DtoH"))
                g->dtoh++;
        } else if (is_sync(op->name)) {
            s->steps[st].gpu.syncs++;
        }
    }
    for (i = 0; i < ndev; i++)
        dev[i].step += (long)s->nsteps;
    gpu_analysis(s->steps, dev, ndev, &o);
    free(s->cells);
    s->cells = cells;
    cells = NULL;
    s->nsteps += nsteps;
    s->sources++;
    err = 0;

cleanup:
    if (err)
        pg_error_set(err, "out of memory splitting %s into steps", source ? source : "a trace");
    free(cells);
    free(steps);
    free(is_step);
    free(self);
    free(step_of);
    free(op_of);
    free(dev);
    return err;
}

/* The distinct range names of a trace that has no step, for the error message. */
static void name_ranges(pg_buf *b, const pg_trace *t)
{
    size_t i, shown = 0;

    for (i = 0; i < t->nevents && shown < 5; i++) {
        const pg_trace_event *e = &t->events[i];
        size_t j;
        int seen = 0;
        if (e->parent >= 0 || e->device || e->dur == 0)
            continue;
        for (j = 0; j < i && !seen; j++)
            seen = t->events[j].parent < 0 && t->events[j].name == e->name && !t->events[j].device;
        if (seen)
            continue;
        pg__buf_printf(b, "%s'%s'", shown++ ? ", " : "", pg_trace_str(t, e->name));
    }
}

static int add_file(pg_trace_steps *s, const char *path, const pg_trace_steps_options *opts, pg_buf *tops)
{
    pg_trace_read_options ro = PG_TRACE_READ_OPTIONS_INIT;
    pg_trace *t = NULL;
    size_t before = s->nsteps;
    int err;

    ro.max_events = opts ? opts->max_events : 0;
    if ((err = pg_trace_read_file(&t, path, &ro)) != 0)
        return err;
    err = pg_trace_steps_add(s, t, path, opts);
    if (!err && s->nsteps == before && tops->len == 0)
        name_ranges(tops, t);
    pg_trace_free(t);
    return err;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int pg_trace_steps_load(pg_trace_steps **out, const char *path, const pg_trace_steps_options *opts)
{
    pg_trace_steps *s = NULL;
    pg_buf tops = PG_BUF_INIT;
    struct stat st;
    char **files = NULL;
    size_t nfiles = 0, i;
    int err;

    *out = NULL;
    if ((err = pg_trace_steps_new(&s)) != 0)
        return err;
    if (stat(path, &st) != 0) {
        err = pg_error_set(PG_EIO, "%s: cannot open trace: %s", path, strerror(errno));
        goto cleanup;
    }
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *de;
        if (!d) {
            err = pg_error_set(PG_EIO, "%s: cannot read the trace directory: %s", path, strerror(errno));
            goto cleanup;
        }
        while ((de = readdir(d)) != NULL) {
            size_t l = strlen(de->d_name);
            char **p;
            if (de->d_name[0] == '.' || l < 6 || strcmp(de->d_name + l - 5, ".json") != 0)
                continue;
            if (!(p = realloc(files, (nfiles + 1) * sizeof(*p))) ||
                !(p[nfiles] = pg__asprintf("%s/%s", path, de->d_name))) {
                if (p)
                    files = p;
                closedir(d);
                err = pg_error_set(PG_ENOMEM, "out of memory listing %s", path);
                goto cleanup;
            }
            files = p;
            nfiles++;
        }
        closedir(d);
        if (nfiles == 0) {
            err = pg_error_set(PG_EINVAL, "%s: no *.json trace file in this directory", path);
            goto cleanup;
        }
        qsort(files, nfiles, sizeof(*files), name_cmp);
        for (i = 0; i < nfiles; i++)
            if ((err = add_file(s, files[i], opts, &tops)) != 0)
                goto cleanup;
    } else if ((err = add_file(s, path, opts, &tops)) != 0) {
        goto cleanup;
    }
    if (s->nsteps == 0) {
        err = pg_error_set(PG_EINVAL, "%s: no step: no range matches '%s'%s%s%s", path,
                           opts && opts->step ? opts->step : "ProfilerStep#*",
                           tops.len ? " (top-level events: " : "", tops.len ? tops.ptr : "", tops.len ? ")" : "");
        goto cleanup;
    }
    *out = s;
    s = NULL;

cleanup:
    for (i = 0; i < nfiles; i++)
        free(files[i]);
    free(files);
    pg__buf_clear(&tops);
    pg_trace_steps_free(s);
    return err;
}

int pg_trace_steps_series(double **out, const pg_trace_steps *s, size_t op, pg_trace_series what)
{
    size_t i;
    double *x = malloc((s->nsteps ? s->nsteps : 1) * sizeof(*x));

    *out = NULL;
    if (!x)
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (i = 0; i < s->nsteps; i++) {
        const pg_trace_cell *c = &s->cells[op * s->nsteps + i];
        x[i] = what == PG_TRACE_COUNT ? (double)c->count : (double)(what == PG_TRACE_SELF ? c->self_ns : c->total_ns);
    }
    *out = x;
    return 0;
}

void pg_trace_ellipsize(char *out, size_t len, const char *name, size_t width)
{
    size_t l = strlen(name);

    if (len == 0)
        return;
    if (width < 4)
        width = 4;
    if (width >= len)
        width = len - 1;
    if (l <= width) {
        snprintf(out, len, "%s", name);
        return;
    }
    snprintf(out, len, "%.*s...", (int)(width - 3), name);
}
