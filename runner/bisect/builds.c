/*
 * builds.c - the commits of a bisection, their worktrees and their builds.
 *
 * git runs from argv (never a shell), so a revision or a path cannot turn
 * into a command. The user's build command is the one thing run by a
 * shell, bash, as ci/gh/build.sh runs it: in the commit's worktree, with
 * PERFGATE_BUILD_DIR naming its output directory. Every process runs in a
 * process group of its own that perfgate kills whole when it ends
 * (base/proc.h), so nothing a build leaves running outlives it.
 */
#include "bisect/internal.h"

#include "base/outfile.h"
#include "base/proc.h"
#include "perfgate/errors.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The stamp of a finished build, as ci/gh/build.sh writes it: the commit, then the command. */
#define STAMP ".perfgate-build-sha"

/* The longest output of git kept: a chain of a million commits' lines. */
#define GIT_MAX_OUT ((size_t)256 << 20)

/*
 * Runs argv with stdin from /dev/null, stdout to `out_fd` and stderr to
 * `err_fd`, in `cwd` (NULL: here) with `envp` (NULL: this environment).
 * @param[out] status the wait status.
 */
static int spawn_wait(int *status, char *const argv[], const char *cwd, char *const envp[], int out_fd, int err_fd)
{
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int rc;

    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
    if (cwd)
        posix_spawn_file_actions_addchdir_np(&fa, cwd);
    rc = pg__proc_spawn(&pid, NULL, argv, envp ? envp : environ, &fa);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return pg_error_set(PG_EKERNEL, "cannot run %s: %s", argv[0], strerror(rc));
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    /* What it left running (a daemon, a `&`) ends with it. */
    pg__proc_kill_group(pid);
    return 0;
}

