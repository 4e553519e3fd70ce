/*
 * lifecycle_test.c - the nightly's regression issues, night by night, on a
 * real repository (tests/data/bisect/make_repo.sh nights: commit 6 gives
 * kern_a 40 % more sweeps, commit 14 takes them back) against the fake
 * GitHub API (tests/support/fakegh).
 *
 * Each night checks out its commit, builds it with the repository's
 * Makefile and gates it against the previous nights, as ci/gh/nightly.sh
 * does; then the nightly's two halves run as the workflow runs them: the
 * bisections (ci/gh/nightly-bisect.sh, no token) and the posting
 * (ci/gh/nightly-issues.sh, a token with issues: write).
 *
 *   nights at commits 2, 3, 4: nothing to file
 *   night at commit 8: kern_a's change point: one issue, with the bisection
 *     naming commit 6
 *   night at commit 12: still slower: the same issue updated, no other
 *   night at commit 16: recovered: commented on once, not duplicated, and
 *     posting the night again changes nothing
 *
 * The nights' cases report their time (metrics: json), so the verdicts are
 * exact; the builds, worktrees, processes and rounds are all real.
 */
#include "compile.h"
#include "fakegh.h"
#include "support.h"

#include "base/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define TOKEN "ghs_nightly_token_0037"
#define LOGIN "github-actions[bot]"
#define REPO "acme/lib"

typedef struct world {
    char *dir, *repo, *db, *out, *build;
    fakegh *gh;
} world;

/*
 * The program reports the time its sweeps are worth (kern_time.c): exact
 * whatever the load, so every verdict below follows the commits. The
 * bisection's own statistics on measured kernels are bisect_test.c's.
 */
static const char suite_yaml[] = "suite: kern\n"
                                 "defaults: {warmup: 1ms, min_samples: 5}\n"
                                 "benchmarks:\n"
                                 "  - {name: a, command: ['{build}/kern-time', a], metrics: json}\n"
                                 "  - {name: b, command: ['{build}/kern-time', b], metrics: json}\n";

static char *sh(int want, const char *fmt, ...)
{
    char *cmd, *out = NULL;
    va_list ap;
    int rc;

    va_start(ap, fmt);
    if (vasprintf(&cmd, fmt, ap) < 0)
        cmd = NULL;
    va_end(ap);
    cr_assert(cmd);
    rc = pg_test_sh(&out, cmd);
    cr_assert_eq(rc, want, "exit %d, not %d: %s\n%s", rc, want, cmd, out);
    pg_test_assert_no_sanitizer(rc, out, cmd);
    free(cmd);
    return out;
}

static void world_make(world *w)
{
    char *script = pg_test_data("bisect/make_repo.sh"), *perf;

    memset(w, 0, sizeof(*w));
    w->dir = pg_test_tmpdir();
    w->repo = pg__asprintf("%s/repo", w->dir);
    w->db = pg__asprintf("%s/nightly.db", w->dir);
    w->out = pg__asprintf("%s/out", w->dir);
    w->build = pg__asprintf("make PERFGATE_INCLUDE='%s/include'", PG_TEST_SOURCE_DIR);
    free(sh(0, "bash '%s' '%s' nights", script, w->repo));
    /* The suite sits in the checkout, untracked, where the nightly's suites are. */
    perf = pg__asprintf("%s/perf", w->repo);
    free(sh(0, "mkdir -p '%s'", perf));
    free(pg_test_write(perf, "kern.yaml", suite_yaml));
    w->gh = fakegh_start(TOKEN, LOGIN);
    cr_assert(w->gh);
    free(perf);
    free(script);
}

static void world_free(world *w)
{
    fakegh_stop(w->gh);
    pg_test_rmtree(w->dir);
    free(w->dir);
    free(w->repo);
    free(w->db);
    free(w->out);
    free(w->build);
}

/* The environment of a job: perfgate under test, the sanitizers' exit code, the fake API; a token or none. */
static char *env_prefix(const world *w, int night, int token)
{
    return pg__asprintf("%s %s PERFGATE='%s' PERFGATE_DB='%s' PERFGATE_BUILD_COMMAND=\"%s\" GITHUB_TOKEN=%s "
                        "GITHUB_REPOSITORY=%s GITHUB_API_URL='%s' GITHUB_SERVER_URL=https://github.com "
                        "GITHUB_RUN_ID=%d",
                        pg_test_sanitizer_env[0], pg_test_sanitizer_env[1], PG_TEST_BINARY, w->db, w->build,
                        token ? TOKEN : "", REPO, fakegh_url(w->gh), 9000 + night);
}

/* The nightly gate of the commit `n` of the repository: checked out, built, gated. Returns the gate's exit. */
static int night(const world *w, int n)
{
    char *sha = sh(0, "git -C '%s' rev-parse main~%d", w->repo, 32 - n), *env = env_prefix(w, n, 0), *out;
    int rc;

    sha[strcspn(sha, "\n")] = '\0';
    free(sh(0, "git -C '%s' checkout -q %s && make -s -C '%s' PERFGATE_INCLUDE='%s/include'", w->repo, sha, w->repo,
            PG_TEST_SOURCE_DIR));
    out = NULL;
    {
        char *cmd = pg__asprintf("cd '%s' && %s PERFGATE_BUILD='%s/build' '%s' gate --db '%s' --branch nightly --base "
                                 "last:5:nightly --commit %s perf/kern.yaml",
                                 w->repo, env, w->repo, PG_TEST_BINARY, w->db, sha);
        rc = pg_test_sh(&out, cmd);
        pg_test_assert_no_sanitizer(rc, out, cmd);
        cr_assert(rc == 0 || rc == 1 || rc == 4, "the night of commit %d: exit %d\n%s", n, rc, out);
        free(cmd);
    }
    free(out);
    free(sha);
    free(env);
    return rc;
}

