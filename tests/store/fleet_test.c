/*
 * fleet_test.c - one PostgreSQL server shared by many runners: concurrent
 * writers, writers killed at random, a server stopped in the middle of a
 * run, and copies between the engines that change no byte.
 */
#include "support.h"

#include "base/model.h"
#include "pgserver.h"
#include "stats/stats.h"
#include "store/store.h"
#include "base/util.h"

#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WRITERS 8
#define RUNS_EACH 50
#define CASES 5

static char *tmp;
static char *url;

static void setup(void)
{
    tmp = pg_test_tmpdir();
    url = pg_test_pg_database();
}

static void teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
    free(url);
}

TestSuite(fleet, .init = setup, .fini = teardown);

static pg_run *make_run(int writer, int index)
{
    pg_run *run;
    int c, j;

    pg_assert_ok(pg_run_new(&run));
    run->branch = pg__asprintf("runner-%d", writer);
    run->commit = pg__asprintf("%08x%08x", writer, index);
    run->machine_hash = pg__asprintf("machine%09d", writer % 3);
    run->machine_json = pg__strdup("{\"cpu_model\":\"fleet\"}");
    run->started_at = 1700000000 + index;
    for (c = 0; c < CASES; c++) {
        pg_result *r;
        pg_assert_ok(pg_run_add_result(&r, run));
        r->key = pg__asprintf("fleet/k[n=%d]@1:cpu", c);
        r->suite = pg__strdup("fleet");
        r->name = pg__strdup("k");
        r->params_json = pg__asprintf("{\"n\":%d}", c);
        r->threads = 1;
        r->device = pg__strdup("cpu");
        r->nsamples = 20;
        r->samples = malloc(20 * sizeof(double));
        for (j = 0; j < 20; j++)
            r->samples[j] = 1e-3 * (c + 1) + 1e-7 * (writer * 1000 + index * 20 + j);
        r->number_per_run = 3;
        pg_assert_ok(pg_stats_summarize(&r->summary, r->samples, r->nsamples));
    }
    return run;
}

/* Dies at a random result of a random run: the transaction is cut in the middle. */
static unsigned kill_odds;

static void maybe_die(size_t index)
{
    (void)index;
    if (kill_odds && (unsigned)rand() % kill_odds == 0)
        raise(SIGKILL);
}

/*
 * One writer: its own connection, RUNS_EACH runs one after the other, the
 * uuid of each run written to `fd` once the save returned.
 */
static void writer(int w, int fd)
{
    pg_store *s;
    int i;

    srand((unsigned)(getpid() ^ time(NULL)));
    if (pg_store_open(&s, url) != 0)
        _exit(3);
    pg__store_after_result_hook = maybe_die;
    for (i = 0; i < RUNS_EACH; i++) {
        pg_run *r = make_run(w, i);
        char line[64];
        int n;
        if (pg_store_save_run(s, r) != 0) {
            fprintf(stderr, "writer %d: %s\n", w, pg_error_last());
            _exit(3);
        }
        n = snprintf(line, sizeof(line), "%s\n", r->uuid);
        if (write(fd, line, (size_t)n) != n)
            _exit(3);
        pg_run_free(r);
    }
    pg_store_close(s);
    _exit(0);
}

/* Every stored run is whole: CASES results of 20 samples each; returns how many runs there are. */
static size_t assert_no_partial_run(pg_store *s)
{
    pg_run_list list;
    size_t i, n;

    pg_assert_ok(pg_store_list_runs(&list, s, NULL));
    for (i = 0; i < list.count; i++)
        cr_assert_eq(list.items[i].nresults, CASES, "run %lld holds %lld results", (long long)list.items[i].id,
                     (long long)list.items[i].nresults);
    n = list.count;
    pg_run_list_clear(&list);
    return n;
}

/*
 * Starts the writers, reads while they write (no reader may ever see a
 * partial run), and with `kills` SIGKILLs them at random moments too.
 * Returns the uuids the writers reported as saved, one a line.
 */
