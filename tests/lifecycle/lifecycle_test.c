/*
 * lifecycle_test.c - the GitHub path end to end: the scripts in ci/gh/ that
 * the shipped workflows call, with the environment those workflows give
 * them, against the fake GitHub API (tests/support/fakegh) and a real git
 * repository that holds the example plugin and a suite for it.
 *
 * One project lives through: three pushes to main (each built, measured,
 * recorded, the database kept in a "cache" and uploaded as an artifact); a
 * pull request that slows matmul_chain by 10 % (interleaved gate FAIL, then
 * the posting workflow comments and sets a failure status on its head); a
 * fix pushed to it (PASS, the same comment updated); a fork whose report
 * claims another pull request (refused); a cache miss in history mode
 * (nothing to restore: "nothing compared"; the artifact restored: compared);
 * a baseline only from another machine; two nights of the nightly; a first
 * pull request that adds two benchmarks the base build does not have yet
 * (PASS, "2 new cases"); and a push whose every case crashes, which the
 * record step fails rather than storing a baseline of errors.
 *
 * Each workflow job runs in a directory of its own with a git worktree of
 * the commit its workflow would check out; the test copies caches and
 * artifacts between jobs where Actions would. The steps share one history,
 * so they are one Test, in order.
 */
#include "compile.h"
#include "fakegh.h"
#include "support.h"
#include "world.h"

#include "base/util.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TOKEN "ghs_lifecycle_token_0042"
#define REPO "acme/demo"
#define PR 7
#define PR_BRANCH "faster-matmul"
#define FORK_PR 9
#define NEW_PR 11
#define NEW_BRANCH "more-benchmarks"
#define OTHER_CPU "AMD EPYC 7763 64-Core Processor"

typedef struct world {
    char *tmp, *repo, *cache, *home;
    fakegh *gh;
    char a[41], b[41], c[41]; /* main's three pushes */
    char slow[41], fixed[41]; /* the pull request's two heads */
    char fork[41];            /* the fork's head */
    char more[41];            /* the first pull request that adds benchmarks */
    char crash[41];           /* a push to main whose cases crash */
    char *fixed_dir;          /* the job that gated the fixed head (its report, its head build) */
    const char *fixed_status; /* the commit status its report carries: success, or error (nothing compared) */
    char *restored_db;        /* the database restored from the artifact after a cache miss */
} world;

static world w;

static char *path_in(const char *dir, const char *rel)
{
    return pg__asprintf("%s/%s", dir, rel);
}

/*
 * Runs ci/gh/NAME ARGS... with bash in `cwd` and exactly the environment
 * `e` (none of the developer's GITHUB_* leaks in). Returns the exit code;
 * `*out` gets stdout and stderr together (caller frees).
 */
static int script(char **out, const char *cwd, const lc_env *e, const char *name, const char *const *args)
{
    char tmpl[] = "/tmp/pg-lifecycle-XXXXXX", chunk[4096];
    int fd = mkstemp(tmpl), status = 0;
    pg_buf b = PG_BUF_INIT;
    ssize_t n;
    pid_t pid;

    cr_assert(fd >= 0);
    unlink(tmpl);
    pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        const char *argv[24];
        char *path = pg__asprintf("%s/ci/gh/%s", PG_TEST_SOURCE_DIR, name);
        int i, k = 0;
        argv[k++] = "bash";
        argv[k++] = path;
        for (i = 0; args && args[i] && k < 23; i++)
            argv[k++] = args[i];
        argv[k] = NULL;
        dup2(fd, 1);
        dup2(fd, 2);
        if (chdir(cwd) != 0)
            _exit(127);
        execve("/bin/bash", (char *const *)argv, (char *const *)e->v);
        _exit(127);
    }
    waitpid(pid, &status, 0);
    lseek(fd, 0, SEEK_SET);
    while ((n = read(fd, chunk, sizeof(chunk))) > 0)
        pg__buf_put(&b, chunk, (size_t)n);
    close(fd);
    *out = b.ptr ? pg__buf_detach(&b) : pg__strdup("");
    pg__buf_clear(&b);
    status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    /* A sanitizer report anywhere in the job fails the test, whatever the script then exits. */
    pg_test_assert_no_sanitizer(status, *out, name);
    return status;
}

/* Commits everything in the repository on its current branch; `sha` gets the commit. */
static void commit(char sha[41], const char *msg)
{
    lc_commit(w.repo, sha, msg);
}

/* A fresh job directory `name`, with the repository at `sha` checked out in its `sub` (NULL: none). */
static char *job(const char *name, const char *sub, const char *sha)
{
    char *dir = path_in(w.tmp, name);

    cr_assert(mkdir(dir, 0755) == 0, "job directory %s exists", dir);
    if (sub)
        free(lc_sh_ok("git -C '%s' worktree add -q --detach '%s/%s' %s", w.repo, dir, sub, sha));
    return dir;
}

/* What every Actions job has, and the files of this job. */
static void actions_env(lc_env *e, const char *dir)
{
    lc_env_base(e, w.home);
    lc_env_set(e, "CI", "true");
    lc_env_set(e, "GITHUB_ACTIONS", "true");
    lc_env_set(e, "GITHUB_REPOSITORY", REPO);
    lc_env_set(e, "GITHUB_SERVER_URL", "https://github.com");
    lc_env_set(e, "GITHUB_API_URL", "%s", fakegh_url(w.gh));
    lc_env_set(e, "GITHUB_GRAPHQL_URL", "%s/graphql", fakegh_url(w.gh));
    lc_env_set(e, "GITHUB_RUN_ID", "31337");
    lc_env_set(e, "GITHUB_STEP_SUMMARY", "%s/summary.md", dir);
    lc_env_set(e, "GITHUB_OUTPUT", "%s/output.txt", dir);
    lc_env_set(e, "RUNNER_TEMP", "%s", dir);
    lc_env_set(e, "PERFGATE", PG_TEST_BINARY);
    /* How this project builds its plugin against perfgate's headers (ci/gh/build.sh passes it to cmake). */
    lc_env_set(e, "PERFGATE_CMAKE_ARGS", "-DPERFGATE_INCLUDE=" PG_TEST_SOURCE_DIR "/include");
}

