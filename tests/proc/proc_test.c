/*
 * proc_test.c - nothing a case starts outlives it: a plugin's child and a
 * command's process tree die with perfgate whether it is killed (SIGKILL),
 * terminated (SIGTERM) or interrupted (SIGINT), and what they leave in the
 * background when they end normally dies with their sample. A plugin's
 * flood of output stays out of perfgate's own stdout.
 *
 * The tests wait for the markers the case writes (pids), never for a fixed
 * time, then allow one second for every recorded process to be gone.
 */
#include "support.h"

#include "compile.h"
#include "base/outfile.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *dir;

static void setup(void)
{
    dir = pg_test_tmpdir();
}

static void teardown(void)
{
    pg_test_rmtree(dir);
    free(dir);
}

TestSuite(proc, .init = setup, .fini = teardown, .timeout = 120);

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

/* Alive and not a zombie (a zombie has ended; only its parent's wait is missing). */
static int alive(pid_t pid)
{
    char path[64], buf[512], *rp;
    FILE *f;
    size_t n;

    if (kill(pid, 0) != 0 && errno == ESRCH)
        return 0;
    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    if (!(f = fopen(path, "r")))
        return 0;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    rp = strrchr(buf, ')');
    return !(rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X'));
}

/* Reads the pids in marker file `name` (one per line) once it exists, waiting up to 60 s. */
static size_t read_marker(pid_t *pids, size_t max, const char *name, int wait)
{
    char *path = pg__asprintf("%s/%s", dir, name), *text = NULL, *p;
    size_t n = 0, len, tries;

    for (tries = 0; tries < (wait ? 6000u : 1u); tries++) {
        struct stat st;
        if (stat(path, &st) == 0)
            break;
        nap_ms(10);
    }
    if (pg__read_file(&text, &len, path) == 0)
        for (p = text; n < max && *p;) {
            char *end;
            long v = strtol(p, &end, 10);
            if (end == p)
                break;
            if (v > 0)
                pids[n++] = (pid_t)v;
            p = end;
            while (*p == '\n')
                p++;
        }
    free(text);
    free(path);
    return n;
}

/*
 * Every pid gone within five seconds. The cases hang for 300 s, so anything
 * that outlives perfgate fails this; the bound leaves room for a SIGKILL
 * guard that is itself waiting for a CPU on a loaded machine (load 10 on 2
 * cores has taken more than one second).
 */
static void expect_gone(const pid_t *pids, size_t n, const char *what)
{
    size_t i, tries;

    for (tries = 0; tries < 500; tries++) {
        for (i = 0; i < n && !alive(pids[i]); i++)
            ;
        if (i == n)
            return;
        nap_ms(10);
    }
    for (i = 0; i < n; i++) {
        int left = alive(pids[i]);
        if (left)
            kill(pids[i], SIGKILL);
        cr_expect(!left, "%s: process %ld still alive 5 s after perfgate ended", what, (long)pids[i]);
    }
}

/* Starts perfgate in `dir` with PG_MARK_DIR set, its output to files. */
static pid_t start_perfgate(const char *const *args)
{
    const char *argv[16];
    size_t i;
    pid_t pid;

    argv[0] = PG_TEST_BINARY;
    for (i = 0; args[i] && i < 14; i++)
        argv[i + 1] = args[i];
    argv[i + 1] = NULL;
    pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int out;
        if (chdir(dir) != 0)
            _exit(127);
        out = open("perfgate.out", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(out, 1);
        dup2(out, 2);
        setenv("PG_MARK_DIR", dir, 1);
        setenv("NO_COLOR", "1", 1);
        /* As from a terminal: perfgate leaves a signal its caller ignores ignored. */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    return pid;
}

static const char hang_suite[] =
    "suite: s\nbenchmarks:\n  - {name: hang, plugin: libspawny.so, symbol: hang, timeout: 300s}\n";

static const char tree_script[] =
    "#!/bin/sh\n"
    "sleep 300 &\n"
    "echo $! > \"$PG_MARK_DIR/bg.tmp\" && mv \"$PG_MARK_DIR/bg.tmp\" \"$PG_MARK_DIR/bg.pid\"\n"
    "echo $$ > \"$PG_MARK_DIR/sh.tmp\" && mv \"$PG_MARK_DIR/sh.tmp\" \"$PG_MARK_DIR/sh.pid\"\n"
    "wait\n";

static const char tree_suite[] =
    "suite: s\nbenchmarks:\n  - {name: tree, command: [sh, '{suite_dir}/tree.sh'], timeout: 300s}\n";

/* Kills perfgate with `sig` while a case runs; nothing of the case may survive it. */
static void kill_mid_case(int plugin, int sig)
{
    const char *args[] = {"run", "--no-store", "s.yaml", NULL};
    pid_t pids[4], pg;
    size_t n = 0;
    int status;

    if (plugin) {
        free(pg_test_build_plugin(dir, "plugin/spawny.c", "spawny", NULL));
        free(pg_test_write(dir, "s.yaml", hang_suite));
    } else {
        free(pg_test_write(dir, "tree.sh", tree_script));
        free(pg_test_write(dir, "s.yaml", tree_suite));
    }
    pg = start_perfgate(args);
    n += read_marker(pids + n, 1, plugin ? "grandchild.pid" : "bg.pid", 1);
    n += read_marker(pids + n, 1, plugin ? "child.pid" : "sh.pid", 1);
    cr_assert_eq(n, 2, "the case never started (see %s/perfgate.out)", dir);
    cr_assert(alive(pids[0]) && alive(pids[1]));
    cr_assert_eq(kill(pg, sig), 0);
    cr_assert_eq(waitpid(pg, &status, 0), pg);
    cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == sig, "perfgate ended by status %#x, not by signal %d",
              status, sig);
    expect_gone(pids, n, plugin ? "plugin child" : "command tree");
}

Test(proc, plugin_child_dies_with_perfgate_on_sigkill)
{
    kill_mid_case(1, SIGKILL);
}

Test(proc, plugin_child_dies_with_perfgate_on_sigterm)
{
    kill_mid_case(1, SIGTERM);
}

Test(proc, plugin_child_dies_with_perfgate_on_sigint)
{
    kill_mid_case(1, SIGINT);
}

Test(proc, command_tree_dies_with_perfgate_on_sigkill)
{
    kill_mid_case(0, SIGKILL);
}

Test(proc, command_tree_dies_with_perfgate_on_sigterm)
{
    kill_mid_case(0, SIGTERM);
}

Test(proc, command_tree_dies_with_perfgate_on_sigint)
{
    kill_mid_case(0, SIGINT);
}

/*
 * Runs `suite` (its command `script` written as `script_name`, the spawny
 * plugin built) to a normal end, then expects every pid listed in marker
 * `list` (at least `min` of them) gone.
 */
static void normal_run_leaves_nothing(const char *script_name, const char *script, const char *suite,
                                      const char *list, size_t min, const char *what)
{
    const char *args[] = {"run", "--no-store", "s.yaml", NULL};
    pid_t pids[4096], pg;
    size_t n;
    int status;

    free(pg_test_build_plugin(dir, "plugin/spawny.c", "spawny", NULL));
    free(pg_test_write(dir, script_name, script));
    free(pg_test_write(dir, "s.yaml", suite));
    pg = start_perfgate(args);
    cr_assert_eq(waitpid(pg, &status, 0), pg);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "perfgate: status %#x (see %s/perfgate.out)", status,
              dir);
    n = read_marker(pids, 4096, list, 0);
    cr_assert_geq(n, min, "only %zu %s processes were recorded", n, what);
    expect_gone(pids, n, what);
}

