/* ab_test.c - interleaved A/B runs: rounds, random order, {build}, verdicts, the paired analysis. */
#include "support.h"

#include "ab/ab.h"
#include "compile.h"
#include "stats/stats.h"
#include "suite/suite.h"
#include "base/util.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

TestSuite(ab, .init = setup, .fini = teardown, .timeout = 300);

/* Reference values from tests/data/ab/paired_reference.py (scipy.stats.wilcoxon, Walsh averages). */
Test(ab, paired_analysis_matches_the_scipy_reference)
{
    const double base[] = {1.00, 1.02, 0.98, 1.01, 0.99, 1.03, 1.00, 0.97, 1.02, 1.01, 1.00, 0.99, 1.04, 1.00, 0.98};
    const double head[] = {1.10, 1.12, 1.07, 1.13, 1.08, 1.11, 1.09, 1.10, 0.99, 1.12, 1.11, 1.08, 1.15, 1.09, 1.06};
    const double same[] = {1.01, 1.00, 0.99, 1.00, 1.00, 1.02};
    pg_paired_analysis p;

    pg_assert_ok(pg_ab_paired_analyse(&p, base, head, 15, 0.95));
    cr_assert_eq(p.n, 15);
    cr_assert_float_eq(p.ratio, 1.0954451150103324, 1e-12);
    cr_assert_float_eq(p.ci_lo, 1.086260969679298, 1e-12);
    cr_assert_float_eq(p.ci_hi, 1.1054862685266205, 1e-12);
    cr_assert_float_eq(p.confidence, 0.95, 1e-12);
    cr_assert_eq(p.head_slower, 14);
    cr_assert_float_eq(p.p_slower, 0.00040067676717834899, 1e-15);
    cr_assert_float_eq(p.p_faster, 0.99959932323282163, 1e-12);

    /* Ties among |log ratios| (and rounds that tied outright): the normal approximation, as scipy. */
    pg_assert_ok(pg_ab_paired_analyse(&p, base, same, 6, 0.95));
    cr_assert_float_eq(p.ratio, 1.0000500037503126, 1e-12);
    cr_assert_float_eq(p.ci_lo, 0.98039215686274506, 1e-12);
    cr_assert_float_eq(p.ci_hi, 1.010204081632653, 1e-12);
    cr_assert_float_eq(p.p_slower, 0.4167420021944796, 1e-9);
    cr_assert_float_eq(p.p_faster, 0.58325799780552035, 1e-9);
}

static void write_script(const char *dir, const char *name, const char *body)
{
    char *path = pg_test_write(dir, name, body);

    chmod(path, 0755);
    free(path);
}

static pg_suite_set load(const char *yaml)
{
    char *path = pg_test_write(tmp, "ab.yaml", yaml);
    const char *paths[] = {path};
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_suite_set set = {0};

    pg_assert_ok(pg_suite_set_load(&set, paths, 1, &so, NULL));
    free(path);
    return set;
}

static size_t index_of(const pg_run *run, const char *name)
{
    size_t i;

    for (i = 0; i < run->nresults; i++)
        if (strcmp(run->results[i].name, name) == 0)
            return i;
    cr_assert_fail("no %s", name);
    return 0;
}

