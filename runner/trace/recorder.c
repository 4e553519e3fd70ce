/*
 * recorder.c - the op recorder: an instrument that turns the kernels' hooks
 * into trace events (like torch.profiler recording CPU ops and
 * record_function ranges).
 *
 * Events are appended in start order with their parent known from a stack of
 * open events, so a recording needs no sorting. Mismatched hooks do not abort
 * the workload; the first one is kept and reported by pg_recorder_status().
 */
#include "trace/trace.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pg_recorder {
    pg_instrument ins;
    const pg_instrument *next;
    pg_trace *trace;
    size_t *open;            /* indices of open events, innermost last */
    size_t nopen, capopen;
    int64_t t0;
    uint32_t pid, tid;
    long tid_value;
    uint32_t cat_op, cat_range, cat_module, cat_module_bw;
    int err;
    char errmsg[256];
};

static _Thread_local long cached_tid;

static long current_tid(void)
{
    if (!cached_tid)
        cached_tid = (long)gettid();
    return cached_tid;
}

static void fail(pg_recorder *r, int code, const char *what, const char *name, const char *other)
{
    if (r->err)
        return;
    r->err = code;
    snprintf(r->errmsg, sizeof(r->errmsg), "%s '%s'%s%s%s", what, name, other ? " while '" : "",
             other ? other : "", other ? "' was the innermost open event" : "");
}

static int intern_number(uint32_t *out, pg_trace *t, long v)
{
    char txt[32];
    int n = snprintf(txt, sizeof(txt), "%ld", v);

    return pg_trace_intern(out, t, txt, (size_t)n);
}

static int setup_trace(pg_recorder *r)
{
    pg_trace *t = r->trace;

    r->tid_value = 0;
    if (pg_trace_intern(&r->cat_op, t, "cpu_op", 6) != 0 ||
        pg_trace_intern(&r->cat_range, t, "user_annotation", 15) != 0 ||
        pg_trace_intern(&r->cat_module, t, "module", 6) != 0 ||
        pg_trace_intern(&r->cat_module_bw, t, "module_backward", 15) != 0 ||
        intern_number(&r->pid, t, (long)getpid()) != 0)
        return PG_ENOMEM;
    return 0;
}

static void begin(pg_recorder *r, uint32_t cat, const char *name, const char *shape)
{
    pg_trace_event ev = {0};
    size_t idx;
    long tid = current_tid();

    if (!r->trace)
        return;
    if (tid != r->tid_value) {
        if (intern_number(&r->tid, r->trace, tid) != 0) {
            fail(r, PG_ENOMEM, "out of memory recording", name, NULL);
            return;
        }
        r->tid_value = tid;
    }
    ev.ts = pg__mono_ns() - r->t0;
    ev.dur = 0;
    ev.correlation = -1;
    ev.external_id = -1;
    ev.cat = cat;
    ev.pid = r->pid;
    ev.tid = r->tid;
    ev.parent = r->nopen ? (int32_t)r->open[r->nopen - 1] : -1;
    if (pg_trace_intern(&ev.name, r->trace, name, strlen(name)) != 0 ||
        (shape && pg_trace_intern(&ev.shape, r->trace, shape, strlen(shape)) != 0) ||
        pg__trace_add(&idx, r->trace, &ev) != 0) {
        fail(r, PG_ENOMEM, "out of memory recording", name, NULL);
        return;
    }
    if (r->nopen == r->capopen) {
        size_t cap = r->capopen ? r->capopen * 2 : 32;
        size_t *p = realloc(r->open, cap * sizeof(*p));
        if (!p) {
            fail(r, PG_ENOMEM, "out of memory recording", name, NULL);
            return;
        }
        r->open = p;
        r->capopen = cap;
    }
    r->open[r->nopen++] = idx;
}

