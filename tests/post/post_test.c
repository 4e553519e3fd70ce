/*
 * post_test.c - the GitHub client and the sticky comment against a fake
 * GitHub API on 127.0.0.1 owned by the test (tests/support/fakegh.c): create
 * then update, other users' markers, pagination, 403/404 as warnings, 429
 * with retry-after, 5xx back-off, trimming, the token never leaking.
 */
#include "fakegh.h"
#include "fixture.h"
#include "support.h"

#include "post/post.h"
#include "report/report.h"
#include "base/util.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define TOKEN "ghs_TESTTOKEN_never_print_me_4242"
#define BOT "perfgate-bot[bot]"
#define MARKER "<!-- perfgate:cpu -->"

static fakegh *srv;
static pg_gh *gh;

static void start(void)
{
    pg_gh_options o = PG_GH_OPTIONS_INIT;

    srv = fakegh_start(TOKEN, BOT);
    cr_assert(srv != NULL, "cannot start the fake GitHub server");
    o.api_url = fakegh_url(srv);
    o.token = TOKEN;
    o.backoff_s = 0.05;       /* tests wait less; retry-after is still honoured as given */
    o.mutation_gap_s = 0;
    pg_assert_ok(pg_gh_new(&gh, &o));
}

static void stop(void)
{
    pg_gh_free(gh);
    gh = NULL;
    fakegh_stop(srv);
    srv = NULL;
}

TestSuite(post_comment, .init = start, .fini = stop);
TestSuite(post_status, .init = start, .fini = stop);

Test(post_comment, first_post_creates_second_updates_the_same_comment)
{
    pg_post_outcome a, b;
    const fakegh_request *r;
    char *body;

    pg_assert_ok(pg_post_sticky_comment(&a, gh, "acme/kernels", 5, MARKER, "first body", NULL));
    cr_assert(a.created && a.comment_id > 0);
    pg_assert_ok(pg_post_sticky_comment(&b, gh, "acme/kernels", 5, MARKER, "second body", NULL));
    cr_assert(!b.created);
    cr_assert_eq(b.comment_id, a.comment_id);
    cr_assert_eq(fakegh_comment_count(srv, 5), 1);
    cr_assert_eq(fakegh_count(srv, "POST", "/repos/acme/kernels/issues/5/comments"), 1);
    cr_assert_eq(fakegh_count(srv, "PATCH", "/repos/acme/kernels/issues/comments/"), 1);
    body = fakegh_comment_body(srv, a.comment_id);
    cr_assert_str_eq(body, MARKER "\nsecond body");
    free(body);
    /* Every request carries GitHub's headers and the token as a Bearer. */
    r = fakegh_request_at(srv, 0);
    cr_assert_str_eq(r->accept, "application/vnd.github+json");
    cr_assert_str_eq(r->api_version, "2022-11-28");
    cr_assert(strncmp(r->user_agent, "perfgate/", 9) == 0, "%s", r->user_agent);
    cr_assert_str_eq(r->auth, "Bearer " TOKEN);
}

Test(post_comment, another_users_comment_with_the_marker_is_left_alone)
{
    int64_t theirs = fakegh_add_comment(srv, 5, "mallory", MARKER "\nmallory's copy of the marker");
    pg_post_outcome a, b;
    char *body;

    pg_assert_ok(pg_post_sticky_comment(&a, gh, "acme/kernels", 5, MARKER, "ours", NULL));
    cr_assert(a.created, "mallory's comment was taken for ours");
    cr_assert_neq(a.comment_id, theirs);
    pg_assert_ok(pg_post_sticky_comment(&b, gh, "acme/kernels", 5, MARKER, "ours again", NULL));
    cr_assert_eq(b.comment_id, a.comment_id);
    body = fakegh_comment_body(srv, theirs);
    cr_assert_str_eq(body, MARKER "\nmallory's copy of the marker");
    free(body);
    cr_assert_eq(fakegh_comment_count(srv, 5), 2);
}