Test(ab, build_dirs_substitute_rounds_interleave_and_a_3x_slowdown_regresses)
{
    char *base = pg__asprintf("%s/base", tmp), *head = pg__asprintf("%s/head", tmp);
    pg_ab_options o = PG_AB_OPTIONS_INIT;
    pg_suite_set set;
    pg_ab_result ab;
    size_t i, slow, broken, head_first = 0;

    cr_assert(mkdir(base, 0755) == 0 && mkdir(head, 0755) == 0);
    /*
     * The builds report their own times (metrics: json): 20 ms against 60 ms,
     * exactly, whatever the machine does. Every round is then head/base = 3
     * (Hodges-Lehmann ratio exactly 3), every sign positive: the sequential
     * rule settles it REGRESSED after 5 rounds.
     */
    write_script(base, "bench.sh", "#!/bin/sh\necho '{\"time\": 0.02}'\n");
    write_script(head, "bench.sh", "#!/bin/sh\necho '{\"time\": 0.06}'\n");
    write_script(base, "other.sh", "#!/bin/sh\nexit 0\n");
    set = load("suite: ab\n"
               "defaults: {warmup: 1ms, min_samples: 2}\n"
               "benchmarks:\n"
               "  - {name: slow, command: ['{build}/bench.sh'], metrics: json}\n"
               "  - {name: broken, command: ['{build}/other.sh']}\n");
    o.base = base;
    o.head = head;
    o.rounds = 6;
    o.seed = 42;
    o.round_time = 0.01;
    o.round_samples = 2;
    pg_assert_ok(pg_ab_run(&ab, &set, &o));
    /* Sequential: settled at the first look (5 rounds, all 3x slower), so the sixth round is never run. */
    cr_assert_eq(ab.rounds, 5);
    cr_assert_eq(ab.max_rounds, 6);
    cr_assert(ab.sequential);
    cr_assert_eq(ab.seed, 42);
    slow = index_of(ab.head, "slow");
    broken = index_of(ab.head, "broken");
    cr_assert_eq(ab.base->results[slow].nsamples, 5, "one sample per round");
    cr_assert_eq(ab.head->results[slow].nsamples, 5);
    cr_assert_eq(ab.head->results[slow].warnings & PG_WARN_FEW_SAMPLES, 0, "settled early is not too few");
    cr_assert_float_eq(ab.head->results[slow].summary.median, 0.06, 1e-9);
    cr_assert_float_eq(ab.base->results[slow].summary.median, 0.02, 1e-9);
    cr_assert_eq(ab.cmp->cases[slow].verdict, PG_VERDICT_REGRESSED, "%s",
                 pg_verdict_name(ab.cmp->cases[slow].verdict));
    cr_assert_eq(ab.paired[slow].n, 5);
    cr_assert_eq(ab.paired[slow].settled_at, 5);
    cr_assert_eq(ab.cmp->cases[slow].est.settled_at, 5);
    cr_assert(ab.paired[slow].sequential);
    cr_assert_eq(ab.paired[slow].head_slower, 5);
    cr_assert_float_eq(ab.paired[slow].ratio, 3.0, 1e-9);
    cr_assert_gt(ab.paired[slow].ci_lo, 1.0, "paired interval from %g", ab.paired[slow].ci_lo);
    /* Head's build lacks other.sh: an error of that case only, never a verdict. */
    cr_assert_eq(ab.cmp->cases[broken].verdict, PG_VERDICT_ERROR);
    cr_assert(strstr(ab.cmp->cases[broken].reason, "head build") != NULL, "%s", ab.cmp->cases[broken].reason);
    cr_assert(strstr(ab.cmp->cases[broken].reason, "other.sh") != NULL, "%s", ab.cmp->cases[broken].reason);
    cr_assert_eq(ab.cmp->exit_code, 1);
    /* Both orders occur: the order is drawn per round, from the seed. */
    for (i = 0; i < 5; i++)
        head_first += ab.order_head_first[i * 2 + slow];
    cr_assert(head_first > 0 && head_first < 5, "head first in %zu of 5 rounds", head_first);
    cr_assert(strstr(ab.cmp->method, "rounds per case: median 5, max 5") != NULL, "%s", ab.cmp->method);
    pg_ab_result_clear(&ab);
    pg_suite_set_clear(&set);
    free(base);
    free(head);
}

