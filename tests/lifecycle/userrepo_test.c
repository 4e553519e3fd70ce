/*
 * userrepo_test.c - perfgate adopted by a repository that is not perfgate,
 * end to end: a small make-built C library (tests/data/userrepo: a biquad
 * filter library, its demo program, and from the first pull request on a
 * plugin linked against the library's own .so through -Wl,-rpath,$ORIGIN),
 * perfgate installed from its source tarball (tests/support/installed.h),
 * the caller workflows `perfgate init` writes, run by the Actions emulator
 * (actions.h) through perfgate's reusable workflows and the scripts they
 * call, against the fake GitHub API.
 *
 * The repository lives through: the pull request that adopts perfgate
 * (benchmarks, suite and workflows by `perfgate init`), which passes with
 * its cases new and gets no comment yet (the posting workflow is not on the
 * default branch until it merges);
 * two pushes to main recorded into a history that survives in the cache
 * and as an artifact; a pull request that makes the filter do 10 % more
 * real work (one more biquad section) failing with one sticky comment and
 * a failure status on its head; the fix passing, the comment updated; a
 * pull request from a fork posted fork-safe (its report, rewritten to claim
 * another pull request, refused; as it came, posted to its own); two
 * nights on the self-hosted GPU runner, the second compared with the first.
 * perfgate is built once (the installed tree comes from the cache in every
 * job), as perfgate's reusable workflows build it once per version and
 * runner image.
 */
#include "actions.h"
#include "compile.h"
#include "fakegh.h"
#include "installed.h"
#include "support.h"
#include "world.h"

#include "base/util.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOKEN "ghs_userrepo_token_0042"
#define REPO "acme/mylib"
#define DATA PG_TEST_DATA_DIR "/userrepo"
#define GPU_LABELS "[\"self-hosted\", \"linux\", \"x64\", \"gpu\"]"

typedef struct user {
    char *tmp, *origin, *local_build;
    const pg_test_install *perfgate;
    char ref[41];             /* the perfgate commit the workflows pin */
    fakegh *api;
    gha *gh;
    char base[41], adopt[41], readme[41], slow[41], fixed[41], fork[41];
    long last_pr_run;         /* the run perfgate-post posts for */
} user;

static user u;

static char *in_tmp(const char *rel)
{
    return pg__asprintf("%s/%s", u.tmp, rel);
}

/* ---- the perfgate the workflows pin, in the GitHub of the test -------------- */

/* The installed tree in the cache, under the key the workflows compute on each runner: built once. */
static void seed_installed_perfgate(void)
{
    int self_hosted;

    for (self_hosted = 0; self_hosted < 2; self_hosted++) {
        char *cmd = pg__asprintf("bash '%s/ci/gh/install.sh' --key", u.perfgate->source);
        char *out = gha_runner_sh(u.gh, self_hosted, cmd), *path;
        cr_assert(strncmp(out, "key=perfgate-install-", 21) == 0, "%s", out);
        out[strcspn(out, "\n")] = '\0';
        path = pg__asprintf("%s/perfgate", gha_runner_temp(u.gh, self_hosted));
        gha_seed_cache(u.gh, out + 4, path, u.perfgate->prefix);
        free(path);
        free(out);
        free(cmd);
    }
}

static void setup(void)
{
    char *out;

    memset(&u, 0, sizeof(u));
    u.perfgate = pg_test_installed();
    u.tmp = pg_test_tmpdir();
    /* Named as the repository, as an Actions checkout is: the suite init writes takes its name. */
    u.origin = in_tmp("mylib");
    u.api = fakegh_start(TOKEN, "github-actions[bot]");
    cr_assert(u.api != NULL);
    /* As on Actions: GET /user is closed to the installation token. */
    fakegh_set_user_status(u.api, 403);
    {
        char *dir = in_tmp("github");
        u.gh = gha_new(dir, u.api, TOKEN);
        free(dir);
    }
    /* The commit the workflows pin: a real one of perfgate's history, whose tree the checkout gives. */
    out = lc_sh_ok("git -C '" PG_TEST_SOURCE_DIR "' rev-parse HEAD");
    memcpy(u.ref, out, 40);
    free(out);
    gha_add_tree(u.gh, "perfgate/perfgate", u.ref, u.perfgate->source);
    gha_add_repo(u.gh, REPO, u.origin);
    seed_installed_perfgate();

    free(lc_sh_ok("mkdir '%s' && cp -a '%s/v1/.' '%s/' && git -C '%s' init -q -b main", u.origin, DATA, u.origin,
                  u.origin));
    lc_commit(u.origin, u.base, "mylib: biquad cascades and a demo");
}

