/*
 * report_write_test.c - where reports land when writing goes wrong: a
 * failed write leaves no empty or cut file, the job summary never turns a
 * verdict into an error, and a nearly full one still gets the verdict.
 */
#include "support.h"

#include "fixture.h"
#include "report/report.h"
#include "base/util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmp;
static pg_test_model m;
static pg_report_data d;

static void setup(void)
{
    tmp = pg_test_tmpdir();
    pg_test_fixed_model(&m);
    d.run = m.head;
    d.cmp = m.cmp;
    d.origin = NULL;
}

static void teardown(void)
{
    pg_test_model_free(&m);
    pg_test_rmtree(tmp);
    free(tmp);
}

TestSuite(report_write, .init = setup, .fini = teardown);

static int emit(pg_reporter *r)
{
    pg_report_mux mux = {0};
    int err;

    pg_assert_ok(pg_report_mux_add(&mux, r));
    err = pg_report_mux_emit(&mux, &d);
    pg_report_mux_clear(&mux);
    return err;
}

/* A write that fails part-way (the file-size limit stands in for a full disk) leaves no file behind. */
Test(report_write, failed_write_leaves_no_file)
{
    char *path = pg__asprintf("%s/report.json", tmp), *keep = pg__asprintf("%s/old.json", tmp);
    struct rlimit rl = {64, 64};
    pg_reporter *r;
    struct stat st;

    signal(SIGXFSZ, SIG_IGN);
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    pg_assert_ok(pg_reporter_file(&r, "json", path));
    cr_assert_eq(emit(r), PG_EIO);
    cr_expect(strstr(pg_error_last(), "cannot write the json report"), "%s", pg_error_last());
    cr_expect_neq(stat(path, &st), 0, "a failed write left %s (%lld bytes)", path, (long long)st.st_size);
    /* An earlier report under the name stays whole. */
    free(pg_test_write(tmp, "old.json", "{\"earlier\": true}\n"));
    pg_assert_ok(pg_reporter_file(&r, "json", keep));
    cr_assert_eq(emit(r), PG_EIO);
    cr_expect_eq(stat(keep, &st), 0);
    cr_expect_eq(st.st_size, 18, "the earlier report was cut to %lld bytes", (long long)st.st_size);
    free(path);
    free(keep);
}

Test(report_write, unwritable_step_summary_is_a_warning)
{
    char *path = pg__asprintf("%s/no/such/dir/summary.md", tmp);
    pg_reporter *r;

    pg_assert_ok(pg_reporter_step_summary(&r, path));
    pg_assert_ok(emit(r));
    free(path);
}

/* 300 bytes left: not enough for the tables, enough for the verdict and its counts. */
Test(report_write, nearly_full_step_summary_gets_title_and_counts)
{
    char *path = pg__asprintf("%s/summary.md", tmp), *text = NULL;
    size_t len = 0, room = 300, i;
    FILE *f = fopen(path, "w");
    pg_reporter *r;

    cr_assert(f);
    for (i = 0; i < PG_STEP_SUMMARY_LIMIT - room; i++)
        fputc(i % 100 == 99 ? '\n' : 'x', f);
    fclose(f);
    pg_assert_ok(pg_reporter_step_summary(&r, path));
    pg_assert_ok(emit(r));
    pg_assert_ok(pg__read_file(&text, &len, path));
    cr_expect_leq(len, PG_STEP_SUMMARY_LIMIT);
    cr_expect_gt(len, PG_STEP_SUMMARY_LIMIT - room, "nothing was written");
    cr_expect(strstr(text + PG_STEP_SUMMARY_LIMIT - room, "### perfgate: FAIL"), "%s",
              text + PG_STEP_SUMMARY_LIMIT - room);
    cr_expect(strstr(text + PG_STEP_SUMMARY_LIMIT - room, "nearly full"), "%s", text + PG_STEP_SUMMARY_LIMIT - room);
    free(text);
    free(path);
}
