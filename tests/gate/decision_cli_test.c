/*
 * decision_cli_test.c - one decision everywhere, through the binary: two
 * gates of a small suite (exact reported times, so the verdicts do not
 * depend on the machine), then `report` in every format, `history`, `post`
 * of the stored run and `post --from` the gate's JSON against the fake
 * GitHub all show what the second gate decided and printed, byte for byte;
 * `compare` makes a comparison of its own and says so when it differs.
 * And a gate of one ERROR and one SAME case is no pass.
 */
#include "fakegh.h"
#include "support.h"

#include "base/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TOKEN "ghs_decision_token_0033"
#define HEAD_SHA "feedfacefeedfacefeedfacefeedfacefeedface"

static char *tmp, *db, *suite;

/* A case that reports the time its file holds: what the machine does decides nothing. */
static void set_time(const char *name, const char *seconds)
{
    char *file = pg__asprintf("%s.t", name);

    free(pg_test_write(tmp, file, seconds));
    free(file);
}

static void write_case(const char *name)
{
    char *script = pg__asprintf("#!/bin/sh\necho \"{\\\"time\\\": $(cat '%s/%s.t')}\"\n", tmp, name);
    char *file = pg__asprintf("%s.sh", name), *path = pg_test_write(tmp, file, script);

    cr_assert(chmod(path, 0755) == 0);
    free(path);
    free(file);
    free(script);
    set_time(name, "0.010");
}

static void setup(void)
{
    char *text;

    tmp = pg_test_tmpdir();
    db = pg__asprintf("%s/pg.db", tmp);
    write_case("a");
    write_case("b");
    text = pg__asprintf("suite: dec\n"
                        "defaults: {warmup: 1ms, min_samples: 8, min_run_time: 10ms}\n"
                        "benchmarks:\n"
                        "  - {name: a, command: ['%s/a.sh'], metrics: json}\n"
                        "  - {name: b, command: ['%s/b.sh'], metrics: json}\n",
                        tmp, tmp);
    suite = pg_test_write(tmp, "dec.yaml", text);
    free(text);
}

static void teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
    free(db);
    free(suite);
}

TestSuite(decision_cli, .init = setup, .fini = teardown, .timeout = 240);

static char *slurp(const char *name)
{
    char *path = pg__asprintf("%s/%s", tmp, name), *text = NULL;
    size_t len;

    pg_assert_ok(pg__read_file(&text, &len, path));
    free(path);
    return text;
}

/* Runs the binary in `tmp`, asserts its exit code, returns its stdout (caller frees). */
static char *run_ok(const char *const *env, const char *const *argv, int status)
{
    pg_proc p;
    char *out;

    pg_test_run(&p, tmp, env, argv);
    cr_assert_eq(p.status, status, "%s exited %d, not %d\n%s\n%s", argv[0], p.status, status, p.out, p.err);
    out = p.out;
    p.out = NULL;
    pg_proc_free(&p);
    return out;
}

/* The job's environment on a pull request, pointed at the fake GitHub. */
static char **pr_env(const fakegh *gh)
{
    char **e = calloc(10, sizeof(char *));
    char *ev = pg_test_write(tmp, "event.json",
                             "{\"pull_request\": {\"number\": 7, \"head\": {\"sha\": \"" HEAD_SHA "\", \"repo\": "
                             "{\"fork\": false}}, \"base\": {\"sha\": \"0000000000000000000000000000000000000000\", "
                             "\"ref\": \"main\"}}}");

    e[0] = pg__asprintf("GITHUB_TOKEN=%s", TOKEN);
    e[1] = pg__asprintf("GITHUB_API_URL=%s", fakegh_url(gh));
    e[2] = pg__strdup("GITHUB_REPOSITORY=acme/kernels");
    e[3] = pg__asprintf("GITHUB_EVENT_PATH=%s", ev);
    e[4] = pg__strdup("GITHUB_EVENT_NAME=pull_request");
    e[5] = pg__strdup("GITHUB_SERVER_URL=https://github.com");
    e[6] = pg__strdup("GITHUB_RUN_ID=4242");
    e[7] = pg__strdup("GITHUB_BASE_REF=main");
    free(ev);
    return e;
}

