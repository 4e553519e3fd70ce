/*
 * memory.c - `kind: memory` checks: bytes allocated, allocations and peak
 * live heap per iteration, exact or within bounds.
 *
 * The figures come from one of three sources:
 *   workload   a built-in kernel, counted by the memory instrument (meter.h)
 *   benchmark  a benchmark of the same suite (a plugin's too), likewise; its first case
 *   trace      a torch.profiler trace recorded with profile_memory=True: its
 *              `[memory]` events (args Bytes > 0 an allocation, < 0 a free;
 *              "Total Allocated" the allocator's live bytes after the event).
 *              Inside ProfilerStep#N ranges the figures are per step;
 *              without steps the whole trace is one iteration.
 * The trace is read whole (jansson), so its size is capped.
 */
#include "checks/kinds.h"

#include "meter/meter.h"
#include "perfgate/errors.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TRACE_MAX_BYTES (256L << 20)

static const char *const figure_names[] = {"bytes_per_iter", "allocs_per_iter", "peak"};

typedef struct figures {
    double v[3];
    char *source;       /* what was counted, for the message */
} figures;

/* ---- from a trace ------------------------------------------------------ */

typedef struct window {
    double lo, hi;
} window;

static double num(json_t *o, const char *key)
{
    json_t *v = o ? json_object_get(o, key) : NULL;

    return json_is_number(v) ? json_number_value(v) : NAN;
}