static void event(lc_env *e, const char *dir, const char *name, const char *json)
{
    char *path = pg_test_write(dir, "event.json", json);

    lc_env_set(e, "GITHUB_EVENT_NAME", "%s", name);
    lc_env_set(e, "GITHUB_EVENT_PATH", "%s", path);
    free(path);
}

/* Zips the database as actions/upload-artifact does (the file at the archive's top) and "uploads" it. */
static void upload_db_artifact(const char *db, const char *created_at)
{
    char *bytes = NULL;
    size_t len = 0;

    lc_zip(&bytes, &len, db, "perfgate.db");
    fakegh_add_artifact(w.gh, "perfgate-db-main", "main", 1, 0, created_at, bytes, len);
    free(bytes);
}

/* The JSON report a job wrote (caller decrefs). */
static json_t *report(const char *dir)
{
    char *path = path_in(dir, "perfgate-out/perfgate-report.json");
    json_t *r = lc_report(path);

    free(path);
    return r;
}

static size_t writes_since(size_t from)
{
    return lc_writes_since(w.gh, from);
}

static size_t statuses(const char *sha, const char *state)
{
    return lc_statuses(w.gh, REPO, sha, state);
}

/* ------------------------------------------------------------ the project */

static const char cmakelists[] = "cmake_minimum_required(VERSION 3.16)\n"
                                 "project(demo C)\n"
                                 "set(PERFGATE_INCLUDE \"\" CACHE PATH \"perfgate's include/ directory\")\n"
                                 "add_library(pg_example MODULE src/example.c)\n"
                                 "set_target_properties(pg_example PROPERTIES PREFIX \"lib\" "
                                 "C_VISIBILITY_PRESET hidden)\n"
                                 "target_include_directories(pg_example PRIVATE ${PERFGATE_INCLUDE})\n"
                                 "target_link_libraries(pg_example PRIVATE m)\n";

/* One GEMM in ten more in matmul_chain (examples/plugin/example.c): 10 % slower, the same declared FLOPs. */
static const char slowdown[] = "target_compile_definitions(pg_example PRIVATE PG_EXAMPLE_SLOWDOWN=1)\n";

/* The shipped suites/plugin.yaml, with the library where this project's CMake puts it. */
static const char suite[] = "suite: plugin\n"
                            "defaults:\n"
                            "  threads: 1\n"
                            "  min_run_time: 0.3s\n"
                            "  warmup: 50ms\n"
                            "  min_samples: 20\n"
                            "  regression: {threshold: 5%, alpha: 0.05}\n"
                            "benchmarks:\n"
                            "  - name: saxpy\n"
                            "    plugin: \"{build}/libpg_example.so\"\n"
                            "    symbol: saxpy\n"
                            "    params: {n: 4096}\n"
                            "  - name: matmul_chain\n"
                            "    plugin: \"{build}/libpg_example.so\"\n"
                            "    symbol: matmul_chain\n"
                            "    params: {n: 64, layers: 10}\n";

static void setup(void)
{
    memset(&w, 0, sizeof(w));
    w.tmp = pg_test_tmpdir();
    w.repo = path_in(w.tmp, "origin");
    w.cache = path_in(w.tmp, "actions-cache");
    w.home = path_in(w.tmp, "runner-home");
    cr_assert(mkdir(w.repo, 0755) == 0 && mkdir(w.cache, 0755) == 0 && mkdir(w.home, 0755) == 0);
    w.gh = fakegh_start(TOKEN, "github-actions[bot]");
    cr_assert(w.gh != NULL);
    /* As on Actions: GET /user is closed to the installation token. */
    fakegh_set_user_status(w.gh, 403);

    free(lc_sh_ok("git -C '%s' init -q -b main && mkdir '%s/src' '%s/suites' && cp '%s/examples/plugin/example.c' "
               "'%s/src/example.c'",
               w.repo, w.repo, w.repo, PG_TEST_SOURCE_DIR, w.repo));
    free(pg_test_write(w.repo, "CMakeLists.txt", cmakelists));
    free(pg_test_write(w.repo, "suites/plugin.yaml", suite));
    free(pg_test_write(w.repo, ".gitignore", "build*/\nbaselines/\nperfgate-out/\n"));
    free(pg_test_write(w.repo, "README.md", "# demo\n"));
}

static void teardown(void)
{
    fakegh_stop(w.gh);
    /* PG_KEEP_LIFECYCLE=1 keeps the jobs' directories to look at. */
    if (getenv("PG_KEEP_LIFECYCLE"))
        fprintf(stderr, "lifecycle: kept %s\n", w.tmp);
    else
        pg_test_rmtree(w.tmp);
    free(w.tmp);
    free(w.repo);
    free(w.cache);
    free(w.home);
    free(w.fixed_dir);
    free(w.restored_db);
}

TestSuite(lifecycle, .init = setup, .fini = teardown, .timeout = 360);

/* ------------------------------------------------------- the main branch */

/*
 * perfgate-main.yml for one push: build (and keep the build in the cache as
 * the base build of PRs on this commit), restore the database (the cache,
 * else the artifact), record, merge into what was saved meanwhile, save the
 * cache, upload the artifact.
 */
