/* store_test.c - the SQLite store on real temporary files. */
#include "support.h"

#include "model.h"
#include "store/store.h"
#include "util.h"

#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *tmp;
static char *dbpath;

static void setup(void)
{
    tmp = pg_test_tmpdir();
    dbpath = pg__asprintf("%s/test.db", tmp);
}

static void teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
    free(dbpath);
}

TestSuite(store, .init = setup, .fini = teardown);

static pg_run *make_run(const char *branch, const char *commit, size_t ncases, size_t nsamples)
{
    pg_run *run;
    size_t i, j;

    pg_assert_ok(pg_run_new(&run));
    run->branch = pg__strdup(branch);
    run->commit = pg__strdup(commit);
    run->suite_set = pg__strdup("cpu");
    run->machine_hash = pg__strdup("abcdef0123456789");
    run->machine_json = pg__strdup("{\"cpu_model\":\"test\"}");
    run->started_at = 1700000000;
    run->finished_at = 1700000010;
    for (i = 0; i < ncases; i++) {
        pg_result *r;
        pg_assert_ok(pg_run_add_result(&r, run));
        r->key = pg__asprintf("cpu/k[n=%zu]@1:cpu", i);
        r->suite = pg__strdup("cpu");
        r->name = pg__strdup("k");
        r->params_json = pg__asprintf("{\"n\":%zu}", i);
        r->threads = 1;
        r->device = pg__strdup("cpu");
        r->metric = pg__strdup("time");
        r->unit = pg__strdup("s");
        r->samples = malloc(nsamples * sizeof(double));
        for (j = 0; j < nsamples; j++)
            r->samples[j] = 1e-3 * (double)(i + 1) + 1e-6 * (double)j;
        r->nsamples = nsamples;
        r->number_per_run = 7;
        r->summary.n = nsamples;
        r->summary.median = r->samples[nsamples / 2];
        r->flops = 1234.0;
        r->threshold = 0.05;
        r->alpha = 0.05;
    }
    return run;
}

Test(store, migrates_empty_file_to_latest_schema)
{
    pg_store *s;

    pg_assert_ok(pg_store_open(&s, dbpath));
    cr_assert_eq(pg_store_schema_version(s), pg_store_schema_latest());
    pg_store_close(s);
    /* Reopening an up-to-date database is a no-op. */
    pg_assert_ok(pg_store_open(&s, dbpath));
    cr_assert_eq(pg_store_schema_version(s), pg_store_schema_latest());
    pg_store_close(s);
}

