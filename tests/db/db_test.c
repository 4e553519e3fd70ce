/*
 * db_test.c - merge, prune and check on real database files; merges beside
 * gates writing into the same file, and merges killed half-way.
 */
#include "support.h"

#include "base/model.h"
#include "stats/stats.h"
#include "store/store.h"
#include "base/util.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

TestSuite(db, .init = setup, .fini = teardown);

static pg_run *make_run(const char *branch, int index, int64_t started)
{
    pg_run *run;
    int c, j;

    pg_assert_ok(pg_run_new(&run));
    run->branch = pg__strdup(branch);
    run->commit = pg__asprintf("%s-%04d", branch, index);
    run->machine_hash = pg__strdup("00000000000000bb");
    run->machine_json = pg__strdup("{}");
    run->started_at = started;
    for (c = 0; c < 3; c++) {
        pg_result *r;
        pg_assert_ok(pg_run_add_result(&r, run));
        r->key = pg__asprintf("s/k[n=%d]@1:cpu", c);
        r->suite = pg__strdup("s");
        r->name = pg__strdup("k");
        r->params_json = pg__asprintf("{\"n\":%d}", c);
        r->threads = 1;
        r->device = pg__strdup("cpu");
        r->nsamples = 40;
        r->samples = malloc(40 * sizeof(double));
        for (j = 0; j < 40; j++)
            r->samples[j] = 1e-3 * (c + 1) * (1 + 0.001 * ((j * 7 + index) % 11));
        r->number_per_run = 10;
        pg_assert_ok(pg_stats_summarize(&r->summary, r->samples, r->nsamples));
    }
    return run;
}

/* The first column of `sql`'s first row, `arg` (may be NULL) bound as ?1. */
static int64_t q_arg(const char *db, const char *sql, const char *arg)
{
    sqlite3 *h;
    sqlite3_stmt *st;
    int64_t n = -1;

    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    sqlite3_busy_timeout(h, 10000);
    cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    if (arg)
        sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return n;
}

static int64_t q(const char *db, const char *sql)
{
    return q_arg(db, sql, NULL);
}

/* Three processes write at once: each to its own file, and all to one shared file. */
static void write_concurrently(char *paths[3], const char *shared)
{
    pid_t pids[3];
    int w, status;

    for (w = 0; w < 3; w++) {
        pids[w] = fork();
        cr_assert(pids[w] >= 0);
        if (pids[w] == 0) {
            pg_store *own, *sh;
            char branch[16];
            int i;
            snprintf(branch, sizeof(branch), "runner%d", w);
            if (pg_store_open(&own, paths[w]) != 0 || pg_store_open(&sh, shared) != 0) {
                fprintf(stderr, "writer %d: %s\n", w, pg_error_last());
                _exit(3);
            }
            for (i = 0; i < 20; i++) {
                pg_run *r = make_run(branch, i, 1700000000 + i);
                if (pg_store_save_run(own, r) != 0)
                    _exit(4);
                pg_run_free(r);
                r = make_run(branch, 100 + i, 1700000000 + i);
                if (pg_store_save_run(sh, r) != 0)
                    _exit(5);
                pg_run_free(r);
            }
            pg_store_close(own);
            pg_store_close(sh);
            _exit(0);
        }
    }
    for (w = 0; w < 3; w++) {
        waitpid(pids[w], &status, 0);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d failed: %d", w, status);
    }
}