static void main_push(const char *sha, int nth)
{
    char *name = pg__asprintf("main-%d", nth), *dir = job(name, "src", sha);
    char *src = path_in(dir, "src"), *db = path_in(src, "baselines/perfgate.db");
    char *mine = path_in(dir, "perfgate-mine.db"), *cached = path_in(w.cache, "perfgate.db");
    char *out, *rows, *when = pg__asprintf("2025-06-0%dT12:00:00Z", nth);
    const char *build_args[] = {".", "build-base", NULL};
    const char *restore_args[] = {"baselines/perfgate.db", NULL};
    const char *record_args[] = {"baselines/perfgate.db", "suites/plugin.yaml", NULL};
    const char *merge_args[] = {mine, "baselines/perfgate.db", NULL};
    lc_env e = {0};
    int rc;

    actions_env(&e, dir);
    event(&e, dir, "push", "{\"ref\": \"refs/heads/main\"}");
    lc_env_set(&e, "GITHUB_SHA", "%s", sha);
    lc_env_set(&e, "GITHUB_REF", "refs/heads/main");
    lc_env_set(&e, "GITHUB_REF_NAME", "main");
    lc_env_set(&e, "GITHUB_TOKEN", TOKEN);
    /* {build} in the suite is the build this job made (perfgate-main.yml sets the same). */
    lc_env_set(&e, "PERFGATE_BUILD", "build-base");

    rc = script(&out, src, &e, "build.sh", build_args);
    cr_assert_eq(rc, 0, "push %d: build.sh: %d\n%s", nth, rc, out);
    free(out);
    free(lc_sh_ok("cp -a '%s/build-base' '%s/base-build-%s'", src, w.cache, sha));

    if (lc_exists(cached)) {
        free(lc_sh_ok("mkdir -p '%s/baselines' && cp '%s' '%s'", src, cached, db));
    } else {
        /* The first push: a cache miss and no artifact yet, so the history starts here. */
        rc = script(&out, src, &e, "restore-db.sh", restore_args);
        cr_assert_eq(rc, 0, "push %d: restore-db.sh: %d\n%s", nth, rc, out);
        cr_assert(strstr(out, "no baseline restored") != NULL, "%s", out);
        cr_assert(!lc_exists(db));
        free(out);
    }

    rc = script(&out, src, &e, "main-record.sh", record_args);
    cr_assert_eq(rc, 0, "push %d: main-record.sh: %d\n%s", nth, rc, out);
    cr_assert(strstr(out, "ERROR") == NULL, "a case did not run:\n%s", out);
    free(out);

    free(lc_sh_ok("mv '%s' '%s'", db, mine));
    if (lc_exists(cached))
        free(lc_sh_ok("cp '%s' '%s'", cached, db));
    rc = script(&out, src, &e, "merge-db.sh", merge_args);
    cr_assert_eq(rc, 0, "push %d: merge-db.sh: %d\n%s", nth, rc, out);
    free(out);
    free(lc_sh_ok("cp '%s' '%s'", db, cached));
    upload_db_artifact(db, when);

    /* Every push so far is in the database, once, in order, under its commit. */
    rows = lc_sql(cached, "SELECT commit_sha FROM runs WHERE branch = 'main' ORDER BY id");
    cr_assert(strncmp(rows, w.a, 40) == 0, "push %d: %s", nth, rows);
    cr_assert(strstr(rows, sha) != NULL, "push %d: %s", nth, rows);
    cr_assert_eq(strlen(rows), (size_t)nth * 41, "push %d: %d runs expected:\n%s", nth, nth, rows);
    free(rows);

    lc_env_free(&e);
    free(name);
    free(dir);
    free(src);
    free(db);
    free(mine);
    free(cached);
    free(when);
}

static void step1_three_pushes_to_main(void)
{
    commit(w.a, "demo: the example plugin and its suite");
    main_push(w.a, 1);
    free(pg_test_write(w.repo, "README.md", "# demo\n\nBenchmarks: suites/plugin.yaml.\n"));
    commit(w.b, "README: the suite");
    main_push(w.b, 2);
    free(pg_test_write(w.repo, "README.md", "# demo\n\nBenchmarks: suites/plugin.yaml (perfgate).\n"));
    commit(w.c, "README: perfgate");
    main_push(w.c, 3);
    cr_assert_eq(fakegh_count(w.gh, "POST", "/"), 0, "the main workflow posts nothing");
}

/* ------------------------------------------------------- the pull request */

/* The pull_request event of PR #`pr`, head `head` on `owner`'s `ref`, based on main's C. */
static void pr_env(lc_env *e, const char *dir, int pr, const char *head, const char *ref, const char *owner)
{
    char *json = pg__asprintf("{\"action\": \"synchronize\", \"number\": %d, \"pull_request\": {\"number\": %d, "
                              "\"head\": {\"sha\": \"%s\", \"ref\": \"%s\", \"repo\": {\"full_name\": \"%s/demo\", "
                              "\"fork\": %s}}, \"base\": {\"sha\": \"%s\", \"ref\": \"main\", \"repo\": "
                              "{\"full_name\": \"" REPO "\", \"fork\": false}}}}",
                              pr, pr, head, ref, owner, strcmp(owner, "acme") != 0 ? "true" : "false", w.c);

    actions_env(e, dir);
    event(e, dir, "pull_request", json);
    /* A pull_request run's GITHUB_SHA is the test merge commit, not the head. */
    lc_env_set(e, "GITHUB_SHA", "4d3e6c7b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d");
    lc_env_set(e, "GITHUB_REF", "refs/pull/%d/merge", pr);
    lc_env_set(e, "GITHUB_REF_NAME", "%d/merge", pr);
    lc_env_set(e, "GITHUB_HEAD_REF", "%s", ref);
    lc_env_set(e, "GITHUB_BASE_REF", "main");
    lc_env_set(e, "PERFGATE_REPORT", "perfgate-out/perfgate-report.json");
    free(json);
}

