/*
 * progress_test.c - what `run` and `gate` print while they measure, as a CI
 * log sees it: the binary runs with stderr in a file (not a terminal), so
 * every finished case must show as a line of its own, in order, on stderr.
 */
#include "support.h"

#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *tmp, *suite;

/* Three cases of 10 ms each, and one exact check: a gate over it takes a fraction of a second. */
static const char tiny[] = "suite: tiny\n"
                           "defaults: {threads: 1, min_run_time: 10ms, max_run_time: 1s, warmup: 1ms, min_samples: 3}\n"
                           "checks:\n"
                           "  - name: gather_counts_first\n"
                           "    kind: ops\n"
                           "    workload: {kernel: masked_select, rows: 16, cols: 16}\n"
                           "    expect: {within: masked_select, contains: [index, nonzero]}\n"
                           "benchmarks:\n"
                           "  - {name: sgemm, kernel: sgemm, params: {n: [16, 32]}}\n"
                           "  - {name: copy, kernel: copy, params: {n: [4096]}}\n";

static const char *const keys[] = {"tiny/sgemm[n=16]@1:cpu", "tiny/sgemm[n=32]@1:cpu", "tiny/copy[n=4096]@1:cpu"};

static void setup(void)
{
    tmp = pg_test_tmpdir();
    suite = pg_test_write(tmp, "tiny.yaml", tiny);
}

static void teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
    free(suite);
}

TestSuite(progress, .init = setup, .fini = teardown);

/* The full line that holds `at` (its start to its newline), copied into `line`. */
static void line_at(char *line, size_t len, const char *text, const char *at)
{
    const char *start = at, *end = strchr(at, '\n');

    while (start > text && start[-1] != '\n')
        start--;
    if (!end)
        end = at + strlen(at);
    snprintf(line, len, "%.*s", (int)(end - start), start);
}

/*
 * Asserts one progress line per case in `err`, in suite order, each with its
 * position, key, median and sample count. @return where the last line ends.
 */
static const char *assert_case_lines(const char *err)
{
    const char *at = err;
    char want[128], line[512];
    size_t i;

    for (i = 0; i < 3; i++) {
        snprintf(want, sizeof(want), "[%zu/3] %s  median ", i + 1, keys[i]);
        at = strstr(at, want);
        cr_assert(at != NULL, "no line '%s...' after the previous one in:\n%s", want, err);
        line_at(line, sizeof(line), err, at);
        cr_assert(strncmp(line, want, strlen(want)) == 0, "the line starts elsewhere: %s", line);
        cr_assert(strstr(line, " n=") && strstr(line, "s elapsed, ~") && strstr(line, "s left"), "%s", line);
        cr_assert(strchr(line, '\r') == NULL && strstr(line, "\033[") == NULL, "terminal codes in a log: %s", line);
        at += strlen(want);
    }
    /* One line per case: a case key shows exactly once in the progress. */
    for (i = 0; i < 3; i++) {
        snprintf(want, sizeof(want), "] %s  median", keys[i]);
        cr_assert(strstr(strstr(err, want) + 1, want) == NULL, "two lines for %s:\n%s", keys[i], err);
    }
    return strchr(at, '\n');
}

/* `perfgate run` over the tiny suite, not stored, with GITHUB_ACTIONS=`actions` and one more flag (NULL: none). */
static void run_tiny(pg_proc *p, const char *actions, const char *flag, const char *value)
{
    char *gha = pg__asprintf("GITHUB_ACTIONS=%s", actions);
    const char *env[] = {gha, "GITHUB_STEP_SUMMARY=", "GITHUB_EVENT_PATH=", NULL};
    const char *argv[] = {"run", "--no-store", "--peak-gflops", "100", suite, flag, value, NULL};

    /* The suite goes before the flag so that a NULL flag ends the list there. */
    pg_test_run(p, tmp, env, argv);
    cr_assert_eq(p->status, 0, "status %d, stderr: %s", p->status, p->err);
    free(gha);
}

Test(progress, log_gets_one_line_per_finished_case_in_order)
{
    pg_proc p;

    run_tiny(&p, "", NULL, NULL);
    assert_case_lines(p.err);
    cr_assert(strstr(p.err, "[1/1] check tiny/gather_counts_first passed\n") != NULL, "%s", p.err);
    /* Off GitHub Actions a workflow command would be noise in the log. */
    cr_assert(strstr(p.err, "::group::") == NULL && strstr(p.err, "::endgroup::") == NULL, "%s", p.err);
    cr_assert(strstr(p.out, "::group::") == NULL, "%s", p.out);
    pg_proc_free(&p);
}

