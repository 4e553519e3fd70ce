/*
 * issues_test.c - the issues perfgate keeps (post/issues.c) against the fake
 * GitHub API: every page of the open issues with the label read, only the
 * token's own issues with the marker kept (never a pull request, never a
 * marker copied into someone else's issue), opened with the label, edited,
 * commented on; limits as GitHub has them; a read-only token a warning.
 */
#include "fakegh.h"
#include "support.h"

#include "post/post.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

#define TOKEN "ghs_TESTTOKEN_issues_4343"
#define BOT "perfgate-bot[bot]"
#define MARKER "<!-- perfgate-regression key="
#define LABEL "perf regression"

static fakegh *srv;
static pg_gh *gh;

static void start(void)
{
    pg_gh_options o = PG_GH_OPTIONS_INIT;

    srv = fakegh_start(TOKEN, BOT);
    cr_assert(srv != NULL);
    o.api_url = fakegh_url(srv);
    o.token = TOKEN;
    o.backoff_s = 0.05;
    o.mutation_gap_s = 0;
    pg_assert_ok(pg_gh_new(&gh, &o));
}

static void stop(void)
{
    pg_gh_free(gh);
    fakegh_stop(srv);
}

TestSuite(post_issues, .init = start, .fini = stop);

Test(post_issues, every_page_is_read_and_only_the_tokens_own_issues_with_the_marker_are_kept)
{
    pg_issue *items = NULL;
    size_t n = 0, i;
    int64_t mine = 0, theirs;

    /* 130 issues of the label: two pages of 100. The marked one of the bot is on the second. */
    for (i = 0; i < 130; i++) {
        char *body = pg__asprintf("issue %zu", i);
        int64_t num = fakegh_add_issue(srv, i == 120 ? BOT : "someone", "t", i == 120 ? MARKER "abc -->" : body, LABEL);
        if (i == 120)
            mine = num;
        free(body);
    }
    /* Someone copied the marker into an issue of their own: perfgate must never take it for its own. */
    theirs = fakegh_add_issue(srv, "mallory", "copied", MARKER "abc -->", LABEL);
    /* Another label: not listed at all. */
    fakegh_add_issue(srv, BOT, "other", MARKER "def -->", "bug");
    pg_assert_ok(pg_issues_list(&items, &n, gh, "acme/lib", LABEL, MARKER));
    cr_assert_eq(n, 1, "%zu issues", n);
    cr_assert_eq(items[0].number, mine);
    cr_assert_neq(items[0].number, theirs);
    cr_assert_str_eq(items[0].body, MARKER "abc -->");
    cr_assert_geq(fakegh_count(srv, "GET", "/repos/acme/lib/issues?"), 2, "every page");
    /* The label went out percent-encoded. */
    cr_assert(strstr(fakegh_request_at(srv, 1)->path, "labels=perf%20regression"), "%s", fakegh_request_at(srv, 1)->path);
    pg_issues_free(items, n);
}

Test(post_issues, opened_with_the_label_then_edited_and_commented_on)
{
    int64_t num = 0;
    char *title, *body, long_title[400];

    pg_assert_ok(pg_issues_open(&num, gh, "acme/lib", "perf: kern/a is slower", MARKER "x -->\nbody", "perfgate-regression",
                                NULL));
    cr_assert_gt(num, 0);
    title = fakegh_issue_title(srv, num);
    cr_assert_str_eq(title, "perf: kern/a is slower");
    free(title);
    title = fakegh_issue_label(srv, num);
    cr_assert_str_eq(title, "perfgate-regression");
    free(title);
    pg_assert_ok(pg_issues_edit(gh, "acme/lib", num, NULL, MARKER "x -->\nnew body", NULL));
    body = fakegh_issue_body(srv, num);
    cr_assert_str_eq(body, MARKER "x -->\nnew body");
    free(body);
    title = fakegh_issue_title(srv, num);
    cr_assert_str_eq(title, "perf: kern/a is slower", "a NULL title is kept");
    free(title);
    pg_assert_ok(pg_issues_comment(gh, "acme/lib", num, "recovered", NULL));
    cr_assert_eq(fakegh_comment_count(srv, num), 1);
    /* GitHub's limits: a title over 256 characters is cut, a body over 65,536 trimmed with a link. */
    memset(long_title, 'x', sizeof(long_title) - 1);
    long_title[sizeof(long_title) - 1] = '\0';
    {
        size_t big = 70000;
        char *huge = malloc(big + 1);
        memset(huge, 'y', big);
        huge[big] = '\0';
        huge[1000] = '\n';
        pg_assert_ok(pg_issues_open(&num, gh, "acme/lib", long_title, huge, NULL, "https://github.com/acme/lib/actions/runs/1"));
        free(huge);
    }
    title = fakegh_issue_title(srv, num);
    cr_assert_eq(strlen(title), 256);
    free(title);
    body = fakegh_issue_body(srv, num);
    cr_assert(strlen(body) < 65536 && strstr(body, "https://github.com/acme/lib/actions/runs/1"));
    free(body);
}

Test(post_issues, a_read_only_token_and_a_bad_repository_are_refused)
{
    int64_t num = 0;
    pg_issue *items = NULL;
    size_t n = 0;

    fakegh_fail_next(srv, "POST", "/repos/acme/lib/issues", 403, NULL, NULL, 1);
    cr_assert_eq(pg_issues_open(&num, gh, "acme/lib", "t", "b", NULL, NULL), PG_ESKIP);
    cr_assert_eq(num, 0);
    cr_assert_eq(pg_issues_list(&items, &n, gh, "acme/../x", LABEL, MARKER), PG_EUSAGE);
    cr_assert_eq(pg_issues_comment(gh, "acme lib", 1, "x", NULL), PG_EUSAGE);
}
