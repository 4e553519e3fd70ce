/*
 * trust_cli_test.c - `perfgate post --from` in a workflow_run job against the
 * fake GitHub: the pull request and SHA come from the event (or, for a fork,
 * from the API with a matching head), the report's and the flags' claims
 * are checked against them, and a refused or cancelled run posts nothing.
 */
#include "fakegh.h"
#include "fixture.h"
#include "support.h"

#include "report/report.h"
#include "base/util.h"

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
static void setup_listing(trust_case *c, const char *conclusion, int64_t pr, const char *sha, const char *listed_head)
{
    char *ev, *prs = pr ? pg__asprintf("[{\"number\": %lld, \"head\": {\"sha\": \"%s\"}}]", (long long)pr,
                                       listed_head)
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

static void setup(trust_case *c, const char *conclusion, int64_t pr, const char *sha)
{
    setup_listing(c, conclusion, pr, sha, sha);
}

static void write_report_as(trust_case *c, int64_t pr, const char *sha, const char *suite_set);

/* The untrusted job's report, claiming `pr` and `sha` (0/NULL: no claim). */
static void write_report(trust_case *c, int64_t pr, const char *sha)
{
    write_report_as(c, pr, sha, NULL);
}

/* As write_report(), with the run's suite set replaced by `suite_set` (NULL: the fixture's). */
static void write_report_as(trust_case *c, int64_t pr, const char *sha, const char *suite_set)
{
    pg_test_model m;
    pg_report_origin og = {0};
    pg_report_data d;
    pg_buf b = PG_BUF_INIT;
    pg_report_options o = PG_REPORT_OPTIONS_INIT;
    FILE *f;

    pg_test_fixed_model(&m);
    m.head->pr = 0;
    if (suite_set) {
        free(m.head->suite_set);
        m.head->suite_set = pg__strdup(suite_set);
    }
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

/* `md` without its inline code spans (`...`). */
static char *outside_code_spans(const char *md)
{
    pg_buf b = PG_BUF_INIT;
    int in_code = 0;

    for (; *md; md++) {
        if (*md == '`')
            in_code = !in_code;
        else if (!in_code || *md == '\n')
            pg__buf_put(&b, md, 1);
        if (*md == '\n')
            in_code = 0;
    }
    return pg__buf_detach(&b);
}

/*
 * The marker and the status context used to be built from the report's
 * suite set, which a fork writes: a comment marker closed early, a heading,
 * an image and a link, and a context of the attacker's choosing. Now the
 * suite set only adds an identifier to both, and no markup reaches the
 * comment posted with the write token.
 */
Test(post_trust, a_forged_suite_set_adds_no_markup_to_the_comment_nor_the_context)
{
    static const char forged[] = "imp -->\n\n# perfgate: PASS\n<img src=https://evil.example/x.png>\n"
                                 "[click](https://evil.example/phish)\n<!-- ";
    trust_case c;
    pg_proc p;
    char *body, *line;
    size_t i;

    setup(&c, "failure", 9, SHA_A);
    write_report_as(&c, 9, SHA_A, forged);
    post(&p, &c, NULL, NULL);
    cr_assert_eq(p.status, 0, "%d\n%s", p.status, p.err);
    cr_assert_eq(fakegh_comment_count(c.s, 9), 1);
    body = fakegh_comment_body(c.s, 1001);
    cr_assert_not_null(body);
    {
        /* What markdown reads as markup: the text outside code spans (which show their text as it is). */
        char *plain = outside_code_spans(body);
        cr_assert(strstr(plain, "<img") == NULL && strstr(plain, "](https://evil") == NULL, "%s", body);
        free(plain);
    }
    for (line = body; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        cr_assert(strncmp(line, "# perfgate", 10) != 0, "a forged heading:\n%s", body);
    /* One comment marker, closed where perfgate closes it. */
    cr_assert(strstr(body, "<!-- perfgate:imp----") == body, "%s", body);
    cr_assert_eq(strstr(body, "-->"), strchr(body, '\n') - 3, "%s", body);
    for (i = 0; i < fakegh_request_count(c.s); i++) {
        const fakegh_request *r = fakegh_request_at(c.s, i);
        if (strcmp(r->method, "POST") == 0 && strncmp(r->path, "/repos/acme/kernels/statuses/", 29) == 0)
            cr_assert(strstr(r->body, "\"context\":\"perfgate/imp----") != NULL && !strstr(r->body, "\\n") &&
                          !strstr(r->body, "<img"),
                      "%s", r->body);
    }
    cr_assert_eq(fakegh_count(c.s, "POST", "/repos/acme/kernels/statuses/" SHA_A), 1);
    free(body);
    pg_proc_free(&p);
    teardown(&c);
}

/*
 * GitHub lists a workflow_run's pull requests by branch name, so a fork's
 * branch named like one of the repository's lists that pull request: it is
 * taken only when its head is the run's head, else looked up (and refused).
 */
Test(post_trust, a_listed_pull_request_with_another_head_is_not_posted_to)
{
    trust_case c;

    setup_listing(&c, "success", 7, SHA_A, SHA_B);
    write_report(&c, 0, NULL);
    refused(&c, NULL, NULL, "refusing to post");
    cr_assert_eq(fakegh_comment_count(c.s, 7), 0);
    teardown(&c);
}

/* A job that says it runs on workflow_run but whose event file holds none never falls back to the report's claims. */
Test(post_trust, a_workflow_run_job_without_its_event_is_refused)
{
    trust_case c;
    char *ev;
    int i;

    setup(&c, "success", 9, SHA_A);
    write_report(&c, 9, SHA_A);
    ev = pg_test_write(c.tmp, "event.json", "{\"action\": \"opened\", \"pull_request\": {\"number\": 9}}");
    for (i = 0; c.vars[i]; i++)
        if (strncmp(c.vars[i], "GITHUB_EVENT_PATH=", 18) == 0) {
            free(c.vars[i]);
            c.vars[i] = pg__asprintf("GITHUB_EVENT_PATH=%s", ev);
        }
    refused(&c, NULL, NULL, "GITHUB_EVENT_NAME is workflow_run but the event holds no workflow_run");
    free(ev);
    teardown(&c);
}

/* `gate --post` in a workflow_run job goes through the same checks: the listed pull request's head must match. */
Test(post_trust, gate_post_in_a_workflow_run_job_takes_no_unchecked_pull_request)
{
    trust_case c;
    pg_proc p;
    char *suite, *db;
    const char *argv[] = {"gate", "--quick", "--post", "--style", "none", "--db", NULL, "--commit", SHA_A, NULL, NULL};

    setup_listing(&c, "success", 7, SHA_A, SHA_B);
    suite = pg_test_write(c.tmp, "s.yaml", "suite: s\nbenchmarks:\n  - {name: a, kernel: add, params: {n: 256}}\n");
    db = pg__asprintf("%s/g.db", c.tmp);
    argv[6] = db;
    argv[9] = suite;
    pg_test_run(&p, c.tmp, (const char *const *)c.vars, argv);
    cr_assert(strstr(p.out, TOKEN) == NULL && strstr(p.err, TOKEN) == NULL, "the token was printed");
    cr_assert_eq(p.status, 4, "%d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, "refusing to post") != NULL, "%s", p.err);
    cr_assert_eq(fakegh_comment_count(c.s, 7), 0, "commented on a pull request whose head is another commit");
    cr_assert_eq(fakegh_count(c.s, "POST", "/repos/"), 0);
    pg_proc_free(&p);
    free(suite);
    free(db);
    teardown(&c);
}

/* A webhook URL authorises posting: its user, password, path and query never appear in a message. */
Test(post_trust, a_webhook_url_s_secrets_never_appear_in_messages)
{
    static const char *const urls[] = {"http://user:S3CR3T@127.0.0.1:9/hooks/x", "http://127.0.0.1:9?S3CR3T",
                                       "http://127.0.0.1:9/S3CR3T/x", "ftp://user:S3CR3T@example.com/x"};
    trust_case c;
    size_t i;

    setup(&c, "success", 9, SHA_A);
    write_report(&c, 9, SHA_A);
    for (i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
        pg_proc p;
        const char *argv[] = {"post", "--from", c.report, "--no-comment", "--no-status", "--webhook", urls[i], NULL};
        pg_test_run(&p, c.tmp, (const char *const *)c.vars, argv);
        cr_assert_neq(p.status, 0, "%s: posted?\n%s", urls[i], p.err);
        cr_assert(strstr(p.err, "webhook") != NULL, "%s", p.err);
        cr_assert(strstr(p.out, "S3CR3T") == NULL && strstr(p.err, "S3CR3T") == NULL, "%s: %s%s", urls[i], p.out,
                  p.err);
        pg_proc_free(&p);
    }
    teardown(&c);
}
