/*
 * compare_cli_test.c - `perfgate compare` and `perfgate baseline` as
 * processes on a real database: the table, --format json, exit codes,
 * machine refusal and pinned baselines.
 */
#include "support.h"

#include "stats/stats.h"
#include "store/store.h"
#include "base/util.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *tmp, *dbpath;
static pg_rng rng;
static const char *const *named; /* case keys for save() instead of t/cN@1:cpu, when set */

static void setup(void)
{
    tmp = pg_test_tmpdir();
    dbpath = pg__asprintf("%s/cmp.db", tmp);
    pg_stats_rng_seed(&rng, 99);
    named = NULL;
}

static void teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
    free(dbpath);
}

TestSuite(compare_cli, .init = setup, .fini = teardown);

static double gauss(void)
{
    double u1 = ((double)(pg_stats_rng_next(&rng) >> 11) + 0.5) * 0x1.0p-53;
    double u2 = ((double)(pg_stats_rng_next(&rng) >> 11) + 0.5) * 0x1.0p-53;

    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* Stores a run of cases "c0".."c{n-1}"; case `slow` (or -1) is `factor` times slower. */
static int64_t save(const char *machine, int ncases, int slow, double factor)
{
    pg_store *store;
    pg_run *run;
    int64_t id;
    int i;
    size_t j;

    pg_assert_ok(pg_store_open(&store, dbpath));
    pg_assert_ok(pg_run_new(&run));
    run->branch = pg__strdup("main");
    run->commit = pg__strdup("0123456789abcdef");
    run->suite_set = pg__strdup("t");
    run->machine_hash = pg__strdup(machine);
    run->machine_json = pg__strdup("{}");
    run->started_at = run->finished_at = pg__now_unix();
    for (i = 0; i < ncases; i++) {
        pg_result *r;
        double med = 1e-3 * (1 + i) * (i == slow ? factor : 1.0) * exp(0.002 * gauss());
        pg_assert_ok(pg_run_add_result(&r, run));
        r->key = named ? pg__strdup(named[i]) : pg__asprintf("t/c%d@1:cpu", i);
        r->suite = pg__strdup("t");
        r->name = pg__asprintf("c%d", i);
        r->params_json = pg__strdup("{}");
        r->device = pg__strdup("cpu");
        r->metric = pg__strdup("time");
        r->unit = pg__strdup("s");
        r->threads = 1;
        r->nsamples = 30;
        r->samples = malloc(30 * sizeof(double));
        for (j = 0; j < 30; j++)
            r->samples[j] = med * exp(0.01 * gauss());
        pg_assert_ok(pg_stats_summarize(&r->summary, r->samples, 30));
    }
    pg_assert_ok(pg_store_save_run(store, run));
    id = run->id;
    pg_run_free(run);
    pg_store_close(store);
    return id;
}

static pg_proc run_cli(const char *const *args)
{
    const char *argv[24];
    pg_proc p;
    int i = 0;

    for (; args[i]; i++)
        argv[i] = args[i];
    argv[i++] = "--db";
    argv[i++] = dbpath;
    argv[i] = NULL;
    pg_test_run(&p, tmp, NULL, argv);
    return p;
}

Test(compare_cli, table_shows_case_base_head_change_verdict_and_reason)
{
    pg_proc p;
    int i;

    for (i = 0; i < 5; i++)
        save("M", 4, -1, 1);
    save("M", 4, 2, 1.25);
    p = run_cli((const char *[]){"compare", "--base", "last:5", NULL});
    cr_assert_eq(p.status, 1, "status %d\n%s%s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "case") && strstr(p.out, "base") && strstr(p.out, "head"), "%s", p.out);
    cr_assert(strstr(p.out, "t/c2@1:cpu") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "REGRESSED") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "method: one-sided Mann-Whitney") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "1 regression,") != NULL, "%s", p.out);
    pg_proc_free(&p);
}

