/*
 * init.c - pg_init_run(): where things are (the repository, the build
 * directory inside it, the build command, the default branch, the perfgate
 * commit to pin), what to write (scan.c finds, text.c writes), and writing
 * it without touching a file that exists.
 */
#include "init/init.h"

#include "init/internal.h"
#include "perfgate/commit.h"
#include "perfgate/errors.h"
#include "suite/suite.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int exists(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0;
}

/* The nearest directory from the current one up that holds .git, else the current one. */
static char *find_root(void)
{
    char *dir = realpath(".", NULL), *slash;

    if (!dir)
        return NULL;
    for (;;) {
        char *git = pg__asprintf("%s/.git", dir);
        int found = exists(git);
        free(git);
        if (found)
            return dir;
        if (!(slash = strrchr(dir, '/')) || slash == dir)
            break;
        *slash = '\0';
    }
    free(dir);
    return realpath(".", NULL);
}

/* The first line `git -C ROOT ARGS...` prints, or NULL. */
static char *git_line(const char *root, const char *a1, const char *a2, const char *a3)
{
    const char *argv[] = {"git", "-C", root, a1, a2, a3, NULL};
    char line[256];
    int fds[2], status;
    ssize_t n;
    pid_t pid;

    if (pipe(fds) != 0)
        return NULL;
    if ((pid = fork()) < 0) {
        close(fds[0]);
        close(fds[1]);
        return NULL;
    }
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(fds[1], 1);
        if (null >= 0)
            dup2(null, 2);
        close(fds[0]);
        execvp("git", (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    n = read(fds[0], line, sizeof(line) - 1);
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return NULL;
    line[n] = '\0';
    line[strcspn(line, "\r\n")] = '\0';
    return line[0] ? pg__strdup(line) : NULL;
}

/* The branch pushes to which are recorded: origin's default, the checked-out main or master, else main. */
static char *default_branch(const char *root)
{
    char *b = git_line(root, "symbolic-ref", "--short", "refs/remotes/origin/HEAD");
    const char *slash;

    if (b && (slash = strchr(b, '/')) != NULL) {
        char *name = pg__strdup(slash + 1);
        free(b);
        return name;
    }
    free(b);
    b = git_line(root, "symbolic-ref", "--short", "HEAD");
    if (b && (strcmp(b, "main") == 0 || strcmp(b, "master") == 0))
        return b;
    free(b);
    return pg__strdup("main");
}

/* A build command for the repository's build system, or NULL. */
static char *guess_build(const char *root, const char *build_rel)
{
    static const char *const makefiles[] = {"GNUmakefile", "makefile", "Makefile"};
    char *path;
    size_t i;
    int found;

    for (i = 0; i < sizeof(makefiles) / sizeof(makefiles[0]); i++) {
        path = pg__asprintf("%s/%s", root, makefiles[i]);
        found = exists(path);
        free(path);
        if (found)
            return pg__strdup("make");
    }
    path = pg__asprintf("%s/CMakeLists.txt", root);
    found = exists(path);
    free(path);
    if (found)
        return pg__asprintf("cmake -S . -B %s -DCMAKE_BUILD_TYPE=Release && cmake --build %s -j \"$(nproc)\"",
                            build_rel, build_rel);
    path = pg__asprintf("%s/meson.build", root);
    found = exists(path);
    free(path);
    if (found)
        return pg__asprintf("meson setup %s --buildtype=release && meson compile -C %s", build_rel, build_rel);
    return NULL;
}

/* `path` relative to `root` when inside it (root itself: "."), else NULL. */
static char *inside(const char *root, const char *path)
{
    size_t len = strlen(root);

    if (strncmp(path, root, len) != 0 || (path[len] != '\0' && path[len] != '/'))
        return NULL;
    return pg__strdup(path[len] ? path + len + 1 : ".");
}

static int is_sha(const char *s)
{
    size_t n = 0;

    for (; s[n]; n++)
        if (!isxdigit((unsigned char)s[n]) || isupper((unsigned char)s[n]))
            return 0;
    return n == 40;
}

static char *suite_name_of(const char *root)
{
    const char *slash = strrchr(root, '/');
    char *n = pg__strdup(slash && slash[1] ? slash + 1 : "benchmarks"), *p;

    for (p = n; p && *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_-.+", *p))
            *p = '_';
    return n;
}

/* ---- where, and what with ------------------------------------------------ */

typedef struct plan {
    pg__init_vars v;
    char *root, *build_rel, *build_command, *suite_rel, *ref, *branch, *name;
    const char *files[5];
    size_t nfiles;
} plan;

static void plan_clear(plan *p)
{
    free(p->root);
    free(p->build_rel);
    free(p->build_command);
    free(p->suite_rel);
    free(p->ref);
    free(p->branch);
    free(p->name);
}

static int plan_paths(plan *p, const pg_init_options *o)
{
    char *build;

    p->root = o->root ? realpath(o->root, NULL) : find_root();
    if (!p->root)
        return pg_error_set(PG_ENOTFOUND, "repository '%s': %s", o->root ? o->root : ".", strerror(errno));
    if (!(build = realpath(o->build_dir, NULL)))
        return pg_error_set(PG_ENOTFOUND, "build directory '%s' does not exist (build first)", o->build_dir);
    p->build_rel = inside(p->root, build);
    free(build);
    if (!p->build_rel)
        return pg_error_set(PG_EUSAGE,
                            "build directory '%s' is outside the repository %s: the workflows build each "
                            "checkout into a directory of its own; build inside the repository",
                            o->build_dir, p->root);
    p->suite_rel = pg__strdup(o->suite ? o->suite : "perf/perfgate.yaml");
    if (!*p->suite_rel || p->suite_rel[0] == '/' || strstr(p->suite_rel, ".."))
        return pg_error_set(PG_EUSAGE, "--suite '%s': a path inside the repository, relative to it", o->suite);
    return 0;
}

static int plan_vars(plan *p, const pg_init_options *o)
{
    if (o->build_command)
        p->build_command = pg__strdup(o->build_command);
    else if (!(p->build_command = guess_build(p->root, p->build_rel)))
        return pg_error_set(PG_EUSAGE,
                            "%s holds no Makefile, CMakeLists.txt or meson.build: give the build command "
                            "(--build-command 'CMD', run in the repository, leaving its output in %s)",
                            p->root, p->build_rel);
    if (o->perfgate_ref && !is_sha(o->perfgate_ref) && strcmp(o->perfgate_ref, PG_INIT_REF_PLACEHOLDER) != 0)
        return pg_error_set(PG_EUSAGE, "--perfgate-ref '%s': a full commit SHA (40 hex digits)", o->perfgate_ref);
    p->ref = pg__strdup(o->perfgate_ref         ? o->perfgate_ref
                        : is_sha(PG_COMMIT_STRING) ? PG_COMMIT_STRING
                                                   : PG_INIT_REF_PLACEHOLDER);
    p->branch = o->branch ? pg__strdup(o->branch) : default_branch(p->root);
    p->name = suite_name_of(p->root);
    p->v = (pg__init_vars){p->name, p->build_rel, p->build_command, p->suite_rel, p->ref,
                           o->perfgate_repo ? o->perfgate_repo : "perfgate/perfgate", p->branch,
                           o->nightly_runs_on};
    p->files[p->nfiles++] = p->suite_rel;
    if (!o->no_workflows) {
        p->files[p->nfiles++] = pg__init_workflow_files[PG__INIT_PR];
        p->files[p->nfiles++] = pg__init_workflow_files[PG__INIT_POST];
        p->files[p->nfiles++] = pg__init_workflow_files[PG__INIT_MAIN];
        if (o->nightly_runs_on)
            p->files[p->nfiles++] = pg__init_workflow_files[PG__INIT_NIGHTLY];
    }
    return 0;
}

/* Every file to write is new, or none is written. */
static int refuse_existing(const plan *p)
{
    pg_buf b = PG_BUF_INIT;
    size_t i;
    int err = 0;

    for (i = 0; i < p->nfiles; i++) {
        char *path = pg__asprintf("%s/%s", p->root, p->files[i]);
        if (exists(path))
            pg__buf_printf(&b, "%s%s", b.len ? ", " : "", p->files[i]);
        free(path);
    }
    if (b.len)
        err = pg_error_set(PG_EUSAGE, "%s: %s already exist%s; perfgate init overwrites nothing, and wrote nothing "
                                      "(move %s aside, or --suite PATH, --no-workflows)",
                           p->root, b.ptr, strchr(b.ptr, ',') ? "" : "s", strchr(b.ptr, ',') ? "them" : "it");
    pg__buf_clear(&b);
    return err;
}

/* ---- writing ------------------------------------------------------------- */

static int mkdirs_for(const char *path)
{
    char *dir = pg__strdup(path), *p;
    int err = 0;

    for (p = dir + 1; !err && (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            err = pg_error_set(PG_EIO, "cannot create %s: %s", dir, strerror(errno));
        *p = '/';
    }
    free(dir);
    return err;
}

static int write_new(const char *root, const char *rel, const pg_buf *text)
{
    char *path = pg__asprintf("%s/%s", root, rel);
    int fd, err;

    if ((err = mkdirs_for(path)) != 0) {
        free(path);
        return err;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, text->ptr, text->len) != (ssize_t)text->len)
        err = pg_error_set(PG_EIO, "cannot write %s: %s", path, strerror(errno));
    if (fd >= 0 && close(fd) != 0 && !err)
        err = pg_error_set(PG_EIO, "cannot write %s: %s", path, strerror(errno));
    free(path);
    return err;
}

/* The suite reads back as a valid suite before anything is written. */
static int check_suite(const pg_buf *text, const char *rel)
{
    pg_suite *s = NULL;
    pg_diags d = {0};
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    int err = pg_suite_load_buffer(&s, rel, text->ptr, text->len, &so, &d);

    if (err)
        err = pg_error_set(PG_EKERNEL, "the suite perfgate init made does not validate: %s",
                           d.count ? d.lines[0] : pg_error_last());
    pg_suite_free(s);
    pg_diags_clear(&d);
    return err;
}

static int make_texts(pg_buf texts[5], const plan *p, const pg__init_found *f)
{
    size_t i;
    int err;

    if ((err = pg__init_suite_text(&texts[0], f, &p->v)) != 0 || (err = check_suite(&texts[0], p->suite_rel)) != 0)
        return err;
    for (i = 1; i < p->nfiles; i++)
        if ((err = pg__init_workflow_text(&texts[i], (pg__init_workflow)(i - 1), &p->v)) != 0)
            return err;
    return 0;
}

static void fill_result(pg_init_result *out, plan *p, const pg__init_found *f)
{
    size_t i;

    out->root = p->root;
    out->build_rel = p->build_rel;
    out->build_command = p->build_command;
    out->suite_rel = p->suite_rel;
    out->perfgate_ref = p->ref;
    p->root = p->build_rel = p->build_command = p->suite_rel = p->ref = NULL;
    for (i = 0; i < p->nfiles; i++)
        out->written[out->nwritten++] = pg__strdup(p->files[i]);
    out->nplugins = f->nplugins;
    for (i = 0; i < f->nplugins; i++)
        out->nbenchmarks += f->plugins[i].n;
    out->ncommands = f->nprograms;
    out->notes = f->notes.len ? pg__strdup(f->notes.ptr) : NULL;
}

int pg_init_run(pg_init_result *out, const pg_init_options *opts)
{
    plan p;
    pg__init_found f;
    pg_buf texts[5] = {PG_BUF_INIT, PG_BUF_INIT, PG_BUF_INIT, PG_BUF_INIT, PG_BUF_INIT};
    size_t i;
    int err;

    memset(out, 0, sizeof(*out));
    memset(&p, 0, sizeof(p));
    memset(&f, 0, sizeof(f));
    if (!opts || !opts->build_dir)
        return pg_error_set(PG_EUSAGE, "perfgate init needs the build directory to scan");
    if ((err = plan_paths(&p, opts)) != 0 || (err = plan_vars(&p, opts)) != 0 || (err = refuse_existing(&p)) != 0 ||
        (err = pg__init_scan(&f, opts->build_dir)) != 0)
        goto out;
    if (f.nplugins == 0 && f.nprograms == 0) {
        err = pg_error_set(PG_EUSAGE,
                           "%s holds no perfgate plugin that loads (a shared library made with PG_PLUGIN_DEFINE, "
                           "docs/plugins.md) and no program; build first, or name the build directory%s%.*s",
                           opts->build_dir, f.notes.len ? ". Passed over:\n" : "",
                           (int)(f.notes.len ? f.notes.len - 1 : 0), f.notes.len ? f.notes.ptr : "");
        goto out;
    }
    if ((err = make_texts(texts, &p, &f)) != 0)
        goto out;
    for (i = 0; i < p.nfiles && !err; i++)
        err = write_new(p.root, p.files[i], &texts[i]);
    if (!err)
        fill_result(out, &p, &f);
out:
    for (i = 0; i < 5; i++)
        pg__buf_clear(&texts[i]);
    pg__init_found_clear(&f);
    plan_clear(&p);
    return err;
}

void pg_init_result_clear(pg_init_result *r)
{
    size_t i;

    free(r->root);
    free(r->build_rel);
    free(r->build_command);
    free(r->suite_rel);
    free(r->perfgate_ref);
    for (i = 0; i < r->nwritten; i++)
        free(r->written[i]);
    free(r->notes);
    memset(r, 0, sizeof(*r));
}