static char *run_fleet(int kills, int *out_killed)
{
    pid_t pids[WRITERS];
    int fds[2], w, status, killed = 0;
    pg_buf saved = PG_BUF_INIT;
    pg_store *reader;
    char buf[4096];
    ssize_t n;

    cr_assert_eq(pipe(fds), 0);
    for (w = 0; w < WRITERS; w++) {
        pids[w] = fork();
        cr_assert(pids[w] >= 0);
        if (pids[w] == 0) {
            close(fds[0]);
            kill_odds = kills ? 400 : 0;
            writer(w, fds[1]);
        }
    }
    close(fds[1]);
    pg_assert_ok(pg_store_open(&reader, url));
    srand(12345);
    for (w = 0; w < WRITERS; w++) {
        if (kills && w % 2 == 0) {
            /* Half the writers are also killed from outside, at a random moment of their work. */
            usleep((useconds_t)(20000 + rand() % 300000));
            assert_no_partial_run(reader);
            kill(pids[w], SIGKILL);
        }
    }
    while ((n = read(fds[0], buf, sizeof(buf))) > 0) {
        pg__buf_put(&saved, buf, (size_t)n);
        assert_no_partial_run(reader);
    }
    close(fds[0]);
    for (w = 0; w < WRITERS; w++) {
        waitpid(pids[w], &status, 0);
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
            killed++;
        else
            cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d failed (status %d)", w, status);
    }
    pg_store_close(reader);
    *out_killed = killed;
    pg__buf_puts(&saved, "");
    return pg__buf_detach(&saved);
}

/* Each reported uuid is stored, whole; returns how many were reported. */
static size_t assert_all_present(pg_store *s, const char *uuids)
{
    pg_run_list list;
    const char *p;
    size_t reported = 0, i;

    pg_assert_ok(pg_store_list_runs(&list, s, NULL));
    for (p = uuids; *p; p = strchr(p, '\n') + 1) {
        size_t len = strcspn(p, "\n");
        for (i = 0; i < list.count; i++)
            if (strlen(list.items[i].uuid) == len && strncmp(list.items[i].uuid, p, len) == 0)
                break;
        cr_assert_lt(i, list.count, "a saved run is missing: %.*s", (int)len, p);
        cr_assert_eq(list.items[i].nresults, CASES);
        reported++;
    }
    pg_run_list_clear(&list);
    return reported;
}

Test(fleet, eight_writers_at_once_lose_no_run_and_no_reader_sees_a_partial_one)
{
    pg_store *s;
    int killed;
    char *uuids = run_fleet(0, &killed);

    cr_assert_eq(killed, 0);
    pg_assert_ok(pg_store_open(&s, url));
    cr_assert_eq(assert_all_present(s, uuids), WRITERS * RUNS_EACH);
    cr_assert_eq(assert_no_partial_run(s), WRITERS * RUNS_EACH, "400 runs stored, none twice");
    free(uuids);
    pg_store_close(s);
}

Test(fleet, writers_killed_at_random_leave_every_finished_run_and_no_partial_one)
{
    pg_store *s;
    int killed;
    char *uuids = run_fleet(1, &killed);
    size_t reported, stored;
    pg_check_report cr;

    cr_assert_gt(killed, 0, "no writer was killed: the test proved nothing");
    pg_assert_ok(pg_store_open(&s, url));
    reported = assert_all_present(s, uuids);
    stored = assert_no_partial_run(s);
    /* A writer killed between its commit and its report leaves a run nobody reported: never fewer. */
    cr_assert_geq(stored, reported);
    cr_assert_leq(stored, reported + (size_t)killed);
    cr_assert_lt(stored, WRITERS * RUNS_EACH);
    pg_assert_ok(pg_store_check(&cr, s));
    cr_assert(cr.ok, "%s", cr.message);
    cr_assert_eq(cr.results, (int64_t)stored * CASES);
    cr_log_info("%d of %d writers killed; %zu runs reported saved, %zu stored", killed, WRITERS, reported, stored);
    free(uuids);
    pg_store_close(s);
}

/* ---- copies between engines --------------------------------------------- */