/* Normal runs: every sample's background processes end with the sample, of commands and plugins alike. */
Test(proc, background_children_of_a_normal_run_are_killed)
{
    /* The command's warm-up and samples, and the plugin's blocks: several processes each. */
    normal_run_leaves_nothing("bg.sh", "#!/bin/sh\nsleep 300 &\necho $! >> \"$PG_MARK_DIR/bg.list\"\n",
                              "suite: s\n"
                              "defaults: {min_run_time: 20ms, warmup: 1ms, min_samples: 3, max_run_time: 2s}\n"
                              "benchmarks:\n"
                              "  - {name: cmd, command: [sh, '{suite_dir}/bg.sh']}\n"
                              "  - {name: plug, plugin: libspawny.so, symbol: bg}\n",
                              "bg.list", 6, "background child");
}

/*
 * Daemons leave every process group perfgate made: setsid, a double fork,
 * a child of the daemon's own in its new session. Each dies with its
 * sample still (perfgate is their subreaper and sweeps every child it did
 * not start), for commands and plugins alike, and nothing outlives perfgate.
 */
Test(proc, daemons_in_new_sessions_die_with_their_sample)
{
    normal_run_leaves_nothing("d.sh",
                              "#!/bin/sh\n"
                              "setsid sh -c 'echo $$ >> \"$PG_MARK_DIR/daemon.list\"; sleep 300 & "
                              "echo $! >> \"$PG_MARK_DIR/daemon.list\"; wait' &\n"
                              "( setsid sh -c 'echo $$ >> \"$PG_MARK_DIR/daemon.list\"; exec sleep 300' & )\n"
                              "sleep 0.05\n",
                              "suite: s\n"
                              "defaults: {min_run_time: 20ms, warmup: 1ms, min_samples: 3, max_run_time: 2s}\n"
                              "benchmarks:\n"
                              "  - {name: cmd, command: [sh, '{suite_dir}/d.sh']}\n"
                              "  - {name: plug, plugin: libspawny.so, symbol: daemon}\n",
                              "daemon.list", 6, "daemon");
}

