/* plugin_test.c - user plugins: loading, the ABI check, crashes, forwarding, run + store + gate. */
#include "support.h"

#include "compile.h"
#include "exec/exec.h"
#include "base/instrument.h"
#include "plugin/plugin.h"
#include "store/store.h"
#include "suite/suite.h"
#include "base/util.h"

#include <dlfcn.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

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

TestSuite(plugin, .init = setup, .fini = teardown);

static char *example_lib(void)
{
    char *dir = pg_test_build_dir();
    char *lib = pg__asprintf("%s/examples/plugin/libpg_example.so", dir);

    free(dir);
    return lib;
}

Test(plugin, wrong_abi_version_is_refused_with_both_versions)
{
    char *lib = pg_test_build_plugin(tmp, "plugin/wrong_abi.c", "wrong_abi", NULL);
    pg_plugin_lib *pl = NULL;
    int err = pg_plugin_open(&pl, lib);

    cr_assert_eq(err, PG_EPLUGIN, "got %d: %s", err, pg_error_last());
    cr_assert_null(pl);
    cr_assert(strstr(pg_error_last(), "built against perfgate plugin ABI version 2") != NULL, "%s", pg_error_last());
    cr_assert(strstr(pg_error_last(), "this perfgate speaks version 1") != NULL, "%s", pg_error_last());
    cr_assert(strstr(pg_error_last(), lib) != NULL, "%s", pg_error_last());
    free(lib);
}

Test(plugin, missing_library_and_unknown_benchmark_are_clear)
{
    char *lib = example_lib();
    pg_plugin_lib *pl = NULL;
    const pg_benchmark *b = NULL;

    cr_assert_eq(pg_plugin_open(&pl, "/no/such/libplugin.so"), PG_ENOTFOUND);
    cr_assert(strstr(pg_error_last(), "/no/such/libplugin.so") != NULL);
    pg_assert_ok(pg_plugin_open(&pl, lib));
    cr_assert_str_eq(pg_plugin_table(pl)->name, "example");
    cr_assert_eq(pg_plugin_find(&b, pl, "sxapy"), PG_ENOTFOUND);
    cr_assert(strstr(pg_error_last(), "it has: saxpy, matmul_chain") != NULL, "%s", pg_error_last());
    pg_assert_ok(pg_plugin_find(&b, pl, "saxpy"));
    cr_assert_str_eq(b->name, "saxpy");
    pg_plugin_close(pl);
    free(lib);
}

/* ---- the instrument hooks reach the runner ------------------------------ */

typedef struct counts {
    int ranges_pushed, ranges_popped, ops;
    double flops;
    char last_range[32], last_op[32];
} counts;

static void on_range_push(void *p, const char *name)
{
    counts *c = p;
    c->ranges_pushed++;
    snprintf(c->last_range, sizeof(c->last_range), "%s", name);
}

static void on_range_pop(void *p, const char *name)
{
    (void)name;
    ((counts *)p)->ranges_popped++;
}

static void on_op_begin(void *p, const char *name, const char *shape)
{
    counts *c = p;
    (void)shape;
    c->ops++;
    snprintf(c->last_op, sizeof(c->last_op), "%s", name);
}

static void on_gemm(void *p, const char *name, int64_t m, int64_t n, int64_t k)
{
    (void)name;
    ((counts *)p)->flops += 2.0 * (double)m * (double)n * (double)k;
}

Test(plugin, ranges_ops_and_gemm_flops_reach_the_instrument)
{
    char *lib = example_lib();
    char *suite_path = pg_test_write(tmp, "s.yaml",
                                     "suite: s\nbenchmarks:\n  - name: mc\n    plugin: x.so\n    symbol: matmul_chain\n"
                                     "    params: {n: 8, layers: 10}\n");
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_suite *s = NULL;
    pg_plugin_lib *pl = NULL;
    const pg_benchmark *b = NULL;
    counts c = {0};
    pg_instrument ins = {0};
    const pg_instrument *prev;

    pg_assert_ok(pg_suite_load(&s, suite_path, &so, NULL));
    pg_assert_ok(pg_plugin_open(&pl, lib));
    pg_assert_ok(pg_plugin_find(&b, pl, "matmul_chain"));
    ins.range_push = on_range_push;
    ins.range_pop = on_range_pop;
    ins.op_begin = on_op_begin;
    ins.gemm = on_gemm;
    ins.payload = &c;
    prev = pg__instrument_set(&ins);
    pg_assert_ok(pg_plugin_run_iterations(b, &s->cases[0], 3));
    pg__instrument_set(prev);
    cr_assert_eq(c.ranges_pushed, 3);
    cr_assert_eq(c.ranges_popped, 3);
    cr_assert_str_eq(c.last_range, "forward");
    cr_assert_eq(c.ops, 30, "one mm op per layer per iteration, got %d", c.ops);
    cr_assert_str_eq(c.last_op, "mm");
    cr_assert_float_eq(c.flops, 3 * 10 * 2.0 * 8 * 8 * 8, 1e-9);
    pg_plugin_close(pl);
    pg_suite_free(s);
    free(suite_path);
    free(lib);
}

