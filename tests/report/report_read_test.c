/*
 * report_read_test.c - a saved JSON report read back as `post --from` reads
 * it in the trusted job: one bounded pass, each verdict bound to its result
 * through an index (no scan per verdict), and a report past the item limit
 * refused as the walk reaches it rather than after reading all of it.
 */
#include "support.h"

#include "report/report.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *tmp;

static void setup(void)
{
    tmp = pg_test_tmpdir();
}

static void teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
}

TestSuite(report_read, .init = setup, .fini = teardown, .timeout = 120);

/* A report of `n` results and as many verdicts (each REGRESSED by 2^i ns of head median), written to `path`. */
static void write_report(const char *path, size_t n)
{
    FILE *f = fopen(path, "w");
    size_t i;

    cr_assert(f != NULL);
    fputs("{\"schema_version\": 1, \"run\": {\"suite_set\": \"s\", \"commit\": \"c0ffee\"}, "
          "\"summary\": {\"exit_code\": 1, \"outcome\": \"FAIL\"}, \"results\": [",
          f);
    for (i = 0; i < n; i++)
        fprintf(f, "%s{\"key\": \"s/k%zu@1:cpu\", \"suite\": \"s\", \"name\": \"k%zu\", \"status\": \"ok\", "
                   "\"summary\": {\"n\": 3, \"median\": %zu.5e-9}}",
                i ? "," : "", i, i, i);
    fputs("], \"verdicts\": [", f);
    /* Verdicts in the opposite order: each is bound by its key, never by its position. */
    for (i = n; i-- > 0;)
        fprintf(f, "%s{\"key\": \"s/k%zu@1:cpu\", \"verdict\": \"REGRESSED\", \"ratio\": 1.5, "
                   "\"head_median\": %zu.5e-9}",
                i == n - 1 ? "" : ",", i, i);
    fputs("]}\n", f);
    cr_assert_eq(fclose(f), 0);
}

/*
 * 100,001 results and verdicts: refused with one line (exit 2) once the walk
 * passes the limit. Read the old way (a scan of the results per verdict)
 * this took minutes; 400,000 results took 1,006 s at 4.7 GB.
 */
Test(report_read, a_report_past_the_item_limit_is_refused_as_it_is_read)
{
    char *path = pg__asprintf("%s/big.json", tmp);
    const char *argv[] = {"post", "--dry-run", "--from", path, NULL};
    pg_proc p;

    write_report(path, 100001);
    pg_test_run(&p, tmp, NULL, argv);
    cr_assert_eq(p.status, 2, "exit %d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, "more than 100000 results") != NULL, "%s", p.err);
    cr_assert_eq(strchr(p.err, '\n'), p.err + strlen(p.err) - 1, "one line: %s", p.err);
    pg_proc_free(&p);
    free(path);
}

/* 50,000 results and verdicts in reverse order: each verdict finds its own result. */
Test(report_read, every_verdict_of_a_large_report_finds_its_result)
{
    char *path = pg__asprintf("%s/large.json", tmp);
    pg_report_doc *doc = NULL;
    size_t i, n = 50000;

    write_report(path, n);
    pg_assert_ok(pg_report_doc_load(&doc, path));
    cr_assert_eq(doc->run->nresults, n);
    cr_assert_eq(doc->cmp->ncases, n);
    cr_assert_eq(doc->cmp->counts[PG_VERDICT_REGRESSED], n);
    for (i = 0; i < n; i++) {
        const pg_case_verdict *v = &doc->cmp->cases[i];
        cr_assert_not_null(v->head, "verdict %s has no result", v->key);
        cr_assert_str_eq(v->head->key, v->key);
    }
    pg_report_doc_free(doc);
    free(path);
}

/*
 * What changed and who accepted it come back from the report with the
 * verdict (read by the same walk), and a fork's report can put anything in
 * them: in the terminal, a what-changed line, a note, an acceptance and the
 * ACCEPTED reason carry no escape sequence and no line break of their own.
 */
Test(report_read, what_changed_and_acceptances_come_back_plain)
{
    static const char text[] =
        "{\"schema_version\": 1, \"run\": {\"suite_set\": \"s\"}, \"baseline\": {\"uuid\": \"b\", \"commit\": \"b0\"}, "
        "\"summary\": {\"exit_code\": 0, \"outcome\": \"ACCEPTED\", \"accepted_by\": \"@al\\u001b[2Jice\", "
        "\"outcome_reason\": \"1 regression accepted\\n\\u001b]8;;https://evil.example\\u0007by @alice\"}, "
        "\"results\": [{\"key\": \"s/k@1:cpu\", \"status\": \"ok\", \"summary\": {\"n\": 3, \"median\": 2e-9}}], "
        "\"verdicts\": [{\"key\": \"s/k@1:cpu\", \"verdict\": \"REGRESSED\", \"ratio\": 1.5, "
        "\"accepted\": {\"why\": \"accepted\\u001b[31m by label\", \"from\": \"label\"}, "
        "\"diagnosis\": {\"what_changed\": \"+10 % in `sw\\u001b[1meep`\\nFAKE: line\", \"note\": \"n\\u009bote\", "
        "\"source\": \"recounted\", \"functions\": {\"exclusive\": [{\"name\": \"sweep\", \"base\": 1, \"head\": 2}]}}}]}";
    pg_report_doc *doc = NULL;
    pg_buf out = PG_BUF_INIT;
    pg_report_options opts = PG_REPORT_OPTIONS_INIT;

    pg_assert_ok(pg_report_doc_parse(&doc, text, strlen(text), "forged.json"));
    cr_assert_eq(doc->cmp->outcome, PG_OUTCOME_ACCEPTED);
    cr_assert_str_eq(doc->cmp->accepted_by, "@al\033[2Jice");
    cr_assert_eq(doc->cmp->ncases, 1);
    cr_assert(doc->cmp->cases[0].accepted != NULL && doc->cmp->cases[0].accepted_from == PG_ACCEPT_LABEL);
    cr_assert(doc->cmp->cases[0].diag != NULL && doc->cmp->cases[0].diag->nself == 1);
    cr_assert_str_eq(doc->cmp->cases[0].diag->self[0].name, "sweep");
    {
        pg_report_data d = {doc->run, doc->cmp, &doc->origin};
        pg_assert_ok(pg_render_terminal(&out, &d, &opts));
    }
    pg_assert_ok(pg_render_title(&out, doc->cmp, NULL));
    cr_assert(strchr(out.ptr, '\033') == NULL && strstr(out.ptr, "\xc2\x9b") == NULL && strchr(out.ptr, '\a') == NULL,
              "%s", out.ptr);
    cr_assert(strstr(out.ptr, "what changed: +10 % in `sw?[1meep` FAKE: line (n?ote)") != NULL, "%s", out.ptr);
    cr_assert(strstr(out.ptr, "\nFAKE") == NULL, "%s", out.ptr);
    cr_assert(strstr(out.ptr, "accepted?[31m by label") != NULL, "%s", out.ptr);
    cr_assert(strstr(out.ptr, "perfgate: ACCEPTED — 1 regression accepted ?]8;;https://evil.example?by @alice") != NULL,
              "%s", out.ptr);
    pg__buf_clear(&out);
    pg_report_doc_free(doc);
}
