/* cli_test.c - the binary's exit codes and messages, run as a process. */
#include "compile.h"
#include "support.h"

#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <fcntl.h>

Test(cli, bad_flag_exits_2)
{
    pg_proc p;
    const char *argv[] = {"run", "--no-such-flag", "suites", NULL};

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 2, "status %d, stderr: %s", p.status, p.err);
    cr_assert(strstr(p.err, "--no-such-flag") != NULL, "%s", p.err);
    pg_proc_free(&p);
}

Test(cli, unknown_command_exits_2)
{
    pg_proc p;
    const char *argv[] = {"frobnicate", NULL};

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 2);
    cr_assert(strstr(p.err, "frobnicate") != NULL);
    pg_proc_free(&p);
}

Test(cli, missing_suite_file_exits_2_naming_the_path)
{
    pg_proc p;
    const char *argv[] = {"run", "/no/such/suite.yaml", NULL};

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 2, "status %d", p.status);
    cr_assert(strstr(p.err, "/no/such/suite.yaml") != NULL, "%s", p.err);
    pg_proc_free(&p);
}

Test(cli, unreadable_db_path_exits_3)
{
    pg_proc p;
    const char *argv[] = {"run", "--quick", "--db", "/nonexistent-dir/x/perfgate.db",
                          PG_TEST_SOURCE_DIR "/suites/cpu.yaml", NULL};

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 3, "status %d, stderr: %s", p.status, p.err);
    cr_assert(strstr(p.err, "/nonexistent-dir/x/perfgate.db") != NULL, "%s", p.err);
    pg_proc_free(&p);
}

Test(cli, help_and_version_exit_0)
{
    pg_proc p;
    const char *help[] = {"--help", NULL};
    const char *run_help[] = {"run", "--help", NULL};
    const char *version[] = {"--version", NULL};

    pg_test_run(&p, NULL, NULL, help);
    cr_assert_eq(p.status, 0);
    cr_assert(strstr(p.out, "gate") && strstr(p.out, "exit codes"), "%s", p.out);
    pg_proc_free(&p);
    pg_test_run(&p, NULL, NULL, run_help);
    cr_assert_eq(p.status, 0);
    cr_assert(strstr(p.out, "--db") && strstr(p.out, "usage: perfgate run"), "%s", p.out);
    pg_proc_free(&p);
    pg_test_run(&p, NULL, NULL, version);
    cr_assert_eq(p.status, 0);
    cr_assert(strncmp(p.out, "perfgate ", 9) == 0);
    cr_assert(strstr(p.out, "\nlicence: Apache-2.0 (SPDX-License-Identifier: Apache-2.0)\n") != NULL, "%s", p.out);
    /* The commit it was built from: the checkout's HEAD, "-dirty" when tracked files differ from it. */
    {
        const char *c = strstr(p.out, "\ncommit: ");
        char *head = NULL;
        cr_assert(c != NULL, "%s", p.out);
        c += 9;
        if (pg_test_sh(&head, "git -C '" PG_TEST_SOURCE_DIR "' rev-parse HEAD") == 0 && strlen(head) >= 40)
            cr_assert(strncmp(c, head, 40) == 0 && (c[40] == '\n' || strncmp(c + 40, "-dirty\n", 7) == 0),
                      "perfgate --version names commit %.*s, the checkout is at %.40s", (int)strcspn(c, "\n"), c,
                      head);
        free(head);
    }
    pg_proc_free(&p);
}