/*
 * perfgate-pr.yml: the head and its base commit side by side, the base
 * build restored from the cache by the base SHA, the head built, the gate
 * interleaved over `suite`. No token. `*dir` gets the job directory, `*out`
 * the log. @return the gate's exit code.
 */
static int pr_job_of(char **dir, char **out, const char *name, const char *head, int pr, const char *ref,
                     const char *suite_path)
{
    const char *gate_args[] = {"interleaved", "build-base", "build-head", suite_path, NULL};
    char *text, *want;
    lc_env e = {0};
    int rc;

    *dir = job(name, "head", head);
    free(lc_sh_ok("git -C '%s' worktree add -q --detach '%s/base' %s && cp -a '%s/base-build-%s' '%s/build-base'",
               w.repo, *dir, w.c, w.cache, w.c, *dir));
    pr_env(&e, *dir, pr, head, ref, "acme");
    lc_env_set(&e, "PERFGATE_BASE_SRC", "base");
    lc_env_set(&e, "PERFGATE_HEAD_SRC", "head");
    rc = script(out, *dir, &e, "pr-gate.sh", gate_args);
    /* The base build came from the cache, by its SHA; the head was built here. */
    cr_assert(strstr(*out, "already holds a build of") != NULL, "%s", *out);
    cr_assert(strstr(*out, "built head at") != NULL, "%s", *out);
    cr_assert(strstr(*out, "interleaving base") != NULL, "%s", *out);
    text = lc_slurp(*dir, "output.txt");
    want = pg__asprintf("exit-code=%d\n", rc);
    cr_assert(strstr(text, want) != NULL, "GITHUB_OUTPUT: %s", text);
    free(want);
    free(text);
    lc_env_free(&e);
    return rc;
}

/* perfgate-pr.yml for PR #7 over the project's suite. */
static int pr_job(char **dir, char **out, const char *name, const char *head)
{
    return pr_job_of(dir, out, name, head, PR, PR_BRANCH, "head/suites/plugin.yaml");
}

/* The workflow_run event of a finished perfgate-pr run; `pulls` is its pull_requests array. */
static char *run_event(const char *conclusion, const char *head, const char *ref, const char *owner,
                       const char *pulls)
{
    return pg__asprintf("{\"action\": \"completed\", \"workflow_run\": {\"id\": 555, \"name\": \"perfgate-pr\", "
                        "\"event\": \"pull_request\", \"status\": \"completed\", \"conclusion\": \"%s\", "
                        "\"head_sha\": \"%s\", \"head_branch\": \"%s\", "
                        "\"html_url\": \"https://github.com/" REPO "/actions/runs/555\", "
                        "\"head_repository\": {\"full_name\": \"%s/demo\", \"owner\": {\"login\": \"%s\"}}, "
                        "\"repository\": {\"full_name\": \"" REPO "\"}, \"pull_requests\": [%s]}}",
                        conclusion, head, ref, owner, owner, pulls);
}

/*
 * perfgate-post.yml: the default branch's perfgate, the report downloaded
 * from the triggering run (copied from `report`), ci/gh/post.sh with a write
 * token and the workflow_run event `json`. @return post.sh's exit code.
 */
static int post_job(char **out, const char *name, const char *report_path, const char *json)
{
    char *dir = job(name, NULL, NULL);
    const char *args[] = {"perfgate-out/perfgate-report.json", NULL};
    lc_env e = {0};
    int rc;

    free(lc_sh_ok("mkdir '%s/perfgate-out' && cp '%s' '%s/perfgate-out/perfgate-report.json'", dir, report_path, dir));
    actions_env(&e, dir);
    event(&e, dir, "workflow_run", json);
    lc_env_set(&e, "GITHUB_SHA", "%s", w.c);
    lc_env_set(&e, "GITHUB_REF", "refs/heads/main");
    lc_env_set(&e, "GITHUB_REF_NAME", "main");
    lc_env_set(&e, "GITHUB_TOKEN", TOKEN);
    rc = script(out, dir, &e, "post.sh", args);
    lc_env_free(&e);
    free(dir);
    return rc;
}

/* perfgate-post for PR #7's run at `head` that concluded `conclusion`, with the report of job `dir`. */
static void post_pr_run(const char *name, const char *dir, const char *head, const char *conclusion)
{
    char *pull = pg__asprintf("{\"number\": %d, \"head\": {\"sha\": \"%s\", \"ref\": \"" PR_BRANCH "\"}, "
                              "\"base\": {\"sha\": \"%s\", \"ref\": \"main\"}}",
                              PR, head, w.c);
    char *json = run_event(conclusion, head, PR_BRANCH, "acme", pull);
    char *rep = path_in(dir, "perfgate-out/perfgate-report.json"), *out;
    int rc = post_job(&out, name, rep, json);

    cr_assert_eq(rc, 0, "%s: post.sh exit %d\n%s", name, rc, out);
    free(out);
    free(pull);
    free(json);
    free(rep);
}

