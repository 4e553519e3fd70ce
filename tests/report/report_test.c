/*
 * report_test.c - every format on a fixed, hand-built result model (every
 * verdict kind, a failed exact check), compared with committed snapshots;
 * number formatting; trimming to GitHub's limits; the JSON round trip.
 *
 * Every snapshot test also asserts the facts it exists for on its own, so a
 * regenerated snapshot cannot carry a wrong report through. Regenerate the
 * snapshots after an intended change with ci/update-snapshots.sh and review
 * the diff of tests/data/snapshots/.
 */
#include "fixture.h"
#include "support.h"

#include "base/fmt.h"
#include "report/report.h"
#include "base/util.h"
#include "verdict/verdict.h"
#include "stats/stats.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *render(const char *format, const pg_test_model *m, const pg_report_options *opts)
{
    pg_report_options dflt = PG_REPORT_OPTIONS_INIT;
    pg_report_origin og = {0};
    pg_report_data d = {m->head, m->cmp, &og};
    pg_buf b = PG_BUF_INIT;
    const pg_format *f = pg_format_find(format);

    og.repository = pg__strdup("acme/kernels");
    og.pr = 42;
    og.head_sha = pg__strdup("1234567890abcdef1234567890abcdef12345678");
    og.base_sha = pg__strdup("abcdefabcdefabcdefabcdefabcdefabcdefabcd");
    og.base_ref = pg__strdup("main");
    og.run_url = pg__strdup("https://github.com/acme/kernels/actions/runs/777");
    cr_assert(f != NULL, "no format %s", format);
    pg_assert_ok(f->render(&b, &d, opts ? opts : &dflt));
    pg_report_origin_clear(&og);
    return pg__buf_detach(&b);
}

Test(report_format, numbers_have_units_and_scaling)
{
    char s[64];

    pg_fmt_duration(s, sizeof(s), 812e-9);
    cr_assert_str_eq(s, "812 ns");
    pg_fmt_duration(s, sizeof(s), 1.27e-3);
    cr_assert_str_eq(s, "1.27 ms");
    pg_fmt_duration(s, sizeof(s), 2.0);
    cr_assert_str_eq(s, "2.00 s");
    pg_fmt_duration(s, sizeof(s), 12.345e-6);
    cr_assert_str_eq(s, "12.3 µs");
    /* Rounding up to 1000 moves to the next unit instead of printing "1e+03 µs". */
    pg_fmt_duration(s, sizeof(s), 0.0009996);
    cr_assert_str_eq(s, "1.00 ms");
    pg_fmt_duration(s, sizeof(s), 754.0);
    cr_assert_str_eq(s, "754 s");
    pg_fmt_duration(s, sizeof(s), NAN);
    cr_assert_str_eq(s, "-");
    pg_fmt_rate(s, sizeof(s), 12.3e9, "FLOP/s");
    cr_assert_str_eq(s, "12.3 GFLOP/s");
    pg_fmt_rate(s, sizeof(s), 8.1e9, "B/s");
    cr_assert_str_eq(s, "8.10 GB/s");
    pg_fmt_rate(s, sizeof(s), 999.7e6, "FLOP/s");
    cr_assert_str_eq(s, "1.00 GFLOP/s");
    pg_fmt_change(s, sizeof(s), 1.072);
    cr_assert_str_eq(s, "+7.2%");
    pg_fmt_change(s, sizeof(s), 0.9999);
    cr_assert_str_eq(s, "+0.0%");
    pg_fmt_change_ci(s, sizeof(s), 1.072, 1.051, 1.094);
    cr_assert_str_eq(s, "+7.2% [+5.1, +9.4]");
    pg_fmt_change_ci(s, sizeof(s), 0.85, 0.81, 0.89);
    cr_assert_str_eq(s, "-15.0% [-19.0, -11.0]");
    /* No interval to show: the change alone. */
    pg_fmt_change_ci(s, sizeof(s), 1.072, NAN, NAN);
    cr_assert_str_eq(s, "+7.2%");
    pg_fmt_p(s, sizeof(s), 0.01234);
    cr_assert_str_eq(s, "0.0123");
    pg_fmt_p(s, sizeof(s), 1e-7);
    cr_assert_str_eq(s, "<0.0001");
    cr_assert_eq(pg__utf8_width("12.3 µs"), 7);
}

