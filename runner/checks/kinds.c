/*
 * kinds.c - what the check kinds share (kinds.h): running a check's workload
 * step by step, evaluating expectations over the workload's parameters,
 * filling results and exporting recordings.
 */
#include "checks/kinds.h"

#include "base/expr.h"
#include "plugin/plugin.h"
#include "perfgate/config.h"
#include "perfgate/errors.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int pg__workload_open(pg__workload *w, const pg_suite *suite, const pg_check *check)
{
    const pg_node *at = check->workload ? check->workload : check->node;
    int err, cuda;

    memset(w, 0, sizeof(*w));
    if (!check->workload)
        return pg_error_set(PG_ESUITE, "%s:%d:%d: check '%s' needs a 'workload' (a mapping with 'kernel')",
                            at->file, at->line, at->col, check->name);
    if (pg__workload_is_command(check))
        return pg_error_set(PG_ESUITE,
                            "%s:%d:%d: check '%s': a %s check needs a kernel; flops and ops checks count a command "
                            "workload",
                            at->file, at->line, at->col, check->name, check->kind);
    if ((err = pg_case_from_workload(&w->c, check->workload, suite->name, check->name)) != 0)
        return err;
    cuda = strcmp(w->c.device, "cuda") == 0;
    if (!cuda && strcmp(w->c.device, "cpu") != 0)
        return pg_error_set(PG_ESUITE, "%s:%d:%d: workload device must be cpu or cuda, not '%s'", at->file,
                            at->line, at->col, w->c.device);
    if (!(w->kernel = pg_kernel_find_for(w->c.kernel, w->c.device))) {
        const pg_node *k = pg_node_get(check->workload, "kernel");
        if (cuda && !PG_HAS_CUDA)
            return pg_error_set(PG_ESKIP, "this perfgate was built without CUDA; cuda kernel '%s' not run",
                                w->c.kernel);
        return pg_error_set(PG_ESUITE, "%s:%d:%d: unknown %s kernel '%s' (see 'perfgate list --kernels')",
                            k->file, k->line, k->col, w->c.device, w->c.kernel);
    }
    w->range = pg_case_param_str(&w->c, "range", NULL);
    if ((err = w->kernel->setup(&w->state, &w->c)) != 0) {
        w->state = NULL;
        if (cuda && (err == PG_EDEVICE || err == PG_ESKIP)) {
            char why[400];
            snprintf(why, sizeof(why), "%s", pg_error_last()); /* pg_error_set() writes the same buffer */
            return pg_error_set(PG_ESKIP, "no usable CUDA device: %s", why);
        }
        return err;
    }
    return 0;
}

int pg__workload_step(pg__workload *w, int profiler_step)
{
    char name[48], why[400] = "";
    int err;

    /* Ranges go through the hooks, so they exist only while an instrument is installed. */
    snprintf(name, sizeof(name), "ProfilerStep#%lld", (long long)w->step);
    if (profiler_step)
        pg__range_push(name);
    if (w->range)
        pg__range_push(w->range);
    err = w->kernel->run(w->state, 1);
    if (err)
        snprintf(why, sizeof(why), "%s", pg_error_last());
    if (w->range)
        pg__range_pop(w->range);
    if (profiler_step)
        pg__range_pop(name);
    w->step++;
    if (err)
        return pg_error_set(err, "%s: step %lld of kernel '%s' failed: %s", w->c.key, (long long)w->step - 1,
                            w->c.kernel, why);
    return 0;
}

void pg__workload_close(pg__workload *w)
{
    if (w->kernel && w->state)
        w->kernel->teardown(w->state);
    w->state = NULL;
    pg_case_clear(&w->c);
}

int pg__workload_is_command(const pg_check *check)
{
    return check->workload && pg_node_get(check->workload, "command") && !pg_node_get(check->workload, "kernel");
}