static void step2_a_slower_head_fails_and_is_posted(void)
{
    char *dir, *out, *body;
    json_t *r;
    int rc;

    free(lc_sh_ok("git -C '%s' checkout -q -b " PR_BRANCH, w.repo));
    {
        char *cm = pg__asprintf("%s%s", cmakelists, slowdown);
        free(pg_test_write(w.repo, "CMakeLists.txt", cm));
        free(cm);
    }
    commit(w.slow, "matmul_chain: one more layer in ten");

    /* A 10 % slowdown under interleaved rounds is what the gate exists to catch (lab: 10 of 10). */
    rc = pr_job(&dir, &out, "pr-slow", w.slow);
    cr_assert_eq(rc, 1, "the slower head did not fail: exit %d\n%s", rc, out);
    r = report(dir);
    cr_assert_str_eq(lc_verdict_of(r, "matmul_chain"), "REGRESSED");
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(r, "github"), "pr")), PR);
    json_decref(r);
    free(out);
    body = lc_slurp(dir, "summary.md");
    cr_assert(strstr(body, "perfgate: FAIL") != NULL, "job summary: %s", body);
    free(body);

    /* The PR run failed (exit 1): perfgate-post runs for conclusion "failure". */
    post_pr_run("post-slow", dir, w.slow, "failure");
    cr_assert_eq(fakegh_comment_count(w.gh, PR), 1);
    body = fakegh_comment_body(w.gh, 1001);
    cr_assert(body != NULL, "the first comment is not id 1001");
    cr_assert(strstr(body, "<!-- perfgate:") == body, "%s", body);
    cr_assert(strstr(body, "perfgate: FAIL") != NULL, "%s", body);
    cr_assert(strstr(body, "matmul_chain") != NULL, "%s", body);
    free(body);
    cr_assert_eq(statuses(w.slow, "failure"), 1, "a failure status on the PR head");
    cr_assert_eq(fakegh_count(w.gh, "POST", "/repos/" REPO "/statuses/"), 1, "one status, on the head only");
    free(dir);
}

static void step3_the_fix_passes_and_updates_the_comment(void)
{
    char *dir, *out, *body;
    int rc;

    free(pg_test_write(w.repo, "CMakeLists.txt", cmakelists));
    commit(w.fixed, "matmul_chain: back to ten layers");

    rc = pr_job(&dir, &out, "pr-fixed", w.fixed);
    /*
     * The same code on both sides must never fail; confirmation by fresh rounds keeps a chance
     * regression out. On a loaded machine the rounds may not resolve 5 %: that is "nothing
     * compared" (exit 4, no case decided), an honest outcome, never a pass or a failure.
     */
    cr_assert(rc == 0 || (rc == 4 && strstr(out, "no case was decided") != NULL),
              "the fixed head did not pass: exit %d\n%s", rc, out);
    free(out);
    w.fixed_dir = dir;
    w.fixed_status = rc == 0 ? "success" : "error";

    post_pr_run("post-fixed", dir, w.fixed, rc == 0 ? "success" : "failure");
    /* Updated in place: still one comment, the same id, no longer a failure. */
    cr_assert_eq(fakegh_comment_count(w.gh, PR), 1);
    cr_assert_eq(fakegh_count(w.gh, "PATCH", "/repos/" REPO "/issues/comments/1001"), 1);
    body = fakegh_comment_body(w.gh, 1001);
    cr_assert(strstr(body, rc == 0 ? "perfgate: PASS" : "perfgate: nothing compared") != NULL, "%s", body);
    cr_assert(strstr(body, "perfgate: FAIL") == NULL, "%s", body);
    free(body);
    cr_assert_eq(statuses(w.fixed, rc == 0 ? "success" : "error"), 1, "the new head's status");
    cr_assert_eq(statuses(w.slow, NULL), 1, "nothing more on the old head");
}

/* ----------------------------------------------------------------- forks */

/* The fixed head's report, rewritten as a fork's code could: it claims PR #`pr` at the fork's head. */
static char *forged_report(int pr)
{
    json_t *r = report(w.fixed_dir), *gh = json_object_get(r, "github");
    char *name = pg__asprintf("forged-%d.json", pr), *path = path_in(w.tmp, name);

    json_object_set_new(gh, "pr", json_integer(pr));
    json_object_set_new(gh, "head_sha", json_string(w.fork));
    json_object_set_new(json_object_get(r, "run"), "pr", json_integer(pr));
    cr_assert(json_dump_file(r, path, JSON_COMPACT) == 0);
    json_decref(r);
    free(name);
    return path;
}

static void step4_a_fork_cannot_redirect_the_comment(void)
{
    char *out, *json, *rep, *before;
    size_t nreq;
    int rc;

    free(lc_sh_ok("git -C '%s' checkout -q -b patch-1 %s", w.repo, w.c));
    free(pg_test_write(w.repo, "README.md", "# demo\n\nA typo fixed by a stranger.\n"));
    commit(w.fork, "README: typo");
    /* GitHub knows both PRs; the fork's run event lists none (it never does for a fork). */
    fakegh_add_pull(w.gh, PR, "acme", PR_BRANCH, w.fixed);
    fakegh_add_pull(w.gh, FORK_PR, "mallory", "patch-1", w.fork);
    json = run_event("success", w.fork, "patch-1", "mallory", "");

    before = fakegh_comment_body(w.gh, 1001);
    nreq = fakegh_request_count(w.gh);
    rep = forged_report(PR);
    rc = post_job(&out, "post-fork-forged", rep, json);
    cr_assert_neq(rc, 0, "a report claiming #%d was posted for the fork's run:\n%s", PR, out);
    cr_assert(strstr(out, "refusing to post") != NULL, "%s", out);
    cr_assert(strstr(out, "#7") != NULL && strstr(out, "#9") != NULL, "%s", out);
    free(out);
    free(rep);
    /* Nothing posted anywhere: no comment, no edit, no status. */
    cr_assert_eq(writes_since(nreq), 0, "the refused post still wrote to GitHub");
    cr_assert_eq(fakegh_comment_count(w.gh, PR), 1);
    cr_assert_eq(fakegh_comment_count(w.gh, FORK_PR), 0);
    {
        char *after = fakegh_comment_body(w.gh, 1001);
        cr_assert_str_eq(after, before, "PR #%d's comment changed", PR);
        free(after);
    }
    cr_assert_eq(statuses(w.fork, NULL), 0);

    /* The same fork, honest: its own PR, found through the API by its head, gets the comment. */
    rep = forged_report(FORK_PR);
    rc = post_job(&out, "post-fork-honest", rep, json);
    cr_assert_eq(rc, 0, "%d\n%s", rc, out);
    cr_assert(strstr(out, "found through the API") != NULL, "%s", out);
    free(out);
    free(rep);
    cr_assert_eq(fakegh_comment_count(w.gh, FORK_PR), 1);
    cr_assert_eq(fakegh_comment_count(w.gh, PR), 1);
    /* The fixed head's report, so its outcome: a pass, or nothing compared where the rounds did not resolve. */
    cr_assert_eq(statuses(w.fork, w.fixed_status), 1, "no %s status on the fork's head", w.fixed_status);
    {
        char *after = fakegh_comment_body(w.gh, 1001);
        cr_assert_str_eq(after, before, "PR #%d's comment changed", PR);
        free(after);
    }
    free(before);
    free(json);
}