static void env_free(char **e)
{
    size_t i;

    for (i = 0; e[i]; i++)
        free(e[i]);
    free(e);
}

Test(decision_cli, report_history_and_post_show_the_decision_the_gate_printed)
{
    fakegh *gh = fakegh_start(TOKEN, "github-actions[bot]");
    char **env = pr_env(gh);
    const char *g1[] = {"gate", "--db", db, "--branch", "main", "--commit", "aaaa000000000000", suite, NULL};
    /* A 50% threshold: +20% of `a` is SAME to this gate, REGRESSED to a comparison at the suite's 5%. */
    const char *g2[] = {"gate",   "--db", db,       "--branch", "main",  "--commit", "bbbb000000000000",
                        "--threshold", "50%", "--md", "g.md", "--json", "g.json", suite, NULL};
    char *gmd, *gjson, *out, *body;
    cr_assert(gh != NULL);

    free(run_ok(NULL, g1, 4));
    set_time("a", "0.012");
    free(run_ok((const char *const *)env, g2, 0));
    gmd = slurp("g.md");
    gjson = slurp("g.json");
    cr_assert(strstr(gmd, "### perfgate: PASS") != NULL, "%s", gmd);
    cr_assert(strstr(gmd, "(PR #7, measured as merge commit `bbbb00000000`)") != NULL, "%s", gmd);

    /* report, outside the job: the same markdown and JSON, byte for byte. */
    {
        const char *md[] = {"report", "--db", db, "--format", "md", NULL};
        const char *js[] = {"report", "--db", db, "--format", "json", "2", NULL};
        const char *html[] = {"report", "--db", db, "--format", "html", "-o", "r.html", NULL};
        char *page;
        out = run_ok(NULL, md, 0);
        cr_assert_str_eq(out, gmd);
        free(out);
        out = run_ok(NULL, js, 0);
        cr_assert_str_eq(out, gjson);
        free(out);
        free(run_ok(NULL, html, 0));
        page = slurp("r.html");
        cr_assert(strstr(page, "perfgate: PASS<br>0 regressions, 0 improvements, 2 unchanged") != NULL, "%s", page);
        cr_assert(strstr(page, "baseline: run 1 (<code>aaaa00000000</code> on <code>main</code>)") != NULL, "%s",
                  page);
        free(page);
    }
    /* history: the gate's verdict at each commit it decided. */
    {
        const char *h[] = {"history", "--db", db, "dec/a*", NULL};
        out = run_ok(NULL, h, 0);
        cr_assert(strstr(out, "aaaa00000000") && strstr(out, "bbbb00000000"), "%s", out);
        cr_assert(strstr(out, "1  NEW\n") != NULL && strstr(out, "1  SAME\n") != NULL, "%s", out);
        free(out);
    }
    /* compare: a comparison of its own, at the suite's threshold, which says that it differs. */
    {
        const char *c[] = {"compare", "--db", db, NULL};
        const char *same[] = {"compare", "--db", db, "--threshold", "50%", NULL};
        const char *title = "perfgate compare: a fresh comparison, which differs from the decision the gate stored "
                            "for run 2 (PASS); 'perfgate report 2' shows that decision\n";
        out = run_ok(NULL, c, 1);
        cr_assert(strncmp(out, title, strlen(title)) == 0, "%s", out);
        cr_assert(strstr(out, "REGRESSED") != NULL, "%s", out);
        free(out);
        out = run_ok(NULL, same, 0);
        cr_assert(strstr(out, "differs") == NULL, "%s", out);
        free(out);
    }
    /* post, of the stored run and from the gate's JSON: the comment is the gate's markdown. */
    {
        const char *stored[] = {"post", "--db", db, "--no-status", NULL};
        const char *from[] = {"post", "--from", "g.json", NULL};
        char *want = pg__asprintf("<!-- perfgate:dec -->\n%s", gmd);
        free(run_ok((const char *const *)env, stored, 0));
        body = fakegh_comment_body(gh, 1001);
        cr_assert(body != NULL);
        cr_assert_str_eq(body, want);
        free(body);
        free(run_ok((const char *const *)env, from, 0));
        cr_assert_eq(fakegh_comment_count(gh, 7), 1, "one sticky comment");
        body = fakegh_comment_body(gh, 1001);
        cr_assert_str_eq(body, want);
        free(body);
        cr_assert_eq(fakegh_count(gh, "POST", "/repos/acme/kernels/statuses/" HEAD_SHA), 1);
        free(want);
    }
    free(gmd);
    free(gjson);
    env_free(env);
    fakegh_stop(gh);
}