int pg__workload_count(pg_counts *out, const pg_case *c)
{
    char **argv;
    size_t n = 0, i;
    int err = 0;

    memset(out, 0, sizeof(*out));
    while (c->command[n])
        n++;
    if (!(argv = calloc(n + 1, sizeof(char *))))
        return pg_error_set(PG_ENOMEM, "out of memory expanding a command");
    for (i = 0; i < n && !err; i++)
        err = pg_plugin_subst(&argv[i], c->command[i], c, NULL);
    if (!err)
        err = pg_count_run(out, argv, c->timeout, 1);
    for (i = 0; i < n; i++)
        free(argv[i]);
    free(argv);
    return err;
}

static int range_cmp(const void *a, const void *b)
{
    return strcmp((*(const pg_count_row *const *)a)->range, (*(const pg_count_row *const *)b)->range);
}

#define REPLAY_MAX_CALLS 1000000

int pg__counts_replay(const pg_counts *c)
{
    const pg_count_row **rows;
    char *open[64];
    size_t nopen = 0, i, k;
    int64_t j;

    if (c->calls > REPLAY_MAX_CALLS)
        return pg_error_set(PG_EINVAL, "the program made %lld BLAS calls; an ops check replays at most %d "
                                       "(use a flops check, or a smaller input)",
                            (long long)c->calls, REPLAY_MAX_CALLS);
    if (!(rows = malloc((c->n ? c->n : 1) * sizeof(*rows))))
        return pg_error_set(PG_ENOMEM, "out of memory replaying counts");
    for (i = 0; i < c->n; i++)
        rows[i] = &c->rows[i];
    /* Sorted paths are a depth-first walk of the range tree: "a" < "a/b" < "a/c" < "b". */
    qsort(rows, c->n, sizeof(*rows), range_cmp);
    for (i = 0; i < c->n; i++) {
        const char *p = rows[i]->range;
        size_t depth = 0;
        /* Keep the open ranges that prefix this path; close the rest; open what it adds. */
        while (depth < nopen) {
            size_t l = strlen(open[depth]);
            if (strncmp(p, open[depth], l) != 0 || (p[l] != '/' && p[l] != '\0'))
                break;
            p += l + (p[l] == '/');
            depth++;
        }
        while (nopen > depth) {
            pg__range_pop(open[nopen - 1]);
            free(open[--nopen]);
        }
        while (*p && nopen < 64) {
            size_t l = strcspn(p, "/");
            if (!(open[nopen] = strndup(p, l)))
                break;
            pg__range_push(open[nopen++]);
            p += l + (p[l] == '/');
        }
        for (j = 0; j < rows[i]->calls; j++) {
            pg__op_begin(rows[i]->op, rows[i]->shape);
            pg__op_end(rows[i]->op);
        }
    }
    for (k = nopen; k-- > 0;) {
        pg__range_pop(open[k]);
        free(open[k]);
    }
    free(rows);
    return 0;
}

static int param_lookup(int64_t *out, const char *name, void *payload)
{
    const pg_case *c = payload;
    const pg_param *p = c ? pg_case_param(c, name) : NULL;

    if (!p || !p->is_number || p->num != floor(p->num) || fabs(p->num) > 9e15)
        return 1;
    *out = (int64_t)p->num;
    return 0;
}

int pg__check_eval(int64_t *out, const pg_node *n, const pg_case *c, const char *what)
{
    pg_expr_error e = {0};

    if (!n || n->type != PG_NODE_SCALAR || !n->scalar)
        return pg_error_set(PG_ESUITE, "%s:%d:%d: %s must be an integer expression, not %s", n ? n->file : "?",
                            n ? n->line : 0, n ? n->col : 0, what, pg_node_kind(n));
    if (pg_expr_eval(out, n->scalar, param_lookup, (void *)c, &e) != 0)
        return pg_error_set(PG_ESUITE, "%s:%d:%d: %s: %s%s", n->file, n->line,
                            n->col + (e.column > 0 ? e.column - 1 : 0) + (n->quoted ? 1 : 0), what, e.message,
                            c ? "" : " (a trace check has no workload parameters)");
    return 0;
}