Test(post_comment, finds_its_comment_on_the_third_page)
{
    int64_t ours = 0;
    pg_post_outcome o;
    char text[64];
    int i;

    /* 250 comments: 100 per page, ours (by the bot, with the marker) is number 241, on page 3. */
    for (i = 0; i < 250; i++) {
        snprintf(text, sizeof(text), "comment %d", i);
        if (i == 240)
            ours = fakegh_add_comment(srv, 9, BOT, MARKER "\nold results");
        else
            fakegh_add_comment(srv, 9, i % 2 ? "alice" : BOT, text);
    }
    pg_assert_ok(pg_post_sticky_comment(&o, gh, "acme/kernels", 9, MARKER, "new results", NULL));
    cr_assert_eq(o.pages, 3);
    cr_assert(!o.created);
    cr_assert_eq(o.comment_id, ours);
    cr_assert_eq(fakegh_count(srv, "GET", "/repos/acme/kernels/issues/9/comments?per_page=100"), 1);
    cr_assert_eq(fakegh_count(srv, "GET", "/repositories/1/issues/9/comments?per_page=100&page="), 2);
    cr_assert_eq(fakegh_comment_count(srv, 9), 250);
}

Test(post_comment, forbidden_is_a_warning)
{
    pg_post_outcome o;

    fakegh_fail_next(srv, "GET", "/repos/acme/kernels/issues/5/comments", 403, NULL, NULL, 1);
    cr_assert_eq(pg_post_sticky_comment(&o, gh, "acme/kernels", 5, MARKER, "body", NULL), PG_ESKIP);
    cr_assert(strstr(pg_error_last(), "403") && strstr(pg_error_last(), "fork"), "%s", pg_error_last());
    /* PG_ESKIP's exit class is 0: it never fails a command. */
    cr_assert_eq(pg_error_exit_code(PG_ESKIP), 0);
    cr_assert_eq(fakegh_comment_count(srv, 5), 0);
}

Test(post_comment, not_found_is_a_warning)
{
    pg_post_outcome o;

    fakegh_fail_next(srv, "POST", "/repos/acme/kernels/issues/5/comments", 404, NULL, "{\"message\":\"Not Found\"}", 1);
    cr_assert_eq(pg_post_sticky_comment(&o, gh, "acme/kernels", 5, MARKER, "body", NULL), PG_ESKIP);
    cr_assert(strstr(pg_error_last(), "404") != NULL, "%s", pg_error_last());
}

/* Seconds between the first two requests of `method` to a path containing `path`; fails without two. */
static double retry_gap(const char *method, const char *path)
{
    size_t i, n = fakegh_request_count(srv);
    int64_t first = 0, second = 0;

    for (i = 0; i < n && !second; i++) {
        const fakegh_request *r = fakegh_request_at(srv, i);
        if (strcmp(r->method, method) == 0 && strstr(r->path, path)) {
            if (!first)
                first = r->at_ns;
            else
                second = r->at_ns;
        }
    }
    cr_assert(first && second, "%s %s was not retried", method, path);
    return (double)(second - first) / 1e9;
}

Test(post_comment, too_many_requests_is_retried_after_retry_after)
{
    pg_post_outcome o;
    double gap;

    fakegh_fail_next(srv, "POST", "/repos/acme/kernels/issues/5/comments", 429, "retry-after: 1\r\n",
                     "{\"message\":\"You have exceeded a secondary rate limit\"}", 1);
    pg_assert_ok(pg_post_sticky_comment(&o, gh, "acme/kernels", 5, MARKER, "body", NULL));
    cr_assert(o.created);
    gap = retry_gap("POST", "/issues/5/comments");
    cr_assert(gap >= 0.95, "retried after %.3f s, not after retry-after: 1", gap);
    cr_assert_eq(fakegh_comment_count(srv, 5), 1);
}