Test(compare_cli, json_has_every_field_per_case)
{
    pg_proc p;
    json_t *doc, *cases, *c;
    json_error_t jerr;
    size_t i;
    int found = 0;

    for (i = 0; i < 4; i++)
        save("M", 3, -1, 1);
    save("M", 3, 0, 0.7);
    p = run_cli((const char *[]){"compare", "--base", "last:4", "--format", "json", NULL});
    cr_assert_eq(p.status, 0, "an improvement passes: %d\n%s", p.status, p.err);
    doc = json_loads(p.out, 0, &jerr);
    cr_assert(doc != NULL, "not JSON: %s\n%s", jerr.text, p.out);
    cases = json_object_get(doc, "cases");
    cr_assert_eq(json_array_size(cases), 3);
    json_array_foreach(cases, i, c) {
        const char *fields[] = {"key", "verdict", "reason", "base_n", "head_n", "base_median", "head_median",
                                "ratio", "ci_lo", "ci_hi", "p", "p_adj", "threshold", "alpha", "resolution"};
        size_t f;
        for (f = 0; f < sizeof(fields) / sizeof(fields[0]); f++)
            cr_assert(json_object_get(c, fields[f]) != NULL, "case %zu lacks %s", i, fields[f]);
        cr_assert_eq(json_integer_value(json_object_get(c, "base_n")), 120);
        cr_assert_eq(json_integer_value(json_object_get(c, "head_n")), 30);
        if (strcmp(json_string_value(json_object_get(c, "key")), "t/c0@1:cpu") == 0) {
            found = 1;
            cr_assert_str_eq(json_string_value(json_object_get(c, "verdict")), "IMPROVED");
            cr_assert_lt(json_real_value(json_object_get(c, "ci_hi")), 1 / 1.05);
            cr_assert_lt(json_real_value(json_object_get(c, "p_adj")), 0.05);
        }
    }
    cr_assert(found);
    cr_assert_eq(json_array_size(json_object_get(doc, "base_runs")), 4);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(doc, "counts"), "IMPROVED")), 1);
    json_decref(doc);
    pg_proc_free(&p);
}

Test(compare_cli, json_is_byte_for_byte_what_jansson_writes)
{
    /* Keys to escape, UTF-8 to pass through, and two that are not UTF-8, which jansson leaves out. */
    static const char *const base_keys[] = {"plain/a@1:cpu", "quote\"back\\slash", "tab\there\nnew\x01line",
                                            "utf8/caf\xc3\xa9/\xe2\x86\x92", "bad/\xff\xfe", "overlong/\xc0\xaf",
                                            "surrogate/\xed\xa0\x80", "gone/base-only"};
    static const char *const head_keys[] = {"plain/a@1:cpu", "quote\"back\\slash", "tab\there\nnew\x01line",
                                            "utf8/caf\xc3\xa9/\xe2\x86\x92", "bad/\xff\xfe", "overlong/\xc0\xaf",
                                            "surrogate/\xed\xa0\x80", "new/head-only"};
    pg_proc p;
    json_t *doc, *c;
    json_error_t jerr;
    char *again;
    size_t i, keyless = 0;

    named = base_keys;
    for (i = 0; i < 3; i++)
        save("M", 8, -1, 1);
    named = head_keys;
    save("M", 8, 0, 1.3);
    p = run_cli((const char *[]){"compare", "--base", "last:3", "--format", "json", NULL});
    cr_assert_eq(p.status, 1, "a regression fails: %d\n%s", p.status, p.err);
    doc = json_loads(p.out, 0, &jerr);
    cr_assert(doc != NULL, "not JSON: %s\n%s", jerr.text, p.out);
    again = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    cr_assert(strlen(p.out) == strlen(again) + 1 && strncmp(p.out, again, strlen(again)) == 0 &&
                  p.out[strlen(again)] == '\n',
              "the document differs from jansson's text of it:\n%s\n---\n%s", p.out, again);
    cr_assert_eq(json_array_size(json_object_get(doc, "cases")), 9, "%s", p.out);
    json_array_foreach(json_object_get(doc, "cases"), i, c) {
        keyless += json_object_get(c, "key") == NULL;
        cr_assert(json_object_get(c, "verdict") != NULL);
    }
    cr_assert_eq(keyless, 3, "the cases whose keys are not UTF-8 have no key\n%s", p.out);
    cr_assert(strstr(p.out, "\"tab\\there\\nnew\\u0001line\"") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "\"utf8/caf\xc3\xa9/\xe2\x86\x92\"") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "\"base_median\": null") != NULL, "the new case has no base median\n%s", p.out);
    free(again);
    json_decref(doc);
    pg_proc_free(&p);
}