/*
 * A temporary file perfgate writes by name (a restored database being
 * checked) is removed by the guard when perfgate dies before renaming it,
 * however it dies: SIGKILL and SIGTERM alike.
 */
static void temporary_file_dies_with(int sig)
{
    char *final = pg__asprintf("%s/perfgate.db", dir), *marker = pg__asprintf("%s/tmp.path", dir);
    char *tmp = NULL;
    size_t len, tries;
    pid_t pid = fork();
    int status;

    cr_assert(pid >= 0);
    if (pid == 0) {
        char *t = pg__outfile_temp(final, "fetch");
        if (!t)
            _exit(1);
        free(pg_test_write(dir, "tmp.path", t));
        for (;;)
            pause();
    }
    for (tries = 0; tries < 6000 && access(marker, F_OK) != 0; tries++)
        nap_ms(10);
    pg_assert_ok(pg__read_file(&tmp, &len, marker));
    cr_assert_eq(access(tmp, F_OK), 0, "the temporary file %s was never made", tmp);
    cr_assert_eq(kill(pid, sig), 0);
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    for (tries = 0; tries < 500 && access(tmp, F_OK) == 0; tries++)
        nap_ms(10);
    cr_assert_neq(access(tmp, F_OK), 0, "%s outlived the process that wrote it (signal %d)", tmp, sig);
    free(tmp);
    free(final);
    free(marker);
}

Test(proc, a_temporary_file_is_removed_when_perfgate_is_killed)
{
    temporary_file_dies_with(SIGKILL);
}

Test(proc, a_temporary_file_is_removed_when_perfgate_is_terminated)
{
    temporary_file_dies_with(SIGTERM);
}

/* A plugin writing 100 MB to each of stdout and stderr: `run --json -` still prints one valid JSON document. */
Test(proc, chatty_plugin_output_stays_out_of_the_json_report)
{
    const char *suite = "suite: s\n"
                        "defaults: {min_run_time: 20ms, warmup: 1ms, min_samples: 3, max_run_time: 2s}\n"
                        "benchmarks:\n  - {name: chatty, plugin: libspawny.so, symbol: chatty}\n";
    const char *argv[] = {"run", "--no-store", "--json", "-", "--style", "none", "s.yaml", NULL};
    const char *env[] = {"PG_CHATTY_MB=100", NULL};
    json_error_t jerr;
    json_t *doc;
    pg_proc p;

    free(pg_test_build_plugin(dir, "plugin/spawny.c", "spawny", NULL));
    free(pg_test_write(dir, "s.yaml", suite));
    pg_assert_ok(pg_test_run(&p, dir, env, argv));
    cr_assert_eq(p.status, 0, "exit %d: %.500s", p.status, p.err);
    cr_expect_lt(strlen(p.out), 1u << 20, "stdout holds %zu bytes", strlen(p.out));
    cr_expect_lt(strlen(p.err), 1u << 20, "stderr holds %zu bytes", strlen(p.err));
    doc = json_loads(p.out, 0, &jerr);
    cr_assert(doc, "stdout is not JSON: %s: %.200s", jerr.text, p.out);
    cr_expect(strstr(p.out, "\"s/chatty") != NULL, "the case is in the report");
    json_decref(doc);
    pg_proc_free(&p);
}

/* A plugin's stderr is captured, not lost: its last line is shown with the error. */
Test(proc, plugin_stderr_is_shown_with_its_error)
{
    const char *suite = "suite: s\nbenchmarks:\n  - {name: dies, plugin: libspawny.so, symbol: dies}\n";
    const char *argv[] = {"run", "--no-store", "--style", "none", "--json", "-", "s.yaml", NULL};
    pg_proc p;

    free(pg_test_build_plugin(dir, "plugin/spawny.c", "spawny", NULL));
    free(pg_test_write(dir, "s.yaml", suite));
    pg_assert_ok(pg_test_run(&p, dir, NULL, argv));
    cr_expect(strstr(p.out, "crashed with signal 6") && strstr(p.out, "(stderr: spawny: lost the device)"),
              "%s", p.out);
    cr_expect(!strstr(p.err, "lost the device\n"), "the plugin's stderr reached perfgate's: %s", p.err);
    pg_proc_free(&p);
}