Test(post_comment, server_errors_back_off_and_retry)
{
    pg_post_outcome o;

    fakegh_fail_next(srv, "GET", "/repos/acme/kernels/issues/5/comments", 502, NULL, "{\"message\":\"Bad Gateway\"}", 2);
    pg_assert_ok(pg_post_sticky_comment(&o, gh, "acme/kernels", 5, MARKER, "body", NULL));
    cr_assert_eq(fakegh_count(srv, "GET", "/repos/acme/kernels/issues/5/comments"), 3);
}

/*
 * A spent primary limit (403, remaining 0) waits until its reset: the retry
 * comes no sooner than the reset second has begun, at least a second after
 * the refused request here, never at once.
 */
Test(post_comment, spent_rate_limit_waits_for_the_reset)
{
    pg_post_outcome o;
    char hdr[128];
    double gap;

    snprintf(hdr, sizeof(hdr), "x-ratelimit-remaining: 0\r\nx-ratelimit-reset: %lld\r\n",
             (long long)pg__now_unix() + 1);
    fakegh_fail_next(srv, "GET", "/repos/acme/kernels/issues/5/comments", 403, hdr,
                     "{\"message\":\"API rate limit exceeded\"}", 1);
    pg_assert_ok(pg_post_sticky_comment(&o, gh, "acme/kernels", 5, MARKER, "body", NULL));
    cr_assert(o.created);
    gap = retry_gap("GET", "/issues/5/comments");
    cr_assert(gap >= 0.95, "retried after %.3f s, before the limit's reset", gap);
}

Test(post_comment, seventy_thousand_characters_are_trimmed_with_a_link)
{
    pg_buf big = PG_BUF_INIT;
    pg_post_outcome o;
    char *body;
    size_t chars = 0;
    const char *p;

    /* 70,000 characters, multi-byte ones included, in 100-character lines. */
    while (chars < 70000) {
        pg__buf_puts(&big, "| `case` | 1.00 µs |");
        pg__buf_puts(&big, "..............................................................................\n");
        chars += 100;
    }
    pg_assert_ok(pg_post_sticky_comment(&o, gh, "acme/kernels", 5, MARKER, big.ptr,
                                        "https://github.com/acme/kernels/actions/runs/9"));
    cr_assert(o.created, "GitHub (the fake) refused the body");
    body = fakegh_comment_body(srv, o.comment_id);
    for (chars = 0, p = body; *p; p++)
        chars += ((unsigned char)*p & 0xC0) != 0x80;
    cr_assert(chars <= 65536, "%zu characters", chars);
    cr_assert(chars > 60000, "trimmed far too much: %zu", chars);
    cr_assert(strncmp(body, MARKER "\n", strlen(MARKER) + 1) == 0);
    cr_assert(strstr(body, "Trimmed to stay under GitHub's 65536-character limit") != NULL);
    cr_assert(strstr(body, "https://github.com/acme/kernels/actions/runs/9") != NULL);
    free(body);
    pg__buf_clear(&big);
}

Test(post_comment, a_link_outside_the_api_is_not_followed)
{
    pg_post_outcome o;
    int i;

    for (i = 0; i < 150; i++)
        fakegh_add_comment(srv, 5, "alice", "hello");
    fakegh_set_link_base(srv, "https://evil.example.com");
    cr_assert_eq(pg_post_sticky_comment(&o, gh, "acme/kernels", 5, MARKER, "body", NULL), PG_ENET);
    cr_assert(strstr(pg_error_last(), "not following") != NULL, "%s", pg_error_last());
    cr_assert_eq(fakegh_count(srv, "POST", "/"), 0);
}

