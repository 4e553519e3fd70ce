/*
 * post_cli_test.c - `perfgate gate --post` and `perfgate post` as processes
 * against the fake GitHub: the sticky comment over two gates, 403 keeping the
 * exit code, posting from a saved JSON report, and the token appearing in no
 * output and no file.
 */
#include "fakegh.h"
#include "fixture.h"
#include "support.h"

#include "report/report.h"
#include "base/util.h"

#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TOKEN "ghs_CLITOKEN_must_not_leak_777"
#define HEAD_SHA "feedfacefeedfacefeedfacefeedfacefeedface"

static const char tiny_suite[] = "suite: tiny\n"
                                 "defaults: {threads: 1, min_run_time: 20ms, warmup: 1ms, min_samples: 3}\n"
                                 "benchmarks:\n"
                                 "  - name: sgemm\n"
                                 "    kernel: sgemm\n"
                                 "    params: {n: 16}\n";

typedef struct env_set {
    char *vars[16];
    int n;
} env_set;

static void env_add(env_set *e, char *kv)
{
    e->vars[e->n++] = kv;
    e->vars[e->n] = NULL;
}

static void env_free(env_set *e)
{
    int i;

    for (i = 0; i < e->n; i++)
        free(e->vars[i]);
}

/* The Actions environment of a pull_request job, pointed at the fake server. */
static void actions_env(env_set *e, const char *tmp, const fakegh *s, const char *token)
{
    char *ev = pg_test_write(tmp, "event.json",
                             "{\"pull_request\": {\"number\": 7, \"head\": {\"sha\": \"" HEAD_SHA "\", "
                             "\"repo\": {\"fork\": false}}, \"base\": {\"sha\": \"0000000000000000000000000000000000000000\", "
                             "\"ref\": \"main\"}}}");

    e->n = 0;
    env_add(e, pg__asprintf("GITHUB_TOKEN=%s", token));
    env_add(e, pg__asprintf("GITHUB_API_URL=%s", fakegh_url(s)));
    env_add(e, pg__asprintf("GITHUB_GRAPHQL_URL=%s/graphql", fakegh_url(s)));
    env_add(e, pg__asprintf("GITHUB_REPOSITORY=acme/kernels"));
    env_add(e, pg__asprintf("GITHUB_EVENT_PATH=%s", ev));
    env_add(e, pg__asprintf("GITHUB_STEP_SUMMARY=%s/summary.md", tmp));
    env_add(e, pg__asprintf("GITHUB_ACTIONS=true"));
    env_add(e, pg__asprintf("GITHUB_SERVER_URL=https://github.com"));
    env_add(e, pg__asprintf("GITHUB_RUN_ID=4242"));
    env_add(e, pg__asprintf("GITHUB_SHA=%s", "1111111111111111111111111111111111111111"));
    env_add(e, pg__asprintf("PERFGATE_DEBUG=1"));
    free(ev);
}

/* Does `needle` occur in any file under `dir` (recursively)? */
static int tree_contains(const char *dir, const char *needle, char **where)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int found = 0;

    if (!d)
        return 0;
    while (!found && (de = readdir(d)) != NULL) {
        char *p;
        struct stat st;
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        p = pg__asprintf("%s/%s", dir, de->d_name);
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            found = tree_contains(p, needle, where);
        } else {
            char *text = NULL;
            size_t len = 0, i, n = strlen(needle);
            if (pg__read_file(&text, &len, p) == 0)
                for (i = 0; i + n <= len && !found; i++)
                    found = memcmp(text + i, needle, n) == 0;
            free(text);
            if (found && where)
                *where = pg__strdup(p);
        }
        free(p);
    }
    closedir(d);
    return found;
}