char *pg__check_path(const char *suite_path, const char *rel)
{
    char *copy, *dir, *full;

    if (rel[0] == '/' || !suite_path)
        return pg__strdup(rel);
    if (!(copy = pg__strdup(suite_path)))
        return NULL;
    dir = dirname(copy);
    full = strcmp(dir, ".") == 0 ? pg__strdup(rel) : pg__asprintf("%s/%s", dir, rel);
    free(copy);
    return full;
}

int pg__check_read_trace(pg_trace **out, const pg_suite *suite, const pg_node *tn, const pg_trace_read_options *ro)
{
    char *path, why[512];
    int err;

    *out = NULL;
    if (tn->type != PG_NODE_SCALAR || !tn->scalar || !tn->scalar[0])
        return pg_error_set(PG_ESUITE, "%s:%d:%d: trace must be a file path", tn->file, tn->line, tn->col);
    if (!(path = pg__check_path(suite->path, tn->scalar)))
        return pg_error_set(PG_ENOMEM, "out of memory");
    if ((err = pg_trace_read_file(out, path, ro)) != 0) {
        /* Name the suite line too: the user fixes the file or the path there. The message is copied first
           because pg_error_set() writes the same buffer. */
        snprintf(why, sizeof(why), "%s", pg_error_last());
        err = pg_error_set(err == PG_EIO ? PG_EINVAL : err, "%s:%d:%d: %s", tn->file, tn->line, tn->col, why);
    }
    free(path);
    return err;
}

int pg__check_unknown_key(const pg_node *key, const char *kind, const char *known)
{
    return pg_error_set(PG_ESUITE, "%s:%d:%d: unknown key '%s' in the expect of a %s check (%s)", key->file,
                        key->line, key->col, key->scalar ? key->scalar : "?", kind, known);
}

int pg__check_fill(pg_check_result *out, const char *expected, const char *actual, const char *message,
                   const char *detail)
{
    char *e = pg__strdup(expected ? expected : ""), *a = pg__strdup(actual ? actual : "");
    char *m = pg__strdup(message), *d = pg__strdup(detail);

    /* Copies first: the arguments may be the result's own strings. */
    free(out->expected);
    free(out->actual);
    free(out->message);
    free(out->detail);
    out->expected = e;
    out->actual = a;
    out->message = m;
    out->detail = d;
    out->passed = message == NULL;
    if (!e || !a || (message && !m) || (detail && !d))
        return pg_error_set(PG_ENOMEM, "out of memory for a check result");
    return 0;
}

static void sanitize(pg_buf *b, const char *s)
{
    for (; *s; s++) {
        char c = *s;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                 c == '_' || c == '.';
        pg__buf_put(b, ok ? s : "_", 1);
    }
}

int pg__check_export(const pg_check_options *opts, const pg_suite *suite, const pg_check *check,
                     const char *suffix, const pg_trace *t)
{
    pg_buf path = PG_BUF_INIT, label = PG_BUF_INIT;
    int err;

    if (!opts || !opts->trace_dir)
        return 0;
    if (mkdir(opts->trace_dir, 0777) != 0 && errno != EEXIST)
        return pg_error_set(PG_EIO, "%s: cannot create the trace directory: %s", opts->trace_dir, strerror(errno));
    pg__buf_printf(&path, "%s/", opts->trace_dir);
    sanitize(&path, suite->name);
    pg__buf_puts(&path, ".");
    sanitize(&path, check->name);
    if (suffix) {
        pg__buf_puts(&path, ".");
        sanitize(&path, suffix);
    }
    pg__buf_puts(&path, ".json");
    pg__buf_printf(&label, "%s/%s%s%s", suite->name, check->name, suffix ? " " : "", suffix ? suffix : "");
    err = path.ptr && label.ptr ? pg_trace_export_file(path.ptr, t, label.ptr)
                                : pg_error_set(PG_ENOMEM, "out of memory exporting a trace");
    pg__buf_clear(&path);
    pg__buf_clear(&label);
    return err;
}
