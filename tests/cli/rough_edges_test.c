/* rough_edges_test.c - what a new user meets first: doctor's wording, machine-readable output of every command. */
#include "support.h"

#include "base/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

Test(rough_edges, doctor_says_unset_for_an_unset_variable)
{
    char *tmp = pg_test_tmpdir();
    const char *argv[] = {"doctor", NULL};
    const char *env[] = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS=3", NULL}; /* no '=': removed */
    pg_proc p;

    pg_test_run(&p, tmp, env, argv);
    cr_assert_eq(p.status, 0, "%s", p.err);
    cr_assert(strstr(p.out, "omp_num_threads_env      (unset)\n") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "openblas_num_threads_env 3\n") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "_env      (not readable)") == NULL, "%s", p.out);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(tmp);
}

static json_t *parse_out(const pg_proc *p)
{
    json_error_t jerr;
    json_t *root = json_loads(p->out, 0, &jerr);

    cr_assert_not_null(root, "stdout is not JSON (%s): %s", jerr.text, p->out);
    return root;
}

Test(rough_edges, validate_speaks_json_with_positioned_errors)
{
    char *tmp = pg_test_tmpdir();
    char *good = pg_test_write(tmp, "good.yaml", "suite: g\nbenchmarks:\n  - {name: a, kernel: sgemm, params: {n: [8, 16]}}\n");
    char *bad = pg_test_write(tmp, "bad.yaml", "suite: b\nbenchmarks:\n  - {name: a, kernel: sgemm, treads: 2}\n");
    const char *ok[] = {"validate", "--format", "json", good, NULL};
    const char *ko[] = {"validate", "--format", "json", bad, NULL};
    json_t *root, *e;
    pg_proc p;

    pg_test_run(&p, tmp, NULL, ok);
    cr_assert_eq(p.status, 0, "%s", p.err);
    root = parse_out(&p);
    cr_assert(json_is_true(json_object_get(root, "valid")));
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(json_object_get(root, "suites"), 0), "cases")), 2);
    json_decref(root);
    pg_proc_free(&p);

    pg_test_run(&p, tmp, NULL, ko);
    cr_assert_eq(p.status, 2, "%s", p.err);
    root = parse_out(&p);
    cr_assert(json_is_false(json_object_get(root, "valid")));
    e = json_array_get(json_object_get(root, "errors"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(e, "file")), bad);
    cr_assert_eq(json_integer_value(json_object_get(e, "line")), 3);
    cr_assert(strstr(json_string_value(json_object_get(e, "message")), "treads") != NULL, "%s", p.out);
    json_decref(root);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(tmp);
    free(good);
    free(bad);
}

Test(rough_edges, import_speaks_json_with_cases_and_notes)
{
    char *tmp = pg_test_tmpdir();
    char *db = pg__asprintf("%s/pg.db", tmp);
    char *file = pg_test_data("import/gbench_edge.json");
    const char *argv[] = {"import", "--format", "json", "--db", db, "--branch", "main", "--commit", "abc",
                          "google-benchmark", file, NULL};
    json_t *root;
    pg_proc p;

    pg_test_run(&p, tmp, NULL, argv);
    cr_assert_eq(p.status, 0, "%s", p.err);
    root = parse_out(&p);
    cr_assert_eq(json_integer_value(json_object_get(root, "run")), 1);
    cr_assert_eq(json_array_size(json_object_get(root, "cases")), 6);
    cr_assert_geq(json_array_size(json_object_get(root, "notes")), 2, "%s", p.out);
    cr_assert_str_eq(json_string_value(json_object_get(root, "format")), "google-benchmark");
    json_decref(root);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(tmp);
    free(db);
    free(file);
}