Test(cli, gate_twice_stores_two_runs_and_compares)
{
    char *tmp = pg_test_tmpdir();
    char *db = pg__asprintf("%s/pg.db", tmp);
    pg_proc p;
    /*
     * Two cases of the shipped suite are enough to store and compare runs (the whole suite
     * runs end to end in sigkill_while_measuring_leaves_database_intact).
     */
    const char *argv[] = {"gate", "--quick", "--db", db, "--branch", "main", "--commit", "c0ffee",
                          "--filter", "cpu/?gemm?n=256]*", PG_TEST_SOURCE_DIR "/suites/cpu.yaml", NULL};

    pg_test_run(&p, tmp, NULL, argv);
    cr_assert_eq(p.status, 4, "first gate: nothing compared: %d %s", p.status, p.err);
    cr_assert(strstr(p.out, "perfgate: nothing compared — no baseline yet") != NULL, "%s", p.out);
    pg_proc_free(&p);
    /* The second run compares with the first; its verdicts are this machine's noise, its exit code is theirs. */
    pg_test_run_judged(&p, tmp, NULL, argv);
    cr_assert(strstr(p.out, "baseline: run 1") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "cpu/sgemm[n=256]@1:cpu") != NULL && strstr(p.out, "cpu/dgemm[n=256]@1:cpu") != NULL,
              "%s", p.out);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(tmp);
    free(db);
}

Test(cli, validate_rejects_bad_suite_with_position)
{
    char *tmp = pg_test_tmpdir();
    char *path = pg_test_write(tmp, "bad.yaml", "suite: s\nbenchmarks:\n  - name: g\n    kernal: sgemm\n");
    pg_proc p;
    const char *argv[] = {"validate", path, NULL};

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 2);
    cr_assert(strstr(p.err, "bad.yaml:4:5: unknown key 'kernal'") != NULL, "%s", p.err);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(tmp);
    free(path);
}

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

static int db_count(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int n = -1;

    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

Test(cli, sigkill_while_measuring_leaves_database_intact)
{
    char *tmp = pg_test_tmpdir();
    char *db = pg__asprintf("%s/pg.db", tmp);
    char *suite = pg_test_write(tmp, "slow.yaml",
                                "suite: slow\n"
                                "benchmarks:\n"
                                "  - name: sgemm\n"
                                "    kernel: sgemm\n"
                                "    params: {n: 64}\n"
                                "    min_run_time: 30s\n");
    const char *first[] = {"run", "--quick", "--db", db, PG_TEST_SOURCE_DIR "/suites/cpu.yaml", NULL};
    char *errlog = pg__asprintf("%s/run.err", tmp);
    pg_proc p;
    pid_t pid;
    int status, waited;
    sqlite3 *h;
    sqlite3_stmt *st;

    /* A complete run first: it must survive. */
    pg_test_run(&p, tmp, NULL, first);
    cr_assert_eq(p.status, 0, "%s", p.err);
    pg_proc_free(&p);

    pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY), errfd = open(errlog, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(devnull, 1);
        dup2(errfd, 2);
        /* On Actions the measurement opens a log group as it starts: the marker that sampling is under way. */
        setenv("GITHUB_ACTIONS", "true", 1);
        execl(PG_TEST_BINARY, PG_TEST_BINARY, "run", "--db", db, suite, (char *)NULL);
        _exit(127);
    }
    for (waited = 0; waited < 60000; waited += 20) {
        char *text = NULL;
        size_t len = 0;
        int started = pg__read_file(&text, &len, errlog) == 0 && strstr(text, "::group::") != NULL;
        free(text);
        if (started)
            break;
        usleep(20 * 1000);
    }
    cr_assert(waited < 60000, "the run never started measuring (no log group on stderr in 60 s)");
    usleep(200 * 1000); /* into the 30 s of sampling */
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    cr_assert(WIFSIGNALED(status), "the run ended by itself before it was killed");

    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), "ok");
    sqlite3_finalize(st);
    sqlite3_close(h);
    cr_assert_eq(db_count(db, "SELECT COUNT(*) FROM runs"), 1);
    cr_assert_eq(db_count(db, "SELECT COUNT(*) FROM runs WHERE suite_set = 'slow'"), 0);
    pg_test_rmtree(tmp);
    free(tmp);
    free(db);
    free(suite);
    free(errlog);
}