/* The nightly's two halves: the bisections (no token needed), then the issues. Returns the posting's output. */
static char *bisect_and_post(const world *w, int n)
{
    char *build_job = env_prefix(w, n, 0), *post_job = env_prefix(w, n, 1), *out;

    free(sh(0, "rm -rf '%s' && cd '%s/ci/gh' && %s bash nightly-bisect.sh '%s' '%s' perf/kern.yaml", w->out,
            PG_TEST_SOURCE_DIR, build_job, w->repo, w->out));
    out = sh(0, "cd '%s/ci/gh' && %s bash nightly-issues.sh '%s' '%s/bisect'", PG_TEST_SOURCE_DIR, post_job, w->db,
             w->out);
    free(build_job);
    free(post_job);
    return out;
}

static char *commit_of(const world *w, int n)
{
    char *sha = sh(0, "git -C '%s' rev-parse main~%d", w->repo, 32 - n);

    sha[strcspn(sha, "\n")] = '\0';
    return sha;
}

/* How many rows the issue's table of nights holds. */
static size_t nights_in(const char *body)
{
    const char *p = strstr(body, "<!-- perfgate-nights -->"), *end = p ? strstr(p, "<!-- /perfgate-nights -->") : NULL;
    size_t n = 0;

    for (; p && end && (p = strstr(p, "\n| 20")) != NULL && p < end; p++)
        n++;
    return n;
}

Test(nightly_issues, one_issue_per_regression_updated_while_slower_and_commented_once_when_recovered, .timeout = 900)
{
    world w;
    char *out, *body, *title, *sha6, *plan;
    int64_t issue;
    int rc;

    world_make(&w);
    /* Three nights before the change: nothing to file, no issue read or written beyond the listing. */
    cr_assert_eq(night(&w, 2), 4, "the first night compares nothing");
    night(&w, 3);
    night(&w, 4);
    out = bisect_and_post(&w, 4);
    cr_assert(strstr(out, "nothing to act on"), "%s", out);
    cr_assert_eq(fakegh_issue_count(w.gh), 0);
    free(out);

    /* The night of commit 8: kern_a's change point, bisected to commit 6, filed once. */
    rc = night(&w, 8);
    cr_assert_eq(rc, 1, "the night of commit 8 did not fail on kern_a");
    out = bisect_and_post(&w, 8);
    plan = sh(0, "cat '%s/plan.tsv'", w.out);
    cr_assert(strstr(plan, "kern/a"), "%s", plan);
    cr_assert_null(strstr(plan, "kern/b"), "%s", plan);
    cr_assert_eq(fakegh_issue_count(w.gh), 1, "%s", out);
    issue = fakegh_issue_number(w.gh, 0);
    title = fakegh_issue_title(w.gh, issue);
    body = fakegh_issue_body(w.gh, issue);
    sha6 = commit_of(&w, 6);
    cr_assert(strstr(title, "kern/a") && strstr(title, "is slower since"), "%s", title);
    cr_assert(strstr(body, "<!-- perfgate-regression key=") && strstr(body, "state=regressed"), "%s", body);
    cr_assert_str_eq(fakegh_issue_label(w.gh, issue), "perfgate-regression");
    /* The bisection's table and its result: commit 6, against its parent. */
    cr_assert(strstr(body, "| step | purpose | commit |"), "%s", body);
    {
        char short6[40];
        snprintf(short6, sizeof(short6), "first bad commit %.12s", sha6);
        cr_assert(strstr(body, short6), "not commit 6 (%s):\n%s", sha6, body);
    }
    cr_assert(strstr(body, "https://github.com/" REPO "/actions/runs/9008"), "%s", body);
    cr_assert_eq(nights_in(body), 1, "%s", body);
    cr_assert_eq(fakegh_comment_count(w.gh, issue), 0);
    free(out);
    free(plan);
    free(title);
    free(body);

    /* Commit 12: still slower than the nights before the change: the same issue, one more night. */
    night(&w, 12);
    out = bisect_and_post(&w, 12);
    cr_assert_eq(fakegh_issue_count(w.gh), 1, "%s", out);
    body = fakegh_issue_body(w.gh, issue);
    cr_assert_eq(nights_in(body), 2, "%s\n%s", out, body);
    cr_assert(strstr(out, "still"), "%s", out);
    cr_assert_eq(fakegh_comment_count(w.gh, issue), 0);
    free(out);
    free(body);

    /* Commit 16: recovered: one comment, no second issue; the same night posted again changes nothing. */
    night(&w, 16);
    out = bisect_and_post(&w, 16);
    body = fakegh_issue_body(w.gh, issue);
    cr_assert(strstr(out, "recovered"), "%s\n%s", out, body);
    cr_assert_eq(fakegh_issue_count(w.gh), 1);
    cr_assert_eq(fakegh_comment_count(w.gh, issue), 1);
    cr_assert(strstr(body, "state=recovered"), "%s", body);
    free(out);
    free(body);
    out = bisect_and_post(&w, 16);
    cr_assert_eq(fakegh_issue_count(w.gh), 1);
    cr_assert_eq(fakegh_comment_count(w.gh, issue), 1, "%s", out);
    free(out);
    free(sha6);
    world_free(&w);
}
