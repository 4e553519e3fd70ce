/* suite_test.c - loading the shipped suites and matrix expansion. */
#include "support.h"

#include "suite/suite.h"
#include "suite/expect.h"
#include "suite/units.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

Test(suite, shipped_suites_load_and_expand)
{
    const char *paths[] = {PG_TEST_SOURCE_DIR "/suites"};
    pg_suite_set set;
    pg_diags d = {0};
    size_t i, total = 0;

    pg_assert_ok(pg_suite_set_load(&set, paths, 1, NULL, &d));
    cr_assert_eq(d.count, 0);
    cr_assert_gt(set.count, 0);
    for (i = 0; i < set.count; i++)
        total += set.suites[i]->ncases + set.suites[i]->nchecks;
    cr_assert_gt(total, 0);
    pg_suite_set_clear(&set);
}

Test(suite, cpu_suite_has_expected_cases)
{
    pg_suite *s;

    pg_assert_ok(pg_suite_load(&s, PG_TEST_SOURCE_DIR "/suites/cpu.yaml", NULL, NULL));
    cr_assert_str_eq(s->name, "cpu");
    cr_assert_geq(s->ncases, 2);
    cr_assert_str_eq(s->cases[0].key, "cpu/sgemm[n=128]@1:cpu");
    cr_assert_eq(s->cases[0].threads, 1);
    cr_assert_float_eq(s->cases[0].threshold, 0.05, 1e-12);
    cr_assert_eq(pg_case_param_int(&s->cases[0], "n", 0), 128);
    pg_suite_free(s);
}

Test(suite, lists_expand_to_the_cartesian_product)
{
    const char *y = "suite: s\n"
                    "benchmarks:\n"
                    "  - name: g\n"
                    "    kernel: sgemm\n"
                    "    params: {n: [64, 128], m: [8, 16, 32]}\n"
                    "    threads: [1, 2]\n";
    pg_suite *s;

    pg_assert_ok(pg_suite_load_buffer(&s, "mem.yaml", y, strlen(y), NULL, NULL));
    cr_assert_eq(s->ncases, 12);
    cr_assert_str_eq(s->cases[0].key, "s/g[m=8,n=64]@1:cpu");
    cr_assert_str_eq(s->cases[0].params_json, "{\"m\":8,\"n\":64}");
    pg_suite_free(s);
}

Test(suite, unknown_key_is_reported_with_position)
{
    const char *y = "suite: s\nbenchmarks:\n  - name: g\n    kernel: sgemm\n    thread: 2\n";
    pg_suite *s = NULL;
    pg_diags d = {0};
    int err = pg_suite_load_buffer(&s, "bad.yaml", y, strlen(y), NULL, &d);

    cr_assert_eq(err, PG_ESUITE);
    cr_assert_eq(d.count, 1);
    cr_assert(strncmp(d.lines[0], "bad.yaml:5:5: unknown key 'thread'", 34) == 0, "%s", d.lines[0]);
    pg_diags_clear(&d);
}

Test(suite, durations_and_percentages_parse)
{
    double v;

    pg_assert_ok(pg_parse_duration(&v, "250ms"));
    cr_assert_float_eq(v, 0.25, 1e-12);
    pg_assert_ok(pg_parse_duration(&v, "2m"));
    cr_assert_float_eq(v, 120, 1e-12);
    pg_assert_ok(pg_parse_percent(&v, "5%"));
    cr_assert_float_eq(v, 0.05, 1e-12);
    pg_assert_ok(pg_parse_size(&v, "64KiB"));
    cr_assert_float_eq(v, 65536, 1e-9);
    cr_assert_neq(pg_parse_duration(&v, "fast"), 0);
}

Test(suite, case_eval_evaluates_expect_values_over_workload_params)
{
    const char *y = "suite: s\n"
                    "checks:\n"
                    "  - name: lin\n"
                    "    kind: flops\n"
                    "    workload: {kernel: sgemm, m: 4, n: 16, k: 8}\n"
                    "    expect: {total: 2*m*n*k, per_op: {sgemm: \"2*m*n*k\"}}\n";
    const char *bad = "2*m*nn";
    pg_suite *s;
    pg_case c;
    int64_t v = 0;
    pg_node e;

    pg_assert_ok(pg_suite_load_buffer(&s, "mem.yaml", y, strlen(y), NULL, NULL));
    cr_assert_eq(s->nchecks, 1);
    pg_assert_ok(pg_case_from_workload(&c, s->checks[0].workload, s->name, s->checks[0].name));
    pg_assert_ok(pg_expect_eval(&v, &c, pg_node_get(s->checks[0].expect, "total")));
    cr_expect_eq(v, 2 * 4 * 16 * 8);
    pg_assert_ok(pg_expect_eval(&v, &c, pg_node_get(pg_node_get(s->checks[0].expect, "per_op"), "sgemm")));
    cr_expect_eq(v, 1024);
    /* A failing expression names file, line and the column of the bad name. */
    e = *pg_node_get(s->checks[0].expect, "total");
    e.scalar = (char *)bad;
    cr_assert_eq(pg_expect_eval(&v, &c, &e), PG_ESUITE);
    cr_expect_str_eq(pg_error_last(), "mem.yaml:6:25: unknown name 'nn' in '2*m*nn'; did you mean 'n'?");
    pg_case_clear(&c);
    pg_suite_free(s);
}