/* pg_fmt_json_real is jansson's text of a real, by its own digits: checked against jansson on random doubles. */
Test(report_format, json_reals_are_what_jansson_writes)
{
    static const double special[] = {0.0, -0.0, 1.0, 10.0, 1e10, 9999999999.5, 0.5, 1e-5, 123456789012.0, 1e22,
                                     1e23, 5e-324, 1e300, 0.0001, 0.00001, 0.1, 1e-200, 1e200, 2.5e-7, 99999.99999};
    static const int precisions[] = {1, 4, 9, 10, 11, 15, 17};
    pg_rng g;
    size_t i, p, checked = 0;

    pg_stats_rng_seed(&g, 12);
    for (i = 0; i < 40000 + sizeof(special) / sizeof(special[0]); i++) {
        double v, u = (double)(pg_stats_rng_next(&g) >> 11) * 0x1p-53;
        uint64_t bits = pg_stats_rng_next(&g);
        switch (i % 4) {
        case 0: /* every magnitude */
            v = exp((u - 0.5) * 1400);
            break;
        case 1: /* any bit pattern that is a number */
            memcpy(&v, &bits, sizeof(v));
            break;
        case 2: /* short decimals: ties at the rounding digit */
            v = (double)(bits % 100000) / pow(10, (double)(bits >> 40 & 15));
            break;
        default: /* times as stored */
            v = 1e-5 * (double)(1 + bits % 97) * exp(0.03 * (u - 0.5));
            break;
        }
        if (i >= 40000)
            v = special[i - 40000];
        if (!isfinite(v))
            continue;
        if (bits >> 63)
            v = -v;
        for (p = 0; p < sizeof(precisions) / sizeof(precisions[0]); p++) {
            char mine[64];
            json_t *j = json_real(v);
            char *ref = json_dumps(j, JSON_ENCODE_ANY | JSON_REAL_PRECISION(precisions[p]));
            size_t n = pg_fmt_json_real(mine, v, precisions[p]);
            cr_assert(strcmp(mine, ref) == 0 && n == strlen(ref), "%.17g at precision %d: %s, jansson writes %s", v,
                      precisions[p], mine, ref);
            free(ref);
            json_decref(j);
            checked++;
        }
    }
    cr_assert_gt(checked, 200000);
}

Test(report_snapshot, markdown)
{
    pg_test_model m;
    char *md;

    pg_test_fixed_model(&m);
    md = render("md", &m, NULL);
    pg_test_snapshot("snapshots/fixed.md", md);
    /* Regressions come before everything else, failed checks open, the rest collapsed. */
    cr_assert(strstr(md, "#### Regressions (1)") < strstr(md, "<details>"));
    cr_assert(strstr(md, "#### Failed exact checks (1)") != NULL);
    cr_assert(strstr(md, "+11.7% [+8.2, +15.3]") != NULL, "%s", md);
    cr_assert(strstr(md, "**1 regression, 1 improvement, 1 unchanged, 1 unsure, 1 new, 1 missing, 1 error, "
                         "1 skipped; exact checks: 2 passed, 1 failed**") != NULL,
              "%s", md);
    /* A check message is text, never HTML. */
    cr_assert(strstr(md, "<1 window>") == NULL && strstr(md, "&lt;1 window&gt;") != NULL);
    free(md);
    pg_test_model_free(&m);
}