static void teardown(void)
{
    gha_free(u.gh);
    fakegh_stop(u.api);
    /* PG_KEEP_LIFECYCLE=1 keeps the jobs' directories to look at. */
    if (getenv("PG_KEEP_LIFECYCLE"))
        fprintf(stderr, "userrepo: kept %s\n", u.tmp);
    else
        pg_test_rmtree(u.tmp);
    free(u.tmp);
    free(u.origin);
    free(u.local_build);
}

TestSuite(userrepo, .init = setup, .fini = teardown, .timeout = 900);

/* ---- the runs ---------------------------------------------------------------- */

/* The workflow `name` of commit `sha`, where the run reads it (caller frees). */
static char *workflow_at(const char *sha, const char *name)
{
    char *path = pg__asprintf("%s/%s-%s", u.tmp, sha, name);

    free(lc_sh_ok("git -C '%s' show '%s:.github/workflows/%s' > '%s'", u.origin, sha, name, path));
    return path;
}

static void run(gha_run *r, const char *sha, const char *workflow, const gha_event *ev)
{
    char *file = workflow_at(sha, workflow);

    gha_run_workflow(r, u.gh, file, ev);
    free(file);
}

/* perfgate-pr.yml for pull request `pr` from `owner`'s `branch` at `head`, based on `base`. */
static void pr_run(gha_run *r, int pr, const char *owner, const char *branch, const char *head, const char *base)
{
    int fork = strcmp(owner, "acme") != 0;
    char *payload = pg__asprintf("{\"action\": \"synchronize\", \"number\": %d, \"pull_request\": {\"number\": %d, "
                                 "\"title\": \"$(touch %s/pwned) a title a fork controls\", "
                                 "\"head\": {\"sha\": \"%s\", \"ref\": \"%s\", \"repo\": {\"full_name\": \"%s/mylib\", "
                                 "\"fork\": %s}}, \"base\": {\"sha\": \"%s\", \"ref\": \"main\", \"repo\": "
                                 "{\"full_name\": \"" REPO "\", \"fork\": false}}}}",
                                 pr, pr, u.tmp, head, branch, owner, fork ? "true" : "false", base);
    char *ref = pg__asprintf("refs/pull/%d/merge", pr);
    gha_event ev = {"pull_request", payload, REPO, head, ref, head, branch, "main", "main"};

    run(r, head, "perfgate-pr.yml", &ev);
    u.last_pr_run = r->id;
    free(payload);
    free(ref);
}

/* perfgate-pr.yml for label `label` added to pull request #2 at `head`, base `base`. */
static void label_run(gha_run *r, const char *label, const char *head, const char *base)
{
    char *payload = pg__asprintf("{\"action\": \"labeled\", \"number\": 2, \"label\": {\"name\": \"%s\"}, "
                                 "\"pull_request\": {\"number\": 2, \"head\": {\"sha\": \"%s\", \"ref\": "
                                 "\"dc-blocker\", \"repo\": {\"full_name\": \"acme/mylib\", \"fork\": false}}, "
                                 "\"base\": {\"sha\": \"%s\", \"ref\": \"main\", \"repo\": {\"full_name\": \"" REPO
                                 "\", \"fork\": false}}}}",
                                 label, head, base);
    gha_event ev = {"pull_request", payload, REPO, head, "refs/pull/2/merge", head, "dc-blocker", "main", "main"};

    run(r, head, "perfgate-pr.yml", &ev);
    free(payload);
}

/* perfgate-post.yml for the pull request run `pr_run_id` that ended in `conclusion`. */
static void post_run(gha_run *r, long pr_run_id, const char *conclusion, const char *head, const char *branch,
                     const char *owner, const char *pulls)
{
    char *payload = pg__asprintf("{\"action\": \"completed\", \"workflow_run\": {\"id\": %ld, \"name\": \"perfgate-pr\", "
                                 "\"event\": \"pull_request\", \"status\": \"completed\", \"conclusion\": \"%s\", "
                                 "\"head_sha\": \"%s\", \"head_branch\": \"%s\", "
                                 "\"html_url\": \"https://github.com/" REPO "/actions/runs/%ld\", "
                                 "\"head_repository\": {\"full_name\": \"%s/mylib\", \"owner\": {\"login\": \"%s\"}}, "
                                 "\"repository\": {\"full_name\": \"" REPO "\"}, \"pull_requests\": [%s]}}",
                                 pr_run_id, conclusion, head, branch, pr_run_id, owner, owner, pulls);
    char *main_head = lc_sh_ok("git -C '%s' rev-parse main", u.origin);
    gha_event ev = {"workflow_run", payload, REPO, NULL, "refs/heads/main", NULL, NULL, NULL, "main"};

    main_head[40] = '\0';
    ev.sha = ev.checkout = main_head;
    /* The workflow_run workflow is the default branch's. */
    run(r, main_head, "perfgate-post.yml", &ev);
    free(main_head);
    free(payload);
}