/* ---- misbehaving benchmarks become errors of their own case -------------- */

static const char crashy_suite[] =
    "suite: crashy\n"
    "defaults: {min_run_time: 20ms, warmup: 5ms, min_samples: 3, max_run_time: 1s}\n"
    "benchmarks:\n"
    "  - {name: ok, plugin: libcrashy.so, symbol: ok}\n"
    "  - {name: segv, plugin: libcrashy.so, symbol: segv}\n"
    "  - {name: abort, plugin: libcrashy.so, symbol: abort}\n"
    "  - {name: exit, plugin: libcrashy.so, symbol: exit}\n"
    "  - {name: hang, plugin: libcrashy.so, symbol: hang, timeout: 1s}\n"
    "  - {name: skip, plugin: libcrashy.so, symbol: skip}\n"
    "  - {name: error, plugin: libcrashy.so, symbol: error}\n"
    "  - {name: no_loop, plugin: libcrashy.so, symbol: no_loop}\n"
    "  - {name: break, plugin: libcrashy.so, symbol: break}\n"
    "  - {name: setup_heavy, plugin: libcrashy.so, symbol: setup_heavy}\n"
    "  - {name: typo, plugin: libcrashy.so, symbol: sgev}\n"
    "  - {name: ok_again, plugin: libcrashy.so, symbol: ok}\n";

static const pg_result *find(const pg_run *run, const char *name)
{
    size_t i;

    for (i = 0; i < run->nresults; i++)
        if (strcmp(run->results[i].name, name) == 0)
            return &run->results[i];
    cr_assert_fail("no result for %s", name);
    return NULL;
}

static void assert_error(const pg_run *run, const char *name, const char *needle)
{
    const pg_result *r = find(run, name);

    cr_assert_eq(r->status, PG_STATUS_ERROR, "%s: status %d", name, r->status);
    cr_assert(r->message && strstr(r->message, needle), "%s: '%s' lacks '%s'", name, r->message, needle);
    cr_assert_eq(r->nsamples, 0);
}

Test(plugin, a_crash_is_an_error_of_its_case_and_the_runner_goes_on, .timeout = 120)
{
    char *lib = pg_test_build_plugin(tmp, "plugin/crashy.c", "crashy", NULL);
    char *path = pg_test_write(tmp, "crashy.yaml", crashy_suite);
    const char *paths[] = {path};
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_suite_set set = {0};
    pg_run *run = NULL;

    pg_assert_ok(pg_suite_set_load(&set, paths, 1, &so, NULL));
    pg_assert_ok(pg_run_new(&run));
    pg_assert_ok(pg_exec_run(run, &set, NULL));
    cr_assert_eq(run->nresults, 12);
    cr_assert_eq(find(run, "ok")->status, PG_STATUS_OK, "%s", find(run, "ok")->message);
    cr_assert_eq(find(run, "ok_again")->status, PG_STATUS_OK);
    cr_assert_geq(find(run, "ok_again")->nsamples, 3);
    assert_error(run, "segv", "crashed with signal 11");
    assert_error(run, "abort", "crashed with signal 6");
    assert_error(run, "exit", "exited with status 7 before reporting a result");
    assert_error(run, "hang", "did not finish within");
    assert_error(run, "error", "reported an error: input file missing");
    assert_error(run, "no_loop", "without entering its pg_keep_running() loop");
    assert_error(run, "break", "left its pg_keep_running() loop early");
    assert_error(run, "typo", "has no benchmark 'sgev'");
    cr_assert_eq(find(run, "skip")->status, PG_STATUS_SKIPPED);
    cr_assert_str_eq(find(run, "skip")->message, "needs a feature this machine lacks");
    /* 20 ms of setup before the loop runs once per case and never reaches a sample. */
    cr_assert_eq(find(run, "setup_heavy")->status, PG_STATUS_OK, "%s", find(run, "setup_heavy")->message);
    cr_assert_lt(find(run, "setup_heavy")->summary.median, 1e-3, "median %g s",
                 find(run, "setup_heavy")->summary.median);
    pg_run_free(run);
    pg_suite_set_clear(&set);
    free(path);
    free(lib);
}