static void end(pg_recorder *r, const char *name)
{
    int64_t now = pg__mono_ns() - r->t0;
    size_t k;

    if (!r->trace)
        return;
    /* Normally the innermost open event ends; a kernel that forgets an end
     * is reported, and whatever it left open inside is closed with it. */
    for (k = r->nopen; k > 0; k--)
        if (strcmp(pg_trace_str(r->trace, r->trace->events[r->open[k - 1]].name), name) == 0)
            break;
    if (k == 0) {
        fail(r, PG_EKERNEL, "end of", name, r->nopen ? pg_trace_str(r->trace, r->trace->events[r->open[r->nopen - 1]].name)
                                                    : "(nothing)");
        return;
    }
    if (k != r->nopen)
        fail(r, PG_EKERNEL, "end of", name, pg_trace_str(r->trace, r->trace->events[r->open[r->nopen - 1]].name));
    while (r->nopen >= k) {
        pg_trace_event *e = &r->trace->events[r->open[--r->nopen]];
        e->dur = now - e->ts;
    }
}

static void on_op_begin(void *payload, const char *name, const char *shape)
{
    pg_recorder *r = payload;

    begin(r, r->cat_op, name, shape);
    if (r->next && r->next->op_begin)
        r->next->op_begin(r->next->payload, name, shape);
}

static void on_op_end(void *payload, const char *name)
{
    pg_recorder *r = payload;

    end(r, name);
    if (r->next && r->next->op_end)
        r->next->op_end(r->next->payload, name);
}

static void on_gemm(void *payload, const char *name, int64_t m, int64_t n, int64_t k)
{
    pg_recorder *r = payload;

    if (r->next && r->next->gemm)
        r->next->gemm(r->next->payload, name, m, n, k);
}

static void on_range_push(void *payload, const char *name)
{
    pg_recorder *r = payload;

    begin(r, r->cat_range, name, NULL);
    if (r->next && r->next->range_push)
        r->next->range_push(r->next->payload, name);
}

static void on_range_pop(void *payload, const char *name)
{
    pg_recorder *r = payload;

    end(r, name);
    if (r->next && r->next->range_pop)
        r->next->range_pop(r->next->payload, name);
}

static void on_module_push(void *payload, const char *path, int backward)
{
    pg_recorder *r = payload;

    begin(r, backward ? r->cat_module_bw : r->cat_module, path, NULL);
    if (r->next && r->next->module_push)
        r->next->module_push(r->next->payload, path, backward);
}

static void on_module_pop(void *payload, const char *path)
{
    pg_recorder *r = payload;

    end(r, path);
    if (r->next && r->next->module_pop)
        r->next->module_pop(r->next->payload, path);
}

int pg_recorder_new(pg_recorder **out)
{
    pg_recorder *r = calloc(1, sizeof(*r));
    int err;

    *out = NULL;
    if (!r)
        return pg_error_set(PG_ENOMEM, "out of memory for a recorder");
    if ((err = pg_trace_new(&r->trace)) != 0 || (err = setup_trace(r)) != 0) {
        pg_recorder_free(r);
        return err;
    }
    r->t0 = pg__mono_ns();
    r->ins.op_begin = on_op_begin;
    r->ins.op_end = on_op_end;
    r->ins.gemm = on_gemm;
    r->ins.range_push = on_range_push;
    r->ins.range_pop = on_range_pop;
    r->ins.module_push = on_module_push;
    r->ins.module_pop = on_module_pop;
    r->ins.payload = r;
    *out = r;
    return 0;
}

void pg_recorder_free(pg_recorder *r)
{
    if (!r)
        return;
    pg_trace_free(r->trace);
    free(r->open);
    free(r);
}

const pg_instrument *pg_recorder_instrument(pg_recorder *r, const pg_instrument *next)
{
    r->next = next;
    return &r->ins;
}

pg_trace *pg_recorder_trace(pg_recorder *r)
{
    return r->trace;
}

int pg_recorder_take(pg_trace **out, pg_recorder *r)
{
    pg_trace *fresh = NULL;
    int err;

    *out = NULL;
    if ((err = pg_trace_new(&fresh)) != 0)
        return err;
    *out = r->trace;
    r->trace = fresh;
    r->nopen = 0;
    if ((err = setup_trace(r)) != 0)
        return err;
    return 0;
}

int pg_recorder_status(pg_recorder *r)
{
    if (r->err)
        return pg_error_set(r->err, "op recorder: %s", r->errmsg);
    if (r->nopen)
        return pg_error_set(PG_EKERNEL, "op recorder: '%s' was still open when the workload returned",
                            pg_trace_str(r->trace, r->trace->events[r->open[r->nopen - 1]].name));
    return 0;
}