static char *pulls_entry(int pr, const char *head, const char *branch)
{
    return pg__asprintf("{\"number\": %d, \"head\": {\"sha\": \"%s\", \"ref\": \"%s\"}, \"base\": {\"ref\": \"main\"}}",
                        pr, head, branch);
}

static void push_run(gha_run *r, const char *sha, const char *workflow, const char *event)
{
    char *payload = pg__asprintf("{\"ref\": \"refs/heads/main\", \"after\": \"%s\"}", sha);
    gha_event ev = {event, payload, REPO, sha, "refs/heads/main", sha, NULL, NULL, "main"};

    run(r, sha, workflow, &ev);
    free(payload);
}

static const gha_job_result *job_of(const gha_run *r, const char *name)
{
    const gha_job_result *j = gha_run_job(r, name);

    cr_assert(j != NULL, "the run has no job %s:\n%s", name, r->log);
    return j;
}

static json_t *report_of(const gha_job_result *j)
{
    char *path = pg__asprintf("%s/perfgate-out/perfgate-report.json", j->workspace);
    json_t *rep = lc_report(path);

    free(path);
    return rep;
}

/* perfgate came from the cache in every job: nothing built it again. */
static void assert_installed_from_cache(const gha_run *r)
{
    cr_assert(strstr(r->log, "already holds perfgate") != NULL, "perfgate was not restored from the cache:\n%s",
              r->log);
    cr_assert(strstr(r->log, "building perfgate") == NULL, "perfgate was built again:\n%s", r->log);
}

/* ---- 1. the pull request that adopts perfgate --------------------------------- */

/* On the developer's machine: the plugin, a local build, `perfgate init`, the checks on what it wrote. */
static void adopt_locally(void)
{
    char *out, *prefix = pg__strdup(u.perfgate->prefix);

    free(lc_sh_ok("git -C '%s' checkout -q -b add-benchmarks && cp -a '%s/bench/.' '%s/'", u.origin, DATA,
                  u.origin));
    /* The user's own build, against the installed perfgate's pkg-config file. */
    out = lc_sh_ok("cd '%s' && PKG_CONFIG_PATH='%s/lib/pkgconfig' make 2>&1", u.origin, prefix);
    cr_assert(strstr(out, "-I") && strstr(out, "/include"), "pkg-config --cflags perfgate gave nothing:\n%s", out);
    free(out);
    out = lc_sh_ok("cd '%s' && '%s/bin/perfgate' init --perfgate-ref %s --nightly-runs-on '" GPU_LABELS "' build",
                   u.origin, prefix, u.ref);
    cr_assert(strstr(out, "found in build: 1 plugin with 2 benchmarks, 1 program") != NULL, "%s", out);
    cr_assert(strstr(out, "wrote perf/perfgate.yaml") != NULL, "%s", out);
    cr_assert(strstr(out, "next:\n  perfgate validate perf/perfgate.yaml\n  perfgate run --no-store "
                          "perf/perfgate.yaml\n  git add perf/perfgate.yaml") != NULL,
              "%s", out);
    free(out);
    /* The suite validates; the workflows pass the checks perfgate's own pass (zizmor, GitHub's schemas). */
    free(lc_sh_ok("cd '%s' && '%s/bin/perfgate' validate perf/perfgate.yaml", u.origin, prefix));
    out = lc_sh_ok("bash '" PG_TEST_SOURCE_DIR "/ci/gh/audit.sh' '%s/.github/workflows' 2>&1", u.origin);
    free(out);
    /* A second init overwrites nothing. */
    {
        char *cmd = pg__asprintf("cd '%s' && '%s/bin/perfgate' init build", u.origin, prefix);
        int rc = pg_test_sh(&out, cmd);
        cr_assert_eq(rc, 2, "%s", out);
        cr_assert(strstr(out, "overwrites nothing") != NULL, "%s", out);
        free(out);
        free(cmd);
    }
    free(prefix);
    lc_commit(u.origin, u.adopt, "perfgate: benchmarks, their suite and the CI gate");
}

