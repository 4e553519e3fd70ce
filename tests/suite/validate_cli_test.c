/* validate_cli_test.c - `perfgate validate` and `perfgate list` run as processes. */
#include "support.h"

#include "suite/suite.h"
#include "base/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

Test(validate_cli, every_shipped_suite_validates)
{
    pg_proc p;
    const char *argv[] = {"validate", "suites", NULL};

    pg_test_run(&p, PG_TEST_SOURCE_DIR, NULL, argv);
    cr_assert_eq(p.status, 0, "status %d\nstdout: %s\nstderr: %s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "suites/cpu.yaml: ok") != NULL, "%s", p.out);
    cr_expect(strstr(p.out, "valid:") != NULL, "%s", p.out);
    cr_expect_str_eq(p.err, "");
    pg_proc_free(&p);
}

Test(validate_cli, list_prints_every_case_key_of_the_shipped_suites)
{
    const char *paths[] = {PG_TEST_SOURCE_DIR "/suites"};
    const char *argv[] = {"list", "suites", NULL};
    pg_suite_set set;
    pg_proc p;
    size_t i, j, n = 0;

    pg_assert_ok(pg_suite_set_load(&set, paths, 1, NULL, NULL));
    pg_test_run(&p, PG_TEST_SOURCE_DIR, NULL, argv);
    cr_assert_eq(p.status, 0, "stderr: %s", p.err);
    for (i = 0; i < set.count; i++) {
        for (j = 0; j < set.suites[i]->ncases; j++, n++) {
            char *line = pg__asprintf("case   %s\n", set.suites[i]->cases[j].key);
            cr_expect(strstr(p.out, line) != NULL, "missing %s", line);
            free(line);
        }
        for (j = 0; j < set.suites[i]->nchecks; j++, n++) {
            char *line = pg__asprintf("check  %s/%s (%s)\n", set.suites[i]->name, set.suites[i]->checks[j].name,
                                      set.suites[i]->checks[j].kind);
            cr_expect(strstr(p.out, line) != NULL, "missing %s", line);
            free(line);
        }
    }
    cr_assert_gt(n, 0);
    pg_proc_free(&p);
    pg_suite_set_clear(&set);
}

Test(validate_cli, list_json_holds_the_cases_with_typed_params)
{
    const char *argv[] = {"list", "--format", "json", PG_TEST_DATA_DIR "/suites/good/g09_values.yaml",
                          PG_TEST_DATA_DIR "/suites/good/g02_cartesian.yaml", NULL};
    json_error_t jerr;
    json_t *root, *suites, *cases, *c0, *params;
    pg_proc p;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "stderr: %s", p.err);
    root = json_loads(p.out, 0, &jerr);
    cr_assert(root, "not JSON: %s\n%s", jerr.text, p.out);
    cr_expect_eq(json_integer_value(json_object_get(root, "schema_version")), 1);
    suites = json_object_get(root, "suites");
    cr_assert_eq(json_array_size(suites), 2);
    /* Paths load in the order given. */
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(suites, 0), "suite")), "g09");
    cases = json_object_get(json_array_get(suites, 0), "cases");
    cr_assert_eq(json_array_size(cases), 2);
    c0 = json_array_get(cases, 0);
    cr_expect_str_eq(json_string_value(json_object_get(c0, "key")),
                     "g09/text[flag=true,label=128,mode=fast,n=7]@1:cpu");
    params = json_object_get(c0, "params");
    cr_expect(json_is_string(json_object_get(params, "label")), "a quoted \"128\" stays text");
    cr_expect(json_is_integer(json_object_get(params, "n")));
    cr_expect_eq(json_integer_value(json_object_get(params, "n")), 7);
    cases = json_object_get(json_array_get(suites, 1), "cases");
    cr_expect_eq(json_array_size(cases), 12);
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(cases, 1), "threads")), 2);
    json_decref(root);
    pg_proc_free(&p);
}