Test(db, merge_of_concurrent_writers_loses_nothing_and_is_idempotent)
{
    char *paths[3], *shared = pg__asprintf("%s/shared.db", tmp), *out = pg__asprintf("%s/merged.db", tmp);
    pg_proc p;
    int i;

    for (i = 0; i < 3; i++)
        paths[i] = pg__asprintf("%s/runner%d.db", tmp, i);
    write_concurrently(paths, shared);
    cr_assert_eq(q(shared, "SELECT COUNT(*) FROM runs"), 60, "concurrent writers to one file lost runs");
    {
        const char *argv[] = {"db", "merge", "-o", out, paths[0], paths[1], paths[2], NULL};
        pg_test_run(&p, NULL, NULL, argv);
        cr_assert_eq(p.status, 0, "%s", p.err);
        cr_assert(strstr(p.out, "60 runs seen, 60 added") != NULL, "%s", p.out);
        pg_proc_free(&p);
        /* Again: nothing new. */
        pg_test_run(&p, NULL, NULL, argv);
        cr_assert_eq(p.status, 0, "%s", p.err);
        cr_assert(strstr(p.out, "60 runs seen, 0 added") != NULL, "%s", p.out);
        pg_proc_free(&p);
    }
    cr_assert_eq(q(out, "SELECT COUNT(*) FROM runs"), 60);
    cr_assert_eq(q(out, "SELECT COUNT(DISTINCT uuid) FROM runs"), 60);
    cr_assert_eq(q(out, "SELECT COUNT(*) FROM results"), 180);
    cr_assert_eq(q(out, "SELECT COUNT(*) FROM results WHERE length(samples) = 40 * 8"), 180);
    cr_assert_eq(q(out, "SELECT COUNT(*) FROM cases"), 3);
    cr_assert_eq(q(out, "SELECT COUNT(*) FROM machines"), 1);
    /* Merging the shared file too adds its 60 distinct runs and keeps every sample byte. */
    {
        const char *argv[] = {"db", "merge", "-o", out, shared, paths[1], NULL};
        pg_test_run(&p, NULL, NULL, argv);
        cr_assert_eq(p.status, 0, "%s", p.err);
        pg_proc_free(&p);
    }
    cr_assert_eq(q(out, "SELECT COUNT(*) FROM runs"), 120);
    cr_assert_eq(q(out, "SELECT SUM(length(samples)) FROM results"), 360 * 40 * 8);
    for (i = 0; i < 3; i++)
        free(paths[i]);
    free(shared);
    free(out);
}

Test(db, merge_refuses_output_as_input_and_missing_inputs)
{
    char *a = pg__asprintf("%s/a.db", tmp);
    pg_store *s;
    pg_proc p;
    const char *self[] = {"db", "merge", "-o", a, a, NULL};
    const char *missing[] = {"db", "merge", "-o", a, "/no/such.db", NULL};

    pg_assert_ok(pg_store_open(&s, a));
    pg_store_close(s);
    pg_test_run(&p, NULL, NULL, self);
    cr_assert_eq(p.status, 2, "%s", p.err);
    pg_proc_free(&p);
    pg_test_run(&p, NULL, NULL, missing);
    cr_assert_eq(p.status, 2, "%s", p.err);
    cr_assert(strstr(p.err, "/no/such.db") != NULL);
    pg_proc_free(&p);
    free(a);
}

Test(db, prune_keep_summaries_drops_samples_of_old_runs_only)
{
    char *db = pg__asprintf("%s/p.db", tmp);
    pg_store *s;
    pg_prune_options po = PG_PRUNE_OPTIONS_INIT;
    pg_prune_stats ps;
    pg_run *back;
    int i;
    int64_t pinned;

    pg_assert_ok(pg_store_open(&s, db));
    for (i = 0; i < 30; i++) {
        pg_run *r = make_run("main", i, 1700000000 + 86400LL * i);
        pg_assert_ok(pg_store_save_run(s, r));
        pg_run_free(r);
    }
    /* Pin run 2: pins are never pruned. */
    pinned = 2;
    q(db, "INSERT INTO baselines(name, run_id, pinned_at) VALUES ('rel', 2, 0)");
    cr_assert_eq(q(db, "SELECT COUNT(*) FROM baselines"), 1);
    po.keep_runs = 10;
    po.keep_summaries = 1;
    pg_assert_ok(pg_store_prune(&ps, s, &po));
    cr_assert_eq(ps.runs_pruned, 19);
    cr_assert_eq(q(db, "SELECT COUNT(*) FROM runs"), 30);
    cr_assert_eq(q(db, "SELECT COUNT(DISTINCT run_id) FROM results WHERE samples IS NOT NULL"), 11);
    cr_assert_eq(q(db, "SELECT COUNT(*) FROM results WHERE median IS NULL"), 0, "summaries must stay");
    pg_assert_ok(pg_store_load_run(&back, s, 1));
    cr_assert_eq(back->results[0].nsamples, 0);
    cr_assert_gt(back->results[0].summary.median, 0);
    pg_run_free(back);
    pg_assert_ok(pg_store_load_run(&back, s, pinned));
    cr_assert_eq(back->results[0].nsamples, 40);
    pg_run_free(back);
    pg_store_close(s);
    free(db);
}