static void step1_the_pull_request_adopting_perfgate_passes(void)
{
    gha_run pr;
    const gha_job_result *gate;
    const char *outcome;
    char *pwned = in_tmp("pwned");
    json_t *rep;
    size_t i;

    adopt_locally();
    pr_run(&pr, 1, "acme", "add-benchmarks", u.adopt, u.base);
    gate = job_of(&pr, "gate/gate");
    assert_installed_from_cache(&pr);
    /* The base was never recorded by main: built here, and kept for the pull request's next push. */
    cr_assert(strstr(pr.log, "build.sh: built base") != NULL, "%s", lc_tail(pr.log, 6000));
    cr_assert(strstr(pr.log, "cache save perfgate-build-Linux-") != NULL, "%s", lc_tail(pr.log, 6000));
    /* No title, no event field, reached a shell: nothing ran the command the title plants. */
    cr_assert(!lc_exists(pwned), "a pull request title was run as a command");
    free(pwned);
    /* The benchmarks are new: the base build has none of them. A pass that says so, never a silent one. */
    rep = report_of(gate);
    outcome = json_string_value(json_object_get(json_object_get(rep, "summary"), "outcome"));
    cr_assert_str_eq(outcome, "PASS", "%s", lc_tail(pr.log, 6000));
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(rep, "summary"), "outcome_reason")),
                     "3 new cases, nothing to compare them with yet");
    cr_assert_str_eq(gate->conclusion, "success");
    {
        json_t *v;
        json_array_foreach(json_object_get(rep, "verdicts"), i, v)
        {
            cr_assert_str_eq(json_string_value(json_object_get(v, "verdict")), "NEW", "%s",
                             json_string_value(json_object_get(v, "name")));
        }
        cr_assert_eq(i, 3);
    }
    {
        char *summary = lc_slurp(gate->temp, "_runner_file_commands/step_summary");
        cr_assert(strstr(summary, "perfgate: PASS — 3 new cases, nothing to compare them with yet") != NULL, "%s",
                  summary);
        free(summary);
    }
    json_decref(rep);

    /* perfgate-post.yml is not on the default branch yet: GitHub starts no workflow_run workflow for this one. */
    {
        char *cmd = pg__asprintf("git -C '%s' show main:.github/workflows/perfgate-post.yml", u.origin);
        cr_assert_neq(pg_test_sh(NULL, cmd), 0);
        free(cmd);
    }
    cr_assert_eq(fakegh_request_count(u.api), 0, "the adopting pull request's run reached the API");
    gha_run_clear(&pr);
}

/* ---- 2. pushes to main recorded --------------------------------------------- */

static char *db_rows(const gha_job_result *j)
{
    char *db = pg__asprintf("%s/perfgate-db/perfgate.db", j->workspace);
    char *rows = lc_sql(db, "SELECT commit_sha || ' ' || branch FROM runs ORDER BY id");

    free(db);
    return rows;
}

static void step2_pushes_to_main_are_recorded(void)
{
    gha_run r;
    const gha_job_result *j;
    char *rows, *want;

    /* The pull request merged (fast-forward): main is at the adopting commit, whose workflows now run. */
    free(lc_sh_ok("git -C '%s' checkout -q main && git -C '%s' merge -q --ff-only add-benchmarks", u.origin,
                  u.origin));
    push_run(&r, u.adopt, "perfgate-main.yml", "push");
    j = job_of(&r, "record/record");
    cr_assert_str_eq(j->conclusion, "success", "%s", lc_tail(r.log, 6000));
    assert_installed_from_cache(&r);
    /* The first push: no cache, no artifact: the history starts here. */
    cr_assert(strstr(r.log, "no baseline restored") != NULL, "%s", lc_tail(r.log, 6000));
    cr_assert(strstr(r.log, "cache save perfgate-build-Linux-") != NULL, "%s", lc_tail(r.log, 6000));
    rows = db_rows(j);
    want = pg__asprintf("%s main\n", u.adopt);
    cr_assert_str_eq(rows, want);
    free(rows);
    free(want);
    gha_run_clear(&r);

    free(pg_test_write(u.origin, "README.md", "# mylib\n\nBiquad filter cascades in C, benchmarked by perfgate.\n"));
    lc_commit(u.origin, u.readme, "README: benchmarks");
    push_run(&r, u.readme, "perfgate-main.yml", "push");
    j = job_of(&r, "record/record");
    cr_assert_str_eq(j->conclusion, "success", "%s", lc_tail(r.log, 6000));
    /* The database came back from the cache; both pushes are in it, in order. */
    cr_assert(strstr(r.log, "cache restore perfgate-db-main-") != NULL && strstr(r.log, "no baseline restored") == NULL,
              "%s", lc_tail(r.log, 6000));
    rows = db_rows(j);
    want = pg__asprintf("%s main\n%s main\n", u.adopt, u.readme);
    cr_assert_str_eq(rows, want);
    free(rows);
    free(want);
    cr_assert_eq(fakegh_count(u.api, "POST", "/"), 0, "recording posts nothing");
    gha_run_clear(&r);
}

