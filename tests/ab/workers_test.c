/*
 * workers_test.c - interleaved rounds measured by worker processes kept
 * across rounds: how many processes measure, a worker killed or talking
 * garbage is replaced, and verdicts come out as with fresh processes.
 *
 * The plugin (tests/data/plugin/pids.c) writes the id of the process that
 * measures it to a file at every measurement, so the tests count processes,
 * never time; PG_TEST_TURN_LOCK (testhooks.h) records any block measured in
 * its turn while the other build's was. Its cases are judged at a 50 % threshold: lockstep rounds of
 * identical builds stay far inside it and a 3x build far beyond it however
 * loaded the machine is.
 */
#include "support.h"

#include "compile.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *tmp, *base, *same, *slow, *suite, *pids, *lock;

static void setup(void)
{
    tmp = pg_test_tmpdir();
    base = pg_test_build_plugin(tmp, "plugin/pids.c", "pids_base", NULL);
    same = pg_test_build_plugin(tmp, "plugin/pids.c", "pids_same", NULL);
    slow = pg_test_build_plugin(tmp, "plugin/pids.c", "pids_slow", "-DPIDS_SLOW=3");
    suite = pg__asprintf("%s/w.yaml", tmp);
    {
        char *text = pg__asprintf("suite: w\n"
                                  "defaults: {warmup: 2ms, min_samples: 3,\n"
                                  "           regression: {threshold: 50%%, alpha: 0.05}}\n"
                                  "benchmarks:\n"
                                  "  - {name: work, plugin: '%s', symbol: work, params: {n: [2000, 3000]}}\n"
                                  "  - {name: turns, plugin: '%s', symbol: turns, params: {n: [2000]}}\n",
                                  base, base);
        free(pg_test_write(tmp, "w.yaml", text));
        free(text);
    }
    pids = pg__asprintf("%s/pids.txt", tmp);
    lock = pg__asprintf("%s/turns.lock", tmp);
}

static void teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
    free(base);
    free(same);
    free(slow);
    free(suite);
    free(pids);
    free(lock);
}

TestSuite(workers, .init = setup, .fini = teardown, .timeout = 300);

/* Lines the plugin wrote, and how many distinct processes wrote them. */
static size_t count_pids(size_t *distinct)
{
    char *text = NULL, *p;
    size_t len = 0, n = 0, d = 0, i;
    long *seen;

    if (pg__read_file(&text, &len, pids) != 0)
        return *distinct = 0;
    seen = calloc(len / 11 + 1, sizeof(long));
    cr_assert(seen);
    for (p = text; p + 11 <= text + len; p += 11) {
        long pid = strtol(p, NULL, 10);
        for (i = 0; i < d && seen[i] != pid; i++)
            ;
        if (i == d)
            seen[d++] = pid;
        n++;
    }
    free(seen);
    free(text);
    remove(pids);
    *distinct = d;
    return n;
}

static void run_ab(pg_proc *p, const char *head, const char *const *env_extra, const char *rounds, int fixed,
                   const char *flag)
{
    const char *env[8] = {NULL};
    const char *argv[16];
    char *pidvar = pg__asprintf("PG_TEST_PID_FILE=%s", pids), *lockvar = pg__asprintf("PG_TEST_TURN_LOCK=%s", lock);
    int n = 0, e = 0;

    env[e++] = pidvar;
    env[e++] = lockvar;
    while (env_extra && *env_extra && e < 7)
        env[e++] = *env_extra++;
    argv[n++] = "ab";
    argv[n++] = "--base";
    argv[n++] = base;
    argv[n++] = "--head";
    argv[n++] = head;
    argv[n++] = "-r";
    argv[n++] = rounds;
    argv[n++] = "--round-time";
    argv[n++] = "0.01";
    argv[n++] = "--seed";
    argv[n++] = "7";
    if (fixed)
        argv[n++] = "--fixed-rounds";
    if (flag)
        argv[n++] = flag;
    argv[n++] = suite;
    argv[n] = NULL;
    pg_test_run(p, NULL, env, argv);
    free(pidvar);
    free(lockvar);
}

/*
 * The exit code the summary line of `perfgate ab` owes: 1 with a regression,
 * else 0 when some case was decided, else 4 (nothing decided). Fixed-round
 * A/A runs of 8 rounds may leave a case UNSURE on a loaded machine; the exit
 * code must still be the one that goes with what was decided.
 */
static int owed_exit(const char *out)
{
    const char *line = strstr(out, " regressions, ");
    unsigned r = 0, i = 0, u = 0, n = 0;

    while (line && line > out && line[-1] != '\n')
        line--;
    cr_assert(line && sscanf(line, "%u regressions, %u improvements, %u unchanged, %u unsure", &r, &i, &u, &n) == 4,
              "%s", out);
    return r ? 1 : i + u ? 0 : 4;
}

/* Whether a report line of case NAME carries VERDICT. */
static int case_says(const char *out, const char *name, const char *verdict)
{
    for (const char *line = strstr(out, name); line; line = strstr(line + 1, name)) {
        const char *end = strchr(line, '\n'), *v = strstr(line, verdict);

        if (v && (!end || v < end))
            return 1;
    }
    return 0;
}

