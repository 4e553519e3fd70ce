/*
 * count.c - running a program under libperfgate_count.so and reading the
 * counts its processes wrote (count.h; the file format is count_abi.h).
 */
#include "meter/count.h"

#include "perfgate/config.h"

#include "base/count_abi.h"
#include "meter/internal.h"
#include "base/fmt.h"
#include "perfgate/errors.h"
#include "base/proc.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#ifndef PG_COUNT_BUILD_DIR
#define PG_COUNT_BUILD_DIR ""
#endif

#define MAX_COUNT_FILE (64u << 20)

void pg_counts_clear(pg_counts *c)
{
    size_t i;

    for (i = 0; i < c->n; i++) {
        free(c->rows[i].op);
        free(c->rows[i].function);
        free(c->rows[i].range);
        free(c->rows[i].shape);
    }
    free(c->rows);
    memset(c, 0, sizeof(*c));
}

static int usable(const char *path)
{
    return path && *path && access(path, R_OK) == 0;
}

int pg_count_library(char **out)
{
    const char *env = getenv("PERFGATE_COUNT_LIB");

    *out = NULL;
    if (env && *env) {
        if (!usable(env))
            return pg_error_set(PG_ENOTFOUND, "PERFGATE_COUNT_LIB=%s: no such readable file", env);
        return (*out = pg__strdup(env)) ? 0 : PG_ENOMEM;
    }
    if (!(*out = pg__find_companion(PG_COUNT_LIBRARY, PG_COUNT_BUILD_DIR)))
        return pg_error_set(PG_ENOTFOUND,
                            "%s not found beside perfgate, in its %s or in the build tree %s; set "
                            "PERFGATE_COUNT_LIB to it",
                            PG_COUNT_LIBRARY, PG_PKGLIBDIR_FROM_BINDIR, PG_COUNT_BUILD_DIR);
    return 0;
}

/* `base` with LD_PRELOAD (the library first, any earlier preloads kept) and the output directory. */
static char **count_env(char *const *base, const char *lib, const char *dir)
{
    size_t n = 0, i, j = 0;
    const char *old = getenv("LD_PRELOAD");
    char **env;

    while (base[n])
        n++;
    if (!(env = calloc(n + 3, sizeof(char *))))
        return NULL;
    for (i = 0; i < n; i++)
        if (strncmp(base[i], "LD_PRELOAD=", 11) != 0 && strncmp(base[i], PG_COUNT_ENV_DIR "=", sizeof(PG_COUNT_ENV_DIR)) != 0)
            env[j++] = base[i];
    env[j++] = old && *old ? pg__asprintf("LD_PRELOAD=%s:%s", lib, old) : pg__asprintf("LD_PRELOAD=%s", lib);
    env[j++] = pg__asprintf("%s=%s", PG_COUNT_ENV_DIR, dir);
    if (!env[j - 1] || !env[j - 2]) {
        free(env[j - 1]);
        free(env[j - 2]);
        free(env);
        return NULL;
    }
    return env;
}

static void free_env(char **env)
{
    size_t n = 0;

    if (!env)
        return;
    while (env[n])
        n++;
    /* The last two entries are ours; the rest point into the base environment. */
    if (n >= 2) {
        free(env[n - 1]);
        free(env[n - 2]);
    }
    free(env);
}

static int add_row(pg_counts *c, char *const f[6])
{
    char *end;
    long long calls = strtoll(f[4], &end, 10), flops;
    size_t i;

    if (*end || calls < 0)
        return 1;
    flops = strtoll(f[5], &end, 10);
    if (*end || flops < 0)
        return 1;
    for (i = 0; i < c->n; i++) {
        pg_count_row *r = &c->rows[i];
        if (strcmp(r->op, f[0]) == 0 && strcmp(r->function, f[1]) == 0 && strcmp(r->range, f[2]) == 0 &&
            strcmp(r->shape, f[3]) == 0)
            break;
    }
    if (i == c->n) {
        pg_count_row *p = realloc(c->rows, (c->n + 1) * sizeof(*p));
        if (!p)
            return -1;
        c->rows = p;
        memset(&p[c->n], 0, sizeof(*p));
        p[c->n].op = pg__strdup(f[0]);
        p[c->n].function = pg__strdup(f[1]);
        p[c->n].range = pg__strdup(f[2]);
        p[c->n].shape = pg__strdup(f[3]);
        c->n++;
        if (!p[i].op || !p[i].function || !p[i].range || !p[i].shape)
            return -1;
    }
    if (__builtin_add_overflow(c->rows[i].calls, (int64_t)calls, &c->rows[i].calls) ||
        __builtin_add_overflow(c->rows[i].flops, (int64_t)flops, &c->rows[i].flops) ||
        __builtin_add_overflow(c->total, (int64_t)flops, &c->total) ||
        __builtin_add_overflow(c->calls, (int64_t)calls, &c->calls))
        return 2;
    return 0;
}