/* ---- 3. a pull request with 10 % more real work fails; 4. the fix passes ------- */

/* perfgate-post for PR #2's run `pr` (its conclusion), as the default branch runs it. */
static void post_pr2(const gha_run *pr, const char *head)
{
    gha_run post;
    char *pulls = pulls_entry(2, head, "dc-blocker");

    post_run(&post, pr->id, job_of(pr, "gate/gate")->conclusion, head, "dc-blocker", "acme", pulls);
    cr_assert_str_eq(job_of(&post, "post/post")->conclusion, "success", "%s", lc_tail(post.log, 6000));
    assert_installed_from_cache(&post);
    free(pulls);
    gha_run_clear(&post);
}

/*
 * The regression is wanted: a maintainer accepts it with the label
 * perf-accepted. Another label starts no gate (the caller's job `if:`);
 * perfgate-post of the failed run, run again as the labelled run's
 * completion runs it, reads the label and who applied it through post.yml
 * (issues: read granted by the caller): the status turns success naming
 * @alice and the comment says ACCEPTED. The label is then removed again.
 */
static void step3b_the_label_perf_accepted_accepts_it(const gha_run *failed, int regressed)
{
    gha_run other;
    char *body, *want;

    label_run(&other, "documentation", u.slow, u.readme);
    cr_assert(gha_run_job(&other, "gate/gate") == NULL, "another label gated again:\n%s", lc_tail(other.log, 6000));
    cr_assert(strstr(other.log, "build.sh") == NULL, "%s", lc_tail(other.log, 6000));
    gha_run_clear(&other);

    fakegh_label(u.api, 2, "perf-accepted", "alice", 1);
    post_pr2(failed, u.slow);
    cr_assert_eq(lc_statuses(u.api, REPO, u.slow, "success"), 1, "the accepted regression set no success status");
    cr_assert_eq(fakegh_comment_count(u.api, 2), 1, "the same comment, updated");
    body = fakegh_comment_body(u.api, 1001);
    want = pg__asprintf("perfgate: ACCEPTED — %d regression%s accepted by label, applied by @alice", regressed,
                        regressed == 1 ? "" : "s");
    cr_assert(strstr(body, want) != NULL, "%s", body);
    free(want);
    want = pg__asprintf("#### Accepted (%d)", regressed);
    cr_assert(strstr(body, want) != NULL && strstr(body, "filter") != NULL, "%s", body);
    free(want);
    free(body);
    fakegh_label(u.api, 2, "perf-accepted", "alice", 0);
}

/*
 * PR #2's gate run, run again (as "Re-run jobs" would) while the case `name`
 * is UNSURE, twice at most: a runner too noisy for one gate to decide says
 * UNSURE, never a verdict, and a re-run is what the report advises. Only
 * UNSURE is run again: a SAME on the slower head stays a failure of the test.
 */
static const gha_job_result *pr_run_decided(gha_run *pr, const char *name)
{
    const gha_job_result *gate;
    const char *v;
    char *path;
    json_t *rep;
    int tries;

    for (tries = 1;; tries++) {
        pr_run(pr, 2, "acme", "dc-blocker", u.slow, u.readme);
        gate = job_of(pr, "gate/gate");
        path = pg__asprintf("%s/perfgate-out/perfgate-report.json", gate->workspace);
        rep = json_load_file(path, 0, NULL);
        free(path);
        v = json_string_value(json_object_get(lc_find_case(rep, name), "verdict"));
        if (tries == 3 || !v || strcmp(v, "UNSURE") != 0) {
            json_decref(rep);
            return gate;
        }
        fprintf(stderr, "userrepo: %s was UNSURE in gate run %d (a noisy machine); running the gate again\n", name,
                tries);
        json_decref(rep);
        gha_run_clear(pr);
    }
}

