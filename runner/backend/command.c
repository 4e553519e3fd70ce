/*
 * command.c - external commands timed as whole processes.
 *
 * A `command:` case is an argv list, executed directly (no shell unless the
 * user writes one), with `{build}` and `{suite_dir}` expanded in every
 * argument. Each process run is one iteration: the timing engine (measure.h)
 * does the warm-up runs (at least one) and the sampling, through a clock that
 * advances by each process's wall time (fork to exit) only, so reading and
 * parsing its output never reaches a sample. With `metrics: json` the clock
 * advances by the time the command reports itself instead.
 *
 * A process that cannot be started, exits non-zero, dies by a signal or
 * outlives `timeout` is an ERROR of its case (never a sample); the other
 * cases still run. stdout/stderr are captured: discarded, or with
 * `output: keep` the last run's tails are kept in the result's extra JSON.
 * Each process runs in a group of its own (proc.h), killed whole when its
 * sample ends, so nothing it started outlives the sample.
 *
 * With `count: blas` the command runs once more, untimed, under the BLAS
 * counter (count.h): its FLOPs per run give the case FLOP/s and MFU, and
 * the counted calls by op go into the extra JSON.
 */
#include "backend/backend.h"

#include "measure/contention.h"

#include "meter/count.h"
#include "perfgate/errors.h"
#include "plugin/plugin.h"
#include "base/proc.h"
#include "stats/stats.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define TAIL_BYTES 4096

typedef struct metric {
    char *name;
    double *values;
    size_t count;
} metric;

typedef struct command_run {
    const pg_case *c;
    char **argv;              /* expanded, NULL-terminated */
    char **envp;              /* environ with the case's env: (pointers into both) */
    char *shown;              /* argv joined for messages */
    int metrics_json;
    double timeout;
    int64_t clock_ns;         /* virtual clock: summed process (or reported) times */
    pg_counts counts;         /* count: blas - one run's BLAS calls */
    double ceiling;           /* MFU denominator used (GFLOP/s), <= 0: none */
    const char *ceiling_source;
    double flops, bytes;      /* per iteration, from metrics */
    metric *metrics;
    size_t nmetrics;
    char *last_out, *last_err;
} command_run;

static int64_t run_clock(void *payload)
{
    return ((command_run *)payload)->clock_ns;
}

/* ---- one process ------------------------------------------------------- */

/* Waits for `pid` up to `timeout_s`; *timed_out on expiry. Returns the wait status. */
static int wait_child(pid_t pid, double timeout_s, int *timed_out, int64_t *end_ns)
{
    int64_t deadline = pg__mono_ns() + (int64_t)(timeout_s * 1e9);
    int status = 0;
#ifdef SYS_pidfd_open
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
#else
    int pfd = -1;
#endif

    *timed_out = 0;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        int64_t left = deadline - pg__mono_ns();
        if (r == pid) {
            *end_ns = pg__mono_ns();
            break;
        }
        if (left <= 0) {
            *timed_out = 1;
            kill(-pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            *end_ns = pg__mono_ns();
            break;
        }
        if (pfd >= 0) {
            /* A pidfd becomes readable when the process exits: no polling delay in the timing. */
            struct pollfd p = {pfd, POLLIN, 0};
            int ms = left / 1000000 > 1000 ? 1000 : (int)(left / 1000000) + 1;
            poll(&p, 1, ms);
        } else {
            struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL);
        }
    }
    if (pfd >= 0)
        close(pfd);
    return status;
}

static int fail(command_run *x, const char *what, const char *err_text)
{
    char *line = err_text ? pg__proc_last_line(err_text) : NULL;
    int err = pg_error_set(PG_EKERNEL, "command '%s' %s%s%s%s", x->shown, what, line && *line ? " (stderr: " : "",
                           line && *line ? line : "", line && *line ? ")" : "");

    free(line);
    return err;
}