Test(post_comment, an_installation_token_finds_its_login_through_graphql)
{
    pg_gh_options o = PG_GH_OPTIONS_INIT;
    fakegh *s2 = fakegh_start(TOKEN, "github-actions[bot]");
    pg_gh *g2 = NULL;
    int64_t ours = fakegh_add_comment(s2, 5, "github-actions[bot]", MARKER "\nold");
    pg_post_outcome out;

    /* GET /user is closed to Actions' GITHUB_TOKEN; GraphQL's viewer answers "github-actions". */
    fakegh_set_user_status(s2, 403);
    o.api_url = fakegh_url(s2);
    o.token = TOKEN;
    o.mutation_gap_s = 0;
    pg_assert_ok(pg_gh_new(&g2, &o));
    pg_assert_ok(pg_post_sticky_comment(&out, g2, "acme/kernels", 5, MARKER, "new", NULL));
    cr_assert_eq(out.comment_id, ours);
    cr_assert(!out.created);
    cr_assert_eq(fakegh_count(s2, "POST", "/graphql"), 1);
    pg_gh_free(g2);
    fakegh_stop(s2);
}

Test(post_comment, bad_repository_names_are_refused)
{
    pg_post_outcome o;

    cr_assert_eq(pg_post_sticky_comment(&o, gh, "acme/kernels/../x", 5, MARKER, "b", NULL), PG_EUSAGE);
    cr_assert_eq(pg_post_sticky_comment(&o, gh, "acme", 5, MARKER, "b", NULL), PG_EUSAGE);
    cr_assert_eq(fakegh_request_count(srv), 0);
}

Test(post_status, sets_state_context_description_and_link)
{
    const char *sha = "1234567890abcdef1234567890abcdef12345678";
    const fakegh_request *r;
    json_t *body;
    char desc[300];

    memset(desc, 'd', sizeof(desc) - 1);
    desc[sizeof(desc) - 1] = '\0';
    pg_assert_ok(pg_post_commit_status(gh, "acme/kernels", sha, "failure", desc,
                                       "https://github.com/acme/kernels/actions/runs/9", "perfgate/cpu"));
    cr_assert_eq(fakegh_count(srv, "POST", "/repos/acme/kernels/statuses/1234567890abcdef"), 1);
    r = fakegh_request_at(srv, 0);
    body = json_loads(r->body, 0, NULL);
    cr_assert_str_eq(json_string_value(json_object_get(body, "state")), "failure");
    cr_assert_str_eq(json_string_value(json_object_get(body, "context")), "perfgate/cpu");
    cr_assert_eq(strlen(json_string_value(json_object_get(body, "description"))), 140);
    cr_assert_str_eq(json_string_value(json_object_get(body, "target_url")),
                     "https://github.com/acme/kernels/actions/runs/9");
    json_decref(body);
    cr_assert_eq(pg_post_commit_status(gh, "acme/kernels", "not-a-sha", "success", "", NULL, "perfgate"), PG_EUSAGE);
}

Test(post_client, tls_stays_on_and_plain_http_only_to_loopback)
{
    pg_gh_options o = PG_GH_OPTIONS_INIT;
    pg_gh *g = NULL;

    o.token = TOKEN;
    o.api_url = "http://api.example.com";
    cr_assert_eq(pg_gh_new(&g, &o), PG_EUSAGE);
    cr_assert(strstr(pg_error_last(), "https") != NULL, "%s", pg_error_last());
    o.api_url = "https://github.example.com/api/v3/";
    pg_assert_ok(pg_gh_new(&g, &o));
    pg_gh_free(g);
    o.token = NULL;
    setenv("GITHUB_TOKEN", "", 1);
    cr_assert_eq(pg_gh_new(&g, &o), PG_EUSAGE);
    cr_assert(strstr(pg_error_last(), "GITHUB_TOKEN") != NULL);
}

/* A free TCP port on 127.0.0.1 (the kernel's pick, released for the server to take). */
static int free_port(void)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0), port;

    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
              getsockname(fd, (struct sockaddr *)&a, &len) == 0);
    port = ntohs(a.sin_port);
    close(fd);
    return port;
}

static int accepts(int port)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
    close(fd);
    return ok;
}

/*
 * Certificates are verified: a real TLS server on 127.0.0.1 (openssl
 * s_server -www, which answers any GET with 200) presents a self-signed
 * certificate, and the client refuses it before sending anything. With
 * verification off the same request would come back 200.
 */