int pg__bisect_git(char **out, int *status, const char *repo, const char *const *args, size_t max_out)
{
    const char *argv[32];
    FILE *o = tmpfile(), *e = tmpfile();
    size_t n = 0, i;
    int err;

    if (out)
        *out = NULL;
    *status = -1;
    argv[n++] = "git";
    argv[n++] = "-C";
    argv[n++] = repo;
    for (i = 0; args[i] && n < sizeof(argv) / sizeof(argv[0]) - 1; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    if (!o || !e) {
        err = pg_error_set(PG_EIO, "cannot capture git's output: %s", strerror(errno));
        goto done;
    }
    if ((err = spawn_wait(status, (char *const *)argv, NULL, NULL, fileno(o), fileno(e))) != 0)
        goto done;
    if (*status != 0) {
        /* git's own message, for the caller that turns the status into an error. */
        char *tail = pg__proc_output_tail(fileno(e), 4096), *line = tail ? pg__proc_last_line(tail) : NULL;
        pg_error_set(PG_EKERNEL, "git %s: %s", args[0], line && *line ? line : "failed");
        free(tail);
        free(line);
    }
    if (out && max_out) {
        long len;
        fflush(o);
        len = ftell(o);
        if (len < 0 || (size_t)len > max_out) {
            err = pg_error_set(PG_EIO, "git %s: more output than %zu bytes", args[0], max_out);
            goto done;
        }
        *out = pg__proc_output_tail(fileno(o), (size_t)len + 1);
        if (!*out)
            err = pg_error_set(PG_ENOMEM, "out of memory");
    }
done:
    if (o)
        fclose(o);
    if (e)
        fclose(e);
    return err;
}

/* git ARGS whose first output line is wanted; PG_EKERNEL (git's message) when it fails. */
static int git_line(char **out, const char *repo, const char *const *args)
{
    char *text = NULL;
    int status, err;
    size_t n;

    *out = NULL;
    if ((err = pg__bisect_git(&text, &status, repo, args, GIT_MAX_OUT)) != 0)
        return err;
    if (status != 0) {
        free(text);
        return PG_EKERNEL;
    }
    n = strcspn(text, "\r\n");
    text[n] = '\0';
    *out = text;
    return 0;
}

int pg__bisect_repo(char **top, char **git_dir, const char *dir)
{
    const char *a[] = {"rev-parse", "--show-toplevel", NULL};
    const char *b[] = {"rev-parse", "--path-format=absolute", "--git-common-dir", NULL};
    int err;

    *top = *git_dir = NULL;
    if ((err = git_line(top, dir, a)) != 0 || (err = git_line(git_dir, dir, b)) != 0) {
        free(*top);
        *top = NULL;
        return pg_error_set(PG_EUSAGE, "%s is not inside a git repository (%s)", dir, pg_error_last());
    }
    return 0;
}

int pg__bisect_resolve(char **sha, const char *repo, const char *rev)
{
    char *spec = pg__asprintf("%s^{commit}", rev);
    const char *a[] = {"rev-parse", "--verify", "--quiet", "--end-of-options", spec, NULL};
    int err;

    *sha = NULL;
    if (!spec)
        return pg_error_set(PG_ENOMEM, "out of memory");
    err = git_line(sha, repo, a);
    free(spec);
    if (err == PG_EKERNEL || (!err && strlen(*sha) != 40)) {
        free(*sha);
        *sha = NULL;
        return pg_error_set(PG_EUSAGE, "'%s' names no commit of the repository", rev);
    }
    return err;
}

/* Splits "SHA\tsubject\n" lines into commits[first...]. */
static int parse_chain(pg_bisect_commit *c, size_t first, size_t room, char *text)
{
    char *line = text, *nl;
    size_t k = first;

    while (line && *line && k < room) {
        char *tab;
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        tab = strchr(line, '\t');
        if (!tab || tab - line != 40)
            return pg_error_set(PG_EKERNEL, "git log: unexpected line '%.60s'", line);
        *tab = '\0';
        c[k].sha = pg__strdup(line);
        c[k].subject = pg__strdup(tab + 1);
        if (!c[k].sha || !c[k].subject)
            return pg_error_set(PG_ENOMEM, "out of memory");
        k++;
        line = nl ? nl + 1 : NULL;
    }
    return k == room ? 0 : pg_error_set(PG_EKERNEL, "git log listed %zu commits, rev-list %zu", k - first, room - first);
}

int pg__bisect_chain(pg_bisect_commit **out, size_t *n, const char *repo, const char *good, const char *bad)
{
    char *range = pg__asprintf("%s..%s", good, bad), *text = NULL, *count = NULL;
    const char *anc[] = {"merge-base", "--is-ancestor", good, bad, NULL};
    const char *cnt[] = {"rev-list", "--count", "--first-parent", range, NULL};
    const char *log[] = {"log", "--first-parent", "--reverse", "--format=%H%x09%s", range, NULL};
    const char *one[] = {"log", "-1", "--format=%H%x09%s", good, NULL};
    pg_bisect_commit *c = NULL;
    size_t k = 0, total = 0;
    int status = 0, err;

    *out = NULL;
    *n = 0;
    if (!range)
        return pg_error_set(PG_ENOMEM, "out of memory");
    if ((err = pg__bisect_git(NULL, &status, repo, anc, 0)) != 0)
        goto done;
    if (status != 0 || strcmp(good, bad) == 0) {
        err = pg_error_set(PG_EUSAGE, "GOOD %.12s is %s BAD %.12s: bisect needs GOOD older, on BAD's history", good,
                           strcmp(good, bad) == 0 ? "the same commit as" : "not an ancestor of", bad);
        goto done;
    }
    if ((err = git_line(&count, repo, cnt)) != 0)
        goto done;
    k = (size_t)strtoull(count, NULL, 10);
    if (k == 0 || k > 10000000) {
        err = pg_error_set(PG_EUSAGE, "no commit between GOOD and BAD on BAD's first-parent chain");
        goto done;
    }
    total = k + 1;
    if (!(c = calloc(total, sizeof(*c)))) {
        err = pg_error_set(PG_ENOMEM, "out of memory");
        goto done;
    }
    if ((err = pg__bisect_git(&text, &status, repo, one, GIT_MAX_OUT)) != 0 || status != 0 ||
        (err = parse_chain(c, 0, 1, text)) != 0)
        goto done;
    free(text);
    text = NULL;
    if ((err = pg__bisect_git(&text, &status, repo, log, GIT_MAX_OUT)) != 0 || status != 0 ||
        (err = parse_chain(c, 1, k + 1, text)) != 0)
        goto done;
    *out = c;
    *n = k;
    c = NULL;
done:
    if (!err && status != 0)
        err = PG_EKERNEL;
    for (k = 0; c && k < total; k++) {
        free(c[k].sha);
        free(c[k].subject);
    }
    free(c);
    free(text);
    free(count);
    free(range);
    return err;
}

int pg__bisect_inside(const char *dir)
{
    const char *p = dir;

    if (!dir || !*dir || *dir == '/')
        return 0;
    while (*p) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return 0;
        p += n;
        while (*p == '/')
            p++;
    }
    return 1;
}

