/*
 * trace.c - a trace as a timed source: the steps of a torch.profiler trace
 * are the samples.
 *
 * A `trace:` case reads a stored trace file (or a directory of them), or
 * runs its `command:` once to write one: `{trace_dir}` in the command and in
 * the path is a fresh directory perfgate makes and removes afterwards, so a
 * stale trace of an earlier run can never be read. Each step is one sample
 * of the step time, and each op an `ops` glob names becomes a result of its
 * own with its self time per step, so the store, history and the verdict
 * treat them like any other case's samples; so does each GPU figure per step
 * (busy, idle, host wait...) the case names in `metrics`. How long the command ran is not
 * a sample: the profiler's steps are.
 */
#include "backend/backend.h"

#include "perfgate/errors.h"
#include "plugin/plugin.h"
#include "stats/stats.h"
#include "trace/steps.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRACE_DIR_VAR "{trace_dir}"

/* `text` with every {trace_dir} replaced by `dir`. @return NULL when out of memory. */
static char *subst_trace_dir(const char *text, const char *dir)
{
    pg_buf b = PG_BUF_INIT;
    const char *p = text, *hit;

    while ((hit = strstr(p, TRACE_DIR_VAR)) != NULL) {
        pg__buf_put(&b, p, (size_t)(hit - p));
        pg__buf_puts(&b, dir ? dir : "");
        p = hit + strlen(TRACE_DIR_VAR);
    }
    pg__buf_puts(&b, p);
    return pg__buf_detach(&b);
}

/* Removes the directory perfgate made and what the command wrote in it (two levels at most). */
static void remove_tree(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    struct dirent *de;

    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        char *p;
        struct stat st;
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (!(p = pg__asprintf("%s/%s", dir, de->d_name)))
            continue;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && depth < 4)
            remove_tree(p, depth + 1);
        else
            unlink(p);
        free(p);
    }
    closedir(d);
    rmdir(dir);
}

/* Samples in seconds from `ns` values; NULL when out of memory. */
static double *to_seconds(const double *ns, size_t n)
{
    double *x = malloc((n ? n : 1) * sizeof(*x));
    size_t i;

    for (i = 0; x && i < n; i++)
        x[i] = ns[i] * 1e-9;
    return x;
}

static int fill_samples(pg_result *r, double *x, size_t n)
{
    free(r->samples);
    r->samples = x;
    r->nsamples = n;
    r->number_per_run = 1;
    r->status = PG_STATUS_OK;
    return pg_stats_summarize(&r->summary, x, n);
}

/*
 * What the report compares between two runs of the case without their
 * traces: per op its path, count per step (exact when every step has the
 * same count, else the median) and median self time per step in ns, which
 * ranks what changed (cause.h). {"trace": {"steps": N, "ops": [[name, path,
 * count, exact, self_ns], ...]}}, at most MAX_SUMMARY ops (then
 * "truncated": true).
 */
#define MAX_SUMMARY 2000
static char *summary_json(const pg_trace_steps *s)
{
    pg_buf b = PG_BUF_INIT;
    size_t i, k;

    pg__buf_printf(&b, "{\"trace\":{\"steps\":%zu,%s\"ops\":[", s->nsteps,
                   s->nops > MAX_SUMMARY ? "\"truncated\":true," : "");
    for (i = 0; i < s->nops && i < MAX_SUMMARY; i++) {
        double *c = NULL, *t = NULL, med, self;
        int exact = 1;
        if (pg_trace_steps_series(&c, s, i, PG_TRACE_COUNT) != 0 ||
            pg_trace_steps_series(&t, s, i, PG_TRACE_SELF) != 0) {
            free(c);
            pg__buf_clear(&b);
            return NULL;
        }
        med = pg_stats_median(c, s->nsteps);
        self = pg_stats_median(t, s->nsteps);
        for (k = 1; k < s->nsteps; k++)
            exact = exact && c[k] == c[0];
        free(c);
        free(t);
        pg__buf_puts(&b, i ? ",[" : "[");
        pg__buf_json_string(&b, s->ops[i].name);
        pg__buf_puts(&b, ",");
        pg__buf_json_string(&b, s->ops[i].path ? s->ops[i].path : s->ops[i].name);
        pg__buf_printf(&b, ",%g,%s,%.0f]", med, exact ? "true" : "false", isfinite(self) ? self : 0);
    }
    pg__buf_puts(&b, "]}}");
    return pg__buf_detach(&b);
}

/* Appends a result "NAME/SUFFIX" of `c` with `ns` (one value per step, taken) as its samples in seconds. */
static int add_series(pg_run *extra, const pg_case *c, const char *suffix, const char *metric, double *ns, size_t n)
{
    pg_case id;
    pg_result *r;
    double *x;
    int err = 0;

    memset(&id, 0, sizeof(id));
    id.suite = c->suite;
    id.threads = c->threads;
    id.device = c->device;
    id.params = c->params;
    id.nparams = c->nparams;
    if (!(id.name = pg__asprintf("%s/%s", c->name, suffix)) || (err = pg__case_finish(&id)) != 0 ||
        (err = pg_run_add_result(&r, extra)) != 0) {
        free(id.name);
        free(id.key);
        free(id.params_json);
        free(ns);
        return err ? err : PG_ENOMEM;
    }
    r->key = id.key;
    r->name = id.name;
    r->params_json = id.params_json;
    r->suite = pg__strdup(c->suite);
    r->device = pg__strdup(c->device);
    r->threads = c->threads;
    r->metric = pg__strdup(metric);
    r->unit = pg__strdup("s");
    r->threshold = c->threshold;
    r->alpha = c->alpha;
    x = to_seconds(ns, n);
    free(ns);
    return x ? fill_samples(r, x, n) : PG_ENOMEM;
}