/* Parses one count file into `c`; `path` names it in messages. */
static int read_one(pg_counts *c, const char *path)
{
    char *text = NULL, *line, *next;
    size_t len = 0;
    int err, lineno = 0;

    if ((err = pg__read_file(&text, &len, path)) != 0)
        return err;
    if (len > MAX_COUNT_FILE) {
        free(text);
        return pg_error_set(PG_EFORMAT, "%s: count file larger than %u MiB", path, MAX_COUNT_FILE >> 20);
    }
    for (line = text; line && *line; line = next) {
        char *f[6];
        int nf = 0, rc;
        lineno++;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (lineno == 1) {
            if (strcmp(line, PG_COUNT_MAGIC) != 0) {
                free(text);
                return pg_error_set(PG_EFORMAT, "%s:1: not a perfgate count file (expected '%s')", path,
                                    PG_COUNT_MAGIC);
            }
            continue;
        }
        if (strcmp(line, PG_COUNT_OVERFLOW) == 0) {
            free(text);
            return pg_error_set(PG_EINVAL, "%s: a FLOP count overflowed int64 in the program", path);
        }
        if (strncmp(line, PG_COUNT_UNFORWARDED "\t", sizeof(PG_COUNT_UNFORWARDED)) == 0) {
            rc = pg_error_set(PG_EKERNEL,
                              "the program called %s, which no library loaded in it defines: the call reached "
                              "perfgate's counting wrapper and did nothing, so its results and counts are wrong",
                              line + sizeof(PG_COUNT_UNFORWARDED));
            free(text);
            return rc;
        }
        f[nf++] = line;
        for (char *p = line; *p && nf < 6; p++)
            if (*p == '\t') {
                *p = '\0';
                f[nf++] = p + 1;
            }
        rc = nf == 6 ? add_row(c, f) : 1;
        if (rc < 0) {
            free(text);
            return pg_error_set(PG_ENOMEM, "out of memory reading %s", path);
        }
        if (rc) {
            free(text);
            return pg_error_set(rc == 2 ? PG_EINVAL : PG_EFORMAT, "%s:%d: %s", path, lineno,
                                rc == 2 ? "FLOPs summed over processes overflow int64"
                                        : "malformed line (want op, function, range, shape, calls, FLOPs)");
        }
    }
    free(text);
    c->processes++;
    return 0;
}

/* Largest first, then by op, shape, function and range: the same program prints the same table every run,
   whatever order its processes' hash tables held the calls in. */
static int row_cmp(const void *pa, const void *pb)
{
    const pg_count_row *a = pa, *b = pb;
    int r;

    if (a->flops != b->flops)
        return a->flops > b->flops ? -1 : 1;
    if ((r = strcmp(a->op, b->op)) != 0 || (r = strcmp(a->shape, b->shape)) != 0 ||
        (r = strcmp(a->function, b->function)) != 0)
        return r;
    return strcmp(a->range, b->range);
}

/* Reads every count file in `dir` and removes them and the directory. */
static int read_dir(pg_counts *c, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int err = 0;

    if (!d)
        return pg_error_set(PG_EIO, "%s: %s", dir, strerror(errno));
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        char *path;
        if (e->d_name[0] == '.')
            continue;
        if (!(path = pg__asprintf("%s/%s", dir, e->d_name))) {
            err = err ? err : PG_ENOMEM;
            continue;
        }
        if (!err && strncmp(e->d_name, "count.", 6) == 0 && l > 4 && strcmp(e->d_name + l - 4, ".tsv") == 0)
            err = read_one(c, path);
        unlink(path);
        free(path);
    }
    closedir(d);
    rmdir(dir);
    if (!err && c->n > 1)
        qsort(c->rows, c->n, sizeof(*c->rows), row_cmp);
    return err;
}

static char *joined(char *const argv[])
{
    pg_buf b = PG_BUF_INIT;
    size_t i;

    for (i = 0; argv[i]; i++)
        pg__buf_printf(&b, "%s%s", i ? " " : "", argv[i]);
    return pg__buf_detach(&b);
}