Test(store, refuses_newer_schema)
{
    sqlite3 *db;
    pg_store *s = NULL;
    int err;

    cr_assert_eq(sqlite3_open(dbpath, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "PRAGMA user_version = 999", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    err = pg_store_open(&s, dbpath);
    cr_assert_eq(err, PG_ESCHEMA);
    cr_assert(strstr(pg_error_last(), "newer") != NULL, "%s", pg_error_last());
    cr_assert(strstr(pg_error_last(), dbpath) != NULL);
}

Test(store, rejects_a_file_that_is_not_a_database)
{
    pg_store *s = NULL;
    char *p = pg_test_write(tmp, "junk.db", "this is not sqlite, just some text that is long enough........");
    int err = pg_store_open(&s, p);

    cr_assert_eq(err, PG_ESTORE);
    cr_assert(strstr(pg_error_last(), p) != NULL, "%s", pg_error_last());
    free(p);
}

Test(store, unopenable_path_is_an_infrastructure_error)
{
    pg_store *s = NULL;
    int err = pg_store_open(&s, "/nonexistent-dir/sub/x.db");

    cr_assert_eq(err, PG_ESTORE);
    cr_assert_eq(pg_error_exit_code(err), 3);
}

Test(store, run_round_trips_with_samples_and_checks)
{
    pg_store *s;
    pg_run *run = make_run("main", "0123456789abcdef", 3, 50), *back = NULL;
    pg_check_result *c;
    size_t i;

    pg_assert_ok(pg_run_add_check(&c, run));
    c->suite = pg__strdup("fences");
    c->name = pg__strdup("flops");
    c->kind = pg__strdup("flops");
    c->expected = pg__strdup("1024");
    c->actual = pg__strdup("1024");
    c->passed = 1;
    pg_assert_ok(pg_store_open(&s, dbpath));
    pg_assert_ok(pg_store_save_run(s, run));
    cr_assert_gt(run->id, 0);
    pg_assert_ok(pg_store_load_run(&back, s, run->id));
    cr_assert_str_eq(back->uuid, run->uuid);
    cr_assert_str_eq(back->branch, "main");
    cr_assert_str_eq(back->commit, "0123456789abcdef");
    cr_assert_str_eq(back->machine_hash, "abcdef0123456789");
    cr_assert_eq(back->nresults, 3);
    for (i = 0; i < 3; i++) {
        cr_assert_str_eq(back->results[i].key, run->results[i].key);
        cr_assert_eq(back->results[i].nsamples, 50);
        cr_assert(memcmp(back->results[i].samples, run->results[i].samples, 50 * sizeof(double)) == 0);
        cr_assert_eq(back->results[i].number_per_run, 7);
        cr_assert_float_eq(back->results[i].flops, 1234.0, 1e-9);
        cr_assert_float_eq(back->results[i].threshold, 0.05, 1e-12);
    }
    cr_assert_eq(back->nchecks, 1);
    cr_assert_str_eq(back->checks[0].name, "flops");
    cr_assert_eq(back->checks[0].passed, 1);
    pg_run_free(back);
    pg_run_free(run);
    pg_store_close(s);
}

Test(store, saving_the_same_uuid_twice_is_idempotent)
{
    pg_store *s;
    pg_run *run = make_run("main", "aaaa", 1, 5);
    pg_run_list list;
    int64_t first;

    pg_assert_ok(pg_store_open(&s, dbpath));
    pg_assert_ok(pg_store_save_run(s, run));
    first = run->id;
    pg_assert_ok(pg_store_save_run(s, run));
    cr_assert_eq(run->id, first);
    pg_assert_ok(pg_store_list_runs(&list, s, NULL));
    cr_assert_eq(list.count, 1);
    pg_run_list_free(&list);
    pg_run_free(run);
    pg_store_close(s);
}

Test(store, lists_runs_newest_first_with_filters)
{
    pg_store *s;
    pg_run_list list;
    pg_run_filter f = {0};
    const char *branches[] = {"main", "feature", "main"};
    int i;

    pg_assert_ok(pg_store_open(&s, dbpath));
    for (i = 0; i < 3; i++) {
        pg_run *r = make_run(branches[i], i == 2 ? "cafebabe1" : "deadbeef0", 1, 3);
        pg_assert_ok(pg_store_save_run(s, r));
        pg_run_free(r);
    }
    f.branch = "main";
    pg_assert_ok(pg_store_list_runs(&list, s, &f));
    cr_assert_eq(list.count, 2);
    cr_assert_gt(list.items[0].id, list.items[1].id);
    cr_assert_eq(list.items[0].nresults, 1);
    pg_run_list_free(&list);
    memset(&f, 0, sizeof(f));
    f.commit = "cafe";
    pg_assert_ok(pg_store_list_runs(&list, s, &f));
    cr_assert_eq(list.count, 1);
    cr_assert_str_eq(list.items[0].commit, "cafebabe1");
    pg_run_list_free(&list);
    pg_store_close(s);
}

static void die_after_second_result(size_t index)
{
    if (index == 1)
        raise(SIGKILL);
}

static int count_rows(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int n = -1;

    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

static void assert_integrity_ok(const char *path)
{
    sqlite3 *db;
    sqlite3_stmt *st;

    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), "ok");
    sqlite3_finalize(st);
    sqlite3_close(db);
}

Test(store, run_killed_mid_write_leaves_no_partial_run)
{
    pg_store *s;
    pg_run *good = make_run("main", "1111", 2, 10);
    pid_t pid;
    int status;

    /* One complete run first: it must survive the crash untouched. */
    pg_assert_ok(pg_store_open(&s, dbpath));
    pg_assert_ok(pg_store_save_run(s, good));
    pg_store_close(s);

    pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        pg_store *cs;
        pg_run *r = make_run("main", "2222", 5, 10);
        if (pg_store_open(&cs, dbpath) != 0)
            _exit(3);
        pg__store_after_result_hook = die_after_second_result;
        pg_store_save_run(cs, r);
        _exit(0); /* not reached: the hook kills us inside the transaction */
    }
    waitpid(pid, &status, 0);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "child was not killed mid-write");

    assert_integrity_ok(dbpath);
    cr_assert_eq(count_rows(dbpath, "SELECT COUNT(*) FROM runs"), 1);
    cr_assert_eq(count_rows(dbpath, "SELECT COUNT(*) FROM results"), 2);
    cr_assert_eq(count_rows(dbpath, "SELECT COUNT(*) FROM runs WHERE commit_sha = '2222'"), 0);
    /* The store still opens and takes new runs. */
    pg_assert_ok(pg_store_open(&s, dbpath));
    pg_run_free(good);
    good = make_run("main", "3333", 1, 3);
    pg_assert_ok(pg_store_save_run(s, good));
    pg_store_close(s);
    pg_run_free(good);
}
