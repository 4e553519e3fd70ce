/*
 * gate_test.c - the gate's workflow (gate.h) through the library, on a real
 * CPU kernel and a real SQLite file: the steps it reports and their order,
 * what it stores, when it compares and with what, and what it refuses.
 */
#include "fixture.h"
#include "support.h"

#include "gate/gate.h"
#include "stats/stats.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static const char suite_yaml[] =
    "suite: g\n"
    "defaults: {threads: 1, min_run_time: 10ms, warmup: 2ms, min_samples: 5}\n"
    "benchmarks:\n"
    "  - {name: add, kernel: add, params: {n: 4096}}\n"
    "  - {name: copy, kernel: copy, params: {n: 4096}}\n";

static char *tmp;
static pg_suite_set set;
static pg_store *store;

/* The steps a gate reported, in order. */
typedef struct steps {
    pg_gate_step seen[16];
    size_t n;
    size_t notes;
} steps;

static void record(const pg_gate_result *r, pg_gate_step step, const char *text, void *payload)
{
    steps *s = payload;

    cr_assert(r && r->run, "a step without the run");
    if (step == PG_GATE_NOTE) {
        cr_assert(text && *text, "a note without text");
        s->notes++;
        return;
    }
    cr_assert(text == NULL, "only notes carry text");
    if (step == PG_GATE_STORED)
        cr_assert(r->run->id > 0, "STORED before the run has its id");
    if (s->n < 16)
        s->seen[s->n++] = step;
}

static void setup(void)
{
    char *path, *db;
    const char *paths[1];
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;

    /* The baseline a gate looks for depends on the GitHub event; a real CI job must not leak in. */
    unsetenv("GITHUB_EVENT_PATH");
    unsetenv("GITHUB_EVENT_NAME");
    unsetenv("GITHUB_BASE_REF");
    tmp = pg_test_tmpdir();
    path = pg_test_write(tmp, "g.yaml", suite_yaml);
    db = pg__asprintf("%s/gate.db", tmp);
    paths[0] = path;
    memset(&set, 0, sizeof(set));
    pg_assert_ok(pg_suite_set_load(&set, paths, 1, &so, NULL));
    pg_assert_ok(pg_store_open(&store, db));
    free(path);
    free(db);
}

static void teardown(void)
{
    pg_store_close(store);
    pg_suite_set_clear(&set);
    pg_test_rmtree(tmp);
    free(tmp);
}

TestSuite(gate, .init = setup, .fini = teardown, .timeout = 120);

static pg_gate_options options(int compare, steps *s)
{
    pg_gate_options go = PG_GATE_OPTIONS_INIT;

    go.exec.peak_gflops = 100; /* no ceiling measurement: these cases need no MFU */
    go.meta.commit = "1111111111111111111111111111111111111111";
    go.meta.branch = "main";
    go.store = store;
    go.compare = compare;
    go.notify = record;
    go.payload = s;
    return go;
}

static size_t stored_runs(void)
{
    pg_run_list list = {0};
    size_t n;

    pg_assert_ok(pg_store_list_runs(&list, store, NULL));
    n = list.count;
    pg_run_list_clear(&list);
    return n;
}

Test(gate, a_first_gate_stores_its_run_and_compares_nothing)
{
    steps s = {0};
    pg_gate_options go = options(1, &s);
    pg_gate_result r;

    pg_assert_ok(pg_gate_run(&r, &set, &go));
    cr_assert_eq(s.n, 3);
    cr_expect_eq(s.seen[0], PG_GATE_MEASURED);
    cr_expect_eq(s.seen[1], PG_GATE_STORED);
    cr_expect_eq(s.seen[2], PG_GATE_BASELINE);
    cr_expect_eq(r.nbases, 0);
    cr_expect_eq(r.compared, 0, "nothing was compared, and the result says so");
    cr_expect_eq(r.cmp->counts[PG_VERDICT_NEW], 2);
    cr_expect_eq(r.cmp->outcome, PG_OUTCOME_NOTHING_COMPARED, "no baseline is not a pass");
    cr_expect_eq(r.exit_code, 4);
    cr_expect_eq(stored_runs(), 1);
    pg_gate_result_clear(&r);
}

/* The reason of a gate that compared nothing names what it searched, on which machine, and the fix. */
Test(gate, a_first_gate_says_what_it_searched)
{
    steps s = {0};
    pg_gate_options go = options(1, &s);
    pg_gate_result r;
    char machine[13];

    pg_assert_ok(pg_gate_run(&r, &set, &go));
    cr_assert(r.cmp->outcome_reason != NULL);
    snprintf(machine, sizeof(machine), "%s", r.run->machine_hash);
    cr_expect(strstr(r.cmp->outcome_reason, "no baseline yet: searched for the previous 5 runs of branch 'main' on "
                                            "machine ") != NULL,
              "%s", r.cmp->outcome_reason);
    cr_expect(strstr(r.cmp->outcome_reason, machine) != NULL, "%s", r.cmp->outcome_reason);
    cr_expect(strstr(r.cmp->outcome_reason, "--base-build") != NULL, "%s", r.cmp->outcome_reason);
    pg_gate_result_clear(&r);
}