Test(decision_cli, a_gate_with_an_error_and_a_same_case_is_no_pass)
{
    char *json = pg__asprintf("%s/e.json", tmp);
    const char *g1[] = {"gate", "--db", db, "--branch", "main", suite, NULL};
    const char *g2[] = {"gate", "--db", db, "--branch", "main", "--threshold", "20%", "--json", json, suite, NULL};
    const char *rep[] = {"report", "--db", db, "--format", "md", NULL};
    json_t *r;
    char *out;

    free(run_ok(NULL, g1, 4));
    /* `b` now fails: its script exits 1 before reporting anything. */
    free(pg_test_write(tmp, "b.sh", "#!/bin/sh\nexit 1\n"));
    out = run_ok(NULL, g2, 3);
    cr_assert(strstr(out, "perfgate: ERROR — 1 case could not be measured, so nothing vouches for it: dec/b[]@1:cpu") !=
                  NULL,
              "%s", out);
    free(out);
    r = json_load_file(json, 0, NULL);
    cr_assert(r != NULL);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "summary"), "outcome")), "ERROR");
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(r, "summary"), "exit_code")), 3);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(json_object_get(r, "summary"), "verdicts"), "SAME")),
                 1);
    json_decref(r);
    /* The stored decision says the same. */
    out = run_ok(NULL, rep, 0);
    cr_assert(strstr(out, "### perfgate: ERROR — 1 case could not be measured") != NULL, "%s", out);
    free(out);
    free(json);
}

Test(decision_cli, a_run_whose_every_case_crashes_exits_3)
{
    const char *run[] = {"run", "--db", db, "--branch", "main", suite, NULL};
    const char *strict[] = {"run", "--db", db, "--branch", "main", "--fail-on-error", suite, NULL};
    char *out, *path;

    /* One case crashes: the run is stored and exits 0, unless --fail-on-error (a baseline recording) says 3. */
    path = pg_test_write(tmp, "b.sh", "#!/bin/sh\nkill -SEGV $$\n");
    free(path);
    out = run_ok(NULL, run, 0);
    cr_assert(strstr(out, "every measured case") == NULL, "%s", out);
    free(out);
    {
        pg_proc p;
        pg_test_run(&p, tmp, NULL, strict);
        cr_assert_eq(p.status, 3, "%d\n%s\n%s", p.status, p.out, p.err);
        cr_assert(strstr(p.err, "1 of 2 cases ended in ERROR (--fail-on-error)") != NULL, "%s", p.err);
        pg_proc_free(&p);
    }
    /* Every case crashes: nothing was measured, and the run says so with exit 3. */
    free(pg_test_write(tmp, "a.sh", "#!/bin/sh\nkill -SEGV $$\n"));
    out = run_ok(NULL, run, 3);
    cr_assert(strstr(out, "perfgate: every measured case ended in ERROR (2 of 2); nothing was measured") != NULL, "%s",
              out);
    cr_assert(strstr(out, "signal") != NULL, "the cause is shown: %s", out);
    free(out);
}