static void step3_ten_percent_more_work_fails_with_one_comment(void)
{
    gha_run pr;
    const gha_job_result *gate;
    const char *demo;
    char *body;
    json_t *rep;
    int regressed;

    free(lc_sh_ok("git -C '%s' checkout -q -b dc-blocker && cp '%s/slow/src/mylib.c' '%s/src/mylib.c'", u.origin, DATA,
                  u.origin));
    lc_commit(u.origin, u.slow, "mylib_filter: end every cascade in a DC blocker");
    gate = pr_run_decided(&pr, "filter");
    /* main recorded the base commit: its build came from the cache, only the head was built. */
    cr_assert(strstr(pr.log, "already holds a build of") != NULL, "%s", lc_tail(pr.log, 6000));
    cr_assert(strstr(pr.log, "build.sh: built head") != NULL, "%s", lc_tail(pr.log, 6000));
    cr_assert_str_eq(gate->conclusion, "failure", "the slower head did not fail:\n%s", lc_tail(pr.log, 6000));
    rep = report_of(gate);
    cr_assert_str_eq(lc_verdict_of(rep, "filter"), "REGRESSED", "%s", lc_tail(pr.log, 6000));
    /* The demo program runs the same filter: +10 % of its work too. Caught or undecided, never SAME. */
    demo = lc_verdict_of(rep, "mylib-demo");
    cr_assert(strcmp(demo, "REGRESSED") == 0 || strcmp(demo, "UNSURE") == 0, "mylib-demo %s:\n%s", demo,
              lc_tail(pr.log, 6000));
    regressed = 1 + (strcmp(demo, "REGRESSED") == 0);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(rep, "summary"), "outcome")), "FAIL");
    json_decref(rep);
    body = lc_slurp(gate->temp, "_runner_file_commands/step_summary");
    cr_assert(strstr(body, "perfgate: FAIL") != NULL, "job summary: %s", body);
    free(body);

    post_pr2(&pr, u.slow);
    cr_assert_eq(fakegh_comment_count(u.api, 2), 1);
    body = fakegh_comment_body(u.api, 1001);
    cr_assert(body && strstr(body, "<!-- perfgate:") == body, "%s", body);
    cr_assert(strstr(body, "perfgate: FAIL") != NULL && strstr(body, "filter") != NULL, "%s", body);
    free(body);
    cr_assert_eq(lc_statuses(u.api, REPO, u.slow, "failure"), 1, "a failure status on the head");
    cr_assert_eq(fakegh_count(u.api, "POST", "/repos/" REPO "/statuses/"), 1, "one status, on the head only");
    step3b_the_label_perf_accepted_accepts_it(&pr, regressed);
    gha_run_clear(&pr);
}

static void step4_the_fix_passes_and_updates_the_comment(void)
{
    gha_run pr;
    const gha_job_result *gate;
    const char *outcome;
    char *body;
    json_t *rep;

    free(lc_sh_ok("cp '%s/v1/src/mylib.c' '%s/src/mylib.c'", DATA, u.origin));
    lc_commit(u.origin, u.fixed, "mylib_filter: no DC blocker unless asked");
    pr_run(&pr, 2, "acme", "dc-blocker", u.fixed, u.readme);
    gate = job_of(&pr, "gate/gate");
    rep = report_of(gate);
    outcome = json_string_value(json_object_get(json_object_get(rep, "summary"), "outcome"));
    /*
     * The same code on both sides never fails. On a loaded machine the rounds may leave every case
     * undecided: "nothing compared" (no case was decided), an honest outcome, never a pass or a failure.
     */
    cr_assert(strcmp(outcome, "PASS") == 0 ||
                  (strcmp(outcome, "NOTHING_COMPARED") == 0 &&
                   strstr(json_string_value(json_object_get(json_object_get(rep, "summary"), "outcome_reason")),
                          "no case was decided")),
              "the fixed head did not pass: %s\n%s", outcome, lc_tail(pr.log, 6000));
    cr_assert_str_eq(gate->conclusion, strcmp(outcome, "PASS") == 0 ? "success" : "failure");
    post_pr2(&pr, u.fixed);
    /* Updated in place: still one comment, the same one, no longer a failure. */
    cr_assert_eq(fakegh_comment_count(u.api, 2), 1);
    /* Its second update: the first said ACCEPTED (step 3b). */
    cr_assert_eq(fakegh_count(u.api, "PATCH", "/repos/" REPO "/issues/comments/1001"), 2);
    body = fakegh_comment_body(u.api, 1001);
    cr_assert(strstr(body, strcmp(outcome, "PASS") == 0 ? "perfgate: PASS" : "perfgate: nothing compared"), "%s",
              body);
    cr_assert(strstr(body, "perfgate: FAIL") == NULL, "%s", body);
    free(body);
    cr_assert_eq(lc_statuses(u.api, REPO, u.fixed, strcmp(outcome, "PASS") == 0 ? "success" : "error"), 1);
    cr_assert_eq(lc_statuses(u.api, REPO, u.slow, NULL), 2, "nothing more on the old head than FAIL and ACCEPTED");
    json_decref(rep);
    gha_run_clear(&pr);
}

/* ---- 5. a pull request from a fork ------------------------------------------- */