Test(post_cli, gate_posts_one_sticky_comment_and_the_token_never_leaks)
{
    fakegh *s = fakegh_start(TOKEN, "github-actions[bot]");
    char *tmp = pg_test_tmpdir();
    char *suite = pg_test_write(tmp, "tiny.yaml", tiny_suite);
    char *db = pg__asprintf("%s/pg.db", tmp), *sum = pg__asprintf("%s/summary.md", tmp);
    char *json = pg__asprintf("%s/report.json", tmp), *junit = pg__asprintf("%s/junit.xml", tmp);
    char *md = pg__asprintf("%s/report.md", tmp), *where = NULL, *text = NULL;
    env_set e;
    pg_proc p1, p2;
    size_t len;
    const char *argv[] = {"gate", "--db", db, "--branch", "pr-7", "--post", "--json", json, "--junit", junit,
                          "--md", md, suite, NULL};
    const fakegh_request *r;
    size_t i, statuses = 0;

    cr_assert(s != NULL);
    /* As on Actions: GET /user is closed to the installation token. */
    fakegh_set_user_status(s, 403);
    actions_env(&e, tmp, s, TOKEN);
    pg_test_run(&p1, tmp, (const char *const *)e.vars, argv);
    cr_assert_eq(p1.status, 4, "first gate: nothing compared: %d\n%s\n%s", p1.status, p1.out, p1.err);
    cr_assert(strstr(p1.err, "created comment") != NULL, "%s", p1.err);
    pg_test_run(&p2, tmp, (const char *const *)e.vars, argv);
    /* Neither the base commit nor main was measured: the second gate compares nothing either. */
    cr_assert_eq(p2.status, 4, "second gate: %d\n%s", p2.status, p2.err);
    cr_assert(strstr(p2.err, "updated comment") != NULL, "%s", p2.err);
    cr_assert_eq(fakegh_comment_count(s, 7), 1, "the second gate did not update the sticky comment");

    /* The status goes on the PR head, not on GITHUB_SHA (the test merge commit). */
    for (i = 0; i < fakegh_request_count(s); i++) {
        r = fakegh_request_at(s, i);
        if (strcmp(r->method, "POST") == 0 && strstr(r->path, "/statuses/")) {
            statuses++;
            cr_assert_str_eq(r->path, "/repos/acme/kernels/statuses/" HEAD_SHA);
            cr_assert(strstr(r->body, "\"context\":\"perfgate/tiny\"") != NULL, "%s", r->body);
            /* Nothing compared is never a green check. */
            cr_assert(strstr(r->body, "\"state\":\"error\"") != NULL, "%s", r->body);
            cr_assert(strstr(r->body, "\"description\":\"nothing compared: no baseline yet") != NULL, "%s", r->body);
        }
        /* The server did get the token: the test would prove nothing otherwise. */
        if (strcmp(r->path, "/graphql") != 0 && !strstr(r->path, "/hooks/"))
            cr_assert_str_eq(r->auth, "Bearer " TOKEN);
    }
    cr_assert_eq(statuses, 2);

    /* The job summary holds both gates' markdown. */
    pg_assert_ok(pg__read_file(&text, &len, sum));
    cr_assert(strstr(text, "### perfgate: nothing compared — no baseline yet: searched for the pull request's base "
                           "commit 000000000000, then the newest run of branch 'main'") != NULL,
              "%s", text);
    cr_assert(strstr(text, "PASS") == NULL, "%s", text);
    cr_assert(strstr(text, "`tiny/sgemm[n=16]@1:cpu`") != NULL, "%s", text);
    cr_assert(len < 1024 * 1024);
    free(text);
    /* The annotations and the debug log ran (masked) ... */
    cr_assert(strstr(p1.err, "Authorization: Bearer ***") != NULL, "%s", p1.err);
    /* ... and the token is nowhere: not in output, not in any file written (db, reports, summary). */
    cr_assert(strstr(p1.out, TOKEN) == NULL && strstr(p1.err, TOKEN) == NULL);
    cr_assert(strstr(p2.out, TOKEN) == NULL && strstr(p2.err, TOKEN) == NULL);
    cr_assert(!tree_contains(tmp, TOKEN, &where), "the token leaked into %s", where);
    cr_assert(!tree_contains(tmp, "CLITOKEN", &where), "part of the token leaked into %s", where);

    pg_proc_free(&p1);
    pg_proc_free(&p2);
    env_free(&e);
    fakegh_stop(s);
    pg_test_rmtree(tmp);
    free(tmp);
    free(suite);
    free(db);
    free(sum);
    free(json);
    free(junit);
    free(md);
}