Test(ab, the_order_is_reproducible_from_the_seed)
{
    pg_ab_options o = PG_AB_OPTIONS_INIT;
    pg_suite_set set = load("suite: s\ndefaults: {warmup: 1ms, min_samples: 1}\n"
                            "benchmarks:\n  - {name: t, command: ['true']}\n");
    pg_ab_result a, b;

    o.base = tmp;
    o.head = tmp;
    o.rounds = 8;
    o.seed = 7;
    o.round_time = 0.001;
    o.round_samples = 1;
    /* All 8 rounds in both runs: a sequential case may settle at a different round in each. */
    o.fixed = 1;
    pg_assert_ok(pg_ab_run(&a, &set, &o));
    pg_assert_ok(pg_ab_run(&b, &set, &o));
    cr_assert_arr_eq(a.order_head_first, b.order_head_first, 8 * sizeof(int));
    pg_ab_result_clear(&a);
    pg_ab_result_clear(&b);
    pg_suite_set_clear(&set);
}

Test(ab, the_binary_runs_the_example_plugin_builds)
{
    char *build = pg_test_build_dir();
    char *base = pg__asprintf("%s/examples/plugin/libpg_example.so", build);
    char *head = pg__asprintf("%s/examples/plugin/libpg_example_slow.so", build);
    const char *argv[] = {"ab", "--base", base, "--head", head, "-r", "3", "--round-time", "0.005", "--seed", "5",
                          PG_TEST_SOURCE_DIR "/suites/plugin.yaml", NULL};
    const char *no_head[] = {"ab", "--base", base, PG_TEST_SOURCE_DIR "/suites/plugin.yaml", NULL};
    const char *missing[] = {"ab", "--base", base, "--head", "/no/such/lib.so",
                             PG_TEST_SOURCE_DIR "/suites/plugin.yaml", NULL};
    const char *bad_time[] = {"PERFGATE_ROUND_TIME=20ms", NULL};
    const char *no_time[] = {"ab", "--base", base, "--head", head, "-r", "3", PG_TEST_SOURCE_DIR "/suites/plugin.yaml",
                             NULL};
    pg_proc p;

    pg_test_run(&p, NULL, NULL, argv);
    /* Three rounds cannot decide anything (a 95% Tukey interval needs 6): every case UNSURE, exit 4. On a
       busy machine rounds may be left out (a side did not get its CPU): fewer rounds, still too few, or
       none at all, and the case says the machine was busy. */
    cr_assert_eq(p.status, 4, "%d %s %s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "0 regressions, 0 improvements, 0 unchanged, 2 unsure") != NULL, "%s", p.out);
    {
        const char *at = strstr(p.out, "too few rounds (");
        cr_assert((at && at[16] >= '0' && at[16] <= '3' && at[17] == ')') ||
                      strstr(p.out, "(3 of 3 left out): the machine was busy") != NULL,
                  "%s", p.out);
    }
    cr_assert(strstr(p.out, "A/B: 3 interleaved rounds, seed 5") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "plugin/matmul_chain[layers=10,n=64]@1:cpu") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "paired rounds") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "ERROR") == NULL, "%s", p.out);
    pg_proc_free(&p);
    pg_test_run(&p, NULL, NULL, no_head);
    cr_assert_eq(p.status, 2);
    cr_assert(strstr(p.err, "--base and --head") != NULL, "%s", p.err);
    pg_proc_free(&p);
    pg_test_run(&p, NULL, NULL, missing);
    cr_assert_eq(p.status, 2, "%d %s", p.status, p.err);
    cr_assert(strstr(p.err, "/no/such/lib.so") != NULL, "%s", p.err);
    pg_proc_free(&p);
    /* A round time from the environment that is no number of seconds: exit 2 before anything runs. */
    pg_test_run(&p, NULL, bad_time, no_time);
    cr_assert_eq(p.status, 2, "%d %s", p.status, p.err);
    cr_assert(strstr(p.err, "PERFGATE_ROUND_TIME=20ms: expected seconds") != NULL, "%s", p.err);
    cr_assert(strstr(p.out, "paired rounds") == NULL, "%s", p.out);
    pg_proc_free(&p);
    free(build);
    free(base);
    free(head);
}