/* Blocks of the two builds that ran in their turns at the same time (PG_TEST_TURN_LOCK, testhooks.h). */
static int overlaps(void)
{
    char *path = pg__asprintf("%s.overlap", lock), *text = NULL;
    size_t len = 0;
    int n = pg__read_file(&text, &len, path) == 0 ? (int)(len / 8) : 0;

    free(text);
    free(path);
    return n;
}

/*
 * An A/A run of 8 fixed rounds with `env`: 8 rounds x 3 cases x 2 builds = 48 measurements, by
 * `processes` distinct processes, never a block of one build while the other's ran; `says` is the
 * workers' progress line, or NULL when no worker may have run.
 */
static void expect_processes(const char *const *env, size_t processes, const char *says)
{
    size_t lines, distinct;
    pg_proc p;

    run_ab(&p, same, env, "8", 1, NULL);
    cr_assert_eq(p.status, owed_exit(p.out), "%d\n%s\n%s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "0 regressions") != NULL && strstr(p.out, "ERROR") == NULL, "%s", p.out);
    cr_assert(says ? strstr(p.err, says) != NULL : strstr(p.err, "worker processes") == NULL, "%s", p.err);
    pg_proc_free(&p);
    lines = count_pids(&distinct);
    cr_assert_eq(lines, 48);
    cr_assert_eq(distinct, processes);
    cr_assert_eq(overlaps(), 0);
}

Test(workers, two_workers_measure_every_round_and_are_replaced_every_period)
{
    const char *period[] = {"PERFGATE_WORKER_ROUNDS=4", NULL};
    const char *fresh[] = {"PERFGATE_WORKER_ROUNDS=4", "PERFGATE_FRESH_PROCESSES=1", NULL};
    size_t lines, distinct;
    pg_proc p;

    /* 2 workers per 4 rounds: 4 processes. */
    expect_processes(period, 4, "4 worker processes measured the plugin cases (fresh ones every 4 rounds)");
    /* Without PERFGATE_WORKER_ROUNDS, fresh processes (the default): one per build, case and round. */
    expect_processes(NULL, 48, NULL);
    /* PERFGATE_FRESH_PROCESSES=1 wins over PERFGATE_WORKER_ROUNDS. */
    expect_processes(fresh, 48, NULL);
    /* The flag wins over PERFGATE_WORKER_ROUNDS: 3 rounds x 3 cases x 2 builds, each its own process. */
    run_ab(&p, same, period, "3", 1, "--fresh-processes");
    cr_assert_eq(p.status, 4, "%d\n%s\n%s", p.status, p.out, p.err);
    pg_proc_free(&p);
    lines = count_pids(&distinct);
    cr_assert_eq(lines, 18);
    cr_assert_eq(distinct, 18);
}

Test(workers, identical_builds_are_same_and_a_3x_build_regressed)
{
    const char *two[] = {"PERFGATE_WORKER_ROUNDS=2", NULL};
    size_t lines, distinct;
    pg_proc p;

    /* Sequential: the work cases settle SAME, usually at the first look (5 rounds). The turns case
       may stay too wide to settle at 50 % on a loaded machine: UNSURE is honest there, a REGRESSED or
       IMPROVED never is. */
    run_ab(&p, same, two, "20", 0, NULL);
    cr_assert_eq(p.status, owed_exit(p.out), "%d\n%s\n%s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "0 regressions, 0 improvements, ") != NULL, "%s", p.out);
    cr_assert(case_says(p.out, "w/work[n=2000]", "SAME") && case_says(p.out, "w/work[n=3000]", "SAME"), "%s",
              p.out);
    pg_proc_free(&p);
    /* 5 rounds when every case settles at the first look (a loaded machine may take more): each pair of
       workers (fresh every 2 rounds) measured every case of its rounds. */
    lines = count_pids(&distinct);
    cr_assert_geq(lines, 30);
    cr_assert_geq(distinct, 6);
    cr_assert_eq(distinct % 2, 0, "%zu", distinct);
    cr_assert_leq(distinct * 3, lines, "%zu processes for %zu measurements", distinct, lines);
    cr_assert_eq(overlaps(), 0);
    /* A head build 3x slower: its blocks are longer and its block counts differ from the base's, so
       one worker runs on alone after the other's last block, and answers its last turn later. */
    run_ab(&p, slow, two, "20", 0, NULL);
    cr_assert_eq(p.status, 1, "%d\n%s\n%s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "3 regressions, 0 improvements, 0 unchanged, 0 unsure") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "ERROR") == NULL && strstr(p.err, "a worker process failed") == NULL, "%s\n%s", p.out,
              p.err);
    pg_proc_free(&p);
    /* At least 5 rounds x 3 cases x 2 builds, by pairs of workers; and still never two blocks at once. */
    lines = count_pids(&distinct);
    cr_assert_geq(lines, 30);
    cr_assert_eq(distinct % 2, 0, "%zu", distinct);
    cr_assert_leq(distinct * 3, lines, "%zu processes for %zu measurements", distinct, lines);
    cr_assert_eq(overlaps(), 0);
}

Test(workers, a_worker_killed_mid_run_is_replaced_and_the_gate_still_decides)
{
    const char *kill[] = {"PG_TEST_KILL_AT=7", "PERFGATE_WORKER_ROUNDS=1000", NULL};
    size_t lines, distinct;
    pg_proc p;

    /* The process writing line 7 (round 2, a worker) dies by SIGKILL: that round is measured again. */
    run_ab(&p, slow, kill, "20", 0, NULL);
    cr_assert_eq(p.status, 1, "%d\n%s\n%s", p.status, p.out, p.err);
    /* Every case REGRESSED; the one verdict a loaded machine may turn is UNSURE (rounds ran out), never SAME. */
    cr_assert(strstr(p.out, "3 regressions, 0 improvements, 0 unchanged, 0 unsure") != NULL ||
                  (strstr(p.out, " regressions, 0 improvements, 0 unchanged, ") != NULL &&
                   strstr(p.out, "0 regressions") == NULL),
              "%s", p.out);
    cr_assert(strstr(p.err, "a worker process failed") != NULL, "%s", p.err);
    cr_assert(strstr(p.err, "signal 9") != NULL, "%s", p.err);
    cr_assert(strstr(p.err, "this round is measured again in fresh processes") != NULL, "%s", p.err);
    cr_assert(strstr(p.out, "ERROR") == NULL, "%s", p.out);
    pg_proc_free(&p);
    lines = count_pids(&distinct);
    /* Workers never recycled but for the kill: the first pair, the killed round's two fresh processes, the new pair. */
    cr_assert_eq(distinct, 6, "%zu processes for %zu measurements", distinct, lines);
}

Test(workers, a_worker_that_breaks_the_protocol_is_replaced_with_a_clear_message)
{
#ifdef PG_TEST_HOOKS
    const char *garbage[] = {"PG_TEST_WORKER_GARBAGE=3", "PERFGATE_WORKER_ROUNDS=2", NULL};
    pg_proc p;

    /* Every worker answers its third request with garbage: after three replacements, fresh processes only. */
    run_ab(&p, same, garbage, "8", 1, NULL);
    cr_assert_eq(p.status, owed_exit(p.out), "%d\n%s\n%s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "0 regressions") != NULL, "%s", p.out);
    cr_assert(strstr(p.err, "broke the result protocol") != NULL, "%s", p.err);
    cr_assert(strstr(p.err, "(worker process)") != NULL, "%s", p.err);
    cr_assert(strstr(p.err, "and so are the rounds left") != NULL, "%s", p.err);
    cr_assert(strstr(p.out, "ERROR") == NULL, "%s", p.out);
    pg_proc_free(&p);
#else
    cr_skip_test("built without PG_TEST_HOOKS");
#endif
}

/*
 * --max-time ends the rounds, also while the next case's pair is setting up
 * beside the one taking its turns (PERFGATE_OVERLAP_SETUP=1): the cases are decided on the rounds they
 * have, and the report says why the rounds stopped. Rounds of 50 ms a side
 * make 3 cases take well over a second per 3 rounds, and a 3x build needs 7
 * rounds to be REGRESSED at Holm's level for 3 cases.
 */
Test(workers, max_time_ends_the_rounds_and_the_open_cases_are_decided_on_what_they_have)
{
    char *pidvar = pg__asprintf("PG_TEST_PID_FILE=%s", pids);
    const char *env[] = {pidvar, "PERFGATE_OVERLAP_SETUP=1", NULL};
    const char *argv[] = {"ab", "--base", base, "--head", slow, "-r", "20", "--round-time", "0.05", "--max-time", "1",
                          "--seed", "7", suite, NULL};
    const char *spent;
    size_t lines, distinct;
    int rounds = 0;
    pg_proc p;

    pg_test_run(&p, NULL, env, argv);
    cr_assert_eq(p.status, owed_exit(p.out), "%d\n%s\n%s", p.status, p.out, p.err);
    spent = strstr(p.err, "--max-time 1s spent after ");
    cr_assert(spent && sscanf(spent, "--max-time 1s spent after %d round", &rounds) == 1, "%s", p.err);
    cr_assert(rounds >= 1 && rounds < 7, "%d rounds\n%s", rounds, p.err);
    /* Never SAME or IMPROVED: the head build is 3x slower; what time left open is UNSURE. */
    cr_assert(strstr(p.out, "0 improvements, 0 unchanged, ") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "ERROR") == NULL, "%s", p.out);
    pg_proc_free(&p);
    free(pidvar);
    /* Each measured round of each case wrote two lines (fresh processes); a pair cancelled before its turns
       may add two more, never fewer. */
    lines = count_pids(&distinct);
    cr_assert_geq(lines, (size_t)(2 * 3 * rounds) - 6, "%zu lines, %d rounds", lines, rounds);
    cr_assert_eq(distinct, lines);
}