/* ---------------------------------------------------- history mode, nightly */

/*
 * History mode, where a job cannot build the base: the fixed head's build,
 * the database restored after a cache miss (ci/gh/restore-db.sh), the gate
 * against the stored runs of main. `artifact` names the artifact to restore.
 * In history mode a run's timings vary more than between interleaved rounds;
 * these steps are about which runs are compared, not about a 5 % change, so
 * the gate takes a 25 % threshold that same-code runs resolve.
 */
static void history_env(lc_env *e, const char *dir)
{
    pr_env(e, dir, PR, w.fixed, PR_BRANCH, "acme");
    lc_env_set(e, "GITHUB_TOKEN", TOKEN);
    lc_env_set(e, "PERFGATE_BUILD", "build-head");
    lc_env_set(e, "PERFGATE_ARGS", "--threshold 25%%");
}

static char *history_job(const char *name)
{
    char *dir = job(name, "head", w.fixed);

    free(lc_sh_ok("cp -a '%s/build-head' '%s/build-head'", w.fixed_dir, dir));
    return dir;
}

static int history_gate(char **out, const char *dir, const lc_env *e, const char *db)
{
    const char *args[] = {"history", db, "head/suites/plugin.yaml", NULL};

    return script(out, dir, e, "pr-gate.sh", args);
}

static void step5_a_cache_miss_is_restored_or_compares_nothing(void)
{
    const char *restore_args[] = {"baselines/perfgate.db", NULL};
    char *dir, *out, *rows;
    lc_env e = {0};
    json_t *r;
    int rc;

    /* Evicted, and nothing to restore: the history starts anew, and the gate says it compared nothing. */
    dir = history_job("history-evicted");
    history_env(&e, dir);
    lc_env_set(&e, "PERFGATE_DB_ARTIFACT", "perfgate-db-never-uploaded");
    rc = script(&out, dir, &e, "restore-db.sh", restore_args);
    cr_assert_eq(rc, 0, "%d\n%s", rc, out);
    cr_assert(strstr(out, "no baseline restored") != NULL, "%s", out);
    free(out);
    rc = history_gate(&out, dir, &e, "baselines/perfgate.db");
    cr_assert_eq(rc, 4, "a gate with no baseline exited %d, not 4 (nothing compared)\n%s", rc, out);
    cr_assert(strstr(out, "nothing compared") != NULL, "%s", out);
    free(out);
    lc_env_free(&e);
    free(dir);

    /* Evicted, and the newest artifact of main restored: the gate compares with main's runs. */
    dir = history_job("history-restored");
    history_env(&e, dir);
    rc = script(&out, dir, &e, "restore-db.sh", restore_args);
    cr_assert_eq(rc, 0, "%d\n%s", rc, out);
    cr_assert(strstr(out, "restored") != NULL, "%s", out);
    free(out);
    w.restored_db = path_in(w.tmp, "restored.db");
    free(lc_sh_ok("cp '%s/baselines/perfgate.db' '%s'", dir, w.restored_db));
    rows = lc_sql(w.restored_db, "SELECT commit_sha FROM runs WHERE branch = 'main' ORDER BY id");
    cr_assert_eq(strlen(rows), 3 * 41, "the restored database lacks main's three runs:\n%s", rows);
    free(rows);
    rc = history_gate(&out, dir, &e, "baselines/perfgate.db");
    /* Compared: a verdict, or on a loaded machine every case UNSURE (4, but with a baseline, unlike a miss). */
    cr_assert(rc == 0 || rc == 1 || rc == 4, "the gate on a restored database exited %d\n%s", rc, out);
    r = report(dir);
    cr_assert(rc != 4 || strncmp(json_string_value(json_object_get(json_object_get(r, "summary"), "outcome_reason")),
                                 "no case was decided", 19) == 0,
              "%s", out);
    /* The PR's base commit is in the database: that is the baseline. */
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "baseline"), "commit")), w.c, "%s",
                     out);
    json_decref(r);
    free(out);
    lc_env_free(&e);
    free(dir);
}

static void step6_a_baseline_from_another_machine_compares_nothing(void)
{
    char *dir = history_job("history-other-machine"), *db = path_in(dir, "other.db"), *out;
    lc_env e = {0};
    int rc;

    /* The runs of main as a hosted runner with another CPU would have stored them. */
    free(lc_sh_ok("cp '%s' '%s'", w.restored_db, db));
    free(lc_sql(db, "UPDATE machines SET hash = '0ddba11c0ffee123', fingerprint = json_set(fingerprint, "
                 "'$.cpu_model', '" OTHER_CPU "', '$.hostname', 'fv-az412-7');"
                 "UPDATE runs SET fingerprint = json_set(fingerprint, '$.cpu_model', '" OTHER_CPU "', '$.hostname', "
                 "'fv-az412-7') WHERE fingerprint IS NOT NULL"));
    history_env(&e, dir);
    rc = history_gate(&out, dir, &e, "other.db");
    cr_assert_eq(rc, 4, "a baseline only from another machine: exit %d, not 4 (nothing compared)\n%s", rc, out);
    cr_assert(strstr(out, "nothing compared") != NULL, "%s", out);
    cr_assert(strstr(out, "another machine") != NULL && strstr(out, OTHER_CPU) != NULL,
              "the reason does not name the other machine:\n%s", out);
    free(out);
    lc_env_free(&e);
    free(db);
    free(dir);
}