Test(report_snapshot, json)
{
    pg_test_model m;
    char *json, *scrubbed;

    pg_test_fixed_model(&m);
    json = render("json", &m, NULL);
    scrubbed = pg_test_scrub_version(json);
    pg_test_snapshot("snapshots/fixed.json", scrubbed);
    {
        /* What a reader of the report relies on, from the fixture's hand-made verdicts. */
        json_t *root = json_loads(json, 0, NULL), *sum = json_object_get(root, "summary"), *reg = NULL, *it;
        size_t i;
        cr_assert(root != NULL);
        cr_assert_eq(json_integer_value(json_object_get(root, "schema_version")), 1);
        cr_assert_eq(json_integer_value(json_object_get(sum, "exit_code")), 1);
        cr_assert_str_eq(json_string_value(json_object_get(sum, "outcome")), "FAIL");
        cr_assert_eq(json_integer_value(json_object_get(json_object_get(sum, "verdicts"), "REGRESSED")), 1);
        cr_assert_eq(json_integer_value(json_object_get(sum, "checks_failed")), 1);
        json_array_foreach(json_object_get(root, "verdicts"), i, it)
            if (strcmp(json_string_value(json_object_get(it, "verdict")), "REGRESSED") == 0)
                reg = it;
        cr_assert(reg != NULL, "no REGRESSED verdict in the report");
        cr_assert_str_eq(json_string_value(json_object_get(reg, "key")), "cpu/sgemm[n=1024]@1:cpu");
        cr_assert_float_eq(json_real_value(json_object_get(reg, "ci_lo")), 1.082, 1e-12);
        cr_assert_float_eq(json_real_value(json_object_get(reg, "p_adj")), 0.0024, 1e-12);
        cr_assert_float_eq(json_real_value(json_object_get(reg, "ratio")), 0.045 / 0.0403, 1e-12);
        json_decref(root);
    }
    free(json);
    free(scrubbed);
    pg_test_model_free(&m);
}

Test(report_snapshot, junit)
{
    pg_test_model m;
    char *xml;

    pg_test_fixed_model(&m);
    xml = render("junit", &m, NULL);
    pg_test_snapshot("snapshots/fixed.junit.xml", xml);
    /* Skipped: one SKIPPED, one MISSING, and the undecided UNSURE and NEW cases (never shown as passing). */
    cr_assert(strstr(xml, "<testsuites name=\"perfgate\" tests=\"11\" failures=\"2\" errors=\"1\" skipped=\"5\"") !=
                  NULL,
              "%s", xml);
    cr_assert(strstr(xml, "<skipped message=\"UNSURE ") != NULL, "%s", xml);
    free(xml);
    pg_test_model_free(&m);
}

Test(report_snapshot, annotations)
{
    pg_test_model m;
    char *a;

    pg_test_fixed_model(&m);
    a = render("annotations", &m, NULL);
    pg_test_snapshot("snapshots/fixed.annotations.txt", a);
    /* One ::error per failing case and failed check, one ::warning per UNSURE and MISSING; '%' escaped. */
    cr_assert(strncmp(a, "::error title=perfgate REGRESSED::cpu/sgemm[n=1024]@1:cpu: +11.7%25 [+8.2, +15.3]",
                      strlen("::error title=perfgate REGRESSED::cpu/sgemm[n=1024]@1:cpu: +11.7%25 [+8.2, +15.3]")) == 0,
              "%s", a);
    cr_assert(strstr(a, "::error title=perfgate exact check failed::fences/mask_syncs") != NULL, "%s", a);
    cr_assert(strstr(a, "::error title=perfgate ERROR::cpu/plugin_fft@1:cpu") != NULL, "%s", a);
    cr_assert(strstr(a, "::warning title=perfgate UNSURE::cpu/mlp_step") != NULL, "%s", a);
    cr_assert(strstr(a, "::warning title=perfgate MISSING::cpu/old_kernel@1:cpu") != NULL, "%s", a);
    cr_assert(strstr(a, "IMPROVED") == NULL && strstr(a, "SAME") == NULL, "a pass is not annotated: %s", a);
    free(a);
    pg_test_model_free(&m);
}

Test(report_snapshot, terminal_plain_and_colour)
{
    pg_report_options o = PG_REPORT_OPTIONS_INIT;
    pg_test_model m;
    char *plain, *color;

    pg_test_fixed_model(&m);
    plain = render("terminal", &m, &o);
    o.color = 1;
    color = render("terminal", &m, &o);
    pg_test_snapshot("snapshots/fixed.terminal.txt", plain);
    pg_test_snapshot("snapshots/fixed.terminal-color.txt", color);
    cr_assert(strchr(plain, '\033') == NULL, "colour without asking");
    cr_assert(strstr(color, "\033[1;31mREGRESSED\033[0m") != NULL);
    free(plain);
    free(color);
    pg_test_model_free(&m);
}