static int mkdirs(const char *path)
{
    char *p = pg__strdup(path), *s;
    int err = 0;

    if (!p)
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (s = p + 1; !err; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST)
                err = pg_error_set(PG_EIO, "cannot create %s: %s", p, strerror(errno));
            *s = c;
            if (!c)
                break;
        }
    }
    free(p);
    return err;
}

/* work_dir/trees/SHA at commit `sha`: made when absent, made again when it is elsewhere or broken. */
static int worktree(char **out, const char *repo, const char *work_dir, const char *sha)
{
    char *path = pg__asprintf("%s/trees/%s", work_dir, sha), *head = NULL;
    const char *rev[] = {"rev-parse", "HEAD", NULL};
    const char *prune[] = {"worktree", "prune", NULL};
    const char *rm[] = {"worktree", "remove", "--force", path, NULL};
    const char *add[] = {"worktree", "add", "--detach", "--force", path, sha, NULL};
    struct stat st;
    int status, err = 0;

    *out = NULL;
    if (!path)
        return pg_error_set(PG_ENOMEM, "out of memory");
    if (stat(path, &st) == 0) {
        if (git_line(&head, path, rev) == 0 && strcmp(head, sha) == 0) {
            free(head);
            *out = path;
            return 0;
        }
        free(head);
        /* Not the commit it is named for (moved by hand, half made): made again. */
        if ((err = pg__bisect_git(NULL, &status, repo, rm, 0)) != 0)
            goto done;
        if (stat(path, &st) == 0) {
            err = pg_error_set(PG_EIO, "%s is not a worktree of commit %.12s and could not be removed; remove it",
                               path, sha);
            goto done;
        }
    }
    if ((err = mkdirs(work_dir)) != 0 || (err = pg__bisect_git(NULL, &status, repo, prune, 0)) != 0 ||
        (err = pg__bisect_git(NULL, &status, repo, add, 0)) != 0)
        goto done;
    if (status != 0) {
        err = pg_error_set(PG_EKERNEL, "cannot check out %.12s into %s: %s", sha, path, pg_error_last());
        goto done;
    }
    *out = path;
    path = NULL;
done:
    free(path);
    return err;
}

/* Whether `dir`'s stamp says it holds a build of `sha` with `command`. */
static int stamped(const char *dir, const char *sha, const char *command)
{
    char *path = pg__asprintf("%s/" STAMP, dir), *text = NULL, *want = pg__asprintf("%s\n%s\n", sha, command);
    size_t len = 0;
    int same = 0;

    if (path && want && access(path, R_OK) == 0 && pg__read_file(&text, &len, path) == 0)
        same = strcmp(text, want) == 0;
    free(path);
    free(text);
    free(want);
    return same;
}

static int empty_dir(const char *path)
{
    DIR *d;
    struct dirent *e;
    int empty = 1;

    if (!(d = opendir(path)))
        return 1;
    while (empty && (e = readdir(d)) != NULL)
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    closedir(d);
    return empty;
}