Test(db, prune_older_than_deletes_old_runs_and_compacts)
{
    char *db = pg__asprintf("%s/o.db", tmp);
    pg_store *s;
    pg_prune_options po = PG_PRUNE_OPTIONS_INIT;
    pg_prune_stats ps;
    int i;

    pg_assert_ok(pg_store_open(&s, db));
    for (i = 0; i < 20; i++) {
        pg_run *r = make_run("main", i, 1700000000 + 86400LL * i);
        pg_assert_ok(pg_store_save_run(s, r));
        pg_run_free(r);
    }
    po.older_than = 5 * 86400;
    po.now = 1700000000 + 86400LL * 19;
    pg_assert_ok(pg_store_prune(&ps, s, &po));
    cr_assert_eq(ps.runs_pruned, 14); /* days 0..13 are more than 5 days before day 19 */
    cr_assert_eq(q(db, "SELECT COUNT(*) FROM runs"), 6);
    cr_assert_eq(q(db, "SELECT COUNT(*) FROM results"), 18);
    cr_assert_leq(ps.bytes_after, ps.bytes_before);
    pg_store_close(s);
    free(db);
}

Test(db, check_reports_health_and_damage)
{
    char *db = pg__asprintf("%s/c.db", tmp);
    pg_store *s;
    pg_proc p;
    const char *argv[] = {"db", "check", "--db", db, NULL};
    FILE *f;

    pg_assert_ok(pg_store_open(&s, db));
    for (int i = 0; i < 5; i++) {
        pg_run *r = make_run("main", i, 1700000000 + i);
        pg_assert_ok(pg_store_save_run(s, r));
        pg_run_free(r);
    }
    q(db, "PRAGMA wal_checkpoint(TRUNCATE)");
    pg_store_close(s);
    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, ": ok") && strstr(p.out, "5 runs, 15 results (15 with raw samples)"), "%s", p.out);
    pg_proc_free(&p);

    /* Damage the b-tree page headers of pages 2..8 (page size 4096). */
    f = fopen(db, "r+b");
    cr_assert(f);
    for (int page = 1; page < 8; page++) {
        fseek(f, 4096L * page, SEEK_SET);
        for (int i = 0; i < 64; i++)
            fputc(0xA5, f);
    }
    fclose(f);
    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 3, "damaged database passed: %s%s", p.out, p.err);
    pg_proc_free(&p);
    free(db);
}

/* A sample blob cut short of its count (a damaged or forged file whose pages are whole): check names it, exit 3. */
Test(db, check_reports_a_sample_blob_shorter_than_its_count)
{
    char *db = pg__asprintf("%s/b.db", tmp);
    pg_store *s;
    pg_proc p;
    const char *argv[] = {"db", "check", "--db", db, NULL};
    sqlite3 *h;

    pg_assert_ok(pg_store_open(&s, db));
    for (int i = 0; i < 2; i++) {
        pg_run *r = make_run("main", i, 1700000000 + i);
        pg_assert_ok(pg_store_save_run(s, r));
        pg_run_free(r);
    }
    pg_store_close(s);
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h,
                              "UPDATE results SET samples = substr(samples, 1, 80)"
                              " WHERE id = (SELECT MIN(id) FROM results)",
                              NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(h));
    sqlite3_close(h);
    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 3, "a short blob passed: %s%s", p.out, p.err);
    cr_assert(strstr(p.out, "samples: 1 result") || strstr(p.err, "samples: 1 result"), "%s%s", p.out, p.err);
    pg_proc_free(&p);
    free(db);
}