Test(suite, the_cap_is_an_option)
{
    const char *y = "suite: s\nbenchmarks:\n  - {name: g, kernel: sgemm, params: {n: [1, 2, 3]}, threads: [1, 2]}\n";
    pg_suite_options o = PG_SUITE_OPTIONS_INIT;
    pg_suite *s = NULL;
    pg_diags d = {0};

    cr_assert_eq(o.max_cases, 10000);
    o.max_cases = 6;
    pg_assert_ok(pg_suite_load_buffer(&s, "cap.yaml", y, strlen(y), &o, NULL));
    cr_expect_eq(s->ncases, 6);
    pg_suite_free(s);
    o.max_cases = 5;
    cr_assert_eq(pg_suite_load_buffer(&s, "cap.yaml", y, strlen(y), &o, &d), PG_ESUITE);
    cr_assert_eq(d.count, 1);
    cr_expect_str_eq(d.lines[0], "cap.yaml:3:5: benchmark 'g' expands to 6 cases (n:3 x threads:2), over the cap "
                                 "of 5 cases per suite");
    pg_diags_clear(&d);
}

Test(suite, x_keys_at_the_top_hold_anchors)
{
    const char *y = "suite: s\n"
                    "x-base: &base {kernel: sgemm, params: {n: 8}}\n"
                    "benchmarks:\n"
                    "  - {<<: *base, name: a}\n"
                    "  - {<<: *base, name: b, threads: 2}\n";
    pg_suite *s;

    pg_assert_ok(pg_suite_load_buffer(&s, "x.yaml", y, strlen(y), NULL, NULL));
    cr_assert_eq(s->ncases, 2);
    cr_expect_str_eq(s->cases[0].key, "s/a[n=8]@1:cpu");
    cr_expect_str_eq(s->cases[1].key, "s/b[n=8]@2:cpu");
    pg_suite_free(s);
}

Test(suite, sizes_and_units_parse)
{
    double v;

    pg_assert_ok(pg_parse_size(&v, "1GiB"));
    cr_expect_float_eq(v, 1073741824.0, 1e-3);
    pg_assert_ok(pg_parse_size(&v, "1TiB"));
    cr_expect_float_eq(v, 1099511627776.0, 1e-3);
    pg_assert_ok(pg_parse_size(&v, "10MB"));
    cr_expect_float_eq(v, 1e7, 1e-6);
    pg_assert_ok(pg_parse_duration(&v, "0.5s"));
    cr_expect_float_eq(v, 0.5, 1e-12);
    pg_assert_ok(pg_parse_duration(&v, "1h"));
    cr_expect_float_eq(v, 3600, 1e-9);
    pg_assert_ok(pg_parse_duration(&v, "20us"));
    cr_expect_float_eq(v, 2e-5, 1e-15);
    cr_expect_neq(pg_parse_duration(&v, "5 sec"), 0);
    cr_expect_neq(pg_parse_duration(&v, " 5s"), 0);
    cr_expect_neq(pg_parse_percent(&v, "5%%"), 0);
    cr_expect_neq(pg_parse_size(&v, "5XiB"), 0);
}

Test(suite, the_complete_example_in_the_docs_loads)
{
    char *doc = NULL, *start, *end, *dir = pg_test_tmpdir(), *tdir, *path, *trace;
    size_t len;
    pg_suite *s = NULL;
    pg_diags d = {0};

    pg_assert_ok(pg__read_file(&doc, &len, PG_TEST_SOURCE_DIR "/docs/suites.md"));
    start = strstr(doc, "```yaml\n");
    cr_assert(start, "docs/suites.md has no yaml block");
    start += 8;
    end = strstr(start, "```");
    cr_assert(end);
    *end = '\0';
    path = pg_test_write(dir, "example.yaml", start);
    tdir = pg__asprintf("%s/traces", dir);
    cr_assert_eq(mkdir(tdir, 0700), 0);
    trace = pg_test_write(tdir, "train_step.json", "{\"traceEvents\": []}\n");
    cr_assert_eq(pg_suite_load(&s, path, NULL, &d), 0, "%s", d.count ? d.lines[0] : "");
    cr_expect_eq(s->nchecks, 5);
    cr_expect_eq(s->ncases, 13);
    cr_expect_str_eq(s->cases[0].key, "example/sgemm[m=64,n=256]@1:cpu");
    pg_suite_free(s);
    pg_diags_clear(&d);
    pg_test_rmtree(dir);
    free(trace);
    free(tdir);
    free(path);
    free(dir);
    free(doc);
}

/*
 * A number given is never replaced by the kernel's default (which measured
 * another case under this one's key): past int64 it is the nearest end,
 * which a kernel refuses.
 */
Test(suite, param_int_never_falls_back_to_the_default_for_a_number_given)
{
    const char *y = "suite: s\nbenchmarks:\n"
                    "  - {name: g, command: [x], params: {huge: 3.4e70, tiny: -3.4e70, big: 9223372036854775807, "
                    "half: 2.5}}\n";
    pg_suite *s;

    pg_assert_ok(pg_suite_load_buffer(&s, "r.yaml", y, strlen(y), NULL, NULL));
    cr_expect_eq(pg_case_param_int(&s->cases[0], "huge", -1), INT64_MAX);
    cr_expect_eq(pg_case_param_int(&s->cases[0], "tiny", -1), INT64_MIN);
    cr_expect_eq(pg_case_param_int(&s->cases[0], "big", -1), INT64_MAX);
    cr_expect_eq(pg_case_param_int(&s->cases[0], "half", -1), 2);
    cr_expect_float_eq(pg_case_param_double(&s->cases[0], "huge", 0), 3.4e70, 1e56);
    pg_suite_free(s);
}