static int from_trace(figures *out, const char *path)
{
    struct stat st;
    json_error_t jerr;
    json_t *doc = NULL, *events, *ev;
    window *steps = NULL;
    size_t nsteps = 0, i, k, nmem = 0;
    double bytes = 0, allocs = 0, peak = 0;
    int err = 0;

    if (stat(path, &st) != 0)
        return pg_error_set(PG_ENOTFOUND, "%s: trace not found", path);
    if (st.st_size > TRACE_MAX_BYTES)
        return pg_error_set(PG_EFORMAT, "%s: %lld bytes; a memory check reads traces up to %ld MiB (record fewer "
                                        "steps)",
                            path, (long long)st.st_size, TRACE_MAX_BYTES >> 20);
    if (!(doc = json_load_file(path, 0, &jerr)))
        return pg_error_set(PG_EFORMAT, "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
    events = json_is_array(doc) ? doc : json_object_get(doc, "traceEvents");
    if (!json_is_array(events)) {
        err = pg_error_set(PG_EFORMAT, "%s: no traceEvents array: not a Chrome/torch trace", path);
        goto cleanup;
    }
    json_array_foreach(events, i, ev) {
        const char *name = json_string_value(json_object_get(ev, "name"));
        if (name && strncmp(name, "ProfilerStep#", 13) == 0) {
            window *w = realloc(steps, (nsteps + 1) * sizeof(*w));
            if (!w) {
                err = pg_error_set(PG_ENOMEM, "out of memory reading %s", path);
                goto cleanup;
            }
            steps = w;
            steps[nsteps].lo = num(ev, "ts");
            steps[nsteps].hi = steps[nsteps].lo + num(ev, "dur");
            nsteps++;
        }
    }
    json_array_foreach(events, i, ev) {
        const char *name = json_string_value(json_object_get(ev, "name"));
        json_t *args = json_object_get(ev, "args");
        double b = num(args, "Bytes"), total = num(args, "Total Allocated"), ts = num(ev, "ts");
        int inside = nsteps == 0;
        if (!name || strcmp(name, "[memory]") != 0 || isnan(b))
            continue;
        nmem++;
        for (k = 0; k < nsteps && !inside; k++)
            inside = ts >= steps[k].lo && ts <= steps[k].hi;
        if (!inside)
            continue;
        if (b > 0) {
            bytes += b;
            allocs++;
        }
        if (total > peak)
            peak = total;
    }
    if (nmem == 0) {
        err = pg_error_set(PG_EFORMAT, "%s: no [memory] events; record the trace with "
                                       "torch.profiler.profile(profile_memory=True)",
                           path);
        goto cleanup;
    }
    out->v[0] = bytes / (double)(nsteps ? nsteps : 1);
    out->v[1] = allocs / (double)(nsteps ? nsteps : 1);
    out->v[2] = peak;
    out->source = nsteps ? pg__asprintf("%zu ProfilerStep ranges of %s", nsteps, path)
                         : pg__asprintf("the whole of %s", path);

cleanup:
    free(steps);
    json_decref(doc);
    return err;
}

/* ---- from the memory instrument ---------------------------------------- */

static int from_case(figures *out, const pg_case *c)
{
    pg_run *run = NULL;
    size_t i, k;
    int err;

    if ((err = pg_meter_ready(PG_INSTRUMENT_MEMORY, NULL)) != 0)
        return err;
    if ((err = pg_run_new(&run)) != 0)
        return err;
    if ((err = pg_meter_case(run, c, PG_INSTRUMENT_MEMORY, NULL)) != 0)
        goto cleanup;
    for (i = 0; i < run->nresults; i++) {
        const pg_result *r = &run->results[i];
        if (r->status != PG_STATUS_OK) {
            err = pg_error_set(r->status == PG_STATUS_SKIPPED ? PG_ESKIP : PG_EKERNEL, "%s",
                               r->message ? r->message : "not measured");
            goto cleanup;
        }
        for (k = 0; k < 3; k++)
            if (strcmp(r->metric, figure_names[k]) == 0)
                out->v[k] = r->summary.max;
        /* Different counts in the two processes: no exact figure to check. */
        if (r->summary.min != r->summary.max) {
            err = pg_error_set(PG_EKERNEL, "%s: %s differs between processes (%.0f to %.0f): nondeterministic",
                               c->key, r->metric, r->summary.min, r->summary.max);
            goto cleanup;
        }
    }
    out->source = pg__asprintf("%s (%s)", c->key, c->plugin ? "plugin" : c->kernel ? "kernel" : "command");

cleanup:
    pg_run_free(run);
    return err;
}

/* ---- the check --------------------------------------------------------- */

static void fmt_figure(char *out, size_t size, double v)
{
    if (v == floor(v) && fabs(v) < 9e15)
        pg_fmt_int(out, size, (int64_t)v);
    else
        snprintf(out, size, "%.2f", v);
}

int pg__check_memory(pg_check_result *out, const pg_suite *suite, const pg_check *check,
                     const pg_check_options *opts)
{
    figures f = {{0, 0, 0}, NULL};
    pg_case wc;
    const pg_case *c = NULL;
    pg_buf expected = PG_BUF_INIT, actual = PG_BUF_INIT, msg = PG_BUF_INIT;
    char *path = NULL;
    size_t i;
    int err = 0, built = 0;

    (void)opts;
    memset(&wc, 0, sizeof(wc));
    if (check->trace) {
        if (!(path = pg__check_path(suite->path, check->trace->scalar)))
            return pg_error_set(PG_ENOMEM, "out of memory");
        err = from_trace(&f, path);
    } else if (check->benchmark) {
        for (i = 0; i < suite->ncases && !c; i++)
            if (strcmp(suite->cases[i].name, check->benchmark->scalar) == 0)
                c = &suite->cases[i];
        if (!c)
            err = pg_error_set(PG_ESUITE, "%s:%d:%d: no benchmark '%s' in suite %s", check->benchmark->file,
                               check->benchmark->line, check->benchmark->col, check->benchmark->scalar,
                               suite->name);
        else
            err = from_case(&f, c);
    } else {
        if ((err = pg_case_from_workload(&wc, check->workload, suite->name, check->name)) == 0) {
            built = 1;
            wc.key = pg__asprintf("%s/%s", suite->name, check->name);
            err = wc.key ? from_case(&f, &wc) : pg_error_set(PG_ENOMEM, "out of memory");
        }
    }
    if (err)
        goto cleanup;
    for (i = 0; i < 3; i++) {
        const pg_node *n = pg_node_get(check->expect, figure_names[i]);
        int64_t lo = 0, hi = INT64_MAX;
        char a[48], e[96];
        if (!n)
            continue;
        if (n->type == PG_NODE_MAP) {
            const pg_node *mn = pg_node_get(n, "min"), *mx = pg_node_get(n, "max");
            if ((mn && (err = pg__check_eval(&lo, mn, c ? c : built ? &wc : NULL, "min")) != 0) ||
                (mx && (err = pg__check_eval(&hi, mx, c ? c : built ? &wc : NULL, "max")) != 0))
                goto cleanup;
            if (hi == INT64_MAX)
                snprintf(e, sizeof(e), "%s >= %lld", figure_names[i], (long long)lo);
            else
                snprintf(e, sizeof(e), "%s in %lld..%lld", figure_names[i], (long long)lo, (long long)hi);
        } else {
            if ((err = pg__check_eval(&lo, n, c ? c : built ? &wc : NULL, figure_names[i])) != 0)
                goto cleanup;
            hi = lo;
            snprintf(e, sizeof(e), "%s = %lld", figure_names[i], (long long)lo);
        }
        fmt_figure(a, sizeof(a), f.v[i]);
        pg__buf_printf(&expected, "%s%s", expected.len ? "; " : "", e);
        pg__buf_printf(&actual, "%s%s = %s", actual.len ? "; " : "", figure_names[i], a);
        if (f.v[i] < (double)lo || f.v[i] > (double)hi)
            pg__buf_printf(&msg, "%s%s is %s, expected %s", msg.len ? "; " : "", figure_names[i], a, e);
    }
    if (msg.len)
        pg__buf_printf(&msg, " (%s)", f.source ? f.source : "");
    err = pg__check_fill(out, expected.ptr, actual.ptr, msg.len ? msg.ptr : NULL, NULL);

cleanup:
    pg__buf_clear(&expected);
    pg__buf_clear(&actual);
    pg__buf_clear(&msg);
    free(f.source);
    free(path);
    pg_case_clear(&wc);
    return err;
}