Test(plugin, wrong_abi_through_the_binary_is_an_error_line)
{
    char *lib = pg_test_build_plugin(tmp, "plugin/wrong_abi.c", "wrong_abi", NULL);
    char *path = pg_test_write(tmp, "w.yaml",
                               "suite: w\nbenchmarks:\n  - {name: future, plugin: libwrong_abi.so, symbol: ok}\n");
    const char *argv[] = {"run", "--no-store", "--quick", path, NULL};
    pg_proc p;

    pg_test_run(&p, tmp, NULL, argv);
    /* Its only case never ran: a run that measured nothing exits 3 and says so. */
    cr_assert_eq(p.status, 3, "status %d: %s", p.status, p.err);
    cr_assert(strstr(p.out, "w/future") && strstr(p.out, "ERROR"), "%s", p.out);
    cr_assert(strstr(p.out, "built against perfgate plugin ABI version 2, but this perfgate speaks version 1"),
              "%s", p.out);
    cr_assert(strstr(p.out, "every measured case ended in ERROR (1 of 1)"), "%s", p.out);
    pg_proc_free(&p);
    free(path);
    free(lib);
}

/* ---- the shipped example: run, store, gate ------------------------------- */

Test(plugin, example_suite_runs_stores_and_gates, .timeout = 300)
{
    char *build = pg_test_build_dir();
    char *env_build = pg__asprintf("PERFGATE_BUILD=%s", build);
    char *db = pg__asprintf("%s/pg.db", tmp);
    const char *env[] = {env_build, NULL};
    const char *argv[] = {"gate", "--quick", "--db", db, "--branch", "main", "--commit", "c0ffee",
                          PG_TEST_SOURCE_DIR "/suites/plugin.yaml", NULL};
    pg_store *store = NULL;
    pg_run *run = NULL;
    const pg_result *mc, *sx;
    pg_proc p;

    pg_test_run(&p, tmp, env, argv);
    cr_assert_eq(p.status, 4, "first gate: nothing compared: %d\n%s\n%s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "plugin/saxpy[n=4096]@1:cpu") && strstr(p.out, "GFLOP/s"), "%s", p.out);
    cr_assert(strstr(p.out, "ERROR") == NULL, "%s", p.out);
    pg_proc_free(&p);
    /* Its verdicts are this machine's noise; its exit code is exactly the one they owe. */
    pg_test_run_judged(&p, tmp, env, argv);
    cr_assert(strstr(p.out, "baseline: run 1") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "plugin/matmul_chain[layers=10,n=64]@1:cpu") != NULL, "%s", p.out);
    pg_proc_free(&p);

    pg_assert_ok(pg_store_open(&store, db));
    pg_assert_ok(pg_store_load_run(&run, store, 2));
    cr_assert_eq(run->nresults, 2);
    mc = pg_run_find(run, "plugin/matmul_chain[layers=10,n=64]@1:cpu");
    sx = pg_run_find(run, "plugin/saxpy[n=4096]@1:cpu");
    cr_assert(mc && sx);
    cr_assert_eq(mc->status, PG_STATUS_OK);
    cr_assert_geq(mc->nsamples, 20);
    cr_assert_float_eq(mc->flops, 2.0 * 64 * 64 * 64 * 10, 1e-6);
    cr_assert_float_eq(sx->bytes, 12.0 * 4096, 1e-9);
    cr_assert(mc->summary.median > 0 && isfinite(mc->summary.median));
    pg_run_free(run);
    pg_store_close(store);
    free(build);
    free(env_build);
    free(db);
}

