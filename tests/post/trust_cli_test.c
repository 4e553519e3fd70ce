/*
 * trust_cli_test.c - `perfgate post --from` in a workflow_run job against the
 * fake GitHub: the pull request and SHA come from the event (or, for a fork,
 * from the API with a matching head), the report's and the flags' claims
 * are checked against them, and a refused or cancelled run posts nothing.
 * A regression is accepted by a pull request label read from the API (who
 * applied it, named), never by a report's claim; quiet comments.
 */
#include "fakegh.h"
#include "fixture.h"
#include "support.h"

#include "report/report.h"
#include "base/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define TOKEN "ghs_TRUSTTOKEN_keep_it_secret_31"
#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2"

typedef struct trust_case {
    fakegh *s;
    char *tmp, *report, *vars[12];
} trust_case;

/*
 * A workflow_run event: `pr` 0 leaves pull_requests empty, as GitHub does
 * for a fork; the head is mallory:fix at `sha`.
 */
static void setup(trust_case *c, const char *conclusion, int64_t pr, const char *sha)
{
    char *ev, *prs = pr ? pg__asprintf("[{\"number\": %lld, \"head\": {\"sha\": \"%s\"}}]", (long long)pr, sha)
                        : pg__strdup("[]");
    char *text = pg__asprintf("{\"action\": \"completed\", \"workflow_run\": {\"id\": 31, \"event\": \"pull_request\", "
                              "\"conclusion\": \"%s\", \"head_sha\": \"%s\", \"head_branch\": \"fix\", "
                              "\"html_url\": \"https://github.com/acme/kernels/actions/runs/31\", "
                              "\"head_repository\": {\"full_name\": \"mallory/kernels\", \"owner\": {\"login\": "
                              "\"mallory\"}}, \"pull_requests\": %s}}",
                              conclusion, sha, prs);
    int i = 0;

    memset(c, 0, sizeof(*c));
    c->s = fakegh_start(TOKEN, "github-actions[bot]");
    cr_assert(c->s != NULL);
    c->tmp = pg_test_tmpdir();
    c->report = pg__asprintf("%s/perfgate.json", c->tmp);
    ev = pg_test_write(c->tmp, "event.json", text);
    c->vars[i++] = pg__asprintf("GITHUB_TOKEN=%s", TOKEN);
    c->vars[i++] = pg__asprintf("GITHUB_API_URL=%s", fakegh_url(c->s));
    c->vars[i++] = pg__asprintf("GITHUB_GRAPHQL_URL=%s/graphql", fakegh_url(c->s));
    c->vars[i++] = pg__asprintf("GITHUB_REPOSITORY=acme/kernels");
    c->vars[i++] = pg__asprintf("GITHUB_EVENT_PATH=%s", ev);
    c->vars[i++] = pg__asprintf("GITHUB_EVENT_NAME=workflow_run");
    c->vars[i++] = pg__asprintf("GITHUB_ACTIONS=");
    c->vars[i++] = pg__asprintf("PERFGATE_DEBUG=1");
    c->vars[i] = NULL;
    free(ev);
    free(text);
    free(prs);
}

/* The untrusted job's report, claiming `pr` and `sha` (0/NULL: no claim). */
static void write_report(trust_case *c, int64_t pr, const char *sha)
{
    pg_test_model m;
    pg_report_origin og = {0};
    pg_report_data d;
    pg_buf b = PG_BUF_INIT;
    pg_report_options o = PG_REPORT_OPTIONS_INIT;
    FILE *f;

    pg_test_fixed_model(&m);
    m.head->pr = 0;
    /* Without a head SHA the report names the run's commit: no claim means the measured one. */
    free(m.head->commit);
    m.head->commit = pg__strdup(sha ? sha : SHA_A);
    og.repository = pg__strdup("acme/kernels");
    og.pr = pr;
    og.head_sha = pg__strdup(sha);
    og.run_url = pg__strdup("https://evil.example/phish");
    d.run = m.head;
    d.cmp = m.cmp;
    d.origin = &og;
    pg_assert_ok(pg_render_json(&b, &d, &o));
    f = fopen(c->report, "w");
    cr_assert(f != NULL);
    fputs(b.ptr, f);
    fclose(f);
    pg__buf_clear(&b);
    pg_report_origin_clear(&og);
    pg_test_model_free(&m);
}