/* gate --base-build/--head-build: interleaved rounds inside the gate, stored, confirmed by fresh rounds. */
Test(ab, the_gate_interleaves_two_builds_stores_the_head_and_confirms)
{
    char *base = pg__asprintf("%s/base", tmp), *head = pg__asprintf("%s/head", tmp);
    char *suite, *db = pg__asprintf("%s/pg.db", tmp), *md = pg__asprintf("%s/report.md", tmp), *text;
    const char *env[] = {"CI=true", NULL};
    size_t len;
    pg_proc p;

    cr_assert(mkdir(base, 0755) == 0 && mkdir(head, 0755) == 0);
    /*
     * Reported times (metrics: json), exact whatever the load: `slow` 20 ms
     * against 60 ms (every round 3x: REGRESSED, and again in the confirming
     * rounds), `same` 20 ms in both (every round 1x: interval [1, 1], SAME).
     */
    write_script(base, "bench.sh", "#!/bin/sh\necho '{\"time\": 0.02}'\n");
    write_script(head, "bench.sh", "#!/bin/sh\necho '{\"time\": 0.06}'\n");
    write_script(base, "same.sh", "#!/bin/sh\necho '{\"time\": 0.02}'\n");
    write_script(head, "same.sh", "#!/bin/sh\necho '{\"time\": 0.02}'\n");
    suite = pg_test_write(tmp, "ab.yaml",
                          "suite: ab\n"
                          "defaults: {warmup: 1ms, min_samples: 2}\n"
                          "benchmarks:\n"
                          "  - {name: slow, command: ['{build}/bench.sh'], metrics: json}\n"
                          "  - {name: same, command: ['{build}/same.sh'], metrics: json}\n");
    {
        const char *argv[] = {"gate", "--db", db, "--branch", "pr", "--commit", "c0ffee", "--base-build", base,
                              "--head-build", head, "-r", "6", "--md", md, suite, NULL};
        pg_test_run(&p, NULL, env, argv);
    }
    cr_assert_eq(p.status, 1, "%d\n%s\n%s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "interleaving base") != NULL, "%s", p.out);
    /* CI=true confirms: the regressed case got fresh interleaved rounds, and both measurements show. */
    cr_assert(strstr(p.out, "confirming 1 regressed or improved case") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "confirmed by a re-run: first run +") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "anytime-valid sign-test confidence sequence") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "rounds per case: median") != NULL, "%s", p.out);
    pg_proc_free(&p);
    pg_assert_ok(pg__read_file(&text, &len, md));
    cr_assert(strstr(text, "vs base build") != NULL, "%s", text);
    cr_assert(strstr(text, "`ab/slow@1:cpu`") != NULL || strstr(text, "ab/slow") != NULL, "%s", text);
    free(text);
    /*
     * The head's rounds are stored as the run (six values per case), with the
     * decision: `report` shows the interleaved verdicts against the base build.
     * History leaves the run out: rounds are not the plain runs it follows.
     */
    {
        const char *argv[] = {"report", "--db", db, "--format", "json", NULL};
        const char *hist[] = {"history", "--db", db, "ab/slow*", NULL};
        json_t *r, *v;
        pg_test_run(&p, NULL, NULL, argv);
        cr_assert_eq(p.status, 0, "%d %s %s", p.status, p.out, p.err);
        r = json_loads(p.out, 0, NULL);
        cr_assert(r != NULL, "%s", p.out);
        cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "run"), "commit")), "c0ffee");
        cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "run"), "mode")), "interleaved-head");
        cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "summary"), "outcome")), "FAIL");
        v = json_array_get(json_object_get(r, "verdicts"), 0);
        cr_assert_str_eq(json_string_value(json_object_get(v, "verdict")), "REGRESSED");
        cr_assert_eq(json_integer_value(json_object_get(v, "rounds")), 6);
        cr_assert_eq(json_array_size(json_object_get(json_array_get(json_object_get(r, "results"), 0), "samples")), 6);
        cr_assert(json_object_get(json_object_get(json_object_get(r, "baseline"), "build"), "sha256") != NULL,
                  "%s", p.out);
        json_decref(r);
        pg_proc_free(&p);
        pg_test_run(&p, NULL, NULL, hist);
        cr_assert_eq(p.status, 2, "%d %s %s", p.status, p.out, p.err);
        cr_assert(strstr(p.err, "no stored results") != NULL, "%s", p.err);
        pg_proc_free(&p);
    }
    /* The two ways of naming a baseline exclude each other; a lone build is half an A/B. */
    {
        const char *both[] = {"gate", "--db", db, "--base", "last:1", "--base-build", base, "--head-build", head,
                              suite, NULL};
        const char *lone[] = {"gate", "--db", db, "--base-build", base, suite, NULL};
        const char *rounds[] = {"gate", "--db", db, "-r", "5", suite, NULL};
        pg_test_run(&p, NULL, NULL, both);
        cr_assert_eq(p.status, 2, "%d %s", p.status, p.err);
        cr_assert(strstr(p.err, "--base-build") != NULL, "%s", p.err);
        pg_proc_free(&p);
        pg_test_run(&p, NULL, NULL, lone);
        cr_assert_eq(p.status, 2, "%d %s", p.status, p.err);
        cr_assert(strstr(p.err, "--head-build") != NULL, "%s", p.err);
        pg_proc_free(&p);
        pg_test_run(&p, NULL, NULL, rounds);
        cr_assert_eq(p.status, 2, "%d %s", p.status, p.err);
        pg_proc_free(&p);
    }
    free(suite);
    free(db);
    free(md);
    free(base);
    free(head);
}

