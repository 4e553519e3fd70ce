/*
 * meter.c - measuring a case with a counting instrument (meter.h): the
 * child processes, their environment, and the results they give
 * (programs.c finds the programs they run).
 *
 * Every process starts from the same state, so that its counts depend on
 * the code alone: address-space randomisation off, a fixed small
 * environment (the case's env:, PATH, HOME, LD_LIBRARY_PATH and the pinned
 * library settings), one thread for OpenBLAS and OpenMP, and OpenBLAS's kernel
 * pinned (OPENBLAS_CORETYPE: Valgrind cannot run AVX-512 code, and the
 * kernel OpenBLAS picks decides the instructions). The pinned kernel and
 * the Valgrind version go into the result, since both change the counts.
 */
#include "meter/meter.h"

#include "machine/fingerprint.h"
#include "meter/internal.h"
#include "perfgate/errors.h"
#include "plugin/plugin.h"
#include "base/proc.h"
#include "stats/stats.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CASE_TIMEOUT 60.0    /* a case's timeout when it sets none (suite/bench.c) */
#define VALGRIND_FACTOR 50.0 /* see meter_timeout() */
#define MEMORY_TIMEOUT 600.0 /* a built-in or plugin case under the allocation counter */

int pg_meter_is_exact(const char *metric)
{
    static const char *const exact[] = {"instructions", "est_cycles", "bytes_per_iter", "allocs_per_iter", "peak",
                                        NULL};
    size_t i;

    for (i = 0; metric && exact[i]; i++)
        if (strcmp(metric, exact[i]) == 0)
            return 1;
    return 0;
}

/* ---- running one child process ---------------------------------------- */

typedef struct spawn {
    char **argv;
    char **envp;
    const char *log;
    double timeout;
} spawn;

