/*
 * hostile_cli_test.c - the command line against hostile input and careless
 * operation: markup in a commit reaching HTML pages, escape sequences in
 * imported names reaching the terminal and markdown, a page written on a
 * full disk, output to /dev/full, a read-only database in a read-only
 * folder, a damaged database an import would write into, an element over
 * the import cap, a kernel without randomness for a run's uuid, and the CI
 * script that restores the database when the fetch fails.
 */
#include "support.h"

#include "base/util.h"

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

TestSuite(hostile_cli, .init = setup, .fini = teardown, .timeout = 300);

/*
 * Runs the binary with stdout to `out` (a path, NULL: /dev/null), stderr
 * to /dev/null, and a file-size limit of `fsize` bytes (0: none; SIGXFSZ
 * ignored, so a write past it fails as on a full disk). @return the exit code.
 */
static int run_limited(const char *out, long fsize, const char *const *args)
{
    const char *argv[16];
    size_t i;
    pid_t pid;
    int status;

    argv[0] = PG_TEST_BINARY;
    for (i = 0; args[i] && i < 14; i++)
        argv[i + 1] = args[i];
    argv[i + 1] = NULL;
    pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int o = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600), e = open("/dev/null", O_WRONLY);
        if (chdir(tmp) != 0 || o < 0 || e < 0)
            _exit(127);
        dup2(o, 1);
        dup2(e, 2);
        if (fsize) {
            struct rlimit rl = {(rlim_t)fsize, (rlim_t)fsize};
            signal(SIGXFSZ, SIG_IGN);
            setrlimit(RLIMIT_FSIZE, &rl);
        }
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Imports Google Benchmark's sgemm results into `db` as one run on `commit`. */
static void import_run(const char *db, const char *commit)
{
    char *data = pg_test_data("import/gbench_plain.json");
    const char *argv[] = {"import", "--db", db, "--commit", commit, "--branch", "main", "google-benchmark", data, NULL};
    pg_proc p;

    pg_test_run(&p, tmp, NULL, argv);
    cr_assert_eq(p.status, 0, "%s", p.err);
    pg_proc_free(&p);
    free(data);
}