/* Starts the command once and waits; `*wall_ns` is spawn-to-exit time. */
static int run_process(command_run *x, int64_t *wall_ns)
{
    FILE *out = tmpfile(), *errf = tmpfile();
    posix_spawn_file_actions_t fa;
    int status, timed_out = 0, rc, err = PG_EKERNEL, have_fa = 0;
    int64_t t0 = 0, t1 = 0;
    pid_t pid;

    if (!out || !errf || posix_spawn_file_actions_init(&fa) != 0) {
        err = pg_error_set(PG_EIO, "cannot capture the output of command '%s': %s", x->shown, strerror(errno));
        goto cleanup;
    }
    have_fa = 1;
    /* stdin from /dev/null, output captured; its own process group, so a
     * timeout kills what it started too; the start-up cost of a large runner
     * process stays out of the samples (pg__proc_spawn). */
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fileno(out), 1);
    posix_spawn_file_actions_adddup2(&fa, fileno(errf), 2);
    rc = pg__proc_spawn(&pid, &t0, x->argv, x->envp, &fa);
    if (rc != 0) {
        /* PG_ENOTFOUND: the build has no such program (pg_result.absent), unlike one that fails to start. */
        if (rc == ENOENT && !strchr(x->argv[0], '/'))
            err = pg_error_set(PG_ENOTFOUND, "command '%s' not found: '%s' is not in PATH", x->shown, x->argv[0]);
        else
            err = pg_error_set(rc == ENOENT ? PG_ENOTFOUND : PG_EKERNEL, "cannot execute command '%s': %s", x->shown,
                               strerror(rc));
        goto cleanup;
    }
    status = wait_child(pid, x->timeout, &timed_out, &t1);
    *wall_ns = t1 - t0;
    /* What the command left running (a daemon, a `&` in a script) ends with its sample. */
    pg__proc_kill_group(pid);
    free(x->last_out);
    free(x->last_err);
    x->last_out = pg__proc_output_tail(fileno(out), x->metrics_json ? 1 << 20 : TAIL_BYTES);
    x->last_err = pg__proc_output_tail(fileno(errf), TAIL_BYTES);
    if (timed_out) {
        char what[96];
        snprintf(what, sizeof(what), "timed out after %.3g s (timeout: %.3g s) and was killed", x->timeout,
                 x->timeout);
        err = fail(x, what, NULL);
    } else if (WIFSIGNALED(status)) {
        char what[96];
        snprintf(what, sizeof(what), "was killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
        err = fail(x, what, x->last_err);
    } else if (WEXITSTATUS(status) != 0) {
        char what[64];
        snprintf(what, sizeof(what), "exited with status %d", WEXITSTATUS(status));
        err = fail(x, what, x->last_err);
    } else {
        err = 0;
    }
cleanup:
    if (have_fa)
        posix_spawn_file_actions_destroy(&fa);
    if (out)
        fclose(out);
    if (errf)
        fclose(errf);
    return err;
}

/* ---- metrics: json ------------------------------------------------------- */

static int add_metric(command_run *x, const char *name, double v)
{
    size_t i;
    metric *m = NULL;
    double *p;

    for (i = 0; i < x->nmetrics; i++)
        if (strcmp(x->metrics[i].name, name) == 0)
            m = &x->metrics[i];
    if (!m) {
        metric *ms = realloc(x->metrics, (x->nmetrics + 1) * sizeof(*ms));
        if (!ms)
            return PG_ENOMEM;
        x->metrics = ms;
        m = &ms[x->nmetrics++];
        memset(m, 0, sizeof(*m));
        if (!(m->name = pg__strdup(name)))
            return PG_ENOMEM;
    }
    p = realloc(m->values, (m->count + 1) * sizeof(*p));
    if (!p)
        return PG_ENOMEM;
    m->values = p;
    m->values[m->count++] = v;
    return 0;
}

/*
 * Reads the JSON object the command printed as its last non-empty line:
 * "time" (seconds, the time it measured itself) and optional "iterations"
 * give the sample; "flops"/"bytes" are per iteration; every other number is
 * kept as a named metric.
 */