Test(report_snapshot, markdown_trimmed_keeps_regressions_and_says_what_was_cut)
{
    pg_report_options o = PG_REPORT_OPTIONS_INIT;
    pg_test_model m;
    char *md;

    pg_test_fixed_model(&m);
    o.max_bytes = 2700; /* room for the regression row under the wider tables (resolves and why columns) */
    md = render("md", &m, &o);
    pg_test_snapshot("snapshots/fixed.trimmed.md", md);
    cr_assert(strlen(md) <= 2700, "%zu bytes", strlen(md));
    cr_assert(strstr(md, "cpu/sgemm[n=1024]@1:cpu") != NULL, "the regression was cut");
    cr_assert(strstr(md, "Trimmed to stay under 2700 bytes") != NULL, "%s", md);
    cr_assert(strstr(md, "https://github.com/acme/kernels/actions/runs/777") != NULL);
    free(md);
    pg_test_model_free(&m);
}

Test(report_annotations, at_most_ten_of_each_level_with_a_count_of_the_rest)
{
    pg_test_model m;
    char *a, *p;
    size_t errors = 0, warnings = 0, i;

    pg_test_big_model(&m, 20000); /* 20 regressions, one of which becomes UNSURE below */
    for (i = 0; i < 15; i++) {
        m.cmp->cases[i].verdict = PG_VERDICT_UNSURE;
        m.cmp->cases[i].reason = pg__strdup("100% sure it is 50%\nnot");
    }
    a = render("annotations", &m, NULL);
    for (p = a; (p = strstr(p, "::error ")) != NULL; p++)
        errors++;
    for (p = a; (p = strstr(p, "::warning ")) != NULL; p++)
        warnings++;
    cr_assert_eq(errors, 10, "%s", a);
    cr_assert_eq(warnings, 10, "%s", a);
    cr_assert(strstr(a, "::error title=perfgate::10 more errors not shown") != NULL, "%s", a);
    cr_assert(strstr(a, "::warning title=perfgate::6 more warnings not shown") != NULL, "%s", a);
    /* Data is escaped: % and newlines would end or corrupt the workflow command. */
    cr_assert(strstr(a, "100%25 sure it is 50%25%0Anot") != NULL, "%s", a);
    free(a);
    pg_test_model_free(&m);
}

Test(report_json, round_trip_is_lossless)
{
    pg_test_model m;
    pg_report_doc *doc = NULL;
    pg_report_data d;
    pg_buf again = PG_BUF_INIT, md2 = PG_BUF_INIT;
    pg_report_options o = PG_REPORT_OPTIONS_INIT;
    char *json, *md;

    pg_test_fixed_model(&m);
    json = render("json", &m, NULL);
    md = render("md", &m, NULL);
    pg_assert_ok(pg_report_doc_parse(&doc, json, strlen(json), "fixed.json"));
    d.run = doc->run;
    d.cmp = doc->cmp;
    d.origin = &doc->origin;
    pg_assert_ok(pg_render_json(&again, &d, &o));
    cr_assert_str_eq(again.ptr, json, "JSON -> model -> JSON changed the report");
    /* So `perfgate post --from` posts exactly what the gate would have posted. */
    pg_assert_ok(pg_render_markdown(&md2, &d, &o));
    cr_assert_str_eq(md2.ptr, md);
    pg__buf_clear(&again);
    pg__buf_clear(&md2);
    pg_report_doc_free(doc);
    free(json);
    free(md);
    pg_test_model_free(&m);
}