/* One page overwritten: the gate refuses the database (exit 3) before measuring, and writes nothing to it. */
Test(db, gate_refuses_a_damaged_database_and_stores_nothing)
{
    char *db = pg__asprintf("%s/g.db", tmp), *before = NULL, *after = NULL;
    char *suite = pg_test_write(tmp, "g.yaml",
                                "suite: g\n"
                                "defaults: {threads: 1, min_run_time: 10ms, warmup: 2ms, min_samples: 5}\n"
                                "benchmarks:\n  - {name: add, kernel: add, params: {n: 4096}}\n");
    const char *argv[] = {"gate", "--db", db, "--style", "none", suite, NULL};
    size_t lb = 0, la = 0;
    pg_store *s;
    pg_proc p;
    FILE *f;

    pg_assert_ok(pg_store_open(&s, db));
    for (int i = 0; i < 5; i++) {
        pg_run *r = make_run("main", i, 1700000000 + i);
        pg_assert_ok(pg_store_save_run(s, r));
        pg_run_free(r);
    }
    q(db, "PRAGMA wal_checkpoint(TRUNCATE)");
    pg_store_close(s);
    f = fopen(db, "r+b");
    cr_assert(f);
    fseek(f, 4096L * 2, SEEK_SET);
    for (int i = 0; i < 4096; i++)
        fputc(0xA5, f);
    fclose(f);
    pg_assert_ok(pg__read_file(&before, &lb, db));
    pg_test_run(&p, tmp, NULL, argv);
    cr_assert_eq(p.status, 3, "a gate on a damaged database exited %d: %s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "the database is damaged"), "%s", p.err);
    cr_expect(!strstr(p.out, "g/add"), "measured although the database is damaged: %s", p.out);
    pg_assert_ok(pg__read_file(&after, &la, db));
    cr_expect(lb == la && memcmp(before, after, lb) == 0, "the damaged database was written to");
    pg_proc_free(&p);
    free(before);
    free(after);
    free(suite);
    free(db);
}

/* ---- merging beside writers ------------------------------------------- */

#define WRITERS 4
#define RUNS_EACH 40
#define ROUNDS 10
#define INPUT_RUNS 100

/*
 * A gate's store writer: one connection kept open, RUNS_EACH runs, the
 * commit of each run written to `fd` once its save returned (the runs it
 * would report stored).
 */
static pid_t start_writer(const char *db, int w, int fd)
{
    pid_t pid = fork();

    cr_assert(pid >= 0);
    if (pid == 0) {
        pg_store *s;
        int i, failed = 0;
        char branch[32];
        snprintf(branch, sizeof(branch), "w%d", w);
        if (pg_store_open(&s, db) != 0)
            _exit(3);
        for (i = 0; i < RUNS_EACH; i++) {
            pg_run *r = make_run(branch, i, 1700000000 + i);
            if (pg_store_save_run(s, r) == 0) {
                char line[64];
                int n = snprintf(line, sizeof(line), "%s\n", r->commit);
                if (write(fd, line, (size_t)n) != n)
                    _exit(3);
            } else {
                failed++;
            }
            pg_run_free(r);
            /* A gate stores a run now and then, not in a burst: its writes fall across many merges. */
            usleep(3000);
        }
        pg_store_close(s);
        _exit(failed ? 1 : 0);
    }
    return pid;
}

/* Starts the binary with `args`, its output to /dev/null. */
static pid_t spawn_perfgate(const char *const *args)
{
    const char *argv[12];
    pid_t pid;
    size_t i;

    argv[0] = PG_TEST_BINARY;
    for (i = 0; args[i] && i < 10; i++)
        argv[i + 1] = args[i];
    argv[i + 1] = NULL;
    pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        dup2(devnull, 2);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    return pid;
}

static int run_perfgate(const char *const *args)
{
    pid_t pid = spawn_perfgate(args);
    int status;

    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * The files in `dir` other than the inputs and `db` with SQLite's own
 * companions (-wal, -shm, and the -journal of a file killed while being
 * created, which the next open rolls back): a merge's leftovers, as one line.
 */
static char *leftovers(const char *dir, const char *db)
{
    const char *base = strrchr(db, '/') + 1;
    pg_buf b = PG_BUF_INIT;
    DIR *d = opendir(dir);
    struct dirent *e;

    while (d && (e = readdir(d)) != NULL) {
        size_t n = strlen(base);
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || strncmp(e->d_name, "in", 2) == 0 ||
            strcmp(e->d_name, "written") == 0 || strncmp(e->d_name, "done", 4) == 0)
            continue;
        if (strncmp(e->d_name, base, n) == 0 &&
            (!e->d_name[n] || !strcmp(e->d_name + n, "-wal") || !strcmp(e->d_name + n, "-shm") ||
             !strcmp(e->d_name + n, "-journal")))
            continue;
        pg__buf_printf(&b, "%s ", e->d_name);
    }
    if (d)
        closedir(d);
    return b.ptr ? pg__buf_detach(&b) : NULL;
}

/*
 * Four writers store 40 runs each into OUT while `db merge -o OUT IN` runs
 * again and again beside them, ten times over: every run a writer stored is
 * in OUT afterwards, every input run is too, once, and db check passes.
 */
Test(db, merge_beside_four_writers_keeps_every_reported_run, .timeout = 600)
{
    char *in = pg__asprintf("%s/in.db", tmp);
    pg_store *s;
    int round, i;

    pg_assert_ok(pg_store_open(&s, in));
    for (i = 0; i < INPUT_RUNS; i++) {
        pg_run *r = make_run("merged", i, 1700000000 + i);
        pg_assert_ok(pg_store_save_run(s, r));
        pg_run_free(r);
    }
    pg_store_close(s);
    for (round = 0; round < ROUNDS; round++) {
        char *out = pg__asprintf("%s/out%d.db", tmp, round), *written = pg__asprintf("%s/written", tmp);
        char *text = NULL, *line, *save = NULL, *left;
        const char *merge[] = {"db", "merge", "-o", out, in, NULL};
        const char *check[] = {"db", "check", "--db", out, NULL};
        pid_t writers[WRITERS];
        int fd, status, merges = 0, merged_ok = 0, reported = 0, alive;
        size_t len;

        pg_assert_ok(pg_store_open(&s, out));
        pg_store_close(s);
        fd = open(written, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
        cr_assert(fd >= 0);
        for (i = 0; i < WRITERS; i++)
            writers[i] = start_writer(out, i, fd);
        do {
            merged_ok += run_perfgate(merge) == 0;
            merges++;
            for (alive = 0, i = 0; i < WRITERS; i++)
                if (writers[i] && waitpid(writers[i], &status, WNOHANG) == 0)
                    alive++;
                else
                    writers[i] = 0;
        } while (alive);
        close(fd);
        merged_ok += run_perfgate(merge) == 0;
        merges++;
        cr_assert_eq(merged_ok, merges, "round %d: %d of %d merges failed", round, merges - merged_ok, merges);

        pg_assert_ok(pg__read_file(&text, &len, written));
        for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            reported++;
            cr_assert_eq(q_arg(out, "SELECT COUNT(*) FROM runs WHERE commit_sha = ?1", line), 1,
                         "round %d: run %s was reported stored and is not in the database", round, line);
        }
        cr_assert_eq(reported, WRITERS * RUNS_EACH, "round %d: writers stored %d of %d runs", round, reported,
                     WRITERS * RUNS_EACH);
        cr_assert_eq(q(out, "SELECT COUNT(*) FROM runs WHERE branch = 'merged'"), INPUT_RUNS);
        cr_assert_eq(q(out, "SELECT COUNT(*) FROM results"), 3 * (WRITERS * RUNS_EACH + INPUT_RUNS));
        cr_assert_eq(run_perfgate(check), 0, "round %d: db check failed", round);
        left = leftovers(tmp, out);
        cr_assert(!left || !*left, "round %d: left behind: %s", round, left);
        cr_log_info("round %d: %d runs reported by %d writers, all present; %d merges beside them", round, reported,
                    WRITERS, merges);
        /* Out of the way of the next round's check for leftovers. */
        {
            static const char *const sfx[] = {"", "-wal", "-shm"};
            size_t j;
            for (j = 0; j < 3; j++) {
                char *from = pg__asprintf("%s%s", out, sfx[j]), *to = pg__asprintf("%s/done%d.db%s", tmp, round, sfx[j]);
                rename(from, to);
                free(from);
                free(to);
            }
        }
        free(left);
        free(text);
        free(out);
        free(written);
    }
    free(in);
}

/*
 * A merge killed at any moment (SIGKILL, spread over the time a whole merge
 * takes) leaves whole runs only (three results each), a file db check
 * passes, and no temporary file; merging again brings in the rest.
 */
Test(db, a_killed_merge_leaves_whole_runs_and_no_temporary_file, .timeout = 300)
{
    char *in[2], *out = pg__asprintf("%s/merged.db", tmp);
    const char *check[] = {"db", "check", "--db", out, NULL};
    int64_t t0, whole_ns, runs;
    int i, k;
    pg_store *s;

    for (i = 0; i < 2; i++) {
        in[i] = pg__asprintf("%s/in%d.db", tmp, i);
        pg_assert_ok(pg_store_open(&s, in[i]));
        for (k = 0; k < 30; k++) {
            pg_run *r = make_run(i ? "b" : "a", k, 1700000000 + k);
            pg_assert_ok(pg_store_save_run(s, r));
            pg_run_free(r);
        }
        pg_store_close(s);
    }
    {
        const char *merge[] = {"db", "merge", "-o", out, in[0], in[1], NULL};
        t0 = pg__mono_ns();
        cr_assert_eq(run_perfgate(merge), 0, "a whole merge failed");
        whole_ns = pg__mono_ns() - t0;
    }
    for (i = 0; i < 20; i++) {
        const char *merge[] = {"db", "merge", "-o", out, in[0], in[1], NULL};
        int64_t at = whole_ns * i / 20;
        struct timespec ts = {(time_t)(at / 1000000000), (long)(at % 1000000000)};
        pid_t pid;
        char *left;

        unlink(out);
        pid = spawn_perfgate(merge);
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        left = leftovers(tmp, out);
        cr_assert(!left || !*left, "kill %d at %.0f ms left: %s", i, (double)at / 1e6, left);
        free(left);
        if (access(out, F_OK) != 0)
            continue;
        /* A file killed before its tables were made is a valid empty database: check opens and migrates it. */
        cr_assert_eq(run_perfgate(check), 0, "kill %d: db check failed", i);
        runs = q(out, "SELECT COUNT(*) FROM runs");
        cr_assert_eq(q(out, "SELECT COUNT(*) FROM results"), 3 * runs,
                     "kill %d at %.0f ms left a partial run", i, (double)at / 1e6);
    }
    {
        const char *merge[] = {"db", "merge", "-o", out, in[0], in[1], NULL};
        cr_assert_eq(run_perfgate(merge), 0);
        cr_assert_eq(q(out, "SELECT COUNT(*) FROM runs"), 60);
        cr_assert_eq(q(out, "SELECT COUNT(*) FROM results"), 180);
    }
    for (i = 0; i < 2; i++)
        free(in[i]);
    free(out);
}
