/*
 * store_test.c - the store's suite, run on both engines: a real SQLite file
 * (suite `store`) and a real PostgreSQL server started for this binary
 * (suite `store_pg`, a fresh database per test).
 */
#include "engines.h"
#include "support.h"

#include "base/model.h"
#include "pgserver.h"
#include "store/select.h"
#include "store/store.h"
#include "base/util.h"

#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

char *tmp;
char *dbpath;
int on_server;

void store_setup(void)
{
    tmp = pg_test_tmpdir();
    dbpath = pg__asprintf("%s/test.db", tmp);
    on_server = 0;
}

void store_setup_server(void)
{
    tmp = pg_test_tmpdir();
    dbpath = pg_test_pg_database();
    on_server = 1;
}

void store_teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
    free(dbpath);
}

TestSuite(store, .init = store_setup, .fini = store_teardown);
TestSuite(store_pg, .init = store_setup_server, .fini = store_teardown);

#define ENGINE_TEST(name) ENGINE_TEST_IN(store, store_pg, name)

/* Runs and results stored, as the engine's own check counts them. */
static void counts(int64_t *runs, int64_t *results)
{
    pg_store *s;
    pg_check_report r;

    pg_assert_ok(pg_store_open(&s, dbpath));
    pg_assert_ok(pg_store_check(&r, s));
    cr_assert(r.ok, "%s", r.message);
    *runs = r.runs;
    *results = r.results;
    pg_store_close(s);
}

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

ENGINE_TEST(migrates_empty_file_to_latest_schema)
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