/* The first column of `sql`'s first row in `db`, as an integer (-1 when there is none). */
static int64_t q_int(const char *db, const char *sql)
{
    sqlite3 *h;
    sqlite3_stmt *st;
    int64_t v = -1;

    cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

static char *slurp(const char *path)
{
    char *text = NULL;
    size_t len;

    pg_assert_ok(pg__read_file(&text, &len, path));
    return text;
}

/* A commit is whatever the run was told (--commit, an import): every HTML page escapes it, in SVG labels too. */
Test(hostile_cli, a_commit_with_markup_is_escaped_in_every_html_page)
{
    char *db = pg__asprintf("%s/h.db", tmp), *a = pg__asprintf("%s/a.html", tmp), *b = pg__asprintf("%s/b.html", tmp);
    const char *report[] = {"report", "--db", db, "--format", "html", "-o", a, NULL};
    const char *history[] = {"history", "--db", db, "--html", b, NULL};
    char *text;
    pg_proc p;

    import_run(db, "c0ffee00c0ffee00");
    import_run(db, "<script>alert(3)</script>");
    pg_test_run(&p, tmp, NULL, report);
    cr_assert_eq(p.status, 0, "%s", p.err);
    pg_proc_free(&p);
    pg_test_run(&p, tmp, NULL, history);
    cr_assert_eq(p.status, 0, "%s", p.err);
    pg_proc_free(&p);
    text = slurp(a);
    cr_assert(strstr(text, "<script") == NULL, "report --format html holds the commit's markup");
    cr_assert(strstr(text, "&lt;script") != NULL, "the commit is not shown at all");
    free(text);
    text = slurp(b);
    cr_assert(strstr(text, "<script") == NULL, "history --html holds the commit's markup");
    free(text);
    free(db);
    free(a);
    free(b);
}

/*
 * A page that cannot be written whole (a file-size limit of 48 KiB stands in
 * for a full disk; 60 commits make pages of about 80 KB, while the
 * database's own files stay within the limit) fails with exit 3 and leaves
 * the page already there whole, and no temporary file, for both HTML writers.
 */
Test(hostile_cli, an_html_page_that_cannot_be_written_leaves_the_old_one_whole)
{
    static const char old[] = "<html>the previous report</html>\n";
    char *db = pg__asprintf("%s/h.db", tmp), *page = pg__asprintf("%s/page.html", tmp);
    const char *report[] = {"report", "--db", db, "--format", "html", "-o", page, NULL};
    const char *history[] = {"history", "--db", db, "--html", page, NULL};
    const char *const *cmds[] = {report, history};
    size_t i;

    for (i = 0; i < 60; i++) {
        char commit[32];
        snprintf(commit, sizeof(commit), "c0ffee00c0ffee%02zu", i);
        import_run(db, commit);
    }
    for (i = 0; i < 2; i++) {
        char *text, *cmd;
        free(pg_test_write(tmp, "page.html", old));
        cr_assert_eq(run_limited(NULL, 48 << 10, cmds[i]), 3, "%s on a full disk", cmds[i][0]);
        text = slurp(page);
        cr_assert_str_eq(text, old, "%s cut the previous page", cmds[i][0]);
        free(text);
        cmd = pg__asprintf("test -z \"$(ls -A '%s' | grep -v -e '^h\\.db' -e '^page\\.html$')\"", tmp);
        cr_assert_eq(system(cmd), 0, "%s left a file behind", cmds[i][0]);
        free(cmd);
    }
    free(db);
    free(page);
}

/* A report that could not be written is no pass and no "nothing compared": exit 3, for help text too. */
Test(hostile_cli, output_to_a_full_device_is_exit_3)
{
    char *db = pg__asprintf("%s/h.db", tmp);
    const char *compare[] = {"compare", "--db", db, NULL};
    const char *help[] = {"--help", NULL};
    const char *sub_help[] = {"compare", "--help", NULL};
    const char *version[] = {"--version", NULL};

    import_run(db, "c0ffee00c0ffee00");
    import_run(db, "c0ffee00c0ffee01");
    cr_assert_eq(run_limited(NULL, 0, compare), 4, "compare of one run against a same-code one decides nothing");
    cr_assert_eq(run_limited("/dev/full", 0, compare), 3);
    cr_assert_eq(run_limited("/dev/full", 0, help), 3);
    cr_assert_eq(run_limited("/dev/full", 0, sub_help), 3);
    cr_assert_eq(run_limited("/dev/full", 0, version), 3);
    free(db);
}

/*
 * A database the user may only read, in a folder the user may only read
 * (an artifact unpacked read-only, a shared mount): compare, report,
 * history, db check and merge inputs read it, and nothing is written there.
 * perfgate runs as "nobody" when the tests run as root (root writes anyway).
 */
Test(hostile_cli, a_read_only_database_in_a_read_only_folder_reads)
{
    char *dir = pg__asprintf("%s/ro", tmp), *db = pg__asprintf("%s/ro/a.db", tmp), *out = pg__asprintf("%s/m", tmp);
    char *merged = pg__asprintf("%s/m/merged.db", tmp);
    const char *cmds[][8] = {
        {"compare", "--db", db, NULL},
        {"report", "--db", db, NULL},
        {"history", "--db", db, NULL},
        {"db", "check", "--db", db, NULL},
        {"db", "merge", "-o", merged, db, NULL},
    };
    const int want[] = {4, 0, 0, 0, 0};
    size_t i;

    cr_assert_eq(mkdir(dir, 0755), 0);
    cr_assert_eq(mkdir(out, 0777), 0);
    chmod(out, 0777);
    import_run(db, "c0ffee00c0ffee00");
    import_run(db, "c0ffee00c0ffee01");
    cr_assert_eq(chmod(db, 0444), 0);
    cr_assert_eq(chmod(dir, 0555), 0);
    chmod(tmp, 0755);
    if (geteuid() == 0 && system("command -v setpriv >/dev/null") != 0)
        cr_skip_test("running as root without setpriv: cannot run perfgate as a user the folder is read-only to");
    for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        pg_buf cmd = PG_BUF_INIT;
        size_t k;
        int rc;
        if (geteuid() == 0)
            pg__buf_puts(&cmd, "setpriv --reuid=65534 --regid=65534 --clear-groups ");
        pg__buf_printf(&cmd, "'%s'", PG_TEST_BINARY);
        for (k = 0; cmds[i][k]; k++)
            pg__buf_printf(&cmd, " '%s'", cmds[i][k]);
        pg__buf_printf(&cmd, " >'%s/out.txt' 2>&1", out);
        rc = system(cmd.ptr);
        cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == want[i], "%s: exit %d, not %d", cmd.ptr,
                  WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, want[i]);
        pg__buf_clear(&cmd);
    }
    /* Nothing was created beside the database. */
    {
        char *cmd = pg__asprintf("test \"$(ls -A '%s')\" = a.db", dir);
        cr_assert_eq(system(cmd), 0, "files appeared beside a.db");
        free(cmd);
    }
    chmod(dir, 0755);
    free(dir);
    free(db);
    free(out);
    free(merged);
}