Test(gate, a_baseline_only_from_another_machine_compares_nothing_and_says_so)
{
    steps s = {0};
    pg_gate_options go = options(1, &s);
    pg_gate_result r;

    pg_test_store_foreign_runs(store, 1, "main", "0ther0ther0ther0ther", "Other CPU 9000");
    pg_assert_ok(pg_gate_run(&r, &set, &go));
    cr_expect_eq(r.nbases, 0);
    cr_expect_eq(r.exit_code, 4);
    cr_assert(r.cmp->outcome_reason != NULL);
    cr_expect(strstr(r.cmp->outcome_reason, "no baseline on this machine: 1 run of branch 'main' from another "
                                            "machine (cpu 'Other CPU 9000', fingerprint 0ther0ther0t)") != NULL,
              "%s", r.cmp->outcome_reason);
    cr_expect(strstr(r.cmp->outcome_reason, "--allow-other-machine") != NULL, "%s", r.cmp->outcome_reason);
    pg_gate_result_clear(&r);

    /* Allowed, the foreign run is the baseline. */
    go.allow_other_machine = 1;
    pg_assert_ok(pg_gate_run(&r, &set, &go));
    cr_expect_eq(r.nbases, 2, "the pool takes the foreign run and the first gate's");
    pg_gate_result_clear(&r);
}

Test(gate, every_case_unsure_compares_nothing)
{
    steps s = {0};
    pg_gate_options go = options(1, &s);
    pg_gate_result first, r;
    pg_run *bare;
    size_t i;

    /* A baseline with summaries but no raw samples: every case is UNSURE, nothing is decided. */
    pg_assert_ok(pg_gate_run(&first, &set, &go));
    pg_assert_ok(pg_store_load_run(&bare, store, first.run->id));
    free(bare->uuid);
    bare->uuid = pg__strdup("00000000-0000-4000-8000-000000000099");
    bare->id = 0;
    for (i = 0; i < bare->nresults; i++) {
        free(bare->results[i].samples);
        bare->results[i].samples = NULL;
        bare->results[i].nsamples = 0;
    }
    pg_assert_ok(pg_store_save_run(store, bare));
    go.base = "2";
    pg_assert_ok(pg_gate_run(&r, &set, &go));
    cr_expect_eq(r.nbases, 1);
    cr_expect_eq(r.cmp->counts[PG_VERDICT_UNSURE], 2);
    cr_expect_eq(r.cmp->outcome, PG_OUTCOME_NOTHING_COMPARED);
    cr_expect_eq(r.exit_code, 4);
    cr_expect(r.cmp->outcome_reason && strstr(r.cmp->outcome_reason, "no case was decided (2 UNSURE)"), "%s",
              r.cmp->outcome_reason);
    pg_gate_result_clear(&r);
    pg_gate_result_clear(&first);
    pg_run_free(bare);
}

/* Adds s/NAME with 30 samples spread evenly over median*(1 +- spread). */
static void add_case(pg_run *run, const char *name, double median, double spread)
{
    size_t i, n = 30;
    pg_result *r = pg_test_add_result(run, "s", name, n);

    for (i = 0; i < n; i++)
        r->samples[i] = median * (1 - spread + 2 * spread * (double)i / (double)(n - 1));
    pg_assert_ok(pg_stats_summarize(&r->summary, r->samples, n));
}

static void store_run(const char *commit, double slow, double noisy)
{
    pg_run *run;

    pg_assert_ok(pg_run_new(&run));
    run->commit = pg__strdup(commit);
    run->branch = pg__strdup("main");
    run->machine_hash = pg__strdup("feedface");
    run->machine_json = pg__strdup("{}");
    run->started_at = run->finished_at = pg__now_unix();
    add_case(run, "slow", slow, 0.01);
    add_case(run, "noisy", noisy, 0.6);
    pg_assert_ok(pg_store_save_run(store, run));
    pg_run_free(run);
}

/*
 * Stored runs with fixed samples, so that no machine load can blur it: one
 * case 5x slower, one too noisy to decide. The regression decides the
 * outcome; the undecided case does not turn it into "nothing compared".
 */
