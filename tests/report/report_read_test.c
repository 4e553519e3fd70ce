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
