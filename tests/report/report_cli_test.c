/* report_cli_test.c - `perfgate gate` writing the job summary and exports; `perfgate report`. */
#include "support.h"

#include "base/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char tiny_suite[] = "suite: tiny\n"
                                 "defaults: {threads: 1, min_run_time: 20ms, warmup: 1ms, min_samples: 3}\n"
                                 "benchmarks:\n"
                                 "  - name: sgemm\n"
                                 "    kernel: sgemm\n"
                                 "    params: {n: [8, 16]}\n";

Test(report_cli, gate_appends_markdown_to_the_step_summary)
{
    char *tmp = pg_test_tmpdir();
    char *suite = pg_test_write(tmp, "tiny.yaml", tiny_suite);
    char *db = pg__asprintf("%s/pg.db", tmp);
    char *sum_env = pg__asprintf("GITHUB_STEP_SUMMARY=%s/summary.md", tmp);
    char *sum = pg__asprintf("%s/summary.md", tmp);
    const char *env[] = {sum_env, "GITHUB_ACTIONS=", "GITHUB_EVENT_PATH=", NULL};
    const char *argv[] = {"gate", "--db", db, "--branch", "main", suite, NULL};
    char *text = NULL;
    size_t len;
    pg_proc p;

    free(pg_test_write(tmp, "summary.md", "# an earlier step\n"));
    pg_test_run(&p, tmp, env, argv);
    cr_assert_eq(p.status, 4, "%d %s", p.status, p.err);
    pg_proc_free(&p);
    /* The second compares with run 1: whatever its verdicts on this machine, the exit code they owe. */
    pg_test_run_judged(&p, tmp, env, argv);
    pg_proc_free(&p);
    pg_assert_ok(pg__read_file(&text, &len, sum));
    cr_assert(strncmp(text, "# an earlier step\n", 18) == 0, "%s", text);
    /* First gate: no baseline; second: compared with run 1. */
    cr_assert(strstr(text, "### perfgate: nothing compared — no baseline yet") != NULL, "%s", text);
    cr_assert(strstr(text, "; no baseline run") != NULL, "%s", text);
    cr_assert(strstr(text, "(run 1)") != NULL, "%s", text);
    cr_assert(strstr(text, "`tiny/sgemm[n=16]@1:cpu`") != NULL, "%s", text);
    free(text);
    pg_test_rmtree(tmp);
    free(tmp);
    free(suite);
    free(db);
    free(sum_env);
    free(sum);
}

Test(report_cli, exports_to_stdout_move_the_table_to_stderr)
{
    char *tmp = pg_test_tmpdir();
    char *suite = pg_test_write(tmp, "tiny.yaml", tiny_suite);
    char *db = pg__asprintf("%s/pg.db", tmp);
    const char *env[] = {"GITHUB_STEP_SUMMARY=", "GITHUB_ACTIONS=", "GITHUB_EVENT_PATH=", NULL};
    const char *gate[] = {"gate", "--db", db, "--branch", "main", "--json", "-", suite, NULL};
    const char *bad_style[] = {"gate", "--db", db, "--style", "rainbow", suite, NULL};
    const char *rep_junit[] = {"report", "--db", db, "--format", "junit", "latest", NULL};
    const char *rep_bad[] = {"report", "--db", db, "--format", "pdf", NULL};
    json_t *root;
    pg_proc p;

    pg_test_run(&p, tmp, env, gate);
    cr_assert_eq(p.status, 4, "%d %s", p.status, p.err);
    root = json_loads(p.out, 0, NULL);
    cr_assert(root != NULL, "stdout is not only JSON: %s", p.out);
    cr_assert_eq(json_integer_value(json_object_get(root, "schema_version")), 1);
    cr_assert_eq(json_array_size(json_object_get(root, "results")), 2);
    cr_assert(json_array_size(json_object_get(json_array_get(json_object_get(root, "results"), 0), "samples")) >= 3);
    cr_assert(json_is_object(json_object_get(json_object_get(root, "machine"), "fingerprint")));
    json_decref(root);
    cr_assert(strstr(p.err, "stored run 1") != NULL, "%s", p.err);
    pg_proc_free(&p);

    pg_test_run(&p, tmp, env, bad_style);
    cr_assert_eq(p.status, 2);
    cr_assert(strstr(p.err, "rainbow") != NULL, "%s", p.err);
    pg_proc_free(&p);

    pg_test_run(&p, tmp, env, rep_junit);
    cr_assert_eq(p.status, 0, "%d %s", p.status, p.err);
    cr_assert(strstr(p.out, "<testcase classname=\"perfgate.tiny\" name=\"tiny/sgemm[n=8]@1:cpu\"") != NULL, "%s",
              p.out);
    pg_proc_free(&p);

    pg_test_run(&p, tmp, env, rep_bad);
    cr_assert_eq(p.status, 2);
    cr_assert(strstr(p.err, "pdf") != NULL, "%s", p.err);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(tmp);
    free(suite);
    free(db);
}