static void post(pg_proc *p, trust_case *c, const char *extra1, const char *extra2)
{
    const char *argv[] = {"post", "--from", c->report, extra1, extra2, NULL};

    pg_test_run(p, c->tmp, (const char *const *)c->vars, argv);
    cr_assert(strstr(p->out, TOKEN) == NULL && strstr(p->err, TOKEN) == NULL, "the token was printed");
}

/* Nothing written to GitHub: no comment, no status, no edit. */
static void assert_nothing_posted(trust_case *c)
{
    cr_assert_eq(fakegh_count(c->s, "POST", "/repos/"), 0, "something was POSTed");
    cr_assert_eq(fakegh_count(c->s, "PATCH", "/repos/"), 0, "something was PATCHed");
    cr_assert_eq(fakegh_comment_count(c->s, 7), 0);
    cr_assert_eq(fakegh_comment_count(c->s, 9), 0);
}

/* Posts and expects a refusal: exit 2, `expect` on stderr, nothing written to GitHub. */
static void refused(trust_case *c, const char *extra1, const char *extra2, const char *expect)
{
    pg_proc p;

    post(&p, c, extra1, extra2);
    cr_assert_eq(p.status, 2, "%d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, expect) != NULL, "%s", p.err);
    assert_nothing_posted(c);
    pg_proc_free(&p);
}

static void teardown(trust_case *c)
{
    int i;

    for (i = 0; c->vars[i]; i++)
        free(c->vars[i]);
    fakegh_stop(c->s);
    pg_test_rmtree(c->tmp);
    free(c->tmp);
    free(c->report);
}

Test(post_trust, event_with_a_pr_posts_on_that_pr_and_sha)
{
    trust_case c;
    pg_proc p;
    char *body;

    setup(&c, "failure", 9, SHA_A);
    write_report(&c, 9, SHA_A);
    post(&p, &c, "--pr", "9");
    cr_assert_eq(p.status, 0, "%d\n%s", p.status, p.err);
    cr_assert_eq(fakegh_comment_count(c.s, 9), 1);
    cr_assert_eq(fakegh_count(c.s, "POST", "/repos/acme/kernels/statuses/" SHA_A), 1);
    /* The link is the run GitHub names, not the one the report claims. */
    body = fakegh_comment_body(c.s, 1001);
    cr_assert(body && !strstr(body, "evil.example"), "%s", body);
    free(body);
    cr_assert_eq(fakegh_count(c.s, "GET", "/repos/acme/kernels/pulls"), 0, "the event named the PR: no lookup");
    pg_proc_free(&p);
    teardown(&c);
}

Test(post_trust, fork_pr_is_found_through_the_api_with_a_matching_head)
{
    trust_case c;
    pg_proc p;

    setup(&c, "success", 0, SHA_A);
    fakegh_add_pull(c.s, 9, "mallory", "fix", SHA_A);
    write_report(&c, 9, SHA_A);
    post(&p, &c, NULL, NULL);
    cr_assert_eq(p.status, 0, "%d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, "pull request #9 found through the API") != NULL, "%s", p.err);
    cr_assert_eq(fakegh_count(c.s, "GET", "/repos/acme/kernels/pulls?state=open&head=mallory%3Afix"), 1);
    cr_assert_eq(fakegh_comment_count(c.s, 9), 1);
    cr_assert_eq(fakegh_count(c.s, "POST", "/repos/acme/kernels/statuses/" SHA_A), 1);
    pg_proc_free(&p);
    teardown(&c);
}

Test(post_trust, fork_pr_found_by_commit_when_the_branch_lookup_finds_none)
{
    trust_case c;
    pg_proc p;

    setup(&c, "success", 0, SHA_A);
    /* The branch was renamed since: only the commit still leads to the PR. */
    fakegh_add_pull(c.s, 9, "mallory", "renamed", SHA_A);
    write_report(&c, 0, NULL);
    post(&p, &c, NULL, NULL);
    cr_assert_eq(p.status, 0, "%d\n%s", p.status, p.err);
    cr_assert_eq(fakegh_count(c.s, "GET", "/repos/acme/kernels/commits/" SHA_A "/pulls"), 1);
    cr_assert_eq(fakegh_comment_count(c.s, 9), 1);
    pg_proc_free(&p);
    teardown(&c);
}

Test(post_trust, api_pr_whose_head_differs_is_refused)
{
    trust_case c;

    setup(&c, "success", 0, SHA_A);
    /* The PR's head is another commit than the one measured. */
    fakegh_add_pull(c.s, 9, "mallory", "fix", SHA_B);
    write_report(&c, 9, SHA_A);
    refused(&c, NULL, NULL, "refusing to post: pull request #9 has head bbbbbbbbbbbb");
    teardown(&c);
}

Test(post_trust, report_claiming_another_pr_is_refused)
{
    trust_case c;
    pg_proc p;

    setup(&c, "success", 9, SHA_A);
    write_report(&c, 7, SHA_A);
    post(&p, &c, NULL, NULL);
    cr_assert_eq(p.status, 2, "%d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, "refusing to post: the report claims pull request #7, but the workflow_run event is for "
                            "#9; nothing posted") != NULL,
              "%s", p.err);
    cr_assert_eq(strchr(p.err, '\n'), strrchr(p.err, '\n'), "one line on stderr: %s", p.err);
    assert_nothing_posted(&c);
    pg_proc_free(&p);
    teardown(&c);
}

Test(post_trust, fork_report_claiming_another_pr_is_refused)
{
    trust_case c;

    setup(&c, "success", 0, SHA_A);
    fakegh_add_pull(c.s, 9, "mallory", "fix", SHA_A);
    fakegh_add_pull(c.s, 7, "acme", "victim", SHA_B);
    write_report(&c, 7, SHA_A);
    refused(&c, NULL, NULL, "claims pull request #7");
    teardown(&c);
}

Test(post_trust, flags_cannot_override_the_event)
{
    trust_case c;

    setup(&c, "success", 9, SHA_A);
    write_report(&c, 0, NULL);
    refused(&c, "--pr", "7", "--pr claims pull request #7");
    refused(&c, "--sha", SHA_B, "--sha claims commit bbbbbbbbbbbb");
    teardown(&c);
}

Test(post_trust, report_claiming_another_sha_is_refused)
{
    trust_case c;

    setup(&c, "success", 9, SHA_A);
    write_report(&c, 9, SHA_B);
    refused(&c, NULL, NULL, "the report claims commit bbbbbbbbbbbb");
    cr_assert_eq(fakegh_request_count(c.s), 0, "a forged report cost requests");
    teardown(&c);
}

Test(post_trust, cancelled_run_posts_nothing)
{
    trust_case c;
    pg_proc p;

    setup(&c, "cancelled", 9, SHA_A);
    /* No report: a cancelled run may have uploaded none. */
    post(&p, &c, NULL, NULL);
    cr_assert_eq(p.status, 0, "%d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, "concluded 'cancelled': nothing posted") != NULL, "%s", p.err);
    cr_assert_eq(fakegh_request_count(c.s), 0);
    pg_proc_free(&p);
    teardown(&c);
}

/* ---- accepting a regression with a label -------------------------------- */

/*
 * The report as the gate of a pull request writes it, reduced to one
 * REGRESSED case (`regressed`) or none, every other case unchanged and every
 * exact check passed; with `claim` it also says the regression was accepted
 * by label, as only a forged report can.
 */
static void reduce_report(trust_case *c, int regressed, int claim)
{
    json_error_t je;
    json_t *r = json_load_file(c->report, 0, &je), *v, *sum;
    size_t i;

    cr_assert(r != NULL, "%s", je.text);
    sum = json_object_get(r, "summary");
    json_array_foreach(json_object_get(r, "verdicts"), i, v) {
        if (!regressed || strcmp(json_string_value(json_object_get(v, "verdict")), "REGRESSED") != 0)
            json_object_set_new(v, "verdict", json_string("SAME"));
        else if (claim)
            json_object_set_new(v, "accepted", json_pack("{s:s, s:s}", "why",
                                                         "accepted by label perf-accepted, applied by @maintainer",
                                                         "from", "label"));
    }
    json_array_foreach(json_object_get(r, "checks"), i, v)
        json_object_set_new(v, "passed", json_true());
    json_object_set_new(sum, "checks_failed", json_integer(0));
    json_object_set_new(sum, "outcome", json_string(claim ? "ACCEPTED" : regressed ? "FAIL" : "PASS"));
    json_object_set_new(sum, "exit_code", json_integer(regressed && !claim));
    if (claim)
        json_object_set_new(sum, "accepted_by", json_string("@maintainer"));
    cr_assert(json_dump_file(r, c->report, JSON_COMPACT) == 0);
    json_decref(r);
}

/* The body of the last commit status set on SHA_A ("state" and "description"), as JSON text (caller frees). */
static char *last_status_body(trust_case *c)
{
    char *body = NULL;
    size_t i;

    for (i = 0; i < fakegh_request_count(c->s); i++) {
        const fakegh_request *r = fakegh_request_at(c->s, i);
        if (strcmp(r->method, "POST") == 0 && strcmp(r->path, "/repos/acme/kernels/statuses/" SHA_A) == 0) {
            free(body);
            body = pg__strdup(r->body);
        }
    }
    cr_assert(body != NULL, "no status was set");
    return body;
}

/* The last commit status set on SHA_A has `state`. */
static void assert_state(trust_case *c, const char *state)
{
    char *status = last_status_body(c), *want = pg__asprintf("\"state\":\"%s\"", state);

    cr_assert(strstr(status, want) != NULL, "%s", status);
    free(status);
    free(want);
}

Test(post_trust, a_maintainers_label_accepts_the_regression_and_names_them)
{
    trust_case c;
    pg_proc p;
    char *status, *comment;

    setup(&c, "failure", 9, SHA_A);
    write_report(&c, 9, SHA_A);
    reduce_report(&c, 1, 0);
    fakegh_label(c.s, 9, "bug", "bob", 1);
    fakegh_label(c.s, 9, "perf-accepted", "carol", 1);
    fakegh_label(c.s, 9, "perf-accepted", "carol", 0);
    fakegh_label(c.s, 9, "Perf-Accepted", "alice", 1);
    post(&p, &c, NULL, NULL);
    cr_assert_eq(p.status, 0, "%d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, "1 regression accepted by label perf-accepted, applied by @alice") != NULL, "%s", p.err);
    status = last_status_body(&c);
    cr_assert(strstr(status, "\"state\":\"success\"") != NULL, "%s", status);
    cr_assert(strstr(status, "\"description\":\"1 regression accepted by label, applied by @alice\"") != NULL, "%s",
              status);
    comment = fakegh_comment_body(c.s, 1001);
    cr_assert(strstr(comment, "### perfgate: ACCEPTED — 1 regression accepted by label, applied by @alice") != NULL,
              "%s", comment);
    cr_assert(strstr(comment, "#### Accepted (1)") != NULL, "%s", comment);
    /* The events were read page by page (two a page here), oldest first: the last to apply it is named. */
    cr_assert(fakegh_count(c.s, "GET", "/repos/acme/kernels/issues/9/events") >= 2);
    free(status);
    free(comment);
    pg_proc_free(&p);
    teardown(&c);
}

Test(post_trust, a_reports_claim_of_acceptance_is_ignored_without_the_label)
{
    trust_case c;
    pg_proc p;

    setup(&c, "success", 0, SHA_A);
    fakegh_add_pull(c.s, 9, "mallory", "fix", SHA_A);
    write_report(&c, 9, SHA_A);
    reduce_report(&c, 1, 1);
    /* Another label, and the right one on another pull request: neither counts. */
    fakegh_label(c.s, 9, "performance", "alice", 1);
    fakegh_label(c.s, 7, "perf-accepted", "alice", 1);
    post(&p, &c, NULL, NULL);
    cr_assert_eq(p.status, 0, "%d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, "the report claims 1 regression accepted by label; ignored") != NULL, "%s", p.err);
    assert_state(&c, "failure");
    pg_proc_free(&p);
    teardown(&c);
}

Test(post_trust, no_acceptance_without_reading_the_labels_or_with_the_label_turned_off)
{
    trust_case c;
    pg_proc p;

    setup(&c, "failure", 9, SHA_A);
    write_report(&c, 9, SHA_A);
    reduce_report(&c, 1, 0);
    fakegh_label(c.s, 9, "perf-accepted", "alice", 1);
    /* The token may not read labels: a warning, and the regression fails as it is. */
    fakegh_fail_next(c.s, "GET", "/repos/acme/kernels/issues/9/labels", 403, NULL, NULL, 1);
    post(&p, &c, NULL, NULL);
    cr_assert_eq(p.status, 0, "%d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, "cannot read the labels of acme/kernels#9") != NULL, "%s", p.err);
    assert_state(&c, "failure");
    pg_proc_free(&p);
    /* --accept-label '' turns acceptance off: no request for labels at all. */
    post(&p, &c, "--accept-label", "");
    cr_assert_eq(p.status, 0, "%d\n%s", p.status, p.err);
    assert_state(&c, "failure");
    cr_assert_eq(fakegh_count(c.s, "GET", "/repos/acme/kernels/issues/9/labels"), 1);
    pg_proc_free(&p);
    /* A label name no GitHub label can have is a usage error. */
    post(&p, &c, "--accept-label", "perf\naccepted");
    cr_assert_eq(p.status, 2, "%d\n%s", p.status, p.err);
    pg_proc_free(&p);
    teardown(&c);
}

Test(post_trust, quiet_comments_leave_a_clean_pull_request_with_its_status_alone)
{
    trust_case c;
    pg_proc p;
    char *body;

    setup(&c, "success", 9, SHA_A);
    write_report(&c, 9, SHA_A);
    reduce_report(&c, 0, 0);
    post(&p, &c, "--comment", "on-change");
    cr_assert_eq(p.status, 0, "%d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, "none created (--comment on-change)") != NULL, "%s", p.err);
    cr_assert_eq(fakegh_comment_count(c.s, 9), 0);
    cr_assert_eq(fakegh_count(c.s, "POST", "/repos/acme/kernels/statuses/" SHA_A), 1);
    /* No regression means no label to read either. */
    cr_assert_eq(fakegh_count(c.s, "GET", "/repos/acme/kernels/issues/9/labels"), 0);
    pg_proc_free(&p);
    /* A regression: the comment is created. */
    write_report(&c, 9, SHA_A);
    reduce_report(&c, 1, 0);
    post(&p, &c, "--comment", "on-change");
    cr_assert_eq(p.status, 0, "%d\n%s", p.status, p.err);
    cr_assert_eq(fakegh_comment_count(c.s, 9), 1);
    pg_proc_free(&p);
    /* Clean again: the comment that exists is updated, so it does not keep saying FAIL. */
    write_report(&c, 9, SHA_A);
    reduce_report(&c, 0, 0);
    post(&p, &c, "--comment", "on-change");
    cr_assert_eq(p.status, 0, "%d\n%s", p.status, p.err);
    cr_assert_eq(fakegh_comment_count(c.s, 9), 1);
    body = fakegh_comment_body(c.s, 1001);
    cr_assert(strstr(body, "perfgate: PASS") != NULL, "%s", body);
    free(body);
    pg_proc_free(&p);
    post(&p, &c, "--comment", "sometimes");
    cr_assert_eq(p.status, 2, "%d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, "expected always, on-change or off") != NULL, "%s", p.err);
    pg_proc_free(&p);
    teardown(&c);
}