static int read_metrics(command_run *x, int64_t *reported_ns)
{
    char *line = pg__proc_last_line(x->last_out);
    json_error_t jerr;
    json_t *obj = line ? json_loads(line, 0, &jerr) : NULL;
    json_t *v;
    const char *key;
    double t = -1, iters = 1;
    int err = 0, have_t = 0;

    if (!obj || !json_is_object(obj)) {
        err = pg_error_set(PG_EKERNEL, "command '%s' has metrics: json but its last line of output is not a JSON "
                                       "object: '%.80s'", x->shown, line ? line : "");
        goto cleanup;
    }
    json_object_foreach(obj, key, v) {
        double d;
        if (!json_is_number(v)) {
            /* A "time" that is not a number is a broken report, never a reason to fall back to wall time. */
            if (strcmp(key, "time") == 0 || strcmp(key, "iterations") == 0) {
                err = pg_error_set(PG_EKERNEL, "command '%s' has metrics: json but its \"%s\" is not a number",
                                   x->shown, key);
                goto cleanup;
            }
            continue;
        }
        d = json_number_value(v);
        if (strcmp(key, "time") == 0) {
            t = d;
            have_t = 1;
        }
        else if (strcmp(key, "iterations") == 0)
            iters = d;
        else if (strcmp(key, "flops") == 0)
            x->flops = d;
        else if (strcmp(key, "bytes") == 0)
            x->bytes = d;
        else if ((err = add_metric(x, key, d)) != 0) {
            err = pg_error_set(PG_ENOMEM, "out of memory reading metrics");
            goto cleanup;
        }
    }
    if (have_t) {
        if (!(t > 0 && t < 1e6) || !(iters >= 1 && iters < 1e18)) {
            err = pg_error_set(PG_EKERNEL, "command '%s' reported time %g s over %g iterations: not usable (time "
                                           "must be positive seconds, iterations at least 1)",
                               x->shown, t, iters);
            goto cleanup;
        }
        *reported_ns = (int64_t)(t / iters * 1e9);
    }
cleanup:
    json_decref(obj);
    free(line);
    return err;
}

/* ---- the engine's body ----------------------------------------------------- */

static int run_iterations(void *payload, int64_t iters)
{
    command_run *x = payload;
    int64_t i;
    int err;

    for (i = 0; i < iters; i++) {
        int64_t wall = 0, reported = -1;
        if ((err = run_process(x, &wall)) != 0)
            return err;
        if (x->metrics_json && (err = read_metrics(x, &reported)) != 0)
            return err;
        x->clock_ns += reported >= 0 ? reported : wall;
    }
    return 0;
}

static char *extra_json(const command_run *x)
{
    json_t *o = json_object();
    char *s;
    size_t i;

    if (!o)
        return NULL;
    if (x->nmetrics) {
        json_t *ms = json_object();
        for (i = 0; ms && i < x->nmetrics; i++) {
            json_t *arr = json_array();
            size_t k;
            for (k = 0; arr && k < x->metrics[i].count; k++)
                json_array_append_new(arr, json_real(x->metrics[i].values[k]));
            json_object_set_new(ms, x->metrics[i].name, arr);
        }
        json_object_set_new(o, "metrics", ms);
    }
    if (x->c->count_blas) {
        json_t *cnt = json_object(), *ops = json_object();
        for (i = 0; i < x->counts.n; i++) {
            const pg_count_row *r = &x->counts.rows[i];
            json_t *prev = json_object_get(ops, r->op);
            json_object_set_new(ops, r->op, json_integer((prev ? json_integer_value(prev) : 0) + r->flops));
        }
        json_object_set_new(cnt, "flops", json_integer(x->counts.total));
        json_object_set_new(cnt, "calls", json_integer(x->counts.calls));
        json_object_set_new(cnt, "per_op", ops);
        json_object_set_new(o, "count_blas", cnt);
        if (x->ceiling > 0) {
            json_object_set_new(o, "mfu_ceiling_gflops", json_real(x->ceiling));
            json_object_set_new(o, "mfu_ceiling_source", json_string(x->ceiling_source));
        }
    }
    if (x->c->keep_output) {
        const char *so = x->last_out ? x->last_out : "";
        size_t len = strlen(so);
        json_object_set_new(o, "stdout", json_string(len > TAIL_BYTES ? so + len - TAIL_BYTES : so));
        json_object_set_new(o, "stderr", json_string(x->last_err ? x->last_err : ""));
    }
    s = json_object_size(o) ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(o);
    return s;
}

static void run_free(command_run *x)
{
    pg_counts_clear(&x->counts);
    size_t i;

    for (i = 0; x->argv && x->argv[i]; i++)
        free(x->argv[i]);
    free(x->argv);
    free(x->envp);
    free(x->shown);
    for (i = 0; i < x->nmetrics; i++) {
        free(x->metrics[i].name);
        free(x->metrics[i].values);
    }
    free(x->metrics);
    free(x->last_out);
    free(x->last_err);
}