/* A paired case on two estimators carries both, which decided, its regime line and the rounds left out. */
Test(report_json, two_estimators_round_trip)
{
    pg_test_model m;
    pg_report_doc *doc = NULL;
    pg_report_data d;
    pg_buf again = PG_BUF_INIT;
    pg_report_options o = PG_REPORT_OPTIONS_INIT;
    pg_case_verdict *v;
    char *json;

    pg_test_fixed_model(&m);
    v = &m.cmp->cases[0];
    v->paired = 1;
    v->dual.on = 1;
    v->dual.by = PG_BY_LOW;
    v->dual.median = (pg_estimator_bounds){1.001, 0.975, 1.018, 0.975, 1.018};
    v->dual.low = (pg_estimator_bounds){1.112, 1.081, 1.141, 1.081, 1.141};
    v->regime = pg__strdup("the fastest tenth of each round +11.2% [+8.1, +14.1], the median block +0.1% [-2.5, +1.8]; "
                           "the samples of a process move between a fast and a slow regime");
    v->rounds.contended = 2;
    json = render("json", &m, NULL);
    cr_assert(strstr(json, "\"decided_by\": \"fastest_tenth\"") != NULL, "%s", json);
    cr_assert(strstr(json, "\"rounds_left_out\": 2") != NULL, "%s", json);
    pg_assert_ok(pg_report_doc_parse(&doc, json, strlen(json), "dual.json"));
    cr_assert(doc->cmp->cases[0].dual.on);
    cr_assert_eq(doc->cmp->cases[0].dual.by, PG_BY_LOW);
    cr_assert_str_eq(doc->cmp->cases[0].regime, v->regime);
    d.run = doc->run;
    d.cmp = doc->cmp;
    d.origin = &doc->origin;
    pg_assert_ok(pg_render_json(&again, &d, &o));
    cr_assert_str_eq(again.ptr, json, "JSON -> model -> JSON changed the report");
    pg__buf_clear(&again);
    pg_report_doc_free(doc);
    free(json);
    pg_test_model_free(&m);
}

Test(report_json, bad_input_names_file_line_and_column)
{
    pg_report_doc *doc = NULL;

    cr_assert_eq(pg_report_doc_parse(&doc, "{\n  \"schema_version\": 1,\n  oops\n}", 33, "r.json"), PG_EFORMAT);
    cr_assert(strncmp(pg_error_last(), "r.json:3:", 9) == 0, "%s", pg_error_last());
    cr_assert_eq(pg_report_doc_parse(&doc, "{\"schema_version\": 99}", 22, "new.json"), PG_EFORMAT);
    cr_assert(strstr(pg_error_last(), "schema_version 99") != NULL, "%s", pg_error_last());
    cr_assert_eq(pg_report_doc_parse(&doc, "[1,2]", 5, "a.json"), PG_EFORMAT);
    cr_assert(doc == NULL);
}

static size_t file_size(const char *path)
{
    struct stat st;

    cr_assert(stat(path, &st) == 0, "no %s", path);
    return (size_t)st.st_size;
}

Test(report_step_summary, twenty_thousand_cases_stay_under_one_mib)
{
    char *tmp = pg_test_tmpdir();
    char *path = pg__asprintf("%s/summary.md", tmp);
    char *text = NULL;
    size_t len;
    pg_report_mux mux = {0};
    pg_reporter *r;
    pg_test_model m;
    pg_report_data d;

    pg_test_big_model(&m, 20000);
    d.run = m.head;
    d.cmp = m.cmp;
    d.origin = NULL;
    /* An earlier step already wrote 300 kB to the summary: the room left is what counts. */
    {
        FILE *f = fopen(path, "w");
        size_t i;
        for (i = 0; i < 3000; i++)
            fprintf(f, "%099d\n", 0);
        fclose(f);
    }
    pg_assert_ok(pg_reporter_step_summary(&r, path));
    pg_assert_ok(pg_report_mux_add(&mux, r));
    pg_assert_ok(pg_report_mux_emit(&mux, &d));
    cr_assert(file_size(path) < PG_STEP_SUMMARY_LIMIT, "%zu bytes", file_size(path));
    cr_assert(file_size(path) > 900000, "trimmed far more than needed: %zu bytes", file_size(path));
    pg_assert_ok(pg__read_file(&text, &len, path));
    cr_assert(strncmp(text, "000", 3) == 0, "the earlier content was lost");
    cr_assert(strstr(text, "### perfgate: FAIL (20 regressions)") != NULL);
    cr_assert(strstr(text, "#### Regressions (20)") != NULL);
    cr_assert(strstr(text, "generated/a_rather_long_benchmark_name_for_width[n=19007,mode=train]@1:cpu") != NULL,
              "a regression was cut");
    cr_assert(strstr(text, "rows are not shown") != NULL && strstr(text, "actions/runs/778") != NULL);
    free(text);
    pg_report_mux_clear(&mux);
    pg_test_model_free(&m);
    pg_test_rmtree(tmp);
    free(tmp);
    free(path);
}