/* The whole content of a SQLite store, ids aside, as text: runs, machines, results with their samples, checks, pins. */
static char *dump(const char *path)
{
    static const char *queries[] = {
        "SELECT r.uuid, r.suite_set, r.commit_sha, r.branch, r.ref, r.pr, r.ci_url, r.source, r.tool_version,"
        " m.hash, m.fingerprint, r.started_at, r.finished_at FROM runs r LEFT JOIN machines m ON m.id = r.machine_id"
        " ORDER BY r.uuid",
        "SELECT r.uuid, c.key, c.suite, c.name, c.params, c.threads, c.device, x.metric, x.unit, x.status, x.message,"
        " x.n, x.number_per_run, quote(x.median), quote(x.q1), quote(x.q3), quote(x.iqr), quote(x.mean),"
        " quote(x.stddev), quote(x.min), quote(x.max), quote(x.flops), quote(x.bytes), quote(x.mfu),"
        " quote(x.warmup_s), quote(x.threshold), quote(x.alpha), x.warnings, x.extra, hex(x.samples)"
        " FROM results x JOIN runs r ON r.id = x.run_id JOIN cases c ON c.id = x.case_id ORDER BY r.uuid, x.id",
        "SELECT r.uuid, y.suite, y.name, y.kind, y.expected, y.actual, y.passed, y.skipped, y.message"
        " FROM checks y JOIN runs r ON r.id = y.run_id ORDER BY r.uuid, y.id",
    };
    pg_buf b = PG_BUF_INIT;
    sqlite3 *db;
    size_t q;

    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    for (q = 0; q < sizeof(queries) / sizeof(queries[0]); q++) {
        sqlite3_stmt *st;
        cr_assert_eq(sqlite3_prepare_v2(db, queries[q], -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
        while (sqlite3_step(st) == SQLITE_ROW) {
            int i;
            for (i = 0; i < sqlite3_column_count(st); i++) {
                const unsigned char *t = sqlite3_column_text(st, i);
                pg__buf_printf(&b, "%s|", t ? (const char *)t : "NULL");
            }
            pg__buf_puts(&b, "\n");
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return pg__buf_detach(&b);
}

/* Runs that exercise every column: NULLs, awkward text, extreme doubles, checks, an imported run without a machine. */
static void fill(const char *path)
{
    pg_store *s;
    int i;

    pg_assert_ok(pg_store_open(&s, path));
    for (i = 0; i < 6; i++) {
        pg_run *r = make_run(i % 2, i);
        pg_check_result *c;
        r->results[0].samples[0] = 5e-324; /* the smallest subnormal */
        r->results[0].samples[1] = 1.7976931348623157e308;
        r->results[1].status = PG_STATUS_ERROR;
        r->results[1].message = pg__strdup("crashed: \"quotes\", back\\slash, tab\t, ünïcode");
        r->results[2].extra_json = pg__strdup("{\"counter\": [1, 2, {\"x\": null}]}");
        r->results[2].mfu = 0.123456789012345678;
        r->results[3].nsamples = 0;
        r->results[4].warmup_s = 0.1 + 0.2;
        r->pr = i == 3 ? 42 : 0;
        r->ci_url = i == 3 ? pg__strdup("https://ci.example/run/1?x=1&y='2'") : NULL;
        r->tool_version = pg__strdup("1.2.3");
        if (i == 5) {
            free(r->machine_hash);
            r->machine_hash = NULL;
            free(r->source);
            r->source = pg__strdup("hyperfine");
        }
        pg_assert_ok(pg_run_add_check(&c, r));
        c->suite = pg__strdup("fleet");
        c->name = pg__strdup("flops");
        c->kind = pg__strdup("flops");
        c->expected = pg__strdup("1024");
        c->actual = i == 2 ? NULL : pg__strdup("1024");
        c->passed = i != 2;
        c->skipped = i == 4;
        pg_assert_ok(pg_store_save_run(s, r));
        pg_run_free(r);
    }
    pg_store_close(s);
}

Test(fleet, sqlite_to_server_to_sqlite_keeps_every_byte)
{
    char *a = pg__asprintf("%s/a.db", tmp), *b = pg__asprintf("%s/b.db", tmp), *da, *db;
    const char *in_a[] = {a}, *in_server[] = {url};
    pg_merge_stats ms;
    pg_store *server, *file;

    fill(a);
    pg_assert_ok(pg_store_open(&server, url));
    pg_assert_ok(pg_store_merge(&ms, server, in_a, 1));
    cr_assert_eq(ms.runs_added, 6);
    pg_assert_ok(pg_store_merge(&ms, server, in_a, 1));
    cr_assert_eq(ms.runs_seen, 6);
    cr_assert_eq(ms.runs_added, 0, "merging again adds nothing");
    pg_store_close(server);

    pg_assert_ok(pg_store_open(&file, b));
    pg_assert_ok(pg_store_merge(&ms, file, in_server, 1));
    cr_assert_eq(ms.runs_added, 6);
    pg_store_close(file);

    da = dump(a);
    db = dump(b);
    cr_assert_gt(strlen(da), 1000);
    cr_assert_str_eq(db, da);
    free(da);
    free(db);
    free(a);
    free(b);
}

/* ---- a server that goes away ------------------------------------------- */

/* Waits for tmp/started, stops the server, then lets the measured command finish (tmp/halted). */
static pid_t halt_when_started(void)
{
    pid_t pid = fork();

    cr_assert(pid >= 0);
    if (pid == 0) {
        char *started = pg__asprintf("%s/started", tmp), *halted = pg__asprintf("%s/halted", tmp);
        int i, rc;
        for (i = 0; i < 3000 && access(started, F_OK) != 0; i++)
            usleep(10000);
        rc = pg_test_pg_halt();
        free(pg_test_write(tmp, "halted", ""));
        free(started);
        free(halted);
        _exit(rc == 0 ? 0 : 1);
    }
    return pid;
}

/* The server holds exactly one run, on `commit`, with `nresults` results. */
static void server_holds_one_run(const char *db, const char *commit, size_t nresults)
{
    pg_run_list list;
    pg_store *s;

    pg_assert_ok(pg_store_open(&s, db));
    pg_assert_ok(pg_store_list_runs(&list, s, NULL));
    cr_assert_eq(list.count, 1);
    cr_assert_str_eq(list.items[0].commit, commit);
    cr_assert_eq(list.items[0].nresults, nresults);
    pg_run_list_clear(&list);
    pg_store_close(s);
}

/* The spool file a failed save names ("... saved to PATH: bring it in ..."), which must exist. Caller frees. */
static char *spooled_path(const char *err)
{
    const char *at = strstr(err, "saved to ");
    char *path, *end;

    cr_assert_not_null(at, "%s", err);
    path = pg__strdup(at + strlen("saved to "));
    end = strchr(path, ':');
    cr_assert_not_null(end, "%s", err);
    *end = '\0';
    cr_assert_eq(access(path, F_OK), 0, "%s does not exist", path);
    return path;
}

Test(fleet, a_server_stopped_mid_run_exits_3_saves_the_run_locally_and_merge_brings_it_in)
{
    char *suite = pg_test_write(tmp, "fleet.yaml",
                                "suite: fleet\n"
                                "benchmarks:\n"
                                "  - name: waits\n"
                                "    command: [sh, -c, \"touch started; while [ ! -e halted ]; do sleep 0.01; done\"]\n"
                                "    timeout: 60s\n"
                                "    params: {n: [1, 2]}\n");
    char *spool = pg__asprintf("PERFGATE_SPOOL_DIR=%s", tmp), *secret = pg_test_pg_url_with_password(url, "hunter2");
    const char *env[] = {spool, "PERFGATE_DB=", NULL};
    pg_proc p, m;
    pg_run_list list;
    pg_store *s;
    char *saved, *line;
    pid_t halter;
    int status, resumed;

    halter = halt_when_started();
    pg_test_run(&p, tmp, env,
                (const char *[]){"run", "--quick", "--db", secret, "--commit", "c0ffee", "--branch", "main", suite,
                                 NULL});
    waitpid(halter, &status, 0);
    resumed = pg_test_pg_resume();
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the server was not stopped");
    cr_assert_eq(resumed, 0, "the server did not start again");

    cr_assert_eq(p.status, 3, "exit %d\nstdout: %s\nstderr: %s", p.status, p.out, p.err);
    /* Progress lines first (stderr is not a terminal), then the error: one line, the last. */
    line = strstr(p.err, "perfgate: ");
    cr_assert_not_null(line, "%s", p.err);
    cr_assert_eq(strchr(line, '\n'), line + strlen(line) - 1, "one line: %s", line);
    cr_assert(strstr(p.err, "hunter2") == NULL, "%s", p.err);
    saved = spooled_path(line);

    /* Nothing reached the server. */
    pg_assert_ok(pg_store_open(&s, url));
    pg_assert_ok(pg_store_list_runs(&list, s, NULL));
    cr_assert_eq(list.count, 0);
    pg_run_list_clear(&list);
    pg_store_close(s);

    pg_test_run(&m, tmp, env, (const char *[]){"db", "merge", "-o", secret, saved, NULL});
    cr_assert_eq(m.status, 0, "%s%s", m.out, m.err);
    cr_assert(strstr(m.out, "1 added") != NULL, "%s", m.out);
    cr_assert(strstr(m.out, "hunter2") == NULL, "%s", m.out);
    pg_proc_free(&m);
    pg_test_run(&m, tmp, env, (const char *[]){"db", "merge", "-o", secret, saved, NULL});
    cr_assert(strstr(m.out, "0 added, 1 already present") != NULL, "%s", m.out);
    pg_proc_free(&m);

    server_holds_one_run(url, "c0ffee", 2);
    pg_proc_free(&p);
    free(saved);
    free(spool);
    free(secret);
    free(suite);
}

Test(fleet, a_server_that_is_down_fails_the_run_before_it_measures)
{
    char *suite = pg_test_write(tmp, "fleet.yaml",
                                "suite: fleet\n"
                                "benchmarks:\n"
                                "  - name: never\n"
                                "    command: [sh, -c, \"touch measured\"]\n");
    char *bad = pg__asprintf("postgresql://gate:hunter2@/nothing?host=%s/nowhere", tmp);
    pg_proc p;

    pg_test_run(&p, tmp, NULL, (const char *[]){"run", "--quick", "--db", bad, suite, NULL});
    cr_assert_eq(p.status, 3, "%s", p.err);
    cr_assert(strstr(p.err, "cannot connect") != NULL, "%s", p.err);
    cr_assert(strstr(p.err, "hunter2") == NULL, "%s", p.err);
    cr_assert_eq(strchr(p.err, '\n'), p.err + strlen(p.err) - 1, "one line: %s", p.err);
    free(bad);
    bad = pg__asprintf("%s/measured", tmp);
    cr_assert_neq(access(bad, F_OK), 0, "it measured before finding the server down");
    pg_proc_free(&p);
    free(bad);
    free(suite);
}

Test(fleet, history_check_and_prune_read_the_server_from_the_command_line)
{
    char *a = pg__asprintf("%s/a.db", tmp), *secret = pg_test_pg_url_with_password(url, "hunter2"), *env_db;
    const char *in_a[] = {a};
    pg_merge_stats ms;
    pg_store *server;
    pg_proc p;

    fill(a);
    pg_assert_ok(pg_store_open(&server, url));
    pg_assert_ok(pg_store_merge(&ms, server, in_a, 1));
    pg_store_close(server);

    pg_test_run(&p, tmp, NULL, (const char *[]){"history", "--db", secret, "--format", "json", "fleet/k[[]n=0]*", NULL});
    cr_assert_eq(p.status, 0, "%s", p.err);
    cr_assert(strstr(p.out, "fleet/k[n=0]@1:cpu") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "fleet/k[n=2]") == NULL, "%s", p.out);
    pg_proc_free(&p);

    /* PERFGATE_DB names the server as --db does. */
    env_db = pg__asprintf("PERFGATE_DB=%s", secret);
    pg_test_run(&p, tmp, (const char *[]){env_db, NULL}, (const char *[]){"db", "check", NULL});
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, ": ok") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "6 runs") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "hunter2") == NULL, "%s", p.out);
    pg_proc_free(&p);

    pg_test_run(&p, tmp, NULL,
                (const char *[]){"db", "prune", "--db", secret, "--keep-runs", "2", "--keep-summaries", NULL});
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    cr_assert_str_eq(p.out, "dropped the samples of 4 runs; 2 kept whole\n");
    pg_proc_free(&p);
    free(env_db);
    free(secret);
    free(a);
}