int pg__backend_command_metrics(int64_t *reported_ns, char **extra, const char *output)
{
    pg_case c;
    command_run x;
    int err;

    memset(&c, 0, sizeof(c));
    memset(&x, 0, sizeof(x));
    x.c = &c;
    x.metrics_json = 1;
    *reported_ns = -1;
    *extra = NULL;
    if (!(x.shown = pg__strdup("metrics")) || !(x.last_out = pg__strdup(output)))
        err = pg_error_set(PG_ENOMEM, "out of memory reading metrics");
    else if ((err = read_metrics(&x, reported_ns)) == 0)
        *extra = extra_json(&x);
    run_free(&x);
    return err;
}

static int expand_argv(command_run *x, const pg_case *c)
{
    pg_buf shown = PG_BUF_INIT;
    size_t n = 0, i;
    int err;

    while (c->command[n])
        n++;
    x->argv = calloc(n + 1, sizeof(char *));
    if (!x->argv)
        return pg_error_set(PG_ENOMEM, "out of memory expanding a command");
    for (i = 0; i < n; i++) {
        if ((err = pg_plugin_subst(&x->argv[i], c->command[i], c, NULL)) != 0) {
            pg__buf_clear(&shown);
            return err;
        }
        pg__buf_printf(&shown, "%s%s", i ? " " : "", x->argv[i]);
    }
    x->shown = pg__buf_detach(&shown);
    x->envp = pg_case_environ(c, environ);
    return x->shown && x->envp ? 0 : pg_error_set(PG_ENOMEM, "out of memory expanding a command");
}

int pg__backend_command_once(const pg_case *c)
{
    command_run x;
    int64_t wall = 0;
    int err;

    memset(&x, 0, sizeof(x));
    x.c = c;
    x.timeout = c->timeout > 0 ? c->timeout : 60.0;
    if ((err = expand_argv(&x, c)) == 0)
        err = run_process(&x, &wall);
    run_free(&x);
    return err;
}

int pg_backend_command_case(pg_result *out, const pg_case *c, const pg_backend_options *opts)
{
    pg_measure_options mo;
    pg_measurement m = {0};
    pg_clock clock = {run_clock, NULL};
    command_run x;
    int err;

    memset(&x, 0, sizeof(x));
    x.c = c;
    x.metrics_json = c->metrics && strcmp(c->metrics, "json") == 0;
    x.timeout = c->timeout > 0 ? c->timeout : 60.0;
    if ((err = expand_argv(&x, c)) != 0) {
        run_free(&x);
        return err;
    }
    pg_backend_measure_options(&mo, c, opts);
    /* One process per iteration: blocks never need to grow past one run. */
    mo.min_block = 0;
    /*
     * With metrics: json the clock is the time the command reports, which
     * can be far less than its processes take: max_run_time (and the
     * warm-up) also bound the wall time, or a command reporting 1 ns would
     * be run for ever.
     */
    if (x.metrics_json)
        mo.max_wall_time = mo.warmup + mo.max_run_time;
    clock.payload = &x;
    mo.clock = &clock;
    /* The command runs in processes of its own: this thread waiting on them says nothing of their CPU. */
    mo.probe = &pg_probe_none;
    err = pg_measure(&m, run_iterations, &x, &mo);
    if (err == PG_ENOMEM) {
        free(m.samples);
        run_free(&x);
        return err;
    }
    if (err) {
        free(m.samples);
        (err == PG_ENOTFOUND ? pg__result_absent : pg__result_error)(out, pg_error_last());
        run_free(&x);
        return 0;
    }
    pg_result_take(out, &m);
    out->flops = x.flops;
    out->bytes = x.bytes;
    err = pg_stats_summarize(&out->summary, out->samples, out->nsamples);
    if (!err && c->count_blas) {
        /* Counted apart from the samples: the preload library never runs in a timed process. */
        if ((err = pg_count_run_env(&x.counts, x.argv, x.envp, x.timeout, PG_COUNT_QUIET)) != 0) {
            pg__result_error(out, pg_error_last());
            run_free(&x);
            return err == PG_ENOMEM ? err : 0;
        }
        out->flops = (double)x.counts.total;
        pg__backend_cpu_mfu(out, c->threads, opts, &x.ceiling, &x.ceiling_source);
    }
    free(out->extra_json);
    out->extra_json = extra_json(&x);
    run_free(&x);
    return err;
}