Test(post_cli, forbidden_is_a_warning_and_the_exit_code_is_unchanged)
{
    fakegh *s = fakegh_start(TOKEN, "github-actions[bot]");
    char *tmp = pg_test_tmpdir();
    char *suite = pg_test_write(tmp, "tiny.yaml", tiny_suite);
    char *db = pg__asprintf("%s/pg.db", tmp), *json = pg__asprintf("%s/report.json", tmp);
    env_set e;
    pg_proc p;
    const char *gate[] = {"gate", "--db", db, "--branch", "pr-7", "--post", "--json", json, suite, NULL};
    const char *post[] = {"post", "--from", json, NULL};

    /* A fork's read-only token: every write answers 403. */
    fakegh_fail_next(s, NULL, "/repos/", 403, NULL, NULL, 100);
    actions_env(&e, tmp, s, TOKEN);
    pg_test_run(&p, tmp, (const char *const *)e.vars, gate);
    cr_assert_eq(p.status, 4, "a 403 changed the gate's exit code: %d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, "warning") && strstr(p.err, "403"), "%s", p.err);
    cr_assert(strstr(p.out, "::warning title=perfgate the PR comment skipped::") != NULL, "%s", p.out);
    pg_proc_free(&p);
    pg_test_run(&p, tmp, (const char *const *)e.vars, post);
    cr_assert_eq(p.status, 0, "post: %d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, "warning") != NULL, "%s", p.err);
    pg_proc_free(&p);
    cr_assert_eq(fakegh_comment_count(s, 7), 0);
    env_free(&e);
    fakegh_stop(s);
    pg_test_rmtree(tmp);
    free(tmp);
    free(suite);
    free(db);
    free(json);
}

Test(post_cli, posts_a_saved_json_report_in_a_later_workflow)
{
    fakegh *s = fakegh_start(TOKEN, "github-actions[bot]");
    char *tmp = pg_test_tmpdir();
    char *json = pg__asprintf("%s/fixed.json", tmp);
    pg_test_model m;
    pg_report_origin og = {0};
    pg_report_data d;
    pg_buf b = PG_BUF_INIT;
    pg_report_options o = PG_REPORT_OPTIONS_INIT;
    env_set e;
    pg_proc p;
    char *body;
    const char *post[] = {"post", "--from", json, NULL};
    FILE *f;

    /* The untrusted pull_request job saved its report with the PR number and head SHA. */
    pg_test_fixed_model(&m);
    og.repository = pg__strdup("acme/kernels");
    og.pr = 42;
    og.head_sha = pg__strdup("1234567890abcdef1234567890abcdef12345678");
    og.run_url = pg__strdup("https://github.com/acme/kernels/actions/runs/777");
    d.run = m.head;
    d.cmp = m.cmp;
    d.origin = &og;
    pg_assert_ok(pg_render_json(&b, &d, &o));
    f = fopen(json, "w");
    fputs(b.ptr, f);
    fclose(f);

    /* The trusted workflow_run job has no pull_request event; the report supplies it. */
    e.n = 0;
    env_add(&e, pg__asprintf("GITHUB_TOKEN=%s", TOKEN));
    env_add(&e, pg__asprintf("GITHUB_API_URL=%s", fakegh_url(s)));
    env_add(&e, pg__asprintf("GITHUB_GRAPHQL_URL=%s/graphql", fakegh_url(s)));
    env_add(&e, pg__asprintf("GITHUB_REPOSITORY=acme/kernels"));
    env_add(&e, pg__asprintf("GITHUB_EVENT_PATH="));
    env_add(&e, pg__asprintf("GITHUB_ACTIONS="));
    pg_test_run(&p, tmp, (const char *const *)e.vars, post);
    cr_assert_eq(p.status, 0, "%d\n%s\n%s", p.status, p.out, p.err);
    cr_assert_eq(fakegh_comment_count(s, 42), 1);
    body = fakegh_comment_body(s, 1001);
    cr_assert(strncmp(body, "<!-- perfgate:cpu,fences -->\n### perfgate: FAIL", 46) == 0, "%s", body);
    cr_assert(strstr(body, "| `cpu/sgemm[n=1024]@1:cpu` | 40.3 ms | 45.0 ms | +11.7% [+8.2, +15.3] | 0.0024 |"),
              "%s", body);
    free(body);
    cr_assert_eq(fakegh_count(s, "POST", "/repos/acme/kernels/statuses/1234567890abcdef1234567890abcdef12345678"), 1);
    cr_assert(strstr(fakegh_request_at(s, fakegh_request_count(s) - 1)->body, "\"state\":\"failure\"") != NULL);
    pg_proc_free(&p);

    pg__buf_clear(&b);
    pg_report_origin_clear(&og);
    pg_test_model_free(&m);
    env_free(&e);
    fakegh_stop(s);
    pg_test_rmtree(tmp);
    free(tmp);
    free(json);
}
