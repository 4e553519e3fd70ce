/* first_week_test.c - what a new user meets in the first week: a database that opens in a fresh repository,
   help that lists every exit code a command can end with, and docs that say what the program does. */
#include "support.h"

#include "base/util.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *doc(const char *rel)
{
    char *path = pg__asprintf("%s/%s", PG_TEST_SOURCE_DIR, rel), *text = NULL;

    pg_assert_ok(pg__read_file(&text, NULL, path));
    free(path);
    return text;
}

Test(first_week, the_default_database_folder_is_made_and_another_missing_one_names_db)
{
    char *tmp = pg_test_tmpdir(), *db = pg__asprintf("%s/baselines/perfgate.db", tmp);
    const char *run[] = {"run", "--no-roofline", "s.yaml", NULL};
    const char *elsewhere[] = {"run", "--no-roofline", "--db", "nope/pg.db", "s.yaml", NULL};
    struct stat st;
    pg_proc p;

    free(pg_test_write(tmp, "s.yaml", "suite: s\ndefaults: {min_run_time: 20ms, warmup: 5ms, min_samples: 5}\n"
                                      "benchmarks:\n  - {name: add, kernel: add, params: {n: 1024}}\n"));
    /* A fresh repository has no baselines/: the first run makes it and stores there. */
    pg_test_run(&p, tmp, NULL, run);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "in baselines/perfgate.db") != NULL, "%s", p.out);
    cr_assert_eq(stat(db, &st), 0, "baselines/perfgate.db was made");
    pg_proc_free(&p);
    /* A folder the user named is theirs to make: the error says how to choose another, before measuring. */
    pg_test_run(&p, tmp, NULL, elsewhere);
    cr_assert_eq(p.status, 3, "%s", p.err);
    cr_assert(strstr(p.err, "nope/pg.db: cannot open database: the folder nope does not exist (create it, or choose "
                            "another file with --db PATH or PERFGATE_DB)") != NULL,
              "%s", p.err);
    cr_assert(strstr(p.err, "[1/1]") == NULL, "nothing was measured: %s", p.err);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(tmp);
    free(db);
}

Test(first_week, the_help_of_every_comparing_command_lists_exit_4)
{
    static const char *const comparing[] = {"gate", "compare", "ab"};
    const char *plain[] = {"run", "--help", NULL};
    size_t i;
    pg_proc p;

    for (i = 0; i < 3; i++) {
        const char *argv[] = {comparing[i], "--help", NULL};
        pg_test_run(&p, NULL, NULL, argv);
        cr_assert_eq(p.status, 0);
        cr_assert(strstr(p.out, "\nexit codes: 0 pass, 1 regression or failed exact check, 2 usage or invalid input,\n"
                                "3 infrastructure error (database, kernel or device), 4 nothing compared") != NULL,
                  "perfgate %s --help: %s", comparing[i], p.out);
        pg_proc_free(&p);
    }
    /* run compares nothing, so it never ends in 4. */
    pg_test_run(&p, NULL, NULL, plain);
    cr_assert(strstr(p.out, "4 nothing compared") == NULL, "%s", p.out);
    pg_proc_free(&p);
}

Test(first_week, reporting_md_documents_every_format_report_writes)
{
    const char *argv[] = {"report", "--help", NULL};
    char *reporting = doc("docs/reporting.md"), *list, *fmt, *save = NULL;
    const char *at;
    size_t n = 0;
    pg_proc p;

    pg_test_run(&p, NULL, NULL, argv);
    at = strstr(p.out, "--format FMT");
    cr_assert_not_null(at, "%s", p.out);
    at += strlen("--format FMT");
    at += strspn(at, " ");
    list = pg__asprintf("%.*s", (int)strcspn(at, "("), at);
    /* "md, json, junit, annotations, terminal or html " */
    for (fmt = strtok_r(list, ", ", &save); fmt; fmt = strtok_r(NULL, ", ", &save)) {
        char *want;
        if (strcmp(fmt, "or") == 0)
            continue;
        want = pg__asprintf("`perfgate report --format %s", fmt);
        cr_assert(strstr(reporting, want) != NULL, "docs/reporting.md's table has no row for %s", fmt);
        free(want);
        n++;
    }
    cr_assert_eq(n, 6, "%zu formats", n);
    cr_assert(strstr(reporting, "\n## HTML\n") != NULL, "the html page has its section");
    free(list);
    free(reporting);
    pg_proc_free(&p);
}

Test(first_week, checks_md_names_the_fences_the_suite_holds)
{
    char *checks = doc("docs/checks.md"), *fences = doc("suites/fences.yaml");
    const char *line = strstr(checks, "perfgate run suites/fences.yaml "), *n;
    size_t count = 0;

    cr_assert_not_null(line);
    line = strstr(line, "# the lesson's fences ");
    cr_assert_not_null(line, "%s", checks);
    /* Every fence number the line names is a fence of the suite. */
    for (n = line + strlen("# the lesson's fences "); *n && *n != '('; n++) {
        char want[16];
        if (*n < '1' || *n > '9')
            continue;
        snprintf(want, sizeof(want), "# Fence %c", *n);
        cr_assert(strstr(fences, want) != NULL, "suites/fences.yaml has no '%s'", want);
        count++;
    }
    cr_assert_eq(count, 3, "fences 1, 3 and 4");
    cr_assert(strstr(checks, "once masked_select lands") == NULL);
    free(checks);
    free(fences);
}