Test(progress, github_actions_groups_the_case_lines)
{
    pg_proc p;
    const char *env[] = {"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=", "GITHUB_EVENT_PATH=", NULL};
    char *db = pg__asprintf("%s/pg.db", tmp);
    const char *argv[] = {"gate", "--db", db, "--branch", "main", "--commit", "c0ffee", "--peak-gflops", "100",
                          suite, NULL};
    const char *open, *close, *first, *end;

    pg_test_run(&p, tmp, env, argv);
    /* A first gate: nothing to compare with (exit 4). */
    cr_assert_eq(p.status, 4, "status %d, stderr: %s", p.status, p.err);
    open = strstr(p.err, "::group::perfgate: measuring 3 cases\n");
    close = strstr(p.err, "::endgroup::\n");
    first = strstr(p.err, "[1/3] ");
    cr_assert(open && close && first, "%s", p.err);
    cr_assert(open == p.err || open[-1] == '\n', "the group command starts its line: %s", p.err);
    end = assert_case_lines(p.err);
    cr_assert(open < first && end && end < close, "the group surrounds the case lines:\n%s", p.err);
    cr_assert(strstr(close + 1, "::endgroup::") == NULL && strstr(open + 1, "::group::") == NULL,
              "one group, opened and closed once:\n%s", p.err);
    pg_proc_free(&p);
    free(db);
}

Test(progress, stdout_stays_clean_for_a_json_export)
{
    pg_proc p;

    run_tiny(&p, "true", "--json", "-");
    assert_case_lines(p.err);
    /* stdout is the JSON document alone: it opens with '{', and no progress or group line is in it. */
    cr_assert(p.out[0] == '{', "%.200s", p.out);
    cr_assert(strstr(p.out, "elapsed") == NULL && strstr(p.out, "[1/3]") == NULL && strstr(p.out, "::") == NULL,
              "%s", p.out);
    pg_proc_free(&p);
}

Test(progress, style_none_prints_no_progress)
{
    pg_proc p;

    run_tiny(&p, "true", "--style", "none");
    cr_assert(strstr(p.err, "elapsed") == NULL && strstr(p.err, "::group::") == NULL, "%s", p.err);
    cr_assert(strstr(p.out, "elapsed") == NULL, "%s", p.out);
    pg_proc_free(&p);
}

/* A build directory whose bench.sh sleeps a little; `broken` is left out of the head build. */
static void write_build(const char *name, int with_broken)
{
    char *dir = pg__asprintf("%s/%s", tmp, name);
    char *path;

    cr_assert(mkdir(dir, 0755) == 0);
    path = pg_test_write(dir, "bench.sh", "#!/bin/sh\nsleep 0.002\n");
    cr_assert(chmod(path, 0755) == 0);
    free(path);
    if (with_broken) {
        path = pg_test_write(dir, "other.sh", "#!/bin/sh\nexit 0\n");
        cr_assert(chmod(path, 0755) == 0);
        free(path);
    }
    free(dir);
}

Test(progress, interleaved_gate_prints_a_line_per_round_in_a_group)
{
    pg_proc p;
    const char *env[] = {"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=", "GITHUB_EVENT_PATH=", NULL};
    char *cmds = pg_test_write(tmp, "cmds.yaml",
                               "suite: cmds\n"
                               "defaults: {warmup: 1ms, min_samples: 2, min_run_time: 10ms}\n"
                               "benchmarks:\n"
                               "  - {name: a, command: ['{build}/bench.sh']}\n"
                               "  - {name: broken, command: ['{build}/other.sh']}\n");
    const char *argv[] = {"gate", "--no-store", "--base-build", "base", "--head-build", "head", "--rounds", "3",
                          cmds, NULL};
    const char *open, *close, *at;
    char want[96];
    int r;

    write_build("base", 1);
    write_build("head", 0);
    pg_test_run(&p, tmp, env, argv);
    /*
     * Three rounds decide nothing (a 95% Tukey interval needs 6): `a` is UNSURE
     * whatever the machine does, `broken` an ERROR of its own: a case that never
     * ran makes the gate an ERROR, never a pass (exit 3).
     */
    cr_assert_eq(p.status, 3, "status %d, stderr: %s", p.status, p.err);
    open = strstr(p.err, "::group::perfgate: interleaving 2 cases over at most 3 rounds\n");
    close = strstr(p.err, "::endgroup::\n");
    cr_assert(open && close && open < close, "%s", p.err);
    /* The case that cannot run says so once, when it fails. */
    at = strstr(p.err, "cmds/broken[]@1:cpu  ERROR on the head build");
    cr_assert(at && open < at && at < close, "%s", p.err);
    at = open;
    for (r = 1; r <= 3; r++) {
        /* Below the first look (round 5) nothing settles: the one case stays open every round. */
        snprintf(want, sizeof(want), "[round %d/3] 1 case measured on both builds, 0 settled before, 1 open  ", r);
        at = strstr(at, want);
        cr_assert(at && at < close, "no '%s' in order inside the group:\n%s", want, p.err);
    }
    pg_proc_free(&p);
    free(cmds);
}