Test(report_markdown, twenty_thousand_cases_fit_a_pr_comment)
{
    pg_report_options o = PG_REPORT_OPTIONS_INIT;
    pg_test_model m;
    char *md;

    pg_test_big_model(&m, 20000);
    o.max_bytes = 65536;
    o.marker = "<!-- perfgate:generated -->";
    md = render("md", &m, &o);
    cr_assert(strlen(md) <= 65536, "%zu bytes", strlen(md));
    cr_assert(strncmp(md, "<!-- perfgate:generated -->\n", 28) == 0);
    cr_assert(strstr(md, "#### Regressions (20)") != NULL);
    {
        /* The note says how many rows were cut, and that is exactly the rows missing from the tables. */
        const char *note = strstr(md, "> Trimmed to stay under 65536 bytes: "), *line;
        size_t cut = 0, all = 0, shown = 0;
        cr_assert(note != NULL, "no trimming note");
        cr_assert_eq(sscanf(note, "> Trimmed to stay under 65536 bytes: %zu of %zu rows are not shown.", &cut, &all), 2);
        for (line = md; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
            shown += strncmp(line, "| `generated/", 13) == 0;
        cr_assert_eq(all, 20000);
        cr_assert_gt(cut, 0);
        cr_assert_geq(shown, 20, "every regression is shown");
        cr_assert_eq(cut + shown, all, "%zu cut + %zu shown", cut, shown);
    }
    free(md);
    pg_test_model_free(&m);
}

Test(report_mux, one_model_feeds_every_reporter)
{
    char *tmp = pg_test_tmpdir();
    const char *fmts[] = {"md", "json", "junit", "annotations", "terminal"};
    pg_report_mux mux = {0};
    pg_test_model m;
    pg_report_data d;
    size_t i;

    pg_test_fixed_model(&m);
    d.run = m.head;
    d.cmp = m.cmp;
    d.origin = NULL;
    for (i = 0; i < 5; i++) {
        pg_reporter *r;
        char *p = pg__asprintf("%s/out.%s", tmp, fmts[i]);
        pg_assert_ok(pg_reporter_file(&r, fmts[i], p));
        pg_assert_ok(pg_report_mux_add(&mux, r));
        free(p);
    }
    cr_assert(!pg_report_mux_uses_stdout(&mux));
    pg_assert_ok(pg_report_mux_emit(&mux, &d));
    for (i = 0; i < 5; i++) {
        char *p = pg__asprintf("%s/out.%s", tmp, fmts[i]);
        cr_assert(file_size(p) > 100, "%s is empty", p);
        free(p);
    }
    {
        pg_reporter *none = NULL;
        cr_assert_eq(pg_reporter_file(&none, "html5", "-"), PG_EUSAGE);
        cr_assert(none == NULL);
    }
    pg_report_mux_clear(&mux);
    pg_test_model_free(&m);
    pg_test_rmtree(tmp);
    free(tmp);
}

/* A head run of 12 GPU cases skipped for one reason and 2 CPU cases that ran, compared with no baseline. */
static void skipped_gpu_model(pg_run **run, pg_comparison **cmp)
{
    static const char reason[] = "no usable CUDA device: CUDA driver version is insufficient for CUDA runtime version";
    pg_result *r;
    size_t i;

    pg_assert_ok(pg_run_new(run));
    (*run)->commit = pg__strdup("feedfacefeedfacefeedfacefeedfacefeedface");
    for (i = 0; i < 14; i++) {
        pg_assert_ok(pg_run_add_result(&r, *run));
        r->suite = pg__strdup("gpu");
        r->name = pg__asprintf("k%zu", i);
        r->key = pg__asprintf("gpu/k%zu[]@1:%s", i, i < 12 ? "cuda" : "cpu");
        r->status = i < 12 ? PG_STATUS_SKIPPED : PG_STATUS_OK;
        r->message = i < 12 ? pg__strdup(reason) : NULL;
        r->mfu = -1;
        if (i >= 12) {
            r->samples = calloc(3, sizeof(double));
            r->samples[0] = r->samples[1] = r->samples[2] = 1e-3;
            r->nsamples = 3;
            pg_assert_ok(pg_stats_summarize(&r->summary, r->samples, 3));
        }
    }
    pg_assert_ok(pg_compare(cmp, *run, NULL, 0, NULL));
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;

    for (; (hay = strstr(hay, needle)) != NULL; hay++)
        n++;
    return n;
}

Test(report_rough_edges, one_reason_for_many_skipped_rows_is_said_once)
{
    pg_report_options o = PG_REPORT_OPTIONS_INIT;
    pg_report_data d = {NULL, NULL, NULL};
    pg_comparison *cmp = NULL;
    pg_run *run = NULL;
    pg_buf md = PG_BUF_INIT, term = PG_BUF_INIT;

    skipped_gpu_model(&run, &cmp);
    d.run = run;
    d.cmp = cmp;
    pg_assert_ok(pg_format_find("md")->render(&md, &d, &o));
    cr_assert_eq(count_of(md.ptr, "CUDA driver version is insufficient"), 1, "%s", md.ptr);
    cr_assert_eq(count_of(md.ptr, "SKIPPED | - | - | (same as above)"), 11, "%s", md.ptr);
    pg_assert_ok(pg_format_find("terminal")->render(&term, &d, &o));
    cr_assert_eq(count_of(term.ptr, "CUDA driver version is insufficient"), 1, "%s", term.ptr);
    cr_assert_eq(count_of(term.ptr, "skipped (same as above)"), 11, "%s", term.ptr);
    pg__buf_clear(&md);
    pg__buf_clear(&term);
    pg_comparison_free(cmp);
    pg_run_free(run);
}

Test(report_rough_edges, markdown_names_the_pr_head_not_the_merge_commit)
{
    pg_report_options o = PG_REPORT_OPTIONS_INIT;
    pg_report_origin og = {0};
    pg_report_data d = {NULL, NULL, &og};
    pg_comparison *cmp = NULL;
    pg_run *run = NULL;
    pg_buf md = PG_BUF_INIT;

    skipped_gpu_model(&run, &cmp);
    d.run = run;
    d.cmp = cmp;
    og.pr = 7;
    og.head_sha = pg__strdup("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00");
    pg_assert_ok(pg_format_find("md")->render(&md, &d, &o));
    cr_assert(strstr(md.ptr, "Head `c0ffee00c0ff` (PR #7, measured as merge commit `feedfacefeed`)") != NULL, "%s",
              md.ptr);
    pg__buf_clear(&md);
    pg_report_origin_clear(&og);
    pg_comparison_free(cmp);
    pg_run_free(run);
}

Test(report_rough_edges, the_regressions_table_says_why)
{
    pg_test_model m;
    char *md;

    pg_test_fixed_model(&m);
    md = render("md", &m, NULL);
    cr_assert(strstr(md, "| case | base | head | change [interval] | p (adj.) | resolves | why |") != NULL, "%s", md);
    cr_assert(strstr(md, "| 0.0024 | 2.1% | slower beyond 5% (Holm p=0.0024 over 4 cases) |") != NULL, "%s", md);
    free(md);
    pg_test_model_free(&m);
}

/* An MFU above 100% says the ceiling was measured too low: flagged, never printed as a number. */
Test(report_rough_edges, mfu_above_100_percent_is_flagged_not_printed)
{
    pg_report_options o = PG_REPORT_OPTIONS_INIT;
    pg_report_data d = {NULL, NULL, NULL};
    pg_comparison *cmp = NULL;
    pg_run *run = NULL;
    pg_buf term = PG_BUF_INIT;

    skipped_gpu_model(&run, &cmp);
    run->results[12].mfu = 1.501;
    run->results[12].flops = 1e6;
    run->results[13].mfu = 0.742;
    run->results[13].flops = 1e6;
    d.run = run;
    d.cmp = cmp;
    pg_assert_ok(pg_format_find("terminal")->render(&term, &d, &o));
    cr_assert(strstr(term.ptr, "150.1%") == NULL, "%s", term.ptr);
    cr_assert(strstr(term.ptr, "1.00 GFLOP/s      ?  MFU unreliable") != NULL, "%s", term.ptr);
    cr_assert(strstr(term.ptr, "MFU unreliable (150% of a peak measured too low; set --peak-gflops)") != NULL, "%s",
              term.ptr);
    cr_assert(strstr(term.ptr, "74.2%") != NULL, "a plausible MFU is still shown: %s", term.ptr);
    pg__buf_clear(&term);
    pg_comparison_free(cmp);
    pg_run_free(run);
}