/*
 * Recorded rounds, no timing: the machine's phases move both sides of each
 * round together (x1.0 ... x1.9) and head is exactly 10% slower in every
 * round. Unpaired, the phases drown the change; paired, it is plain.
 */
Test(ab, pairing_finds_a_change_that_phases_hide_from_the_unpaired_test)
{
    static const double phase[] = {1.0, 1.5, 0.8, 1.9, 1.1, 1.3, 0.9, 1.7, 1.2, 1.0,
                                   1.6, 0.85, 1.4, 1.05, 1.8, 0.95, 1.25, 1.55, 1.15, 1.35};
    const size_t n = sizeof(phase) / sizeof(phase[0]);
    pg_run *base, *head;
    pg_result *rb, *rh;
    pg_comparison *cmp;
    pg_paired_analysis paired;
    pg_compare_options co = PG_COMPARE_OPTIONS_INIT;
    const pg_run *bases[1];
    size_t i;

    pg_assert_ok(pg_run_new(&base));
    pg_assert_ok(pg_run_new(&head));
    pg_assert_ok(pg_run_add_result(&rb, base));
    pg_assert_ok(pg_run_add_result(&rh, head));
    rb->key = pg__strdup("s/k@1:cpu");
    rh->key = pg__strdup("s/k@1:cpu");
    rb->status = rh->status = PG_STATUS_OK;
    rb->threshold = rh->threshold = 0.05;
    rb->alpha = rh->alpha = 0.05;
    rb->samples = calloc(n, sizeof(double));
    rh->samples = calloc(n, sizeof(double));
    rb->nsamples = rh->nsamples = n;
    for (i = 0; i < n; i++) {
        /* A little per-round noise of its own, so the ratios are not all equal. */
        rb->samples[i] = 1e-3 * phase[i] * (1 + 0.004 * (double)(i % 5));
        rh->samples[i] = 1.10e-3 * phase[i] * (1 + 0.004 * (double)((i + 2) % 5));
    }
    pg_assert_ok(pg_stats_summarize(&rb->summary, rb->samples, n));
    pg_assert_ok(pg_stats_summarize(&rh->summary, rh->samples, n));
    bases[0] = base;
    co.drift = 0;
    pg_assert_ok(pg_compare(&cmp, head, bases, 1, &co));
    cr_assert_neq(cmp->cases[0].verdict, PG_VERDICT_REGRESSED, "unpaired: %s", cmp->cases[0].reason);
    pg_assert_ok(pg_ab_paired_analyse(&paired, rb->samples, rh->samples, n, 0.95));
    pg_assert_ok(pg_verdict_paired(cmp, head, &paired, &co));
    cr_assert_eq(cmp->cases[0].verdict, PG_VERDICT_REGRESSED, "paired: %s", cmp->cases[0].reason);
    cr_assert(cmp->cases[0].paired);
    cr_assert(fabs(cmp->cases[0].est.ratio - 1.10) < 0.01, "ratio %g", cmp->cases[0].est.ratio);
    cr_assert_gt(cmp->cases[0].est.ci_lo, 1.05);
    cr_assert_lt(cmp->cases[0].est.ci_hi, 1.12);
    cr_assert(strstr(cmp->method, "Wilcoxon signed-rank") != NULL, "%s", cmp->method);
    cr_assert_eq(cmp->exit_code, 1);
    pg_comparison_free(cmp);
    pg_run_free(base);
    pg_run_free(head);
}