ENGINE_TEST(refuses_newer_schema)
{
    pg_store *s = NULL;
    int err;

    if (on_server) {
        pg_assert_ok(pg_store_open(&s, dbpath));
        pg_store_close(s);
        free(pg_test_pg_sql(dbpath, "UPDATE perfgate_schema SET version = 999"));
    } else {
        sqlite3 *db;
        cr_assert_eq(sqlite3_open(dbpath, &db), SQLITE_OK);
        cr_assert_eq(sqlite3_exec(db, "PRAGMA user_version = 999", NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(db);
    }
    err = pg_store_open(&s, dbpath);
    cr_assert_eq(err, PG_ESCHEMA);
    cr_assert_eq(pg_error_exit_code(err), 3);
    cr_assert(strstr(pg_error_last(), "newer") != NULL, "%s", pg_error_last());
    cr_assert(strstr(pg_error_last(), dbpath) != NULL);
    cr_assert(strchr(pg_error_last(), '\n') == NULL, "one line: %s", pg_error_last());
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

Test(store_pg, an_unreachable_server_is_one_line_exit_3_without_the_password)
{
    pg_store *s = NULL;
    int err = pg_store_open(&s, "postgresql://gate:hunter2@/perfgate?host=/nonexistent-dir&connect_timeout=2");

    cr_assert_eq(err, PG_ESTORE);
    cr_assert_null(s);
    cr_assert_eq(pg_error_exit_code(err), 3);
    cr_assert(strstr(pg_error_last(), "hunter2") == NULL, "%s", pg_error_last());
    cr_assert(strstr(pg_error_last(), "postgresql://gate:***@/perfgate") != NULL, "%s", pg_error_last());
    cr_assert(strstr(pg_error_last(), "cannot connect") != NULL, "%s", pg_error_last());
    cr_assert(strchr(pg_error_last(), '\n') == NULL, "one line: %s", pg_error_last());
    /* A password among the parameters is masked too, whichever place it has. */
    err = pg_store_open(&s, "postgres:///perfgate?password=hunter2&host=/nonexistent-dir&sslpassword=key-secret");
    cr_assert_eq(err, PG_ESTORE);
    cr_assert(strstr(pg_error_last(), "hunter2") == NULL, "%s", pg_error_last());
    cr_assert(strstr(pg_error_last(), "key-secret") == NULL, "%s", pg_error_last());
    cr_assert(strstr(pg_error_last(), "?password=***&host=/nonexistent-dir&sslpassword=***") != NULL, "%s",
              pg_error_last());
}

Test(store_pg, a_password_in_the_url_never_shows)
{
    char *url = pg_test_pg_url_with_password(dbpath, "s3cr%40t");
    pg_store *s = NULL;

    pg_assert_ok(pg_store_open(&s, url));
    cr_assert(strstr(pg_store_name(s), "s3cr") == NULL, "%s", pg_store_name(s));
    cr_assert(strstr(pg_store_name(s), "perfgate:***@") != NULL, "%s", pg_store_name(s));
    pg_store_close(s);
    free(url);
}

ENGINE_TEST(run_round_trips_with_samples_and_checks)
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

ENGINE_TEST(saving_the_same_uuid_twice_is_idempotent)
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
    pg_run_list_clear(&list);
    pg_run_free(run);
    pg_store_close(s);
}

ENGINE_TEST(lists_runs_newest_first_with_filters)
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
    pg_run_list_clear(&list);
    memset(&f, 0, sizeof(f));
    f.commit = "cafe";
    pg_assert_ok(pg_store_list_runs(&list, s, &f));
    cr_assert_eq(list.count, 1);
    cr_assert_str_eq(list.items[0].commit, "cafebabe1");
    pg_run_list_clear(&list);
    pg_store_close(s);
}

static void die_after_second_result(size_t index)
{
    if (index == 1)
        raise(SIGKILL);
}

ENGINE_TEST(run_killed_mid_write_leaves_no_partial_run)
{
    pg_store *s;
    pg_run *good = make_run("main", "1111", 2, 10);
    pg_run_list list;
    pg_run_filter f = {0};
    int64_t nruns, nresults;
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

    counts(&nruns, &nresults);
    cr_assert_eq(nruns, 1);
    cr_assert_eq(nresults, 2);
    /* The store still opens and takes new runs. */
    pg_assert_ok(pg_store_open(&s, dbpath));
    f.commit = "2222";
    pg_assert_ok(pg_store_list_runs(&list, s, &f));
    cr_assert_eq(list.count, 0, "the killed run is not there, not even in part");
    pg_run_list_clear(&list);
    pg_run_free(good);
    good = make_run("main", "3333", 1, 3);
    pg_assert_ok(pg_store_save_run(s, good));
    pg_store_close(s);
    pg_run_free(good);
}

ENGINE_TEST(pins_list_and_unpin)
{
    pg_store *s;
    pg_run *a = make_run("main", "aaaa", 1, 3), *b = make_run("main", "bbbb", 1, 3);
    pg_baseline_list pins;
    size_t removed = 0;

    pg_assert_ok(pg_store_open(&s, dbpath));
    pg_assert_ok(pg_store_save_run(s, a));
    pg_assert_ok(pg_store_save_run(s, b));
    pg_assert_ok(pg_baseline_pin(s, "release", a->id));
    pg_assert_ok(pg_baseline_pin(s, "release", b->id));
    pg_assert_ok(pg_baseline_pin(s, "release", b->id)); /* idempotent */
    pg_assert_ok(pg_baseline_list_get(&pins, s, "release"));
    cr_assert_eq(pins.count, 2);
    cr_assert_eq(pins.items[0].run_id, b->id, "newest run first");
    cr_assert_str_eq(pins.items[1].commit, "aaaa");
    pg_baseline_list_clear(&pins);
    pg_assert_ok(pg_baseline_unpin(&removed, s, "release", 0));
    cr_assert_eq(removed, 2);
    pg_assert_ok(pg_baseline_list_get(&pins, s, NULL));
    cr_assert_eq(pins.count, 0);
    pg_baseline_list_clear(&pins);
    pg_run_free(a);
    pg_run_free(b);
    pg_store_close(s);
}

typedef struct rows {
    int n;
    char keys[16][64];
    double medians[16];
} rows;

static int collect(const pg_store_history_row *row, void *payload)
{
    rows *r = payload;

    cr_assert_lt(r->n, 16);
    snprintf(r->keys[r->n], sizeof(r->keys[0]), "%s@%s", row->key, row->branch);
    r->medians[r->n++] = row->median;
    return 0;
}

static int stop_at_first(const pg_store_history_row *row, void *payload)
{
    (void)row;
    (void)payload;
    return 7;
}

ENGINE_TEST(history_rows_match_the_glob_and_branch_in_key_order)
{
    pg_store *s;
    pg_run *a = make_run("main", "aaaa", 3, 5), *b = make_run("feature", "bbbb", 3, 5);
    rows r;

    pg_assert_ok(pg_store_open(&s, dbpath));
    pg_assert_ok(pg_store_save_run(s, a));
    pg_assert_ok(pg_store_save_run(s, b));
    memset(&r, 0, sizeof(r));
    pg_assert_ok(pg_store_history_rows(s, "cpu/k[[]n=[12]]*", "main", collect, &r));
    cr_assert_eq(r.n, 2);
    cr_assert_str_eq(r.keys[0], "cpu/k[n=1]@1:cpu@main");
    cr_assert_str_eq(r.keys[1], "cpu/k[n=2]@1:cpu@main");
    cr_assert_eq(r.medians[0], a->results[1].summary.median, "the median reads back exactly");
    memset(&r, 0, sizeof(r));
    pg_assert_ok(pg_store_history_rows(s, "*n=0?*", NULL, collect, &r));
    cr_assert_eq(r.n, 2, "one row per branch");
    /* A callback that stops the query gets its code back, and the store goes on working. */
    cr_assert_eq(pg_store_history_rows(s, NULL, NULL, stop_at_first, &r), 7);
    pg_assert_ok(pg_store_history_rows(s, "*n=0?*", "feature", collect, &r));
    cr_assert_eq(r.n, 3);
    pg_run_free(a);
    pg_run_free(b);
    pg_store_close(s);
}

ENGINE_TEST(prune_drops_samples_of_old_unpinned_runs)
{
    pg_store *s;
    pg_prune_options po = PG_PRUNE_OPTIONS_INIT;
    pg_prune_stats ps;
    pg_check_report cr;
    pg_run *runs[4], *back = NULL;
    int i;

    pg_assert_ok(pg_store_open(&s, dbpath));
    for (i = 0; i < 4; i++) {
        runs[i] = make_run("main", "cccc", 2, 4);
        pg_assert_ok(pg_store_save_run(s, runs[i]));
    }
    pg_assert_ok(pg_baseline_pin(s, "keep", runs[0]->id));
    po.keep_runs = 1;
    po.keep_summaries = 1;
    pg_assert_ok(pg_store_prune(&ps, s, &po));
    cr_assert_eq(ps.runs_pruned, 2, "the newest and the pinned run stay whole");
    pg_assert_ok(pg_store_check(&cr, s));
    cr_assert(cr.ok, "%s", cr.message);
    cr_assert_eq(cr.runs, 4);
    cr_assert_eq(cr.results_with_samples, 4);
    pg_assert_ok(pg_store_load_run(&back, s, runs[1]->id));
    cr_assert_eq(back->results[0].nsamples, 0);
    cr_assert_float_eq(back->results[0].summary.median, runs[1]->results[0].summary.median, 0);
    pg_run_free(back);
    po.keep_summaries = 0;
    pg_assert_ok(pg_store_prune(&ps, s, &po));
    pg_assert_ok(pg_store_check(&cr, s));
    cr_assert_eq(cr.runs, 2);
    for (i = 0; i < 4; i++)
        pg_run_free(runs[i]);
    pg_store_close(s);
}

/* Saves a run of `branch` at `commit` and returns its id. */
static int64_t save_on(pg_store *s, const char *branch, const char *commit)
{
    pg_run *r = make_run(branch, commit, 1, 5);
    int64_t id;

    pg_assert_ok(pg_store_save_run(s, r));
    id = r->id;
    pg_run_free(r);
    return id;
}

ENGINE_TEST(gates_on_different_branches_never_take_each_others_runs)
{
    pg_store *s;
    pg_select_options o = PG_SELECT_OPTIONS_INIT;
    pg_selection sel;
    char *ev = pg_test_write(tmp, "event.json",
                             "{\"pull_request\": {\"base\": {\"sha\": \"1111aaaa\"}},"
                             " \"repository\": {\"default_branch\": \"main\"}}");
    int64_t main_base, other_same_commit, a1, b1, a2, head;

    pg_assert_ok(pg_store_open(&s, dbpath));
    main_base = save_on(s, "main", "1111aaaa");
    a1 = save_on(s, "team-a", "a1");
    b1 = save_on(s, "team-b", "b1");
    a2 = save_on(s, "team-a", "a2");
    /* Another branch holding the base commit, measured after main: the newer run of that commit. */
    other_same_commit = save_on(s, "team-b", "1111aaaa");
    head = save_on(s, "team-a", "a3");

    /* A nightly of team-a pools team-a's runs only, though team-b wrote in between. */
    o.event_name = "schedule";
    o.event_path = "";
    pg_assert_ok(pg_select_base(&sel, s, NULL, head, &o));
    cr_assert_eq(sel.count, 2);
    cr_assert_eq(sel.ids[0], a2);
    cr_assert_eq(sel.ids[1], a1);
    pg_selection_clear(&sel);
    (void)b1;
    /* A pull request into main compares with the base commit as main measured it. */
    o = (pg_select_options)PG_SELECT_OPTIONS_INIT;
    o.event_path = ev;
    o.event_name = "pull_request";
    pg_assert_ok(pg_select_base(&sel, s, NULL, head, &o));
    cr_assert_eq(sel.count, 1);
    cr_assert_eq(sel.ids[0], main_base, "not run %lld of branch team-b", (long long)other_same_commit);
    pg_selection_clear(&sel);
    /* Selected on purpose, another branch's run is taken. */
    pg_assert_ok(pg_select_base(&sel, s, "branch:team-b", head, NULL));
    cr_assert_eq(sel.ids[0], other_same_commit);
    pg_selection_clear(&sel);
    free(ev);
    pg_store_close(s);
}

static pg_roof_entry roof(int threads, double peak, const char *blas, int fresh)
{
    pg_roof_entry e;

    memset(&e, 0, sizeof(e));
    snprintf(e.device, sizeof(e.device), "cpu");
    e.threads = threads;
    e.peak_gflops = peak;
    e.triad_gbs = peak / 4;
    e.copy_gbs = peak / 3;
    e.llc_bytes = 33554432;
    snprintf(e.blas, sizeof(e.blas), "%s", blas);
    e.measured_at = 1700000000 + threads;
    e.fresh = fresh;
    return e;
}

ENGINE_TEST(roofs_are_kept_per_machine_and_replaced_when_measured_again)
{
    pg_store *s;
    pg_roof_table t = {0}, got = {0};
    pg_roof_entry e;
    const pg_roof_entry *g;

    pg_assert_ok(pg_store_open(&s, dbpath));
    pg_assert_ok(pg_store_roofs_load(&got, s, "aaaa000000000000"));
    cr_assert_eq(got.n, 0, "a new database holds no roofs");
    /* Two thread counts measured now, one already stored: only the fresh ones are written. */
    e = roof(1, 60.5, "0.3.21", 1);
    pg_assert_ok(pg_roof_table_put(&t, &e));
    e = roof(2, 120.25, "0.3.21", 1);
    pg_assert_ok(pg_roof_table_put(&t, &e));
    e = roof(4, 999, "0.3.21", 0);
    pg_assert_ok(pg_roof_table_put(&t, &e));
    pg_assert_ok(pg_store_roofs_save(s, "aaaa000000000000", &t));
    cr_assert_eq(t.items[0].fresh + t.items[1].fresh, 0, "stored entries are no longer fresh");
    pg_assert_ok(pg_store_roofs_load(&got, s, "aaaa000000000000"));
    cr_assert_eq(got.n, 2);
    g = pg_roof_table_find(&got, "cpu", 2);
    cr_assert_not_null(g);
    cr_assert_float_eq(g->peak_gflops, 120.25, 1e-12, "exact round trip");
    cr_assert_float_eq(g->triad_gbs, 120.25 / 4, 1e-12);
    cr_assert_float_eq(g->copy_gbs, 120.25 / 3, 1e-12);
    cr_assert_float_eq(g->llc_bytes, 33554432, 0.5);
    cr_assert_str_eq(g->blas, "0.3.21");
    cr_assert_eq(g->measured_at, 1700000002);
    cr_assert_eq(g->fresh, 0);
    cr_assert_null(pg_roof_table_find(&got, "cpu", 4), "an entry read from the store is never written back");
    pg_roof_table_clear(&got);
    /* Another machine sees none of them. */
    pg_assert_ok(pg_store_roofs_load(&got, s, "bbbb000000000000"));
    cr_assert_eq(got.n, 0);
    /* Measured again (a new BLAS): the row is replaced, not added. */
    pg_roof_table_clear(&t);
    e = roof(1, 70, "0.3.26", 1);
    pg_assert_ok(pg_roof_table_put(&t, &e));
    pg_assert_ok(pg_store_roofs_save(s, "aaaa000000000000", &t));
    pg_store_close(s);
    pg_assert_ok(pg_store_open(&s, dbpath));
    pg_assert_ok(pg_store_roofs_load(&got, s, "aaaa000000000000"));
    cr_assert_eq(got.n, 2);
    g = pg_roof_table_find(&got, "cpu", 1);
    cr_assert_float_eq(g->peak_gflops, 70, 1e-12);
    cr_assert_str_eq(g->blas, "0.3.26");
    pg_roof_table_clear(&got);
    pg_roof_table_clear(&t);
    pg_store_close(s);
}

Test(store, a_version_1_database_gains_the_roofs_table_and_keeps_its_runs)
{
    char *v1 = pg_test_data("store/v1.db"), *bytes = NULL;
    size_t len = 0;
    pg_store *s;
    pg_run *back = NULL;
    pg_roof_table t = {0}, got = {0};
    pg_roof_entry e = roof(1, 50, "0.3.21", 1);
    pg_run_list list;
    sqlite3 *db;
    sqlite3_stmt *st;
    FILE *f;

    /* A database as perfgate of schema version 1 wrote it (tests/data/store/README.md): runs, no roofs table. */
    cr_assert_eq(pg__read_file(&bytes, &len, v1), 0, "%s", pg_error_last());
    cr_assert((f = fopen(dbpath, "wb")) != NULL);
    cr_assert_eq(fwrite(bytes, 1, len, f), len);
    fclose(f);
    pg_assert_ok(pg_store_open(&s, dbpath));
    cr_assert_eq(pg_store_schema_version(s), pg_store_schema_latest());
    pg_assert_ok(pg_store_roofs_load(&got, s, "aaaa000000000000"));
    cr_assert_eq(got.n, 0, "a migrated database holds no roofs: the next run measures them");
    pg_assert_ok(pg_store_list_runs(&list, s, NULL));
    cr_assert_eq(list.count, 2, "the runs survive the migration");
    pg_assert_ok(pg_store_load_run(&back, s, list.items[0].id));
    cr_assert_eq(back->nresults, 2);
    pg_run_list_clear(&list);
    pg_assert_ok(pg_roof_table_put(&t, &e));
    pg_assert_ok(pg_store_roofs_save(s, "aaaa000000000000", &t));
    pg_store_close(s);
    cr_assert_eq(sqlite3_open(dbpath, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT threads, peak_gflops FROM roofs", -1, &st, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_eq(sqlite3_column_int(st, 0), 1);
    cr_assert_float_eq(sqlite3_column_double(st, 1), 50.0, 1e-12);
    cr_assert_eq(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    sqlite3_close(db);
    pg_roof_table_clear(&t);
    pg_roof_table_clear(&got);
    pg_run_free(back);
    free(bytes);
    free(v1);
}

Test(store_pg, the_doctor_stores_roofs_on_a_server_and_a_run_reuses_them, .timeout = 120)
{
    char *url = pg_test_pg_url_with_password(dbpath, "s3cr%40t"), *suite, *json = NULL, *report;
    const char *measure[] = {"doctor", "--roofs", "--db", url, NULL};
    const char *show[] = {"doctor", "--no-measure", "--db", url, NULL};
    const char *env[] = {"PERFGATE_ROOFLINE=on", NULL};
    const char *run[] = {"run", "--db", url, "--json", "r.json", "s.yaml", NULL};
    pg_proc p;

    pg_test_run(&p, tmp, NULL, measure);
    cr_assert_eq(p.status, 0, "%s", p.err);
    cr_assert(strstr(p.out, "stored                   yes in postgresql://") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "s3cr") == NULL && strstr(p.err, "s3cr") == NULL, "the password never shows: %s", p.out);
    pg_proc_free(&p);
    pg_test_run(&p, tmp, NULL, show);
    cr_assert_eq(p.status, 0, "%s", p.err);
    cr_assert(strstr(p.out, "stored                   yes in") != NULL, "the server's roofs are shown: %s", p.out);
    pg_proc_free(&p);
    suite = pg_test_write(tmp, "s.yaml", "suite: s\ndefaults: {min_run_time: 20ms, warmup: 5ms, min_samples: 5}\n"
                                         "benchmarks:\n  - {name: add, kernel: add, params: {n: 1024}}\n");
    pg_test_run(&p, tmp, env, run);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    pg_proc_free(&p);
    report = pg__asprintf("%s/r.json", tmp);
    pg_assert_ok(pg__read_file(&json, NULL, report));
    cr_assert(strstr(json, "\"reused\": true") != NULL, "the run took the server's roofs: %s", json);
    free(json);
    free(report);
    free(suite);
    free(url);
}