/* The build's environment: this one with PERFGATE_BUILD_DIR set (a NULL-terminated copy; caller frees the array). */
static char **build_env(char *entry)
{
    size_t n = 0, i, k = 0;
    char **env;

    while (environ[n])
        n++;
    if (!(env = calloc(n + 2, sizeof(*env))))
        return NULL;
    for (i = 0; i < n; i++)
        if (strncmp(environ[i], "PERFGATE_BUILD_DIR=", 19) != 0)
            env[k++] = environ[i];
    env[k++] = entry;
    env[k] = NULL;
    return env;
}

/* Runs the build command in `tree`, its output to `log`. */
static int run_build(const char *tree, const char *command, const char *build_dir, const char *log, const char *sha)
{
    char *entry = pg__asprintf("PERFGATE_BUILD_DIR=%s", build_dir), **env = entry ? build_env(entry) : NULL;
    char *argv[] = {"bash", "-eo", "pipefail", "-c", (char *)command, NULL};
    int fd = open(log, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), status = 0, err;

    if (!entry || !env || fd < 0) {
        err = fd < 0 ? pg_error_set(PG_EIO, "cannot write the build log %s: %s", log, strerror(errno))
                     : pg_error_set(PG_ENOMEM, "out of memory");
    } else if ((err = spawn_wait(&status, argv, tree, env, fd, fd)) == 0 && status != 0) {
        char *tail = pg__proc_output_tail(fd, 4096), *line = tail ? pg__proc_last_line(tail) : NULL;
        err = pg_error_set(PG_EKERNEL, "the build of %.12s failed (%s %d)%s%s%s; its log: %s", sha,
                           WIFSIGNALED(status) ? "signal" : "exit",
                           WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), line && *line ? ": '" : "",
                           line && *line ? line : "", line && *line ? "'" : "", log);
        free(tail);
        free(line);
    }
    if (fd >= 0)
        close(fd);
    free(env);
    free(entry);
    return err;
}

int pg__bisect_build(char **out, int *built, const char *repo, const char *work_dir, const char *sha,
                     const char *command, const char *build_dir)
{
    char *tree = NULL, *dir = NULL, *logs = pg__asprintf("%s/logs", work_dir), *log = NULL, *stamp = NULL;
    char *text = NULL;
    int err;

    *out = NULL;
    *built = 0;
    if (!logs)
        return pg_error_set(PG_ENOMEM, "out of memory");
    if ((err = worktree(&tree, repo, work_dir, sha)) != 0)
        goto done;
    dir = pg__asprintf("%s/%s", tree, build_dir);
    log = pg__asprintf("%s/%s.log", logs, sha);
    stamp = dir ? pg__asprintf("%s/" STAMP, dir) : NULL;
    text = pg__asprintf("%s\n%s\n", sha, command);
    if (!dir || !log || !stamp || !text) {
        err = pg_error_set(PG_ENOMEM, "out of memory");
        goto done;
    }
    if (!stamped(dir, sha, command)) {
        /* A stamp outlives nothing it did not finish: gone before the build, written after it. */
        unlink(stamp);
        if ((err = mkdirs(logs)) != 0 || (err = mkdirs(dir)) != 0 ||
            (err = run_build(tree, command, build_dir, log, sha)) != 0)
            goto done;
        if (empty_dir(dir)) {
            err = pg_error_set(PG_EKERNEL, "the build of %.12s left nothing in %s: is the build directory right "
                                           "(--build-dir)?; its log: %s", sha, build_dir, log);
            goto done;
        }
        if ((err = pg__outfile_write(stamp, text, strlen(text), "build stamp")) != 0)
            goto done;
        *built = 1;
    }
    *out = dir;
    dir = NULL;
done:
    free(tree);
    free(dir);
    free(logs);
    free(log);
    free(stamp);
    free(text);
    return err;
}