Test(post_client, a_self_signed_certificate_is_refused)
{
    char *dir = pg_test_tmpdir(), *cmd, *url, *key = pg__asprintf("%s/key.pem", dir);
    char *cert = pg__asprintf("%s/cert.pem", dir), port_s[16];
    pg_gh_options o = PG_GH_OPTIONS_INIT;
    pg_gh_response r;
    pg_gh *g = NULL;
    pid_t pid;
    int port = free_port(), i, err;

    cmd = pg__asprintf("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
                       "-addext subjectAltName=IP:127.0.0.1 -keyout %s -out %s 2>/dev/null",
                       key, cert);
    cr_assert_eq(system(cmd), 0, "openssl could not make a certificate (ci/packages-test.txt lists openssl)");
    snprintf(port_s, sizeof(port_s), "%d", port);
    pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDWR);
        dup2(devnull, 0);
        dup2(devnull, 1);
        dup2(devnull, 2);
        execlp("openssl", "openssl", "s_server", "-quiet", "-www", "-accept", port_s, "-cert", cert, "-key", key,
               (char *)NULL);
        _exit(127);
    }
    for (i = 0; i < 500 && !accepts(port); i++)
        usleep(20 * 1000);
    cr_assert(i < 500, "the TLS server did not start on port %d", port);
    url = pg__asprintf("https://127.0.0.1:%d", port);
    o.api_url = url;
    o.token = TOKEN;
    o.max_retries = 0;
    pg_assert_ok(pg_gh_new(&g, &o));
    err = pg_gh_request(&r, g, "GET", "/user", NULL);
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    cr_assert_eq(err, PG_ENET, "the request got through (status %ld): certificates are not verified", r.status);
    cr_assert(strstr(pg_error_last(), "certificate") != NULL, "%s", pg_error_last());
    pg_gh_response_clear(&r);
    pg_gh_free(g);
    pg_test_rmtree(dir);
    free(dir);
    free(cmd);
    free(url);
    free(key);
    free(cert);
}

Test(post_webhook, posts_slack_text_and_never_names_the_url_path)
{
    fakegh *s = fakegh_start(TOKEN, BOT);
    char *url = pg__asprintf("%s/hooks/T000/B000/SECRETPART", fakegh_url(s));
    const fakegh_request *r;
    json_t *body;

    pg_assert_ok(pg_post_webhook(url, "perfgate cpu: FAIL: 1 regression", NULL));
    r = fakegh_request_at(s, 0);
    cr_assert(r != NULL && r->auth == NULL, "the webhook got an Authorization header");
    body = json_loads(r->body, 0, NULL);
    cr_assert_str_eq(json_string_value(json_object_get(body, "text")), "perfgate cpu: FAIL: 1 regression");
    json_decref(body);
    fakegh_fail_next(s, "POST", "/hooks/", 500, NULL, NULL, 1);
    cr_assert_eq(pg_post_webhook(url, "x", NULL), PG_ENET);
    cr_assert(strstr(pg_error_last(), "SECRETPART") == NULL, "%s", pg_error_last());
    cr_assert(strstr(pg_error_last(), "500") != NULL, "%s", pg_error_last());
    free(url);
    fakegh_stop(s);
}