Test(compare_cli, unchanged_code_passes)
{
    pg_proc p;
    int i;

    for (i = 0; i < 6; i++)
        save("M", 6, -1, 1);
    p = run_cli((const char *[]){"compare", "--base", "last:5", NULL});
    cr_assert_eq(p.status, 0, "%s", p.out);
    cr_assert(strstr(p.out, "0 regressions,") != NULL, "%s", p.out);
    pg_proc_free(&p);
}

Test(compare_cli, other_machine_exits_2_unless_allowed)
{
    pg_proc p;

    save("OTHER", 2, -1, 1);
    save("M", 2, 1, 2.0);
    p = run_cli((const char *[]){"compare", "--base", "1", NULL});
    cr_assert_eq(p.status, 2, "%d %s", p.status, p.err);
    cr_assert(strstr(p.err, "another machine") && strstr(p.err, "--allow-other-machine"), "%s", p.err);
    pg_proc_free(&p);
    /*
     * Allowed, it compares: c1 is 2x slower on 30 samples of 1% noise, far
     * beyond 5% even with one run's drift allowance (x1.07), p tiny: REGRESSED,
     * exit 1 (c0 alone, unchanged, could not fail the run).
     */
    p = run_cli((const char *[]){"compare", "--base", "1", "--allow-other-machine", NULL});
    cr_assert_eq(p.status, 1, "%d\n%s\n%s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "t/c1@1:cpu") && strstr(p.out, "REGRESSED"), "%s", p.out);
    pg_proc_free(&p);
}

Test(compare_cli, bad_selector_and_format_exit_2)
{
    pg_proc p;

    save("M", 1, -1, 1);
    save("M", 1, -1, 1);
    p = run_cli((const char *[]){"compare", "--base", "last:zero", NULL});
    cr_assert_eq(p.status, 2);
    cr_assert(strstr(p.err, "last:zero") != NULL, "%s", p.err);
    pg_proc_free(&p);
    p = run_cli((const char *[]){"compare", "--base", "pin:nope", NULL});
    cr_assert_eq(p.status, 2);
    cr_assert(strstr(p.err, "nope") != NULL, "%s", p.err);
    pg_proc_free(&p);
    p = run_cli((const char *[]){"compare", "--format", "xml", NULL});
    cr_assert_eq(p.status, 2);
    pg_proc_free(&p);
}

Test(compare_cli, baseline_pin_list_unpin_and_compare_against_the_pin)
{
    pg_proc p;

    save("M", 2, -1, 1);
    save("M", 2, -1, 1);
    save("M", 2, 0, 1.5);
    p = run_cli((const char *[]){"baseline", "pin", "rel", "1", NULL});
    cr_assert_eq(p.status, 0, "%s", p.err);
    pg_proc_free(&p);
    p = run_cli((const char *[]){"baseline", "pin", "rel", "2", NULL});
    cr_assert_eq(p.status, 0, "%s", p.err);
    pg_proc_free(&p);
    p = run_cli((const char *[]){"baseline", "list", NULL});
    cr_assert_eq(p.status, 0);
    cr_assert(strstr(p.out, "rel") && strstr(p.out, "run 2") && strstr(p.out, "run 1"), "%s", p.out);
    pg_proc_free(&p);
    p = run_cli((const char *[]){"compare", "--base", "pin:rel", "--format", "json", NULL});
    cr_assert(strstr(p.out, "\"base_runs\": [\n    2,\n    1\n  ]") != NULL, "%s", p.out);
    pg_proc_free(&p);
    p = run_cli((const char *[]){"baseline", "unpin", "rel", NULL});
    cr_assert_eq(p.status, 0, "%s", p.err);
    cr_assert(strstr(p.out, "removed 2 pins") != NULL, "%s", p.out);
    pg_proc_free(&p);
    p = run_cli((const char *[]){"baseline", "unpin", "rel", NULL});
    cr_assert_eq(p.status, 2);
    pg_proc_free(&p);
    p = run_cli((const char *[]){"baseline", "frob", NULL});
    cr_assert_eq(p.status, 2);
    pg_proc_free(&p);
}
