/*
 * outcome_cli_test.c - `perfgate gate` as a process when it compares
 * nothing: exit 4 with the reason on the terminal, in the JSON report's
 * summary and as the markdown title; a baseline only from another machine
 * named; a pull request's search named by its base commit and branch; the
 * nightly comparing with its own previous night.
 */
#include "fixture.h"
#include "support.h"

#include "store/store.h"
#include "base/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char tiny_suite[] = "suite: tiny\n"
                                 "defaults: {threads: 1, min_run_time: 20ms, warmup: 1ms, min_samples: 3}\n"
                                 "benchmarks:\n"
                                 "  - {name: sgemm, kernel: sgemm, params: {n: 8}}\n";

/* No GitHub environment leaks in from a real CI job unless a test sets one. */
#define NO_GITHUB "GITHUB_STEP_SUMMARY=", "GITHUB_ACTIONS=", "GITHUB_EVENT_NAME=", "GITHUB_BASE_REF=", "CI="

static char *tmp, *suite, *db;

static void setup(void)
{
    tmp = pg_test_tmpdir();
    suite = pg_test_write(tmp, "tiny.yaml", tiny_suite);
    db = pg__asprintf("%s/pg.db", tmp);
}

static void teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
    free(suite);
    free(db);
}

TestSuite(outcome_cli, .init = setup, .fini = teardown, .timeout = 300);

/* Runs the binary and asserts its exit code, that stdout holds every one of `needles` and not `absent` (or NULL). */
static void gate_says(const char *const *env, const char *const *argv, int status, const char *const *needles,
                      const char *absent)
{
    pg_proc p;

    pg_test_run(&p, tmp, env, argv);
    cr_assert_eq(p.status, status, "%d\n%s\n%s", p.status, p.out, p.err);
    for (; *needles; needles++)
        cr_assert(strstr(p.out, *needles) != NULL, "wanted '%s' in:\n%s", *needles, p.out);
    cr_assert(!absent || strstr(p.out, absent) == NULL, "did not want '%s' in:\n%s", absent, p.out);
    pg_proc_free(&p);
}

static char *slurp(const char *path)
{
    char *text = NULL;
    size_t len;

    pg_assert_ok(pg__read_file(&text, &len, path));
    return text;
}

Test(outcome_cli, a_first_gate_exits_4_and_every_report_says_nothing_compared)
{
    char *json = pg__asprintf("%s/r.json", tmp), *md = pg__asprintf("%s/r.md", tmp), *text;
    const char *env[] = {"GITHUB_EVENT_PATH=", NO_GITHUB, NULL};
    const char *argv[] = {"gate", "--db", db, "--branch", "main", "--json", json, "--md", md, suite, NULL};
    json_t *root, *sum;

    gate_says(env, argv, 4,
              (const char *[]){"perfgate: nothing compared — no baseline yet: searched for the previous 5 runs of "
                               "branch 'main' on machine ",
                               NULL},
              "; pass");

    root = json_load_file(json, 0, NULL);
    cr_assert(root != NULL);
    sum = json_object_get(root, "summary");
    cr_assert_str_eq(json_string_value(json_object_get(sum, "outcome")), "NOTHING_COMPARED");
    cr_assert_eq(json_integer_value(json_object_get(sum, "exit_code")), 4);
    cr_assert(strstr(json_string_value(json_object_get(sum, "outcome_reason")), "no baseline yet") != NULL);
    json_decref(root);

    text = slurp(md);
    cr_assert(strstr(text, "### perfgate: nothing compared — no baseline yet: searched for the previous 5 runs") == text,
              "%s", text);
    cr_assert(strstr(text, "PASS") == NULL, "%s", text);
    free(text);
    free(json);
    free(md);
}

Test(outcome_cli, a_baseline_only_from_another_machine_exits_4_and_names_it)
{
    const char *env[] = {"GITHUB_EVENT_PATH=", NO_GITHUB, NULL};
    const char *argv[] = {"gate", "--db", db, "--branch", "main", suite, NULL};
    pg_store *store;

    /* Three runs of main from a hosted runner with another CPU. */
    pg_assert_ok(pg_store_open(&store, db));
    pg_test_store_foreign_runs(store, 3, "main", "c0ffeec0ffeec0ffee", "AMD EPYC 7763 64-Core Processor");
    pg_store_close(store);

    gate_says(env, argv, 4,
              (const char *[]){"perfgate: nothing compared — no baseline on this machine: 3 runs of branch 'main' "
                               "from another machine (cpu 'AMD EPYC 7763 64-Core Processor', fingerprint "
                               "c0ffeec0ffee), not used because timings do not compare across machines",
                               "measure the base build here with --base-build, run on a dedicated runner, or pass "
                               "--allow-other-machine",
                               NULL},
              NULL);
}

Test(outcome_cli, a_pull_request_names_its_base_commit_and_branch_not_the_merge_ref)
{
    char *ev = pg_test_write(tmp, "event.json",
                             "{\"pull_request\": {\"number\": 7, \"base\": {\"sha\": "
                             "\"abcdefabcdefabcdefabcdefabcdefabcdefabcd\", \"ref\": \"main\"}},"
                             " \"repository\": {\"default_branch\": \"main\"}}");
    char *evvar = pg__asprintf("GITHUB_EVENT_PATH=%s", ev);
    const char *env[] = {NO_GITHUB, evvar, NULL};
    const char *argv[] = {"gate", "--db", db, "--branch", "7/merge", suite, NULL};

    gate_says(env, argv, 4,
              (const char *[]){"searched for the pull request's base commit abcdefabcdef, then the newest run of "
                               "branch 'main' on machine ",
                               NULL},
              "'7/merge'");
    free(ev);
    free(evvar);
}

Test(outcome_cli, the_second_nightly_compares_with_the_first)
{
    char *ev = pg_test_write(tmp, "event.json", "{\"schedule\": \"17 3 * * *\"}");
    char *evvar = pg__asprintf("GITHUB_EVENT_PATH=%s", ev);
    const char *push_env[] = {"GITHUB_EVENT_PATH=", NO_GITHUB, NULL};
    const char *env[] = {NO_GITHUB, evvar, "GITHUB_EVENT_NAME=schedule", NULL};
    const char *main_gate[] = {"gate", "--db", db, "--branch", "main", suite, NULL};
    const char *nightly[] = {"gate", "--db", db, "--branch", "nightly", suite, NULL};
    pg_proc p;

    pg_test_run(&p, tmp, push_env, main_gate);
    cr_assert_eq(p.status, 4, "%d %s", p.status, p.err);
    pg_proc_free(&p);
    /* The first night: main's run is not its baseline. */
    gate_says(env, nightly, 4, (const char *[]){"searched for the previous 5 runs of branch 'nightly'", NULL}, NULL);
    /* The second night compares with the first (run 2); whatever the verdicts on this machine's noise. */
    pg_test_run_judged(&p, tmp, env, nightly);
    cr_assert(strstr(p.out, "baseline: run 2 (nightly @") != NULL, "%s", p.out);
    pg_proc_free(&p);
    free(ev);
    free(evvar);
}