/* The sequential look on recorded log ratios: what settles when, and what never does. */
Test(ab, sequential_looks_settle_clear_cases_and_keep_the_rest_open)
{
    enum { CASES = 4, MAX = 20 };
    double d[CASES][MAX];
    pg_ab_seq seq[CASES];
    int c, r, open = CASES;

    for (r = 0; r < MAX; r++) {
        d[0][r] = log(1.5);                   /* +50 % every round */
        d[1][r] = 0;                          /* every round tied: ratio exactly 1 */
        d[2][r] = r % 2 ? 0.01 : -0.01;       /* within +-1 % */
        d[3][r] = r % 2 ? 0.3 : -0.3;         /* +-35 %: never settles at 5 % */
    }
    for (c = 0; c < CASES; c++) {
        pg_ab_seq init = PG_AB_SEQ_INIT;
        seq[c] = init;
        seq[c].d = d[c];
    }
    /* No rounds, two rounds: below the minimum, nothing is looked at and nothing settles. */
    cr_assert_eq(pg_ab_seq_look(seq, CASES, PG_AB_MIN_ROUNDS), CASES);
    for (c = 0; c < CASES; c++)
        seq[c].n = 2;
    cr_assert_eq(pg_ab_seq_look(seq, CASES, PG_AB_MIN_ROUNDS), CASES);
    cr_assert(isinf(seq[0].cs.lo));
    for (r = 3; r <= MAX && open > 0; r++) {
        for (c = 0; c < CASES; c++)
            if (!seq[c].settled_at)
                seq[c].n = (size_t)r;
        open = pg_ab_seq_look(seq, CASES, PG_AB_MIN_ROUNDS);
        cr_assert_geq(open, 0);
    }
    /* The unchanged cases at the first look (5 rounds), all inside +-5 %. */
    cr_assert_eq(seq[1].settled, PG_VERDICT_SAME);
    cr_assert_eq(seq[1].settled_at, 5);
    cr_assert_float_eq(seq[1].p_slower, 1, 0);
    cr_assert_eq(seq[2].settled, PG_VERDICT_SAME);
    cr_assert_eq(seq[2].settled_at, 5);
    /* +50 %: the bound clears 5 % at once, Holm over 4 cases wants p < 0.0125: 1/wealth(8, 8) = 0.0068. */
    cr_assert_eq(seq[0].settled, PG_VERDICT_REGRESSED);
    cr_assert_eq(seq[0].settled_at, 8);
    cr_assert_float_eq(seq[0].p_slower, 1 / pg_stats_sign_wealth(8, 8, NULL, 0), 1e-12);
    /* The noisy one uses the whole budget and stays open. */
    cr_assert_eq(seq[3].settled, PG_VERDICT_UNSURE);
    cr_assert_eq(seq[3].settled_at, 0);
    cr_assert_eq(seq[3].n, MAX);
    cr_assert_eq(open, 1);
}
