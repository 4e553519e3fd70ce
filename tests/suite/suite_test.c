/* suite_test.c - loading the shipped suites and matrix expansion. */
#include "support.h"

#include "suite.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

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
    pg_suite_set_free(&set);
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
    pg_diags_free(&d);
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