Test(post_origin, reads_the_pull_request_event)
{
    char *tmp = pg_test_tmpdir();
    char *ev = pg_test_write(tmp, "event.json",
                             "{\"number\": 7, \"pull_request\": {\"number\": 7, \"head\": {\"sha\": \"aaaa1111\", "
                             "\"repo\": {\"fork\": true}}, \"base\": {\"sha\": \"bbbb2222\", \"ref\": \"main\"}}}");
    char *bad = pg_test_write(tmp, "bad.json", "{\n  \"pull_request\": {\n    \"number\": 7,,\n}");
    pg_report_origin o;

    setenv("GITHUB_EVENT_PATH", ev, 1);
    setenv("GITHUB_REPOSITORY", "acme/kernels", 1);
    setenv("GITHUB_SERVER_URL", "https://github.com", 1);
    setenv("GITHUB_RUN_ID", "777", 1);
    pg_assert_ok(pg_post_origin_from_env(&o));
    cr_assert_eq(o.pr, 7);
    cr_assert_str_eq(o.head_sha, "aaaa1111");
    cr_assert_str_eq(o.base_sha, "bbbb2222");
    cr_assert_str_eq(o.base_ref, "main");
    cr_assert(o.fork);
    cr_assert_str_eq(o.repository, "acme/kernels");
    cr_assert_str_eq(o.run_url, "https://github.com/acme/kernels/actions/runs/777");
    pg_report_origin_clear(&o);
    setenv("GITHUB_EVENT_PATH", bad, 1);
    cr_assert_eq(pg_post_origin_from_env(&o), PG_EFORMAT);
    cr_assert(strstr(pg_error_last(), "bad.json:3:") != NULL, "%s", pg_error_last());
    pg_test_rmtree(tmp);
    free(tmp);
    free(ev);
    free(bad);
}

/* A host is case-insensitive: a Link that spells the API's host in capitals is the same server, followed. */
Test(post_comment, a_link_to_the_api_host_in_other_case_is_followed)
{
    pg_gh_options o = PG_GH_OPTIONS_INIT;
    const char *port = strrchr(fakegh_url(srv), ':');
    char *api = pg__asprintf("http://localhost%s", port), *link = pg__asprintf("HTTP://LocalHost%s", port);
    pg_gh *g2 = NULL;
    pg_post_outcome out;
    int i;

    for (i = 0; i < 150; i++)
        fakegh_add_comment(srv, 5, "alice", "hello");
    fakegh_set_link_base(srv, link);
    o.api_url = api;
    o.token = TOKEN;
    o.mutation_gap_s = 0;
    pg_assert_ok(pg_gh_new(&g2, &o));
    pg_assert_ok(pg_post_sticky_comment(&out, g2, "acme/kernels", 5, MARKER, "body", NULL));
    cr_assert(out.created);
    cr_assert_geq(fakegh_count(srv, "GET", "/repositories/1/issues/5/comments"), 1, "the second page was read");
    /* Only the host's case is forgiven: another path under it is still refused. */
    fakegh_set_link_base(srv, "https://LOCALHOST.evil.example.com");
    cr_assert_eq(pg_post_sticky_comment(&out, g2, "acme/kernels", 5, MARKER, "body", NULL), PG_ENET);
    pg_gh_free(g2);
    free(api);
    free(link);
}

/*
 * Retry-After is delay-seconds or an HTTP-date (RFC 9110): an hour from now
 * written as a date is an hour's wait (over max_wait_s: give up), not
 * "retry now" as a number parser reads it. Both forms, and garbage.
 */
Test(post_client, retry_after_as_an_http_date_is_read_as_a_date)
{
    pg_gh_response r = {0};
    pg__gh_hints h;
    char date[64], block[160];
    time_t later = time(NULL) + 3600;
    struct tm tm;

    gmtime_r(&later, &tm);
    strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
    snprintf(block, sizeof(block), "HTTP/1.1 429 Too Many\r\nRetry-After: %s\r\n\r\n", date);
    pg__gh_read_headers(&r, &h, block, strlen(block));
    cr_assert(h.retry_after > 3500 && h.retry_after <= 3601, "Retry-After: %s read as %g s", date, h.retry_after);
    pg_gh_response_clear(&r);
    pg__gh_read_headers(&r, &h, "Retry-After: 17\r\n", 17);
    cr_assert_float_eq(h.retry_after, 17.0, 1e-9);
    pg_gh_response_clear(&r);
    pg__gh_read_headers(&r, &h, "Retry-After: soon\r\n", 19);
    cr_assert_lt(h.retry_after, 0, "an unreadable value is no hint: %g", h.retry_after);
    pg_gh_response_clear(&r);
}