/* GPU figures per step (steps.h has the definitions), by the names suites use. */
static int64_t gpu_figure(const pg_trace_gpu *g, const char *name)
{
    if (strcmp(name, "gpu_busy") == 0)
        return g->busy_ns;
    if (strcmp(name, "gpu_idle") == 0)
        return g->idle_ns;
    if (strcmp(name, "host_wait") == 0)
        return g->host_wait_ns;
    if (strcmp(name, "kernel_wait") == 0)
        return g->kernel_wait_ns;
    return g->other_wait_ns;
}

/*
 * The series the case keeps besides its step time: "NAME/self:OP" for each op
 * an `ops` glob matches, and "NAME/METRIC" for each GPU figure in `metrics`.
 */
static int add_series_all(pg_run *extra, const pg_trace_steps *s, const pg_case *c)
{
    size_t i, g;
    int err = 0;

    for (i = 0; i < s->nops && !err; i++) {
        double *ns = NULL;
        char *suffix;
        int hit = 0;
        for (g = 0; g < c->ntrace_ops && !hit; g++)
            hit = pg__glob(c->trace_ops[g], s->ops[i].name);
        if (!hit)
            continue;
        if ((err = pg_trace_steps_series(&ns, s, i, PG_TRACE_SELF)) != 0)
            return err;
        if (!(suffix = pg__asprintf("self:%s", s->ops[i].name))) {
            free(ns);
            return PG_ENOMEM;
        }
        err = add_series(extra, c, suffix, "self_time", ns, s->nsteps);
        free(suffix);
    }
    for (g = 0; g < c->ntrace_metrics && !err; g++) {
        double *ns = malloc((s->nsteps + 1) * sizeof(*ns));
        if (!ns)
            return PG_ENOMEM;
        for (i = 0; i < s->nsteps; i++)
            ns[i] = (double)gpu_figure(&s->steps[i].gpu, c->trace_metrics[g]);
        err = add_series(extra, c, c->trace_metrics[g], c->trace_metrics[g], ns, s->nsteps);
    }
    return err;
}

int pg_backend_trace_case(pg_result *out, pg_run *extra, const pg_case *c, const pg_backend_options *opts)
{
    pg_trace_steps_options so = PG_TRACE_STEPS_OPTIONS_INIT;
    pg_trace_steps *s = NULL;
    char *dir = NULL, *raw = NULL, *path = NULL, **argv = NULL;
    pg_case run = *c;
    size_t i, n = 0;
    double *ns = NULL, *x;
    int err = 0, need_dir = 0;

    (void)opts;
    /* The fresh directory for {trace_dir}: only when the case names it. */
    for (i = 0; c->command && c->command[i]; i++)
        need_dir = need_dir || strstr(c->command[i], TRACE_DIR_VAR) != NULL;
    if (need_dir || strstr(c->trace, TRACE_DIR_VAR)) {
        if (!(dir = pg__mkdtemp("perfgate-trace")))
            return pg_error_set(PG_EIO, "cannot make a directory for the trace of %s: %s", c->key, strerror(errno));
    }
    if (!(raw = subst_trace_dir(c->trace, dir)) || (err = pg_plugin_subst(&path, raw, c, NULL)) != 0) {
        err = err ? err : pg_error_set(PG_ENOMEM, "out of memory");
        goto cleanup;
    }
    if (c->command) {
        while (c->command[n])
            n++;
        if (!(argv = calloc(n + 1, sizeof(*argv)))) {
            err = pg_error_set(PG_ENOMEM, "out of memory");
            goto cleanup;
        }
        for (i = 0; i < n; i++)
            if (!(argv[i] = subst_trace_dir(c->command[i], dir))) {
                err = pg_error_set(PG_ENOMEM, "out of memory");
                goto cleanup;
            }
        run.command = argv;
        if ((err = pg__backend_command_once(&run)) != 0) {
            err = pg__result_error(out, pg_error_last());
            goto cleanup;
        }
    }
    so.step = c->trace_step;
    if ((err = pg_trace_steps_load(&s, path, &so)) != 0) {
        if (err == PG_ENOMEM)
            goto cleanup;
        err = pg__result_error(out, pg_error_last());
        goto cleanup;
    }
    if (!(ns = malloc(s->nsteps * sizeof(*ns)))) {
        err = PG_ENOMEM;
        goto cleanup;
    }
    for (i = 0; i < s->nsteps; i++)
        ns[i] = (double)s->steps[i].dur;
    if (!(x = to_seconds(ns, s->nsteps))) {
        err = PG_ENOMEM;
        goto cleanup;
    }
    free(out->metric);
    out->metric = pg__strdup("step_time");
    if ((err = fill_samples(out, x, s->nsteps)) != 0)
        goto cleanup;
    free(out->extra_json);
    if (!(out->extra_json = summary_json(s))) {
        err = PG_ENOMEM;
        goto cleanup;
    }
    if (extra && (err = add_series_all(extra, s, c)) != 0)
        goto cleanup;

cleanup:
    if (argv)
        for (i = 0; i < n; i++)
            free(argv[i]);
    free(argv);
    free(ns);
    free(raw);
    free(path);
    pg_trace_steps_free(s);
    if (dir) {
        remove_tree(dir, 0);
        free(dir);
    }
    return err;
}
