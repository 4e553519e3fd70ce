/*
 * cli_test.c - `perfgate bisect` refusing what it cannot bisect, before
 * measuring anything: a clear line and exit 2 for usage and input, 3 when
 * an end does not build.
 */
#include "support.h"

#include "compile.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

typedef struct repo {
    char *dir, *path, *suite;
} repo;

static void repo_make(repo *r)
{
    char *script = pg_test_data("bisect/make_repo.sh"), *cmd, *out = NULL;

    r->dir = pg_test_tmpdir();
    r->path = pg__asprintf("%s/repo", r->dir);
    r->suite = pg_test_write(r->dir, "kern.yaml",
                             "suite: kern\nbenchmarks:\n  - name: a\n    plugin: \"{build}/libkern.so\"\n"
                             "    symbol: kern_a\n");
    cmd = pg__asprintf("bash '%s' '%s' flat", script, r->path);
    cr_assert_eq(pg_test_sh(&out, cmd), 0, "%s: %s", cmd, out);
    free(script);
    free(cmd);
    free(out);
}

static void repo_free(repo *r)
{
    pg_test_rmtree(r->dir);
    free(r->dir);
    free(r->path);
    free(r->suite);
}

/* Runs bisect in the repository and asserts its exit and a piece of its message. */
static void expect(const repo *r, const char *const *args, int status, const char *says)
{
    const char *argv[24];
    size_t n = 0, i;
    pg_proc p;

    argv[n++] = "bisect";
    for (i = 0; args[i]; i++)
        argv[n++] = args[i];
    argv[n++] = r->suite;
    argv[n] = NULL;
    pg_test_run(&p, r->path, NULL, argv);
    cr_assert_eq(p.status, status, "exit %d, not %d: %s%s", p.status, status, p.out, p.err);
    cr_assert(strstr(p.err, says), "'%s' not in: %s", says, p.err);
    pg_proc_free(&p);
}

Test(bisect_cli, bad_revisions_and_options_are_usage_errors)
{
    repo r;
    const char *no_build[] = {"main~3", "main", NULL};
    const char *backwards[] = {"main", "main~3", "--build", "make", NULL};
    const char *same[] = {"main", "main", "--build", "make", NULL};
    const char *unknown[] = {"nosuchrev", "main", "--build", "make", NULL};
    const char *dashed[] = {"--", "main", "--build", "make", NULL};
    const char *outside[] = {"main~3", "main", "--build", "make", "--build-dir", "../x", NULL};
    const char *filtered[] = {"main~3", "main", "--build", "make", "--filter", "nothing*", NULL};

    repo_make(&r);
    expect(&r, no_build, 2, "--build CMD is required");
    expect(&r, backwards, 2, "is not an ancestor of BAD");
    expect(&r, same, 2, "is the same commit as BAD");
    expect(&r, unknown, 2, "'nosuchrev' names no commit");
    expect(&r, dashed, 2, "");
    expect(&r, outside, 2, "--build-dir ../x");
    expect(&r, filtered, 2, "no timed case matched the filter nothing*");
    repo_free(&r);
}

Test(bisect_cli, a_suite_that_does_not_run_the_build_has_nothing_to_bisect)
{
    repo r;
    const char *argv[] = {"bisect", "main~3", "main", "--build", "make", NULL, NULL};
    char *builtin;
    pg_proc p;

    repo_make(&r);
    /* A built-in kernel is perfgate's own code: the same at every commit of the repository. */
    builtin = pg_test_write(r.dir, "builtin.yaml",
                            "suite: builtin\nbenchmarks:\n  - name: copy\n    kernel: copy\n    params: {n: 1024}\n");
    argv[5] = builtin;
    pg_test_run(&p, r.path, NULL, argv);
    cr_assert_eq(p.status, 2, "exit %d: %s%s", p.status, p.out, p.err);
    cr_assert(strstr(p.err, "runs the build ({build} in its plugin or command)"), "%s", p.err);
    pg_proc_free(&p);
    free(builtin);
    repo_free(&r);
}

Test(bisect_cli, an_end_that_does_not_build_is_an_infrastructure_error_with_its_log)
{
    repo r;
    const char *broken[] = {"main~3", "main", "--build", "echo 'no compiler here' >&2; exit 7", NULL};
    const char *empty[] = {"main~3", "main", "--build", "true", NULL};

    repo_make(&r);
    expect(&r, broken, 3, "failed (exit 7): 'no compiler here'; its log: ");
    expect(&r, empty, 3, "left nothing in build");
    repo_free(&r);
}

Test(bisect_cli, a_state_of_other_inputs_or_a_damaged_one_is_refused)
{
    repo r;
    char *other, *damaged;
    const char *a[] = {"main~3", "main", "--build", "make", "--state", NULL, NULL};

    repo_make(&r);
    other = pg_test_write(r.dir, "other.json",
                          "{\"perfgate_bisect\": 1, \"identity\": \"feed\", \"inputs\": {}, \"commits\": "
                          "[{\"sha\": \"0000000000000000000000000000000000000000\"}, "
                          "{\"sha\": \"1111111111111111111111111111111111111111\"}], \"steps\": [], "
                          "\"result\": {\"kind\": \"open\", \"span\": [0, 1]}}\n");
    damaged = pg_test_write(r.dir, "damaged.json", "{\"perfgate_bisect\": 1, \"steps\": [\n");
    a[5] = other;
    expect(&r, a, 2, "holds a bisection of other inputs");
    a[5] = damaged;
    expect(&r, a, 2, "--restart starts over");
    free(other);
    free(damaged);
    repo_free(&r);
}