/* An import into a damaged database is refused before anything is written, as a gate refuses it (exit 3). */
Test(hostile_cli, import_refuses_a_damaged_database)
{
    char *db = pg__asprintf("%s/d.db", tmp), *data = pg_test_data("import/gbench_plain.json"), *before, *after;
    const char *argv[] = {"import", "--db", db, "google-benchmark", data, NULL};
    size_t lb, la;
    pg_proc p;
    int fd;

    import_run(db, "c0ffee00c0ffee00");
    {
        /*
         * The roofs table's page overwritten with garbage: a structure
         * quick_check sees and an import never reads, so only a check made
         * before writing keeps the import out of this file.
         */
        char junk[4096];
        int64_t root = q_int(db, "SELECT rootpage FROM sqlite_master WHERE name = 'roofs'");
        int64_t size = q_int(db, "PRAGMA page_size");
        cr_assert(root > 1 && size == (int64_t)sizeof(junk), "roofs at page %lld of %lld bytes", (long long)root,
                  (long long)size);
        memset(junk, 0x5a, sizeof(junk));
        fd = open(db, O_WRONLY);
        cr_assert(fd >= 0 && pwrite(fd, junk, sizeof(junk), (off_t)((root - 1) * size)) == (ssize_t)sizeof(junk));
        close(fd);
    }
    pg_assert_ok(pg__read_file(&before, &lb, db));
    pg_test_run(&p, tmp, NULL, argv);
    cr_assert_eq(p.status, 3, "%d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, "damaged") != NULL, "%s", p.err);
    pg_assert_ok(pg__read_file(&after, &la, db));
    cr_assert(la == lb && memcmp(before, after, lb) == 0, "the import wrote into a damaged database");
    pg_proc_free(&p);
    free(before);
    free(after);
    free(db);
    free(data);
}

/* Escape sequences in imported names are shown as plain text: no ESC byte reaches the terminal or markdown. */
Test(hostile_cli, escape_sequences_in_imported_names_reach_no_terminal_nor_markdown)
{
    char *db = pg__asprintf("%s/e.db", tmp);
    char *json = pg_test_write(tmp, "e.json",
                               "{\"context\": {}, \"benchmarks\": ["
                               "{\"name\": \"BM_\\u001b[2J\\u001b]0;pwned\\u0007red\\u001b[31m\", \"run_type\": "
                               "\"iteration\", \"iterations\": 10, \"real_time\": 5.0, \"cpu_time\": 5.0, "
                               "\"time_unit\": \"us\"}]}");
    const char *imp[] = {"import", "--db", db, "google-benchmark", json, NULL};
    const char *md[] = {"report", "--db", db, "--format", "md", NULL};
    const char *term[] = {"report", "--db", db, "--format", "terminal", NULL};
    const char *const *cmds[] = {imp, md, term, imp};
    size_t i;

    for (i = 0; i < 4; i++) {
        pg_proc p;
        pg_test_run(&p, tmp, NULL, cmds[i]);
        cr_assert(p.status == 0 || p.status == 4, "%s: %d\n%s", cmds[i][0], p.status, p.err);
        cr_assert(strchr(p.out, '\033') == NULL && strchr(p.err, '\033') == NULL && strchr(p.out, '\007') == NULL,
                  "%s %s printed an escape sequence", cmds[i][0], cmds[i][3]);
        cr_assert(strstr(p.out, "red") != NULL || strstr(p.err, "red") != NULL, "the name is not shown: %s", p.out);
        pg_proc_free(&p);
    }
    free(db);
    free(json);
}

/* One element of an imported file over 16 MiB is refused as the message says, not at twice that. */
Test(hostile_cli, an_import_element_over_16_mib_is_refused)
{
    char *path = pg__asprintf("%s/big.json", tmp), *db = pg__asprintf("%s/b.db", tmp);
    const char *argv[] = {"import", "--db", db, "hyperfine", path, NULL};
    size_t pad = (size_t)20 << 20, i;
    FILE *f = fopen(path, "w");
    pg_proc p;

    cr_assert(f != NULL);
    fputs("{\"results\": [{\"command\": \"x\", \"mean\": 1.0, \"times\": [1.0, 1.0], \"note\": \"", f);
    for (i = 0; i < pad; i++)
        fputc('a', f);
    fputs("\"}]}", f);
    fclose(f);
    pg_test_run(&p, tmp, NULL, argv);
    cr_assert_eq(p.status, 2, "%d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, "larger than 16 MiB") != NULL, "%s", p.err);
    pg_proc_free(&p);
    free(path);
    free(db);
}

/*
 * A run's uuid comes from the kernel's generator or the run is not stored:
 * merges take equal uuids for one run, so no guessable fallback (time and
 * pid) may stand in. The test hook makes the generator fail.
 */
Test(hostile_cli, no_randomness_for_a_run_id_stores_nothing)
{
    char *db = pg__asprintf("%s/r.db", tmp), *data = pg_test_data("import/gbench_plain.json");
    const char *argv[] = {"import", "--db", db, "google-benchmark", data, NULL};
    const char *env[] = {"PG_TEST_NO_RANDOM=1", NULL};
    pg_proc p;

    pg_test_run(&p, tmp, env, argv);
    cr_assert_eq(p.status, 3, "%d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, "cannot draw a random run id") != NULL, "%s", p.err);
    pg_proc_free(&p);
    import_run(db, "c0ffee00c0ffee00");
    free(db);
    free(data);
}

/*
 * ci/gh/restore-db.sh: a fetch that failed (exit 3: network, API, a bad
 * archive) fails the step; only "nothing to restore" (exit 4) starts a new
 * history with a warning.
 */
Test(hostile_cli, restore_db_fails_on_a_failed_fetch_and_warns_on_nothing_to_restore)
{
    char *script = pg__asprintf("%s/ci/gh/restore-db.sh", PG_TEST_SOURCE_DIR);
    int codes[] = {3, 4}, want[] = {3, 0};
    size_t i;

    for (i = 0; i < 2; i++) {
        char *fake = pg__asprintf("%s/fake%zu.sh", tmp, i), *text = pg__asprintf("#!/bin/sh\nexit %d\n", codes[i]);
        char *cmd, *out;
        int rc;
        free(pg_test_write(tmp, strrchr(fake, '/') + 1, text));
        chmod(fake, 0755);
        cmd = pg__asprintf("cd '%s' && GITHUB_REPOSITORY=acme/kernels PERFGATE='%s' bash '%s' db/perfgate.db "
                           ">out.txt 2>&1",
                           tmp, fake, script);
        rc = system(cmd);
        out = pg__asprintf("%s/out.txt", tmp);
        free(text);
        text = slurp(out);
        cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == want[i], "db fetch exit %d: restore-db.sh exit %d\n%s",
                  codes[i], WEXITSTATUS(rc), text);
        cr_assert(strstr(text, codes[i] == 3 ? "::error" : "::warning") != NULL, "%s", text);
        free(text);
        free(out);
        free(cmd);
        free(fake);
    }
    free(script);
}