static void step5_a_fork_is_posted_only_to_its_own_pull_request(void)
{
    gha_run pr, post;
    char *before, *report, *forged;
    size_t nreq;

    free(lc_sh_ok("git -C '%s' checkout -q -b patch-1 %s", u.origin, u.readme));
    free(pg_test_write(u.origin, "README.md", "# mylib\n\nBiquad filter cascades in C, benchmarked with perfgate.\n"));
    lc_commit(u.origin, u.fork, "README: a word");
    fakegh_add_pull(u.api, 2, "acme", "dc-blocker", u.fixed);
    fakegh_add_pull(u.api, 3, "mallory", "patch-1", u.fork);
    pr_run(&pr, 3, "mallory", "patch-1", u.fork, u.readme);
    /* The fork's run has no token: the gate job was given none, and GitHub gives a fork's run none. */
    cr_assert(strstr(pr.log, TOKEN) == NULL, "%s", lc_tail(pr.log, 6000));

    /* The fork's code could have written anything into its report: here it claims PR #2. */
    report = pg__asprintf("%s/github/artifacts/%ld/perfgate-report/perfgate-report.json", u.tmp, pr.id);
    forged = pg__asprintf("%s.honest", report);
    free(lc_sh_ok("cp '%s' '%s' && python3 -c 'import json, sys\n"
                  "r = json.load(open(sys.argv[1]))\n"
                  "r[\"github\"][\"pr\"] = 2; r[\"run\"][\"pr\"] = 2\n"
                  "json.dump(r, open(sys.argv[1], \"w\"))' '%s'",
                  report, forged, report));
    before = fakegh_comment_body(u.api, 1001);
    nreq = fakegh_request_count(u.api);
    /* A fork's run event lists no pull request; perfgate looks it up by the head and checks the SHA. */
    post_run(&post, pr.id, job_of(&pr, "gate/gate")->conclusion, u.fork, "patch-1", "mallory", "");
    cr_assert_str_eq(job_of(&post, "post/post")->conclusion, "failure", "a forged report was posted:\n%s", lc_tail(post.log, 6000));
    cr_assert(strstr(post.log, "refusing to post") != NULL, "%s", lc_tail(post.log, 6000));
    cr_assert_eq(lc_writes_since(u.api, nreq), 0, "the refused post still wrote to GitHub");
    gha_run_clear(&post);

    /* The report as the fork's run wrote it: posted to the fork's own pull request, found through the API. */
    free(lc_sh_ok("cp '%s' '%s'", forged, report));
    post_run(&post, pr.id, job_of(&pr, "gate/gate")->conclusion, u.fork, "patch-1", "mallory", "");
    cr_assert_str_eq(job_of(&post, "post/post")->conclusion, "success", "%s", lc_tail(post.log, 6000));
    cr_assert(strstr(post.log, "found through the API") != NULL, "%s", lc_tail(post.log, 6000));
    cr_assert_eq(fakegh_comment_count(u.api, 3), 1);
    cr_assert_eq(fakegh_comment_count(u.api, 2), 1);
    {
        char *after = fakegh_comment_body(u.api, 1001);
        cr_assert_str_eq(after, before, "PR #2's comment changed");
        free(after);
    }
    cr_assert_eq(lc_statuses(u.api, REPO, u.fork, NULL), 1);
    free(before);
    free(report);
    free(forged);
    gha_run_clear(&post);
    gha_run_clear(&pr);
}

/* ---- 6. two nights on the self-hosted GPU runner ------------------------------ */

static void step6_the_second_night_compares_with_the_first(void)
{
    gha_run r;
    const gha_job_result *j;
    char *db, *rows;
    json_t *rep;

    free(lc_sh_ok("git -C '%s' checkout -q main", u.origin));
    push_run(&r, u.readme, "perfgate-nightly.yml", "schedule");
    j = job_of(&r, "nightly/nightly");
    cr_assert(strstr(j->runs_on, "gpu") && strstr(j->runs_on, "self-hosted"), "%s", j->runs_on);
    assert_installed_from_cache(&r);
    /* The first night has nothing to compare with: exit 4, never a pass. */
    cr_assert_str_eq(j->conclusion, "failure", "%s", lc_tail(r.log, 6000));
    cr_assert(strstr(r.log, "nothing compared") != NULL, "%s", lc_tail(r.log, 6000));
    gha_run_clear(&r);

    push_run(&r, u.readme, "perfgate-nightly.yml", "schedule");
    j = job_of(&r, "nightly/nightly");
    rep = report_of(j);
    /* It compared with the first night (the baseline), whatever this machine's noise then decided. */
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(rep, "baseline"), "branch")), "nightly",
                     "%s", lc_tail(r.log, 6000));
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(rep, "baseline"), "runs")), 1);
    cr_assert(strstr(r.log, "no baseline") == NULL, "%s", lc_tail(r.log, 6000));
    json_decref(rep);
    /* The history lives on the runner, in the runner user's $HOME. */
    db = pg__asprintf("%s/github/self-hosted-runner/home/.local/share/perfgate/nightly.db", u.tmp);
    rows = lc_sql(db, "SELECT count(*) FROM runs WHERE branch = 'nightly'");
    cr_assert_str_eq(rows, "2\n");
    free(rows);
    free(db);
    gha_run_clear(&r);
}