/* Two builds in lockstep (exec.h): each side is its own process; one dying leaves the other measured. */
Test(plugin, lockstep_pairs_measure_both_sides_and_survive_one_crashing, .timeout = 120)
{
    char *good = pg_test_build_plugin(tmp, "plugin/crashy.c", "crashy", NULL);
    char *sub = pg__asprintf("%s/bad", tmp), *bad;
    char *path = pg_test_write(tmp, "pair.yaml",
                               "suite: pair\n"
                               "defaults: {min_run_time: 20ms, warmup: 5ms, min_samples: 5, max_run_time: 1s}\n"
                               "benchmarks:\n  - {name: ok, plugin: libcrashy.so, symbol: ok}\n");
    const char *paths[] = {path};
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_suite_set set = {0};
    pg_case c[2];
    const pg_case *pair[2] = {&c[0], &c[1]};
    const pg_exec_pair_round round = {7, NULL, 0, NULL};
    pg_result r[2];
    int i;

    cr_assert(mkdir(sub, 0755) == 0);
    bad = pg_test_build_plugin(sub, "plugin/crashy.c", "crashy", "-DCRASHY_OK_CRASHES");
    pg_assert_ok(pg_suite_set_load(&set, paths, 1, &so, NULL));
    c[0] = c[1] = set.suites[0]->cases[0];
    c[0].plugin = good;
    c[1].plugin = good;
    memset(r, 0, sizeof(r));
    pg_assert_ok(pg_exec_case_pair(r, pair, NULL, &round));
    for (i = 0; i < 2; i++) {
        cr_assert_eq(r[i].status, PG_STATUS_OK, "side %d: %s", i, r[i].message);
        cr_assert_geq(r[i].nsamples, 5, "side %d: %zu samples", i, r[i].nsamples);
        cr_assert_str_eq(r[i].key, c[0].key);
        pg__result_clear(&r[i]);
    }
    c[1].plugin = bad;
    memset(r, 0, sizeof(r));
    pg_assert_ok(pg_exec_case_pair(r, pair, NULL, &round));
    cr_assert_eq(r[0].status, PG_STATUS_OK, "%s", r[0].message);
    cr_assert_geq(r[0].nsamples, 5);
    cr_assert_eq(r[1].status, PG_STATUS_ERROR);
    cr_assert(strstr(r[1].message, "crashed with signal 11") != NULL, "%s", r[1].message);
    pg__result_clear(&r[0]);
    pg__result_clear(&r[1]);
    pg_suite_set_clear(&set);
    free(path);
    free(sub);
    free(good);
    free(bad);
}

#ifndef NDEBUG
/* Pairing a case that is not a plugin is a caller's mistake: asserted, not returned. */
Test(plugin, only_plugin_cases_pair_up, .signal = SIGABRT)
{
    pg_case c[2];
    const pg_case *pair[2] = {&c[0], &c[1]};
    const pg_exec_pair_round round = {7, NULL, 0, NULL};
    pg_result r[2];

    memset(c, 0, sizeof(c));
    memset(r, 0, sizeof(r));
    c[0].key = c[1].key = (char *)"s/none@1:cpu";
    (void)pg_exec_case_pair(r, pair, NULL, &round);
}
#endif

/*
 * An injected change of real work (doctor --sensitivity): the head side runs
 * each block's iterations (1 + extra) times and counts them once; blocks are
 * multiples of the unit that makes the extra iterations whole.
 */
Test(plugin, an_injected_change_runs_more_of_the_same_iterations_and_counts_them_once)
{
    char *lib = pg_test_build_plugin(tmp, "plugin/blocks.c", "blocks", NULL);
    pg_measure_options mo = PG_MEASURE_OPTIONS_INIT;
    pg_plugin_lib *pl = NULL;
    const pg_benchmark *b = NULL;
    pg_case c;
    pg_result r;
    void *h;
    int64_t *last;

    pg_assert_ok(pg_plugin_open(&pl, lib));
    pg_assert_ok(pg_plugin_find(&b, pl, "blocks"));
    cr_assert((h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD)) != NULL, "%s", dlerror());
    cr_assert((last = dlsym(h, "blocks_last_iters")) != NULL);
    memset(&c, 0, sizeof(c));
    c.key = "t/blocks@1:cpu";
    c.name = "blocks";
    c.threads = 1;
    c.device = "cpu";
    c.extra_work = 0.1;
    c.block_unit = 10;
    mo.warmup = 0.001;
    mo.min_run_time = 0.01;
    mo.min_samples = 3;
    mo.block_unit = c.block_unit;
    memset(&r, 0, sizeof(r));
    pg_assert_ok(pg_plugin_measure(&r, b, &c, &mo));
    cr_assert_eq(r.status, PG_STATUS_OK, "%s", r.message);
    cr_expect_eq(r.number_per_run % 10, 0, "blocks of %lld", (long long)r.number_per_run);
    /* The last call was a sampled block: 11 iterations run for every 10 counted. */
    cr_expect_eq(*last, r.number_per_run + r.number_per_run / 10, "ran %lld for %lld counted", (long long)*last,
                 (long long)r.number_per_run);
    pg__result_clear(&r);
    dlclose(h);
    pg_plugin_close(pl);
    free(lib);
}
