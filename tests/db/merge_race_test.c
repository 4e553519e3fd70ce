/*
 * merge_race_test.c - `db merge -o OUT` while gates write runs into OUT:
 * the merge goes into the file itself, so no writer's run is ever lost, and
 * a merge killed at any moment leaves whole runs, a healthy file and no
 * temporary file behind.
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
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WRITERS 4
#define RUNS_EACH 40
#define ROUNDS 10
#define INPUT_RUNS 100

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

TestSuite(merge_race, .init = setup, .fini = teardown, .timeout = 600);

static pg_run *make_run(const char *branch, int index)
{
    pg_run *run;
    int c, j;

    pg_assert_ok(pg_run_new(&run));
    run->branch = pg__strdup(branch);
    run->commit = pg__asprintf("%s-%04d", branch, index);
    run->machine_hash = pg__strdup("00000000000000cc");
    run->machine_json = pg__strdup("{}");
    run->started_at = 1700000000 + index;
    for (c = 0; c < 3; c++) {
        pg_result *r;
        pg_assert_ok(pg_run_add_result(&r, run));
        r->key = pg__asprintf("m/k[n=%d]@1:cpu", c);
        r->suite = pg__strdup("m");
        r->name = pg__strdup("k");
        r->params_json = pg__asprintf("{\"n\":%d}", c);
        r->threads = 1;
        r->device = pg__strdup("cpu");
        r->nsamples = 10;
        r->samples = malloc(10 * sizeof(double));
        for (j = 0; j < 10; j++)
            r->samples[j] = 1e-3 * (c + 1) * (1 + 0.001 * j);
        r->number_per_run = 1;
        pg_assert_ok(pg_stats_summarize(&r->summary, r->samples, r->nsamples));
    }
    return run;
}

static int64_t q(const char *db, const char *sql, const char *arg)
{
    sqlite3 *h;
    sqlite3_stmt *st;
    int64_t n = -1;

    cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
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
            pg_run *r = make_run(branch, i);
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

static int run_perfgate(const char *const *args)
{
    const char *argv[12];
    pid_t pid;
    size_t i;
    int status;

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
Test(merge_race, merge_beside_four_writers_keeps_every_reported_run)
{
    char *in = pg__asprintf("%s/in.db", tmp);
    pg_store *s;
    int round, i;

    pg_assert_ok(pg_store_open(&s, in));
    for (i = 0; i < INPUT_RUNS; i++) {
        pg_run *r = make_run("merged", i);
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
            cr_assert_eq(q(out, "SELECT COUNT(*) FROM runs WHERE commit_sha = ?1", line), 1,
                         "round %d: run %s was reported stored and is not in the database", round, line);
        }
        cr_assert_eq(reported, WRITERS * RUNS_EACH, "round %d: writers stored %d of %d runs", round, reported,
                     WRITERS * RUNS_EACH);
        cr_assert_eq(q(out, "SELECT COUNT(*) FROM runs WHERE branch = 'merged'", NULL), INPUT_RUNS);
        cr_assert_eq(q(out, "SELECT COUNT(*) FROM results", NULL), 3 * (WRITERS * RUNS_EACH + INPUT_RUNS));
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
Test(merge_race, a_killed_merge_leaves_whole_runs_and_no_temporary_file)
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
            pg_run *r = make_run(i ? "b" : "a", k);
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
        const char *argv[] = {PG_TEST_BINARY, "db", "merge", "-o", out, in[0], in[1], NULL};
        int64_t at = whole_ns * i / 20;
        struct timespec ts = {(time_t)(at / 1000000000), (long)(at % 1000000000)};
        pid_t pid;
        char *left;

        unlink(out);
        pid = fork();
        cr_assert(pid >= 0);
        if (pid == 0) {
            int devnull = open("/dev/null", O_WRONLY);
            dup2(devnull, 1);
            dup2(devnull, 2);
            execv(argv[0], (char *const *)argv);
            _exit(127);
        }
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
        runs = q(out, "SELECT COUNT(*) FROM runs", NULL);
        cr_assert_eq(q(out, "SELECT COUNT(*) FROM results", NULL), 3 * runs,
                     "kill %d at %.0f ms left a partial run", i, (double)at / 1e6);
    }
    {
        const char *merge[] = {"db", "merge", "-o", out, in[0], in[1], NULL};
        cr_assert_eq(run_perfgate(merge), 0);
        cr_assert_eq(q(out, "SELECT COUNT(*) FROM runs", NULL), 60);
        cr_assert_eq(q(out, "SELECT COUNT(*) FROM results", NULL), 180);
    }
    for (i = 0; i < 2; i++)
        free(in[i]);
    free(out);
}