Test(gate, a_real_regression_still_fails_with_exit_1)
{
    pg_select_options so = PG_SELECT_OPTIONS_INIT;
    pg_stored_comparison sc;

    store_run("aaaa000000000000000000000000000000000000", 1e-3, 1e-3);
    store_run("bbbb000000000000000000000000000000000000", 5e-3, 1.05e-3);
    so.default_branch = "main";
    pg_assert_ok(pg_stored_compare_head(&sc, store, NULL, "last:1:main", &so, NULL));
    cr_assert_eq(sc.nbases, 1);
    cr_expect_eq(sc.cmp->counts[PG_VERDICT_REGRESSED], 1);
    cr_expect_eq(sc.cmp->counts[PG_VERDICT_UNSURE], 1);
    cr_expect_eq(sc.cmp->outcome, PG_OUTCOME_FAIL);
    cr_expect_eq(pg_outcome_exit_code(sc.cmp), 1, "a regression wins over everything the outcome could say");
    pg_stored_clear(&sc);
}

Test(gate, a_second_gate_compares_with_the_first_as_compare_does)
{
    steps s = {0};
    pg_gate_options go = options(1, &s);
    pg_gate_result first, second;
    pg_stored_comparison sc;
    size_t v;

    pg_assert_ok(pg_gate_run(&first, &set, &go));
    memset(&s, 0, sizeof(s));
    pg_assert_ok(pg_gate_run(&second, &set, &go));
    cr_assert_eq(second.nbases, 1);
    cr_expect_eq(second.compared, 1);
    cr_expect(second.described && strstr(second.described, "run 1"), "%s", second.described);
    cr_expect_eq(second.cmp->counts[PG_VERDICT_NEW], 0);
    cr_expect_eq(second.cmp->ncases, 2);

    /* The stored comparison of the same two runs reaches the same verdicts. */
    pg_assert_ok(pg_stored_compare_head(&sc, store, NULL, NULL, NULL, NULL));
    cr_expect_eq(sc.head->id, second.run->id);
    cr_expect_eq(sc.nbases, 1);
    for (v = 0; v < PG_VERDICT__COUNT; v++)
        cr_expect_eq(sc.cmp->counts[v], second.cmp->counts[v], "%s", pg_verdict_name((pg_verdict)v));
    pg_stored_clear(&sc);
    pg_gate_result_clear(&first);
    pg_gate_result_clear(&second);
}

Test(gate, a_run_without_compare_neither_selects_nor_compares)
{
    steps s = {0};
    pg_gate_options go = options(0, &s);
    pg_gate_result r;

    pg_assert_ok(pg_gate_run(&r, &set, &go));
    cr_assert_eq(s.n, 2);
    cr_expect_eq(s.seen[0], PG_GATE_MEASURED);
    cr_expect_eq(s.seen[1], PG_GATE_STORED);
    cr_expect_eq(r.compared, 0);
    cr_expect_eq(r.cmp->counts[PG_VERDICT_NEW], 2);
    cr_expect_eq(r.exit_code, 0, "run compares nothing by design: no exit 4");
    cr_expect(r.cmp->outcome_reason && strstr(r.cmp->outcome_reason, "perfgate run"), "%s", r.cmp->outcome_reason);
    pg_gate_result_clear(&r);
}

Test(gate, a_filter_that_matches_nothing_is_bad_input_and_stores_nothing)
{
    steps s = {0};
    pg_gate_options go = options(1, &s);
    pg_gate_result r;

    go.exec.filter = "nothing/*";
    cr_assert_eq(pg_gate_run(&r, &set, &go), PG_EINVAL);
    cr_expect(strstr(pg_error_last(), "no case or check matched the filter nothing/*") != NULL, "%s",
              pg_error_last());
    cr_expect_eq(pg_error_exit_code(PG_EINVAL), 2);
    cr_expect_eq(s.n, 0, "no step is reported for a run that is not kept");
    cr_expect_eq(stored_runs(), 0);
    pg_gate_result_clear(&r);
}

Test(gate, an_interleaved_gate_needs_both_builds_and_no_stored_baseline)
{
    steps s = {0};
    pg_gate_options go = options(1, &s);
    pg_gate_result r;

    go.base_build = "/nonexistent/base";
    cr_expect_eq(pg_gate_run(&r, &set, &go), PG_EINVAL);
    pg_gate_result_clear(&r);
    go.head_build = "/nonexistent/head";
    go.base = "last:3";
    cr_expect_eq(pg_gate_run(&r, &set, &go), PG_EINVAL);
    pg_gate_result_clear(&r);
    cr_expect_eq(stored_runs(), 0);
}

Test(gate, a_gate_without_a_store_measures_and_compares_nothing)
{
    steps s = {0};
    pg_gate_options go = options(1, &s);
    pg_gate_result r;

    go.store = NULL;
    pg_assert_ok(pg_gate_run(&r, &set, &go));
    cr_assert_eq(s.n, 1);
    cr_expect_eq(s.seen[0], PG_GATE_MEASURED);
    cr_expect_eq(r.run->id, 0);
    cr_expect_eq(r.compared, 0);
    cr_expect_eq(r.exit_code, 4);
    cr_expect_eq(stored_runs(), 0);
    pg_gate_result_clear(&r);
}