/* Waits for `pid` until `timeout_s`; kills its process group past it. -1 status: timed out. */
static int wait_for(pid_t pid, double timeout_s)
{
    int64_t deadline = pg__mono_ns() + (int64_t)(timeout_s * 1e9);
    int status = 0;

    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return status;
        if (r < 0 && errno != EINTR)
            return status;
        if (pg__mono_ns() > deadline) {
            kill(-pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            return -1;
        }
        nanosleep(&(struct timespec){0, 2000000}, NULL);
    }
}

static int sigill_error(const char *shown)
{
    char *why = pg__meter_sigill_why(0);
    int err = pg_error_set(PG_EKERNEL, "'%s' %s; nothing counted", shown, why ? why : "died of SIGILL");

    free(why);
    return err;
}

int pg_count_run(pg_counts *out, char *const argv[], double timeout_s, int output)
{
    return pg_count_run_env(out, argv, NULL, timeout_s, output);
}

int pg_count_run_env(pg_counts *out, char *const argv[], char *const base[], double timeout_s, int output)
{
    char *lib = NULL, **env = NULL, *shown = NULL, *dir = NULL;
    posix_spawn_file_actions_t fa;
    int err, rc, status;
    pid_t pid;

    memset(out, 0, sizeof(*out));
    if (!argv || !argv[0])
        return pg_error_set(PG_EUSAGE, "no program to count");
    if ((err = pg_count_library(&lib)) != 0)
        return err;
    if (!(shown = joined(argv))) {
        err = pg_error_set(PG_ENOMEM, "out of memory starting a count");
        goto done;
    }
    if (!(dir = pg__mkdtemp("perfgate-count"))) {
        err = pg_error_set(PG_EIO, "cannot create a directory for the counts: %s", strerror(errno));
        goto done;
    }
    if (!(env = count_env(base ? base : environ, lib, dir))) {
        err = pg_error_set(PG_ENOMEM, "out of memory starting a count");
        rmdir(dir);
        goto done;
    }
    posix_spawn_file_actions_init(&fa);
    if (output == PG_COUNT_QUIET) {
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    } else if (output == PG_COUNT_STDOUT_TO_STDERR) {
        posix_spawn_file_actions_adddup2(&fa, 2, 1);
    }
    /* Its own process group, so a timeout also ends what it started. */
    rc = pg__proc_spawn(&pid, NULL, argv, env, &fa);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        err = rc == ENOENT && !strchr(argv[0], '/')
                  ? pg_error_set(PG_EKERNEL, "cannot count '%s': '%s' is not in PATH", shown, argv[0])
                  : pg_error_set(PG_EKERNEL, "cannot execute '%s': %s", shown, strerror(rc));
        rmdir(dir);
        goto done;
    }
    status = wait_for(pid, timeout_s > 0 ? timeout_s : 60.0);
    /* What the program left running ends with it; its children have written their counts by then or never will. */
    pg__proc_kill_group(pid);
    err = read_dir(out, dir);
    if (status == -1)
        err = pg_error_set(PG_ETIMEOUT, "'%s' timed out after %.3g s and was killed; nothing counted", shown,
                           timeout_s > 0 ? timeout_s : 60.0);
    else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGILL)
        err = sigill_error(shown);
    else if (WIFSIGNALED(status))
        err = pg_error_set(PG_EKERNEL, "'%s' was killed by signal %d (%s); its counts are incomplete", shown,
                           WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (WEXITSTATUS(status) != 0)
        err = pg_error_set(PG_EKERNEL, "'%s' exited with status %d; its counts are not trusted", shown,
                           WEXITSTATUS(status));
    else if (!err && out->processes == 0)
        err = pg_error_set(PG_EKERNEL,
                           "'%s' wrote no counts: %s was not loaded into it (a static or setuid program, or one "
                           "that clears LD_PRELOAD) or it left through _exit()",
                           shown, PG_COUNT_LIBRARY);
    if (err)
        pg_counts_clear(out);
done:
    free_env(env);
    free(lib);
    free(dir);
    free(shown);
    return err;
}

static const char *row_field(const pg_count_row *r, const char *field)
{
    return strcmp(field, "op") == 0 ? r->op : strcmp(field, "function") == 0 ? r->function : r->range;
}

int64_t pg_counts_sum(const pg_counts *c, const char *field, const char *name)
{
    size_t i, l = strlen(name);
    int64_t sum = 0;

    for (i = 0; i < c->n; i++) {
        const char *v = row_field(&c->rows[i], field);
        int range = strcmp(field, "range") == 0;
        /* A range counts what ran inside it, nested ranges included. */
        if (strcmp(v, name) == 0 || (range && strncmp(v, name, l) == 0 && v[l] == '/'))
            sum += c->rows[i].flops;
    }
    return sum;
}

