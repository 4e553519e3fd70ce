/* support.c - shared helpers for the Criterion tests. */
#include "support.h"

#include "perfgate/config.h"
#include "base/util.h"

#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

char *pg_test_tmpdir(void)
{
    char tmpl[] = "/tmp/perfgate-test-XXXXXX";
    char *d = mkdtemp(tmpl);

    cr_assert(d != NULL, "mkdtemp failed");
    return pg__strdup(d);
}

static int rm_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void pg_test_rmtree(const char *path)
{
    if (path)
        nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

char *pg_test_write(const char *dir, const char *name, const char *text)
{
    char *path = pg__asprintf("%s/%s", dir, name);
    FILE *f = fopen(path, "w");

    cr_assert(f != NULL, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
    return path;
}

char *pg_test_data(const char *rel)
{
    return pg__asprintf("%s/%s", PG_TEST_DATA_DIR, rel);
}

void pg_test_snapshot(const char *rel, const char *actual)
{
    char *path = pg_test_data(rel), *want = NULL;
    const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
    size_t len = 0;

    if (getenv("PG_SNAPSHOT_DIR") && *getenv("PG_SNAPSHOT_DIR")) {
        /* ci/update-snapshots.sh: the output goes beside, never over, the committed file. */
        char *fresh = pg__asprintf("%s/%s", getenv("PG_SNAPSHOT_DIR"), rel), *slash;
        FILE *f;
        for (slash = strchr(fresh + strlen(getenv("PG_SNAPSHOT_DIR")) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
            *slash = '\0';
            mkdir(fresh, 0755);
            *slash = '/';
        }
        f = fopen(fresh, "w");
        cr_assert(f != NULL, "cannot write %s", fresh);
        fputs(actual, f);
        fclose(f);
        free(fresh);
    }
    cr_assert(pg__read_file(&want, &len, path) == 0, "cannot read %s: %s", path, pg_error_last());
    if (strcmp(want, actual) != 0) {
        char *dump = pg__asprintf("/tmp/perfgate-snapshot-%s", base);
        FILE *f = fopen(dump, "w");
        if (f) {
            fputs(actual, f);
            fclose(f);
        }
        cr_assert_fail("%s differs from its snapshot; actual output in %s (diff them; regenerate with "
                       "ci/update-snapshots.sh if the change is intended)",
                       rel, dump);
    }
    free(want);
    free(path);
}

/* Sets obj[key] to "<VERSION>" (only when it holds this build's version, with `only_ours`). */
static void scrub_field(json_t *obj, const char *key, int only_ours)
{
    const char *v = json_string_value(json_object_get(obj, key));

    if (v && (!only_ours || strcmp(v, PG_VERSION_STRING) == 0))
        json_object_set_new(obj, key, json_string("<VERSION>"));
}

char *pg_test_scrub_version(const char *json)
{
    json_t *root = json_loads(json, 0, NULL);
    char *dumped, *out;

    cr_assert(root != NULL, "the JSON report does not parse: %.200s", json);
    /* The tool that wrote the report is always this build; a stored run may come from another. */
    scrub_field(json_object_get(root, "tool"), "version", 0);
    scrub_field(json_object_get(root, "run"), "tool_version", 1);
    dumped = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(root);
    out = pg__asprintf("%s\n", dumped ? dumped : "");
    free(dumped);
    return out;
}

static char *slurp_fd(int fd)
{
    pg_buf b = PG_BUF_INIT;
    char chunk[4096];
    ssize_t n;

    lseek(fd, 0, SEEK_SET);
    while ((n = read(fd, chunk, sizeof(chunk))) > 0)
        pg__buf_put(&b, chunk, (size_t)n);
    return pg__buf_detach(&b);
}

const char *const pg_test_sanitizer_env[] = {
    "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86",
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=86",
    NULL,
};

void pg_test_assert_no_sanitizer(int status, const char *err, const char *what)
{
    static const char *const marks[] = {"AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
                                        "runtime error: "};
    size_t i;

    for (i = 0; err && i < sizeof(marks) / sizeof(marks[0]); i++) {
        const char *at = strstr(err, marks[i]);
        cr_assert(at == NULL, "%s: a sanitizer report on stderr (exit %d):\n%.3000s", what, status,
                  at - err > 200 ? at - 200 : err);
    }
    cr_assert_neq(status, PG_TEST_SANITIZER_EXIT, "%s exited with the sanitizers' code %d:\n%.3000s", what, status,
                  err ? err : "");
}

int pg_test_report_exit(const char *json_path)
{
    json_error_t je;
    json_t *root = json_load_file(json_path, 0, &je);
    const char *outcome;
    int rc = -1;

    cr_assert(root != NULL, "%s: %s", json_path, je.text);
    outcome = json_string_value(json_object_get(json_object_get(root, "summary"), "outcome"));
    cr_assert(outcome != NULL, "%s has no summary.outcome", json_path);
    if (strcmp(outcome, "PASS") == 0)
        rc = 0;
    else if (strcmp(outcome, "FAIL") == 0)
        rc = 1;
    else if (strcmp(outcome, "NOTHING_COMPARED") == 0)
        rc = 4;
    else if (strcmp(outcome, "ERROR") == 0)
        rc = 3;
    cr_assert(rc >= 0, "%s: unknown outcome '%s'", json_path, outcome);
    json_decref(root);
    return rc;
}

int pg_test_run(pg_proc *out, const char *cwd, const char *const *env, const char *const *argv)
{
    char outp[] = "/tmp/pg-out-XXXXXX", errp[] = "/tmp/pg-err-XXXXXX";
    int ofd = mkstemp(outp), efd = mkstemp(errp), status = 0;
    pid_t pid;

    memset(out, 0, sizeof(*out));
    cr_assert(ofd >= 0 && efd >= 0);
    unlink(outp);
    unlink(errp);
    pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        const char *args[64];
        int i, n = 0;
        args[n++] = PG_TEST_BINARY;
        for (i = 0; argv[i] && n < 63; i++)
            args[n++] = argv[i];
        args[n] = NULL;
        dup2(ofd, 1);
        dup2(efd, 2);
        if (cwd && chdir(cwd) != 0)
            _exit(127);
        for (i = 0; pg_test_sanitizer_env[i]; i++)
            putenv((char *)pg_test_sanitizer_env[i]);
        for (i = 0; env && env[i]; i++)
            putenv((char *)env[i]);
        execv(PG_TEST_BINARY, (char *const *)args);
        _exit(127);
    }
    waitpid(pid, &status, 0);
    out->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    out->out = slurp_fd(ofd);
    out->err = slurp_fd(efd);
    close(ofd);
    close(efd);
    pg_test_assert_no_sanitizer(out->status, out->err, argv[0] ? argv[0] : "perfgate");
    return 0;
}

void pg_proc_free(pg_proc *p)
{
    free(p->out);
    free(p->err);
    p->out = p->err = NULL;
}

int pg_test_run_judged(pg_proc *out, const char *cwd, const char *const *env, const char *const *argv)
{
    char *dir = pg_test_tmpdir(), *json = pg__asprintf("%s/report.json", dir);
    const char *args[64];
    int i, n = 0, want;

    cr_assert(argv[0] != NULL, "pg_test_run_judged needs a subcommand");
    args[n++] = argv[0];
    args[n++] = "--json";
    args[n++] = json;
    for (i = 1; argv[i] && n < 63; i++)
        args[n++] = argv[i];
    args[n] = NULL;
    pg_test_run(out, cwd, env, args);
    want = pg_test_report_exit(json);
    cr_assert_eq(out->status, want, "%s exited %d, but its report's outcome owes %d:\n%s\n%s", argv[0],
                 out->status, want, out->out, out->err);
    pg_test_rmtree(dir);
    free(json);
    free(dir);
    return want;
}