/* perfgate-nightly-gpu.yml on its self-hosted runner, the database in the runner's PERFGATE_DB. */
static int night(char **out, const char *name)
{
    char *dir = job(name, "src", w.c), *src = path_in(dir, "src");
    const char *args[] = {"suites/plugin.yaml", NULL};
    lc_env e = {0};
    int rc;

    free(lc_sh_ok("cp -a '%s/base-build-%s' '%s/src/build'", w.cache, w.c, dir));
    actions_env(&e, dir);
    event(&e, dir, "schedule", "{\"schedule\": \"17 3 * * *\"}");
    lc_env_set(&e, "GITHUB_SHA", "%s", w.c);
    lc_env_set(&e, "GITHUB_REF", "refs/heads/main");
    lc_env_set(&e, "GITHUB_REF_NAME", "main");
    lc_env_set(&e, "PERFGATE_DB", "%s/perfgate/nightly.db", w.home);
    lc_env_set(&e, "PERFGATE_REPORT", "perfgate-out/perfgate-report.json");
    lc_env_set(&e, "PERFGATE_DB_COPY", "perfgate-out/nightly.db");
    lc_env_set(&e, "PERFGATE_BUILD", "build");
    /* As in history mode: this is about which runs are compared, so a threshold same-code runs resolve. */
    lc_env_set(&e, "PERFGATE_ARGS", "--threshold 25%%");
    rc = script(out, src, &e, "nightly.sh", args);
    {
        char *copy = path_in(src, "perfgate-out/nightly.db");
        cr_assert(lc_exists(copy), "no copy of the database for the artifact:\n%s", *out);
        free(copy);
    }
    lc_env_free(&e);
    free(src);
    free(dir);
    return rc;
}

static void step7_the_second_night_compares_with_the_first(void)
{
    char *out, *db = pg__asprintf("%s/perfgate/nightly.db", w.home), *rows;
    int rc;

    rc = night(&out, "night-1");
    cr_assert_eq(rc, 4, "the first night: exit %d, not 4 (nothing compared)\n%s", rc, out);
    cr_assert(strstr(out, "nothing compared") != NULL, "%s", out);
    free(out);
    rc = night(&out, "night-2");
    /*
     * It compares with the first night (the report's baseline, below). Against one earlier run
     * the cases may stay undecided on a noisy machine: exit 4 then says "no case was decided",
     * never "no baseline".
     */
    cr_assert(rc == 0 || rc == 1 || (rc == 4 && strstr(out, "no case was decided") != NULL),
              "the second night did not compare with the first: exit %d\n%s", rc, out);
    cr_assert(strstr(out, "no baseline") == NULL, "%s", out);
    free(out);
    {
        char *dir = path_in(w.tmp, "night-2/src");
        json_t *r = report(dir), *base = json_object_get(r, "baseline");
        cr_assert_str_eq(json_string_value(json_object_get(base, "branch")), "nightly");
        cr_assert_eq(json_integer_value(json_object_get(base, "runs")), 1);
        json_decref(r);
        free(dir);
    }
    rows = lc_sql(db, "SELECT count(*) FROM runs WHERE branch = 'nightly'");
    cr_assert_str_eq(rows, "2\n");
    free(rows);
    free(db);
}

/* ------------------------------------------- new benchmarks, broken main */

/* Two more benchmarks of the example plugin: the same kernels under names the base build does not have. */
static const char more_benchmarks[] =
    "    {\"saxpy_wide\", \"saxpy over a wider vector (new)\", saxpy, NULL, NULL, NULL},\n"
    "    {\"matmul_chain_deep\", \"a deeper chain (new)\", NULL, chain_setup, chain_iterate, chain_free},\n";

static const char more_suite[] = "suite: more\n"
                                 "defaults: {threads: 1, min_run_time: 0.1s, warmup: 20ms, min_samples: 10}\n"
                                 "benchmarks:\n"
                                 "  - {name: saxpy_wide, plugin: \"{build}/libpg_example.so\", symbol: saxpy_wide,"
                                 " params: {n: 8192}}\n"
                                 "  - {name: matmul_chain_deep, plugin: \"{build}/libpg_example.so\","
                                 " symbol: matmul_chain_deep, params: {n: 32, layers: 12}}\n";