Test(rough_edges, list_json_includes_check_settings)
{
    char *tmp = pg_test_tmpdir();
    char *suite = pg_test_write(tmp, "c.yaml",
                                "suite: c\n"
                                "checks:\n"
                                "  - name: f\n"
                                "    kind: flops\n"
                                "    workload: {kernel: sgemm, m: 4, n: 8, k: 16}\n"
                                "    expect: {total: 2*m*n*k}\n"
                                "  - name: s\n"
                                "    kind: schedule\n"
                                "    workload: {kernel: sgemm, m: 8, n: 8, k: 8, range: step_body}\n"
                                "    schedule: {skip_first: 0, wait: 1, warmup: 1, active: 2, repeat: 1}\n"
                                "    steps: 6\n"
                                "    expect: {windows: 1}\n");
    const char *argv[] = {"list", "--format", "json", suite, NULL};
    json_t *root, *checks, *f, *s;
    pg_proc p;

    pg_test_run(&p, tmp, NULL, argv);
    cr_assert_eq(p.status, 0, "%s", p.err);
    root = parse_out(&p);
    checks = json_object_get(json_array_get(json_object_get(root, "suites"), 0), "checks");
    f = json_array_get(checks, 0);
    s = json_array_get(checks, 1);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(f, "workload"), "kernel")), "sgemm");
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(f, "workload"), "k")), 16);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(f, "expect"), "total")), "2*m*n*k");
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(s, "schedule"), "active")), 2);
    cr_assert_eq(json_integer_value(json_object_get(s, "steps")), 6);
    json_decref(root);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(tmp);
    free(suite);
}

/* doctor --sensitivity: its flags are checked, and a suite whose work runs elsewhere is said to be one. */
Test(rough_edges, doctor_sensitivity_checks_its_flags_and_what_it_can_inject)
{
    char *tmp = pg_test_tmpdir();
    char *cmds = pg_test_write(tmp, "cmds.yaml", "suite: c\nbenchmarks:\n  - {name: t, command: [/bin/true]}\n");
    const char *alone[] = {"doctor", "--change", "5", NULL};
    const char *too_big[] = {"doctor", "--sensitivity", cmds, "--change", "200", NULL};
    const char *commands[] = {"doctor", "--sensitivity", cmds, NULL};
    pg_proc p;

    pg_test_run(&p, tmp, NULL, alone);
    cr_expect_eq(p.status, 2, "%s", p.err);
    cr_expect(strstr(p.err, "go with --sensitivity SUITE") != NULL, "%s", p.err);
    pg_proc_free(&p);
    pg_test_run(&p, tmp, NULL, too_big);
    cr_expect_eq(p.status, 2, "%s", p.err);
    pg_proc_free(&p);
    pg_test_run(&p, tmp, NULL, commands);
    cr_expect_eq(p.status, 2, "%s", p.err);
    cr_expect(strstr(p.err, "can take an injected change") != NULL, "%s", p.err);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(tmp);
    free(cmds);
}

/*
 * A built-in kernel gated against itself with twice its own work on the head:
 * the table names the change as made exact (one more iteration in every one
 * counted) and the case; a doubling is never SAME, whatever the machine does
 * (caught, or UNSURE on a machine too busy to tell), and a command case of the
 * same suite is listed as one that cannot take the change.
 */
Test(rough_edges, doctor_sensitivity_gates_a_suite_against_itself_with_more_real_work, .timeout = 300)
{
    char *tmp = pg_test_tmpdir();
    char *suite = pg_test_write(tmp, "k.yaml",
                                "suite: k\n"
                                "defaults: {min_run_time: 80ms, warmup: 5ms}\n"
                                "benchmarks:\n"
                                "  - {name: sgemm, kernel: sgemm, params: {n: 64}}\n"
                                "  - {name: t, command: [/bin/true]}\n");
    const char *argv[] = {"doctor", "--sensitivity", suite, "--change", "100", "--rounds", "12", NULL};
    pg_proc p;

    pg_test_run(&p, tmp, NULL, argv);
    cr_expect(p.status == 0 || p.status == 1, "exit %d\n%s\n%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "+100.0% more of each case's own work (1 more iteration in every 1 counted)") != NULL,
              "%s", p.out);
    cr_expect(strstr(p.out, "k/sgemm[n=64]@1:cpu") != NULL, "%s", p.out);
    cr_expect(strstr(p.out, "MISSED") == NULL, "a doubling called SAME:\n%s", p.out);
    cr_expect(strstr(p.out, "not injected") != NULL, "%s", p.out);
    cr_expect(strstr(p.out, p.status == 0 ? "1 caught" : "0 caught") != NULL, "%s", p.out);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(tmp);
    free(suite);
}