/* Waits for tmp/started, freezes the server (SIGSTOP: sockets stay open, nothing answers), writes tmp/halted. */
static pid_t freeze_when_started(void)
{
    pid_t pid = fork();

    cr_assert(pid >= 0);
    if (pid == 0) {
        char *started = pg__asprintf("%s/started", tmp);
        int i, rc;
        for (i = 0; i < 3000 && access(started, F_OK) != 0; i++)
            usleep(10000);
        rc = pg_test_pg_signal(SIGSTOP);
        free(pg_test_write(tmp, "halted", ""));
        free(started);
        _exit(rc == 0 ? 0 : 1);
    }
    return pid;
}

/*
 * A server that stops answering without closing its sockets (SIGSTOP, a
 * hung host): every call has a deadline (PERFGATE_DB_TIMEOUT, 2 s here), so
 * the gate fails with exit 3 once it passes, the run saved to its spool
 * file, and db check fails the same way instead of waiting forever. After
 * the server resumes, merge brings the run in.
 */
Test(fleet, a_frozen_server_fails_the_gate_within_its_deadline_spools_the_run_and_merge_brings_it_in,
     .timeout = 240)
{
    char *suite = pg_test_write(tmp, "fleet.yaml",
                                "suite: fleet\n"
                                "benchmarks:\n"
                                "  - name: waits\n"
                                "    command: [sh, -c, \"touch started; while [ ! -e halted ]; do sleep 0.01; done\"]\n"
                                "    timeout: 60s\n"
                                "    params: {n: [1, 2]}\n");
    char *spool = pg__asprintf("PERFGATE_SPOOL_DIR=%s", tmp);
    const char *env[] = {spool, "PERFGATE_DB=", "PERFGATE_DB_TIMEOUT=2", NULL};
    pg_proc p, c, m;
    char *saved;
    int64_t t0, gate_ms, check_ms;
    pid_t freezer;
    int status;

    freezer = freeze_when_started();
    t0 = pg__mono_ns();
    pg_test_run(&p, tmp, env,
                (const char *[]){"gate", "--quick", "--db", url, "--commit", "f1f1f1", "--branch", "main", "--style",
                                 "none", suite, NULL});
    gate_ms = (pg__mono_ns() - t0) / 1000000;
    waitpid(freezer, &status, 0);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the server was not frozen");
    t0 = pg__mono_ns();
    pg_test_run(&c, tmp, env, (const char *[]){"db", "check", "--db", url, NULL});
    check_ms = (pg__mono_ns() - t0) / 1000000;
    cr_assert_eq(pg_test_pg_signal(SIGCONT), 0, "the server did not resume");
    cr_log_info("frozen server, PERFGATE_DB_TIMEOUT=2: gate ended %lld ms after it started, db check after %lld ms",
                (long long)gate_ms, (long long)check_ms);

    cr_assert_eq(p.status, 3, "exit %d\nstdout: %s\nstderr: %s", p.status, p.out, p.err);
    cr_assert(strstr(p.err, "did not answer within the deadline") != NULL, "%s", p.err);
    cr_assert_eq(c.status, 3, "db check: exit %d\n%s", c.status, c.err);
    cr_assert(strstr(c.err, "deadline") != NULL, "%s", c.err);
    saved = spooled_path(p.err);

    pg_test_run(&m, tmp, env, (const char *[]){"db", "merge", "-o", url, saved, NULL});
    cr_assert_eq(m.status, 0, "%s%s", m.out, m.err);
    cr_assert(strstr(m.out, "1 added") != NULL, "%s", m.out);
    server_holds_one_run(url, "f1f1f1", 2);
    pg_proc_free(&p);
    pg_proc_free(&c);
    pg_proc_free(&m);
    free(saved);
    free(spool);
    free(suite);
}