static void step8_a_first_pull_request_of_two_new_benchmarks_passes(void)
{
    char *dir, *out, *src, *patched, *at, *reason;
    json_t *r, *v;
    size_t i;
    int rc;

    free(lc_sh_ok("git -C '%s' checkout -q -b " NEW_BRANCH " %s", w.repo, w.c));
    src = lc_slurp(w.repo, "src/example.c");
    at = strstr(src, "};\n\nPG_PLUGIN_DEFINE");
    cr_assert(at != NULL, "the example plugin's table is not where it was");
    patched = pg__asprintf("%.*s%s%s", (int)(at - src), src, more_benchmarks, at);
    free(pg_test_write(w.repo, "src/example.c", patched));
    free(pg_test_write(w.repo, "suites/more.yaml", more_suite));
    commit(w.more, "two more benchmarks");
    free(src);
    free(patched);

    /* The base build (main's C) has neither benchmark: both are NEW, and the gate passes saying so. */
    rc = pr_job_of(&dir, &out, "pr-more", w.more, NEW_PR, NEW_BRANCH, "head/suites/more.yaml");
    cr_assert_eq(rc, 0, "a first pull request of new benchmarks did not pass: exit %d\n%s", rc, out);
    cr_assert(strstr(out, "perfgate: PASS — 2 new cases, nothing to compare them with yet") != NULL, "%s", out);
    cr_assert(strstr(out, "NEW, not in the base build: plugin") != NULL, "%s", out);
    free(out);
    r = report(dir);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "summary"), "outcome")), "PASS");
    reason = (char *)json_string_value(json_object_get(json_object_get(r, "summary"), "outcome_reason"));
    cr_assert_str_eq(reason, "2 new cases, nothing to compare them with yet");
    json_array_foreach(json_object_get(r, "verdicts"), i, v)
    {
        cr_assert_str_eq(json_string_value(json_object_get(v, "verdict")), "NEW");
        cr_assert(strstr(json_string_value(json_object_get(v, "reason")), "has no benchmark") != NULL, "%s",
                  json_string_value(json_object_get(v, "reason")));
    }
    cr_assert_eq(i, 2);
    json_decref(r);
    out = lc_slurp(dir, "summary.md");
    cr_assert(strstr(out, "### perfgate: PASS — 2 new cases, nothing to compare them with yet") != NULL, "%s", out);
    free(out);
    free(dir);
}

/* A plugin whose benchmarks crash, as a bad push to main can make them. */
static const char crash_c[] = "#include <signal.h>\n"
                              "#include \"perfgate/plugin.h\"\n"
                              "static void boom(pg_state *st)\n"
                              "{\n"
                              "    while (pg_keep_running(st))\n"
                              "        raise(SIGSEGV);\n"
                              "}\n"
                              "static const pg_benchmark benchmarks[] = {\n"
                              "    {\"boom\", \"crashes\", boom, NULL, NULL, NULL},\n"
                              "    {\"boom_again\", \"crashes too\", boom, NULL, NULL, NULL},\n"
                              "};\n"
                              "PG_PLUGIN_DEFINE(\"crash\", benchmarks)\n";

static const char crash_suite[] = "suite: crash\n"
                                  "defaults: {threads: 1, min_run_time: 50ms, warmup: 5ms, min_samples: 5}\n"
                                  "benchmarks:\n"
                                  "  - {name: boom, plugin: \"{build}/libpg_crash.so\", symbol: boom}\n"
                                  "  - {name: boom_again, plugin: \"{build}/libpg_crash.so\", symbol: boom_again}\n";

static void step9_a_push_whose_cases_crash_fails_the_record_step(void)
{
    char *dir, *src, *out, *cm;
    const char *build_args[] = {".", "build-base", NULL};
    const char *record_args[] = {"baselines/perfgate.db", "suites/crash.yaml", NULL};
    lc_env e = {0};
    int rc;

    free(lc_sh_ok("git -C '%s' checkout -q main", w.repo));
    cm = pg__asprintf("%sadd_library(pg_crash MODULE src/crash.c)\n"
                      "set_target_properties(pg_crash PROPERTIES PREFIX \"lib\" C_VISIBILITY_PRESET hidden)\n"
                      "target_include_directories(pg_crash PRIVATE ${PERFGATE_INCLUDE})\n",
                      cmakelists);
    free(pg_test_write(w.repo, "CMakeLists.txt", cm));
    free(pg_test_write(w.repo, "src/crash.c", crash_c));
    free(pg_test_write(w.repo, "suites/crash.yaml", crash_suite));
    commit(w.crash, "crash: two benchmarks that crash");
    free(cm);

    dir = job("main-crash", "src", w.crash);
    src = path_in(dir, "src");
    actions_env(&e, dir);
    event(&e, dir, "push", "{\"ref\": \"refs/heads/main\"}");
    lc_env_set(&e, "GITHUB_SHA", "%s", w.crash);
    lc_env_set(&e, "GITHUB_REF", "refs/heads/main");
    lc_env_set(&e, "GITHUB_REF_NAME", "main");
    lc_env_set(&e, "PERFGATE_BUILD", "build-base");
    rc = script(&out, src, &e, "build.sh", build_args);
    cr_assert_eq(rc, 0, "build.sh: %d\n%s", rc, out);
    free(out);
    free(lc_sh_ok("mkdir -p '%s/baselines' && cp '%s/perfgate.db' '%s/baselines/perfgate.db'", src, w.cache, src));
    /* Every case crashed: the record step fails the job (exit 3), so this commit is visibly not a baseline. */
    rc = script(&out, src, &e, "main-record.sh", record_args);
    cr_assert_eq(rc, 3, "a run of crashes was recorded with exit %d\n%s", rc, out);
    cr_assert(strstr(out, "every measured case ended in ERROR (2 of 2); nothing was measured") != NULL, "%s", out);
    cr_assert(strstr(out, "crashed with signal 11") != NULL, "the cause is shown:\n%s", out);
    cr_assert(strstr(out, "kept whole") == NULL, "the job went on to prune:\n%s", out);
    free(out);
    lc_env_free(&e);
    free(src);
    free(dir);
}

Test(lifecycle, main_pull_request_fork_cache_miss_other_machine_nightly)
{
    step1_three_pushes_to_main();
    step2_a_slower_head_fails_and_is_posted();
    step3_the_fix_passes_and_updates_the_comment();
    step4_a_fork_cannot_redirect_the_comment();
    step5_a_cache_miss_is_restored_or_compares_nothing();
    step6_a_baseline_from_another_machine_compares_nothing();
    step7_the_second_night_compares_with_the_first();
    step8_a_first_pull_request_of_two_new_benchmarks_passes();
    step9_a_push_whose_cases_crash_fails_the_record_step();
}