Test(userrepo, adopt_record_regress_fix_fork_nightly)
{
    step1_the_pull_request_adopting_perfgate_passes();
    step2_pushes_to_main_are_recorded();
    step3_ten_percent_more_work_fails_with_one_comment();
    step4_the_fix_passes_and_updates_the_comment();
    step5_a_fork_is_posted_only_to_its_own_pull_request();
    step6_the_second_night_compares_with_the_first();
}

/* ---- the composite action, for those who prefer steps ----------------------- */

static const char composite_workflow[] =
    "name: perf\n"
    "on: pull_request\n"
    "permissions: {}\n"
    "jobs:\n"
    "  gate:\n"
    "    runs-on: ubuntu-latest\n"
    "    permissions: {contents: read}\n"
    "    steps:\n"
    "      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1\n"
    "        with: {path: head, persist-credentials: false}\n"
    "      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1\n"
    "        with: {path: base, ref: \"${{ github.event.pull_request.base.sha }}\", persist-credentials: false}\n"
    "      - id: perfgate\n"
    "        uses: perfgate/perfgate/ci/github@%s # v0.1.0\n"
    "        with: {build: make, build-dir: build, suites: perf/perfgate.yaml, threshold: 5%%}\n"
    "      - if: always()\n"
    "        env: {CODE: \"${{ steps.perfgate.outputs.exit-code }}\"}\n"
    "        run: echo \"the gate exited $CODE\"\n";

Test(userrepo, the_composite_action_gates_with_the_same_inputs)
{
    char *text = pg__asprintf(composite_workflow, u.ref), *out;
    const gha_job_result *j;
    gha_run r;
    json_t *rep;

    /* The benchmarks and a suite (perfgate init, no workflows: the user writes their own). */
    free(lc_sh_ok("cp -a '%s/bench/.' '%s/' && cd '%s' && PKG_CONFIG_PATH='%s/lib/pkgconfig' make >/dev/null 2>&1 && "
                  "'%s/bin/perfgate' init --no-workflows build >/dev/null && mkdir -p .github/workflows",
                  DATA, u.origin, u.origin, u.perfgate->prefix, u.perfgate->prefix));
    free(pg_test_write(u.origin, ".github/workflows/perf.yml", text));
    lc_commit(u.origin, u.adopt, "perfgate: benchmarks and a gate of my own");
    free(lc_sh_ok("git -C '%s' checkout -q -b dc-blocker && cp '%s/slow/src/mylib.c' '%s/src/mylib.c'", u.origin, DATA,
                  u.origin));
    lc_commit(u.origin, u.slow, "mylib_filter: end every cascade in a DC blocker");
    {
        char *payload = pg__asprintf("{\"number\": 2, \"pull_request\": {\"number\": 2, \"head\": {\"sha\": \"%s\", "
                                     "\"ref\": \"dc-blocker\", \"repo\": {\"fork\": false}}, \"base\": {\"sha\": \"%s\", "
                                     "\"ref\": \"main\"}}}",
                                     u.slow, u.adopt);
        gha_event ev = {"pull_request", payload, REPO, u.slow, "refs/pull/2/merge", u.slow, "dc-blocker", "main",
                        "main"};
        run(&r, u.slow, "perf.yml", &ev);
        free(payload);
    }
    j = job_of(&r, "gate");
    assert_installed_from_cache(&r);
    cr_assert(strstr(r.log, "build.sh: built base") && strstr(r.log, "build.sh: built head"), "%s", lc_tail(r.log, 6000));
    cr_assert_str_eq(j->conclusion, "failure", "the slower head did not fail:\n%s", lc_tail(r.log, 6000));
    cr_assert(strstr(r.log, "the gate exited 1") != NULL, "the action's exit-code output:\n%s", lc_tail(r.log, 6000));
    out = pg__asprintf("%s/perfgate-report.json", j->workspace);
    rep = lc_report(out);
    cr_assert_str_eq(lc_verdict_of(rep, "filter"), "REGRESSED", "%s", lc_tail(r.log, 6000));
    json_decref(rep);
    free(out);
    free(text);
    gha_run_clear(&r);
}