/* Runs argv with its own fixed environment, output to `log`; 0 with the exit status, or an error. */
static int run_process(int *status, const spawn *s)
{
    int64_t deadline = pg__mono_ns() + (int64_t)(s->timeout * 1e9);
    pid_t parent = getpid(), pid, w;
    sigset_t old;

    /* A process group of its own, killed with perfgate however perfgate ends (proc.h). */
    pg__proc_begin(&old);
    if ((pid = fork()) < 0) {
        pg__proc_end(&old);
        return pg_error_set(PG_EIO, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        int fd;
        pg__proc_child_init(parent);
        /* The same addresses in every process: hash orders and alignments then do not vary. */
        personality(ADDR_NO_RANDOMIZE);
        if ((fd = open(s->log, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execve(s->argv[0], s->argv, s->envp);
        _exit(127);
    }
    pg__proc_track(pid);
    pg__proc_end(&old);
    for (;;) {
        struct timespec ts = {0, 5 * 1000 * 1000};
        if ((w = waitpid(pid, status, WNOHANG)) == pid)
            break;
        if (w < 0 && errno != EINTR) {
            pg__proc_kill_group(pid);
            return pg_error_set(PG_EIO, "waitpid: %s", strerror(errno));
        }
        if (pg__mono_ns() > deadline) {
            kill(-pid, SIGKILL);
            waitpid(pid, status, 0);
            pg__proc_kill_group(pid);
            return pg_error_set(PG_ETIMEOUT, "timed out after %gs", s->timeout);
        }
        nanosleep(&ts, NULL);
    }
    pg__proc_kill_group(pid);
    return 0;
}

/* ---- the results ------------------------------------------------------- */

/* What one process measured: per-iteration figures, or why not. */
typedef struct reading {
    int64_t iterations;
    int marked;         /* a command's regions it marked (perfgate/region.h); 0: the whole process */
    pg__callgrind cg;
    pg_meter_memory mem;
} reading;

static int read_child_file(reading *out, char **why, const char *path)
{
    char *text = NULL, *line, *save = NULL;
    size_t len;
    int ok = 0;

    *why = NULL;
    if (pg__read_file(&text, &len, path) != 0) {
        *why = pg__strdup("the measuring child wrote no result");
        return 0;
    }
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        long long v = 0;
        if (strcmp(line, "ok") == 0)
            ok = 1;
        else if (strncmp(line, "skip ", 5) == 0 || strncmp(line, "error ", 6) == 0 || strncmp(line, "absent ", 7) == 0)
            *why = pg__strdup(line);
        else if (sscanf(line, "iterations %lld", &v) == 1)
            out->iterations = v;
        else if (sscanf(line, "alloc_bytes %lld", &v) == 1)
            out->mem.bytes = v;
        else if (sscanf(line, "allocs %lld", &v) == 1)
            out->mem.allocs = v;
        else if (sscanf(line, "peak %lld", &v) == 1)
            out->mem.peak = v;
        else if (sscanf(line, "live_end %lld", &v) == 1)
            out->mem.live_end = v;
        else if (sscanf(line, "overflow %lld", &v) == 1)
            out->mem.overflow = (int)v;
    }
    free(text);
    if (!ok && !*why)
        *why = pg__strdup("the measuring child's result is incomplete");
    return ok;
}

/* The tail of a child's log, for an error message. */
static char *log_tail(const char *path)
{
    char *text = NULL, *tail;
    size_t len = 0, start;

    if (pg__read_file(&text, &len, path) != 0 || len == 0) {
        free(text);
        return pg__strdup("(no output)");
    }
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
        text[--len] = '\0';
    start = len > 300 ? len - 300 : 0;
    tail = pg__strdup(text + start);
    free(text);
    for (start = 0; tail && tail[start]; start++)
        if (tail[start] == '\n')
            tail[start] = ' ';
    return tail;
}

/* The metrics an instrument gives, in the order its results are appended. */
typedef struct metric_def {
    const char *name, *unit;
} metric_def;

static const metric_def instr_metrics[] = {{"instructions", "Ir"}, {"est_cycles", "cycles"}};
static const metric_def mem_metrics[] = {{"bytes_per_iter", "B"}, {"allocs_per_iter", "allocs"}, {"peak", "B"}};

static double metric_value(const reading *r, unsigned instrument, size_t m)
{
    double n = r->iterations > 0 ? (double)r->iterations : 1;

    if (instrument == PG_INSTRUMENT_INSTRUCTIONS)
        return m == 0 ? (double)r->cg.ev[PG_CG_IR] / n : (double)pg__callgrind_cycles(&r->cg) / n;
    if (m == 0)
        return (double)r->mem.bytes / n;
    if (m == 1)
        return (double)r->mem.allocs / n;
    /* The peak is the region's, not per iteration: a leak makes it grow with the iterations. */
    return (double)r->mem.peak;
}

static int add_results(pg_run *run, const pg_case *c, unsigned instrument, const reading *rs, int n,
                       const char *why, pg_status status, json_t *extra)
{
    const metric_def *defs = instrument == PG_INSTRUMENT_INSTRUCTIONS ? instr_metrics : mem_metrics;
    size_t nm = instrument == PG_INSTRUMENT_INSTRUCTIONS ? 2 : 3, m;
    int i;

    for (m = 0; m < nm; m++) {
        pg_result *r;
        int err;
        if ((err = pg_run_add_result(&r, run)) != 0)
            return err;
        r->key = pg__asprintf("%s#%s", c->key, defs[m].name);
        r->suite = pg__strdup(c->suite);
        r->name = pg__strdup(c->name);
        r->params_json = pg__strdup(c->params_json ? c->params_json : "{}");
        r->threads = c->threads;
        r->device = pg__strdup(c->device ? c->device : "cpu");
        r->metric = pg__strdup(defs[m].name);
        r->unit = pg__strdup(defs[m].unit);
        r->threshold = c->exact_threshold > 0 ? c->exact_threshold : PG_EXACT_THRESHOLD;
        r->alpha = c->alpha;
        if (status != PG_STATUS_OK) {
            r->status = status;
            r->message = pg__strdup(why);
        } else {
            double lo, hi;
            if (!(r->samples = malloc((size_t)n * sizeof(double))))
                return pg_error_set(PG_ENOMEM, "out of memory");
            for (i = 0; i < n; i++)
                r->samples[i] = metric_value(&rs[i], instrument, m);
            r->nsamples = (size_t)n;
            r->number_per_run = rs[0].iterations;
            pg_stats_summarize(&r->summary, r->samples, r->nsamples);
            lo = r->summary.min;
            hi = r->summary.max;
            json_object_set_new(extra, "deterministic", json_boolean(lo == hi));
            json_object_set_new(extra, "spread", json_real(r->summary.median > 0 ? (hi - lo) / r->summary.median
                                                                                  : 0));
            r->extra_json = json_dumps(extra, JSON_COMPACT | JSON_SORT_KEYS);
        }
        if (!r->key || !r->suite || !r->name || !r->params_json || !r->device || !r->metric || !r->unit)
            return pg_error_set(PG_ENOMEM, "out of memory");
    }
    return 0;
}

/* Why this case cannot be counted exactly, or NULL. */
static char *refusal(const pg_case *c, unsigned instrument)
{
    const char *inst = pg_instrument_name(instrument);

    if (c->device && strcmp(c->device, "cpu") != 0)
        return pg__asprintf("instrument '%s' counts CPU code; a %s case runs on the GPU, which Valgrind and the "
                            "allocation counter do not see",
                            inst, c->device);
    if (!c->kernel && !c->plugin && !c->command)
        return pg__asprintf("instrument '%s' counts code it runs; this case only reads a recorded trace", inst);
    if (c->threads > 1)
        return pg__asprintf("instrument '%s' needs one thread: with %d the interleaving of threads decides the "
                            "counts; measure threads: 1 or use time",
                            inst, c->threads);
    return NULL;
}

static char **fixed_env(const pg_case *c, const char *extra1, const char *extra2)
{
    const char *keep[] = {"PATH", "HOME", "LD_LIBRARY_PATH", "TMPDIR"};
    const char *coretype = pg__meter_pinned_coretype();
    char **env = calloc(12 + c->nenv, sizeof(char *));
    size_t i, n = 0;

    if (!env)
        return NULL;
    /* The case's env: first, so that a PATH or HOME it sets replaces perfgate's. */
    for (i = 0; i < c->nenv; i++)
        env[n++] = pg__strdup(c->env[i]);
    for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
        char probe[32];
        snprintf(probe, sizeof(probe), "%s=", keep[i]);
        if (getenv(keep[i]) && !pg_case_sets(c, probe))
            env[n++] = pg__asprintf("%s=%s", keep[i], getenv(keep[i]));
    }
    env[n++] = pg__strdup("OPENBLAS_NUM_THREADS=1");
    env[n++] = pg__strdup("OMP_NUM_THREADS=1");
    if (coretype)
        env[n++] = pg__asprintf("OPENBLAS_CORETYPE=%s", coretype);
    if (extra1)
        env[n++] = pg__strdup(extra1);
    if (extra2)
        env[n++] = pg__strdup(extra2);
    return env;
}

static void free_strv(char **v)
{
    size_t i;

    for (i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

/* argv of one process: [valgrind ...] (perfgate-meter ... | the command). */
static char **build_argv(const pg_case *c, unsigned instrument, const char *vg, const char *program,
                         const char *dir, int64_t iters, int regions)
{
    size_t cap = 32 + 2 * c->nparams, n = 0, i;
    char **argv;

    for (i = 0; c->command && c->command[i]; i++)
        cap++;
    if (!(argv = calloc(cap, sizeof(char *))))
        return NULL;
    if (instrument == PG_INSTRUMENT_INSTRUCTIONS) {
        argv[n++] = pg__strdup(vg);
        argv[n++] = pg__strdup("--tool=callgrind");
        /* A command is counted whole; the meter collects only inside its region. */
        argv[n++] = pg__strdup(c->command ? "--collect-atstart=yes" : "--collect-atstart=no");
        argv[n++] = pg__strdup("--cache-sim=yes");
        argv[n++] = pg__strdup("--dump-line=no");
        argv[n++] = pg__asprintf("--callgrind-out-file=%s/callgrind.out", dir);
        argv[n++] = pg__strdup("--log-file=/dev/null");
    }
    if (c->command) {
        /* {build} and {suite_dir} as the command backend expands them. */
        for (i = 0; c->command[i]; i++)
            if (pg_plugin_subst(&argv[n++], c->command[i], c, NULL) != 0) {
                free_strv(argv);
                return NULL;
            }
        return argv;
    }
    argv[n++] = pg__strdup(program);
    argv[n++] = pg__strdup("--out");
    argv[n++] = pg__asprintf("%s/result", dir);
    argv[n++] = pg__strdup("--iters");
    argv[n++] = pg__asprintf("%lld", (long long)iters);
    argv[n++] = pg__strdup("--regions");
    argv[n++] = pg__asprintf("%d", regions);
    argv[n++] = pg__strdup("--key");
    argv[n++] = pg__strdup(c->key);
    if (c->plugin) {
        argv[n++] = pg__strdup("--plugin");
        if (pg_plugin_path(&argv[n++], c, NULL) != 0) {
            free_strv(argv);
            return NULL;
        }
        argv[n++] = pg__strdup("--symbol");
        argv[n++] = pg__strdup(c->symbol ? c->symbol : c->name);
    } else {
        argv[n++] = pg__strdup("--kernel");
        argv[n++] = pg__strdup(c->kernel);
    }
    for (i = 0; i < c->nparams; i++) {
        argv[n++] = pg__strdup("--param");
        argv[n++] = pg__asprintf("%s=%s", c->params[i].name, c->params[i].value);
    }
    return argv;
}

/* Removes dir/callgrind.out and the dumps dir/callgrind.out.1 (warm-up) .. .N+1. */
static void remove_dumps(const char *dir, int regions)
{
    int r;

    for (r = 0; r <= regions + 1; r++) {
        char *f = r ? pg__asprintf("%s/callgrind.out.%d", dir, r) : pg__asprintf("%s/callgrind.out", dir);
        if (f)
            unlink(f);
        free(f);
    }
}

/*
 * A command's marked regions: each PERFGATE_REGION_END() (a Callgrind dump)
 * left dir/callgrind.out.N. Their sum, one iteration per region, goes into
 * `out`; none leaves `out` alone (the whole process is counted). Each file
 * is removed once read.
 */
static int read_marked(reading *out, char **why, const char *dir)
{
    pg__callgrind sum, one;
    int k, e;

    memset(&sum, 0, sizeof(sum));
    for (k = 1;; k++) {
        char *f = pg__asprintf("%s/callgrind.out.%d", dir, k);
        if (!f)
            return pg_error_set(PG_ENOMEM, "out of memory");
        if (access(f, F_OK) != 0) {
            free(f);
            break;
        }
        if (!*why && pg__callgrind_read(&one, f) != 0)
            *why = pg__strdup(pg_error_last());
        for (e = 0; !*why && e < PG_CG__COUNT; e++)
            sum.ev[e] += one.ev[e];
        sum.cache_sim = one.cache_sim;
        unlink(f);
        free(f);
    }
    if (k > 1 && !*why) {
        out->cg = sum;
        out->marked = k - 1;
        out->iterations = k - 1;
    }
    return 0;
}

/*
 * One process: runs it and reads what it measured into out[0 .. regions-1],
 * one reading per measured region (a command: one, the whole process);
 * *why says what went wrong.
 */
static int measure_once(reading *out, char **why, const pg_case *c, unsigned instrument, const char *vg,
                        const char *program, const char *shim, int64_t iters, int regions, double timeout)
{
    char *dir, *log = NULL, *result = NULL, *preload = NULL, *memout = NULL;
    spawn s = {NULL, NULL, NULL, timeout};
    int status = 0, err = 0, r;

    memset(out, 0, (size_t)regions * sizeof(*out));
    *why = NULL;
    if (!(dir = pg__mkdtemp("perfgate-meter")))
        return pg_error_set(PG_EIO, "cannot create a directory for the counts of %s: %s", c->key, strerror(errno));
    log = pg__asprintf("%s/log", dir);
    result = pg__asprintf("%s/result", dir);
    if (instrument == PG_INSTRUMENT_MEMORY) {
        preload = pg__asprintf("LD_PRELOAD=%s", shim);
        if (c->command)
            memout = pg__asprintf("PG_MEMSHIM_OUT=%s", result);
    }
    if (!(s.argv = build_argv(c, instrument, vg, program, dir, iters, regions))) {
        /* A plugin path that does not resolve is the case's failure, said as the plugin backend says it. */
        *why = pg__strdup(pg_error_last());
        goto cleanup;
    }
    s.envp = fixed_env(c, preload, memout);
    s.log = log;
    if (!log || !result || !s.envp || (instrument == PG_INSTRUMENT_MEMORY && !preload)) {
        err = pg_error_set(PG_ENOMEM, "out of memory");
        goto cleanup;
    }
    if ((err = run_process(&status, &s)) != 0) {
        if (err == PG_ETIMEOUT) {
            int vg_run = instrument == PG_INSTRUMENT_INSTRUCTIONS;
            if (c->kernel)
                *why = pg__asprintf("%s%s", pg_error_last(), vg_run ? " under Valgrind" : "");
            else if (vg_run)
                *why = pg__asprintf("%s under Valgrind (a counted process may take %g times the case's timeout: "
                                    "raise timeout:)", pg_error_last(), VALGRIND_FACTOR);
            else
                *why = pg__asprintf("%s (raise the case's timeout:)", pg_error_last());
            err = 0;
        }
        goto cleanup;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char *tail = log_tail(log), *ill = NULL;
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGILL)
            ill = pg__meter_sigill_why(instrument == PG_INSTRUMENT_INSTRUCTIONS);
        *why = ill                   ? pg__asprintf("the measuring process %s", ill)
               : WIFSIGNALED(status) ? pg__asprintf("the measuring process died of signal %d: %s", WTERMSIG(status),
                                                    tail)
                                     : pg__asprintf("the measuring process exited with status %d: %s",
                                                    WEXITSTATUS(status), tail);
        free(ill);
        free(tail);
        goto cleanup;
    }
    if (c->command && instrument == PG_INSTRUMENT_INSTRUCTIONS) {
        out->iterations = 1;
        if ((err = read_marked(out, why, dir)) != 0 || *why || out->marked)
            goto cleanup;
    } else if (!read_child_file(out, why, result)) {
        goto cleanup;
    }
    for (r = 0; instrument == PG_INSTRUMENT_INSTRUCTIONS && r < regions && !*why; r++) {
        /* A command is counted whole, into callgrind.out; the meter dumps its warm-up into callgrind.out.1
         * (dropped) and each region into the next. */
        char *cgfile = c->command ? pg__asprintf("%s/callgrind.out", dir)
                                  : pg__asprintf("%s/callgrind.out.%d", dir, r + 2);
        if (!cgfile) {
            err = pg_error_set(PG_ENOMEM, "out of memory");
            goto cleanup;
        }
        out[r].iterations = out[0].iterations;
        if (pg__callgrind_read(&out[r].cg, cgfile) != 0)
            *why = pg__strdup(pg_error_last());
        free(cgfile);
    }
    if (instrument == PG_INSTRUMENT_MEMORY && out->mem.overflow)
        *why = pg__strdup("more live blocks than the allocation counter holds; figures incomplete");

cleanup:
    /* The folder holds only what this function named: remove each, then the folder. */
    if (log)
        unlink(log);
    if (result)
        unlink(result);
    remove_dumps(dir, regions);
    rmdir(dir);
    free(dir);
    free(log);
    free(result);
    free(preload);
    free(memout);
    free_strv(s.argv);
    free_strv(s.envp);
    return err;
}

/*
 * How many processes, measured regions per process and iterations per
 * region (meter.h). Instructions: two processes of one region of one
 * iteration, after the warm-up: counts are exact per iteration, so one
 * iteration is as good as many, the two processes are the determinism
 * check, and a heavy kernel under Valgrind costs two iterations per
 * process. Regions inside one process see the same instructions but not
 * always the same simulated cache misses (the layout the previous region
 * left), so processes, not regions, make the default check. Memory: two
 * processes of two iterations.
 */
static void defaults(int *processes, int *regions, int64_t *iters, const pg_case *c, unsigned instrument,
                     const pg_meter_options *o)
{
    int counted = instrument == PG_INSTRUMENT_INSTRUCTIONS && !c->command;

    *regions = counted && o->regions > 0 ? o->regions : 1;
    if (*regions > PG_METER_MAX_REGIONS)
        *regions = PG_METER_MAX_REGIONS;
    *iters = o->iterations > 0 ? o->iterations : counted ? 1 : 2;
    *processes = o->processes > 0 ? o->processes : 2;
    /* Determinism is checked: at least two measurements, whatever was asked. */
    if (*processes * *regions < 2)
        *processes = 2;
}

/*
 * Seconds one process may run. The case's own timeout is set for native
 * speed; Callgrind with its cache simulation runs code hundreds (elementwise)
 * to ~15,000 (GEMM) times slower, so under `instructions` a process may take
 * VALGRIND_FACTOR times the case's timeout (60 s unless set: 50 minutes).
 * Built-in kernels have no timeout of their own and take the same default.
 * The allocation counter runs at native speed: a command keeps its limit,
 * a built-in or plugin case gets at least MEMORY_TIMEOUT (a plugin's own
 * timeout, which also covers its setup, where that is longer).
 */
static double meter_timeout(const pg_case *c, unsigned instrument, const pg_meter_options *opts)
{
    double base = c->timeout > 0 ? c->timeout : CASE_TIMEOUT;

    if (opts->timeout > 0)
        return opts->timeout;
    if (instrument == PG_INSTRUMENT_INSTRUCTIONS)
        return base * VALGRIND_FACTOR;
    return c->command ? base : fmax(base, MEMORY_TIMEOUT);
}

int pg_meter_case(pg_run *run, const pg_case *c, unsigned instrument, const pg_meter_options *opts)
{
    pg_meter_options dflt = PG_METER_OPTIONS_INIT;
    char *why = NULL, *vg = NULL, *program = NULL, *shim = NULL;
    reading *rs = NULL;
    json_t *extra = json_object();
    int n, i, err = 0, regions, absent = 0;
    int64_t iters;
    double timeout;
    pg_status status = PG_STATUS_OK;
    size_t first = run->nresults;

    if (!opts)
        opts = &dflt;
    defaults(&n, &regions, &iters, c, instrument, opts);
    timeout = meter_timeout(c, instrument, opts);
    if (!extra)
        return pg_error_set(PG_ENOMEM, "out of memory");
    if ((why = refusal(c, instrument)) != NULL) {
        status = PG_STATUS_SKIPPED;
        goto done;
    }
    if ((err = pg_meter_ready(instrument, opts)) != 0) {
        /* Checked before the run starts; here only if something vanished meanwhile. */
        why = pg__strdup(pg_error_last());
        status = PG_STATUS_ERROR;
        err = 0;
        goto done;
    }
    program = pg__meter_find_program(opts);
    if (instrument == PG_INSTRUMENT_INSTRUCTIONS)
        vg = pg__meter_find_valgrind();
    else
        shim = pg__meter_find_shim(opts, program);
    if (!(rs = calloc((size_t)(n * regions), sizeof(*rs)))) {
        err = pg_error_set(PG_ENOMEM, "out of memory");
        goto done;
    }
    for (i = 0; i < n && !why; i++)
        if ((err = measure_once(&rs[i * regions], &why, c, instrument, vg, program, shim, iters, regions,
                                timeout)) != 0)
            goto done;
    if (why) {
        status = strncmp(why, "skip ", 5) == 0 ? PG_STATUS_SKIPPED : PG_STATUS_ERROR;
        absent = strncmp(why, "absent ", 7) == 0;
        if (strncmp(why, "skip ", 5) == 0 || strncmp(why, "error ", 6) == 0 || absent) {
            char *plain = pg__strdup(strchr(why, ' ') + 1);
            free(why);
            why = plain;
        }
        goto done;
    }
    json_object_set_new(extra, "instrument", json_string(pg_instrument_name(instrument)));
    json_object_set_new(extra, "processes", json_integer(n));
    json_object_set_new(extra, "regions_per_process", json_integer(regions));
    json_object_set_new(extra, "iterations", json_integer(iters));
    json_object_set_new(extra, "region", json_string(!c->command        ? "measured iterations"
                                                     : rs[0].marked ? "marked regions"
                                                                    : "whole process"));
    if (rs[0].marked)
        json_object_set_new(extra, "marked_regions", json_integer(rs[0].marked));
    if (instrument == PG_INSTRUMENT_INSTRUCTIONS) {
        json_t *ev = json_object();
        static const char *const names[PG_CG__COUNT] = {"Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw",
                                                        "ILmr", "DLmr", "DLmw"};
        char *ver = pg__meter_valgrind_version(vg);
        const char *coretype = pg__meter_pinned_coretype();
        int k;
        for (k = 0; ev && k < PG_CG__COUNT; k++)
            json_object_set_new(ev, names[k], json_real((double)rs[0].cg.ev[k] / (double)rs[0].iterations));
        json_object_set_new(extra, "per_iteration", ev);
        json_object_set_new(extra, "valgrind", json_string(ver ? ver : "unknown"));
        json_object_set_new(extra, "openblas_coretype", coretype ? json_string(coretype) : json_null());
        json_object_set_new(extra, "cycles_formula", json_string("L1 hits + 5*LL hits + 35*RAM hits"));
        free(ver);
    } else {
        json_object_set_new(extra, "live_end", json_integer(rs[0].mem.live_end));
        json_object_set_new(extra, "allocs", json_integer(rs[0].mem.allocs));
        json_object_set_new(extra, "bytes", json_integer(rs[0].mem.bytes));
    }

done:
    if (!err)
        err = add_results(run, c, instrument, rs, n * regions, why, status, extra);
    for (i = (int)first; !err && absent && i < (int)run->nresults; i++)
        run->results[i].absent = 1;
    json_decref(extra);
    free(rs);
    free(why);
    free(vg);
    free(program);
    free(shim);
    return err;
}