/* 1 when a row of group `g` before `j` (from `from`) has row j's op and shape: it was shown with it. */
static int same_call_before(const pg_counts *c, const char *field, const char *g, size_t j, size_t from)
{
    size_t k;

    for (k = from; k < j; k++)
        if (strcmp(row_field(&c->rows[k], field), g) == 0 && strcmp(c->rows[k].op, c->rows[j].op) == 0 &&
            strcmp(c->rows[k].shape, c->rows[j].shape) == 0)
            return 1;
    return 0;
}

/* One table: FLOPs and calls grouped by `field`, each group followed by its ops and shapes. */
static void group_table(pg_buf *b, const pg_counts *c, const char *field, const char *title)
{
    size_t i, j, w = strlen(title);
    char num[32], calls[32];

    for (i = 0; i < c->n; i++) {
        size_t l = strlen(row_field(&c->rows[i], field)), lo = strlen(c->rows[i].op) + strlen(c->rows[i].shape) + 4;
        w = l > w ? l : w;
        w = lo > w ? lo : w;
    }
    pg__buf_printf(b, "    %-*s  %18s  %10s  %8s\n", (int)w, title, "FLOP", "calls", "% Total");
    for (i = 0; i < c->n; i++) {
        const char *g = row_field(&c->rows[i], field);
        int64_t sum = 0, ncalls = 0;
        int first = 1;
        for (j = 0; j < i; j++)
            if (strcmp(row_field(&c->rows[j], field), g) == 0)
                first = 0;
        if (!first)
            continue;
        for (j = i; j < c->n; j++)
            if (strcmp(row_field(&c->rows[j], field), g) == 0) {
                sum += c->rows[j].flops;
                ncalls += c->rows[j].calls;
            }
        pg_fmt_int(num, sizeof(num), sum);
        pg_fmt_int(calls, sizeof(calls), ncalls);
        pg__buf_printf(b, "    %-*s  %18s  %10s  %7.2f%%\n", (int)w, *g ? g : "(none)", num, calls,
                       c->total ? 100.0 * (double)sum / (double)c->total : 0.0);
        for (j = i; j < c->n; j++) {
            char label[256];
            int64_t f = 0, n = 0;
            size_t k;
            if (strcmp(row_field(&c->rows[j], field), g) != 0 || same_call_before(c, field, g, j, i))
                continue;
            /* One line per op and shape in the group, whatever else (function, range) tells rows apart. */
            for (k = j; k < c->n; k++)
                if (strcmp(row_field(&c->rows[k], field), g) == 0 && strcmp(c->rows[k].op, c->rows[j].op) == 0 &&
                    strcmp(c->rows[k].shape, c->rows[j].shape) == 0) {
                    f += c->rows[k].flops;
                    n += c->rows[k].calls;
                }
            snprintf(label, sizeof(label), "%s %s", c->rows[j].op, c->rows[j].shape);
            pg_fmt_int(num, sizeof(num), f);
            pg_fmt_int(calls, sizeof(calls), n);
            pg__buf_printf(b, "     - %-*s  %18s  %10s  %7.2f%%\n", (int)w - 3, label, num, calls,
                           c->total ? 100.0 * (double)f / (double)c->total : 0.0);
        }
    }
}

int pg_counts_table(const pg_counts *c, pg_buf *b)
{
    char num[32];
    size_t i;
    int ranges = 0;

    pg_fmt_int(num, sizeof(num), c->total);
    pg__buf_printf(b, "Total: %s FLOP in %lld BLAS call%s (%d process%s)\n", num, (long long)c->calls,
                   c->calls == 1 ? "" : "s", c->processes, c->processes == 1 ? "" : "es");
    if (c->n == 0) {
        pg__buf_puts(b, "    (no BLAS call counted: 0 FLOPs)\n");
        return b->ptr ? 0 : PG_ENOMEM;
    }
    pg__buf_puts(b, "\nBy function\n");
    group_table(b, c, "function", "Function");
    pg__buf_puts(b, "\nBy op\n");
    group_table(b, c, "op", "Op");
    for (i = 0; i < c->n; i++)
        ranges |= c->rows[i].range[0] != '\0';
    if (ranges) {
        pg__buf_puts(b, "\nBy range\n");
        group_table(b, c, "range", "Range");
    }
    return b->ptr ? 0 : pg_error_set(PG_ENOMEM, "out of memory formatting counts");
}