Test(validate_cli, a_broken_suite_prints_every_error_and_exits_2)
{
    const char *file = PG_TEST_DATA_DIR "/suites/bad/many_errors_in_one_file.yaml";
    const char *argv[] = {"validate", file, NULL};
    pg_proc p;
    char *expect;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 2, "status %d", p.status);
    expect = pg__asprintf("%s:3:17: min_run_time: '1 sec' is not a duration (write e.g. 250ms, 0.5s, 2m)\n"
                          "%s:8:27: unknown name 'kk' in '2*m*n*kk'; did you mean 'k'?\n"
                          "%s:11:13: unknown kernel 'sgem'; did you mean 'sgemm'?\n"
                          "%s:14:5: unknown key 'thread' in a benchmark; did you mean 'threads'?\n"
                          "%s:15:11: duplicate name 'c' (first at 5:11); names are unique in a suite\n"
                          "%s:17:24: parameter 'n' lists 2 twice (also at 17:21)\n"
                          "6 errors\n",
                          file, file, file, file, file, file);
    cr_expect_str_eq(p.err, expect);
    cr_expect_str_eq(p.out, "");
    free(expect);
    pg_proc_free(&p);
}

Test(validate_cli, a_directory_of_broken_suites_reports_all_of_them)
{
    const char *argv[] = {"validate", "tests/data/suites/bad", NULL};
    pg_proc p;

    pg_test_run(&p, PG_TEST_SOURCE_DIR, NULL, argv);
    cr_assert_eq(p.status, 2);
    /* One file from each end of the sorted folder, and the total. */
    cr_expect(strstr(p.err, "tests/data/suites/bad/bench_bad_device_dym.yaml:5:13: device must be 'cpu' or "
                            "'cuda', not 'gpu'; did you mean 'cuda'?\n") != NULL, "%s", p.err);
    cr_expect(strstr(p.err, "tests/data/suites/bad/zip_unknown_param_dym.yaml:6:15: zip names 'nn'") != NULL);
    cr_expect(strstr(p.err, "tests/data/suites/bad/bench_bad_device_dym.yaml") <
              strstr(p.err, "tests/data/suites/bad/zip_unknown_param_dym.yaml"), "files load in name order");
    pg_proc_free(&p);
}

Test(validate_cli, max_cases_sets_the_cap_and_the_message_gives_the_count)
{
    const char *file = PG_TEST_DATA_DIR "/suites/good/g02_cartesian.yaml";
    const char *argv[] = {"validate", "--max-cases", "5", file, NULL};
    const char *argv_ok[] = {"list", "--max-cases", "12", file, NULL};
    pg_proc p;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 2);
    cr_expect(strstr(p.err, ":6:5: benchmark 'gemm' expands to 12 cases (k:3 x n:2 x threads:2), over the cap "
                            "of 5 cases per suite\n") != NULL, "%s", p.err);
    pg_proc_free(&p);
    pg_test_run(&p, NULL, NULL, argv_ok);
    cr_expect_eq(p.status, 0, "%s", p.err);
    pg_proc_free(&p);
}

Test(validate_cli, missing_paths_and_empty_directories_exit_2)
{
    char *dir = pg_test_tmpdir();
    const char *argv[] = {"validate", "/no/such/suite.yaml", dir, NULL};
    pg_proc p;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 2);
    cr_expect(strstr(p.err, "/no/such/suite.yaml: no such suite file or directory\n") != NULL, "%s", p.err);
    cr_expect(strstr(p.err, ": no suite files (*.yaml, *.yml) in this directory\n") != NULL, "%s", p.err);
    cr_expect(strstr(p.err, "2 errors\n") != NULL, "%s", p.err);
    pg_proc_free(&p);
    pg_test_rmtree(dir);
    free(dir);
}

Test(validate_cli, two_files_with_one_suite_name_are_an_error)
{
    char *dir = pg_test_tmpdir();
    char *a = pg_test_write(dir, "a.yaml", "suite: same\nbenchmarks:\n  - {name: x, kernel: sgemm}\n");
    char *b = pg_test_write(dir, "b.yaml", "# another file\nsuite: same\nbenchmarks:\n  - {name: y, kernel: sgemm}\n");
    const char *argv[] = {"validate", dir, NULL};
    pg_proc p;
    char *expect;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 2);
    expect = pg__asprintf("%s:2:8: suite name 'same' is already used by %s\n", b, a);
    cr_expect(strstr(p.err, expect) != NULL, "%s", p.err);
    free(expect);
    pg_proc_free(&p);
    pg_test_rmtree(dir);
    free(a);
    free(b);
    free(dir);
}
