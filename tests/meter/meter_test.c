/*
 * meter_test.c - the counting instruments under real Valgrind and the real
 * allocation counter: exact counts, determinism, the measured region,
 * refusals, the exact verdict, and kind: memory checks (a plugin and a real
 * torch trace). Sizes are small: every case runs in two Valgrind processes.
 */
#include "support.h"

#include "checks/checks.h"
#include "compile.h"
#include "meter/internal.h"
#include "meter/meter.h"
#include "stats/stats.h"
#include "store/store.h"
#include "suite/suite.h"
#include "base/util.h"
#include "verdict/exact.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *tmp, *program, *shim, *lib;

static void setup(void)
{
    char *dir = pg_test_build_dir();

    tmp = pg_test_tmpdir();
    program = pg__asprintf("%s/perfgate-meter", dir);
    shim = pg__asprintf("%s/libperfgate-memshim.so", dir);
    free(dir);
    /* Checks run with the default options: they find the programs through the environment. */
    setenv("PERFGATE_METER", program, 1);
    setenv("PERFGATE_MEMSHIM", shim, 1);
    unsetenv("PERFGATE_VALGRIND");
    lib = NULL;
}

static void teardown(void)
{
    pg_test_rmtree(tmp);
    free(tmp);
    free(program);
    free(shim);
    free(lib);
}

TestSuite(meter, .init = setup, .fini = teardown);

static const char *counted_lib(const char *flags)
{
    free(lib);
    lib = pg_test_build_plugin(tmp, "plugin/counted.c", flags ? "counted_extra" : "counted", flags);
    return lib;
}

/* A case as a suite would expand it: kernel or plugin, params "k=v" (sorted by the caller). */
static void make_case(pg_case *c, const char *kernel, const char *plugin, const char *symbol, const char *const *params)
{
    size_t n = 0, i;

    memset(c, 0, sizeof(*c));
    while (params && params[n])
        n++;
    c->suite = pg__strdup("t");
    c->name = pg__strdup(symbol ? symbol : kernel);
    c->kernel = kernel ? pg__strdup(kernel) : NULL;
    c->plugin = plugin ? pg__strdup(plugin) : NULL;
    c->symbol = symbol ? pg__strdup(symbol) : NULL;
    c->device = pg__strdup("cpu");
    c->threads = 1;
    c->params = calloc(n + 1, sizeof(pg_param));
    for (i = 0; i < n; i++) {
        const char *eq = strchr(params[i], '=');
        c->params[i].name = strndup(params[i], (size_t)(eq - params[i]));
        c->params[i].value = pg__strdup(eq + 1);
        c->params[i].num = atof(eq + 1);
        c->params[i].is_number = 1;
    }
    c->nparams = n;
    pg_assert_ok(pg__case_finish(c));
}

static pg_meter_options options(int64_t iterations)
{
    pg_meter_options o = PG_METER_OPTIONS_INIT;

    o.program = program;
    o.shim = shim;
    o.iterations = iterations;
    return o;
}

static const pg_result *metric(const pg_run *run, const char *name)
{
    size_t i;

    for (i = 0; i < run->nresults; i++)
        if (strcmp(run->results[i].metric, name) == 0)
            return &run->results[i];
    cr_assert_fail("no %s result", name);
    return NULL;
}

/* One instrument over case `c`: the run it filled (caller frees). */
static pg_run *meter(const pg_case *c, unsigned instrument, int64_t iterations)
{
    pg_meter_options o = options(iterations);
    pg_run *run = NULL;

    pg_assert_ok(pg_run_new(&run));
    pg_assert_ok(pg_meter_case(run, c, instrument, &o));
    return run;
}

Test(meter, callgrind_summary_and_cycle_formula)
{
    char *path = pg_test_write(tmp, "cg.out",
                               "# callgrind format\nversion: 1\npositions: line\n"
                               "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\nsummary: 1000 300 200 10 20 5 2 3 1\n"
                               "\nfn=(1) main\n1 1000 300 200 10 20 5 2 3 1\n");
    pg__callgrind cg;

    pg_assert_ok(pg__callgrind_read(&cg, path));
    cr_assert_eq(cg.ev[PG_CG_IR], 1000);
    cr_assert_eq(cg.ev[PG_CG_DLMW], 1);
    cr_assert(cg.cache_sim);
    /* L1 hits 1500-35 = 1465, LL hits 35-6 = 29, RAM 6: 1465 + 5*29 + 35*6. */
    cr_assert_eq(pg__callgrind_cycles(&cg), 1465 + 145 + 210);
    free(path);
    path = pg_test_write(tmp, "bad.out", "not callgrind\n");
    cr_assert_eq(pg__callgrind_read(&cg, path), PG_EFORMAT);
    free(path);
}

Test(meter, kernel_instructions_are_identical_across_processes)
{
    const char *small[] = {"n=256", NULL}, *large[] = {"n=512", NULL};
    pg_case a, b;
    pg_run *r1, *r2, *r3;
    const pg_result *i1, *i2, *i3;

    make_case(&a, "add", NULL, NULL, small);
    make_case(&b, "add", NULL, NULL, large);
    r1 = meter(&a, PG_INSTRUMENT_INSTRUCTIONS, 2);
    r2 = meter(&a, PG_INSTRUMENT_INSTRUCTIONS, 2);
    r3 = meter(&b, PG_INSTRUMENT_INSTRUCTIONS, 2);
    i1 = metric(r1, "instructions");
    i2 = metric(r2, "instructions");
    i3 = metric(r3, "instructions");
    cr_assert_eq(i1->status, PG_STATUS_OK, "%s", i1->message);
    cr_assert_str_eq(i1->key, "t/add[n=256]@1:cpu#instructions");
    cr_assert_eq(i1->nsamples, 2);
    cr_assert(i1->samples[0] > 256, "%g", i1->samples[0]);
    cr_assert_eq(i1->samples[0], i1->samples[1]);
    cr_assert_eq(i1->samples[0], i2->samples[0], "%.1f vs %.1f", i1->samples[0], i2->samples[0]);
    cr_assert(i3->samples[0] > 1.5 * i1->samples[0], "%.0f vs %.0f", i3->samples[0], i1->samples[0]);
    cr_assert(metric(r1, "est_cycles")->samples[0] >= i1->samples[0]);
    cr_assert(strstr(i1->extra_json, "\"deterministic\":true") != NULL, "%s", i1->extra_json);
    cr_assert(strstr(i1->extra_json, "\"openblas_coretype\"") != NULL, "%s", i1->extra_json);
    pg_run_free(r1);
    pg_run_free(r2);
    pg_run_free(r3);
    pg_case_clear(&a);
    pg_case_clear(&b);
}

Test(meter, a_data_value_adding_one_percent_is_seen_and_regressed)
{
    const char *params[] = {"n=20000", NULL};
    pg_case base, head;
    pg_run *rb, *rh;
    const pg_result *b, *h;
    pg_case_verdict v;

    make_case(&base, NULL, counted_lib(NULL), "work", params);
    rb = meter(&base, PG_INSTRUMENT_INSTRUCTIONS, 2);
    make_case(&head, NULL, counted_lib("-DEXTRA_PERMILLE=10"), "work", params);
    rh = meter(&head, PG_INSTRUMENT_INSTRUCTIONS, 2);
    b = metric(rb, "instructions");
    h = metric(rh, "instructions");
    cr_assert_eq(h->status, PG_STATUS_OK, "%s", h->message);
    cr_assert(h->samples[0] / b->samples[0] > 1.009 && h->samples[0] / b->samples[0] < 1.011, "%.0f / %.0f",
              h->samples[0], b->samples[0]);
    memset(&v, 0, sizeof(v));
    v.head = h;
    v.base = b;
    /* At the default threshold: a 1% change is caught without tuning the suite. */
    v.threshold = PG_EXACT_THRESHOLD;
    pg_assert_ok(pg_verdict_exact(&v, h->samples, h->nsamples, b->samples, b->nsamples));
    cr_assert_eq(v.verdict, PG_VERDICT_REGRESSED, "%s", v.reason);
    free(v.reason);
    pg_run_free(rb);
    pg_run_free(rh);
    pg_case_clear(&base);
    pg_case_clear(&head);
}

Test(meter, paused_work_is_outside_the_region)
{
    const char *params[] = {"n=2000", NULL};
    pg_case p, w, u;
    pg_run *rp, *rw, *ru;
    double paused, work, unmeasured;

    make_case(&p, NULL, counted_lib(NULL), "paused", params);
    make_case(&w, NULL, lib, "work", params);
    make_case(&u, NULL, lib, "unmeasured", params);
    rp = meter(&p, PG_INSTRUMENT_INSTRUCTIONS, 2);
    rw = meter(&w, PG_INSTRUMENT_INSTRUCTIONS, 2);
    ru = meter(&u, PG_INSTRUMENT_INSTRUCTIONS, 2);
    paused = metric(rp, "instructions")->samples[0];
    work = metric(rw, "instructions")->samples[0];
    unmeasured = metric(ru, "instructions")->samples[0];
    /* 50x the work runs paused each iteration: counted, it would dwarf the timed part. */
    cr_assert(paused < 2 * work, "paused %.0f vs work %.0f", paused, work);
    /* PG_UNMEASURED (perfgate.h) is the same narrowing as a block. */
    cr_assert(unmeasured < 2 * work && unmeasured > 0.5 * work, "unmeasured %.0f vs work %.0f", unmeasured, work);
    pg_run_free(rp);
    pg_run_free(rw);
    pg_run_free(ru);
    pg_case_clear(&p);
    pg_case_clear(&w);
    pg_case_clear(&u);
}

/* A command case running tests/data/meter/marked.c built with `flags`: n=2000 rounds per region, 3 regions. */
static pg_run *meter_marked(pg_case *c, const char *name, const char *flags)
{
    char *exe = pg__asprintf("%s/%s", tmp, name), *log = NULL;
    char *cmd = pg__asprintf("cc -std=c11 -O1 %s -I'%s/include' '%s/tests/data/meter/marked.c' -o '%s'", flags,
                             PG_TEST_SOURCE_DIR, PG_TEST_SOURCE_DIR, exe);

    cr_assert_eq(pg_test_sh(&log, cmd), 0, "%s\n%s", cmd, log);
    memset(c, 0, sizeof(*c));
    c->suite = pg__strdup("t");
    c->name = pg__strdup(name);
    c->device = pg__strdup("cpu");
    c->threads = 1;
    c->command = calloc(4, sizeof(char *));
    c->command[0] = exe;
    c->command[1] = pg__strdup("2000");
    c->command[2] = pg__strdup("3");
    pg_assert_ok(pg__case_finish(c));
    free(cmd);
    free(log);
    return meter(c, PG_INSTRUMENT_INSTRUCTIONS, 0);
}

Test(meter, a_command_is_counted_whole_or_in_the_regions_it_marks)
{
    pg_case m, w;
    pg_run *rm = meter_marked(&m, "marked", ""), *rw = meter_marked(&w, "whole", "-DPERFGATE_NO_VALGRIND");
    const pg_result *im = metric(rm, "instructions"), *iw = metric(rw, "instructions");

    cr_assert_eq(im->status, PG_STATUS_OK, "%s", im->message);
    cr_assert_eq(iw->status, PG_STATUS_OK, "%s", iw->message);
    /* Marked: per region, the n rounds alone (a few instructions each), identical in both processes. */
    cr_assert(im->samples[0] > 2000 && im->samples[0] < 20 * 2000, "%.0f", im->samples[0]);
    cr_assert_eq(im->samples[0], im->samples[1]);
    cr_assert(strstr(im->extra_json, "\"marked_regions\":3") != NULL, "%s", im->extra_json);
    cr_assert(strstr(im->extra_json, "\"region\":\"marked regions\"") != NULL, "%s", im->extra_json);
    /* Unmarked: the whole process, its 50n unmarked rounds and start-up included. */
    cr_assert(iw->samples[0] > 20 * im->samples[0], "%.0f vs %.0f", iw->samples[0], im->samples[0]);
    cr_assert(strstr(iw->extra_json, "\"region\":\"whole process\"") != NULL, "%s", iw->extra_json);
    pg_run_free(rm);
    pg_run_free(rw);
    pg_case_clear(&m);
    pg_case_clear(&w);
}

/* A command that outlives its limit; the limit of a counted process scales with Valgrind's slowdown. */
static pg_run *meter_sleeper(pg_case *c, unsigned instrument, double timeout)
{
    memset(c, 0, sizeof(*c));
    c->suite = pg__strdup("t");
    c->name = pg__strdup("sleeper");
    c->device = pg__strdup("cpu");
    c->threads = 1;
    c->timeout = timeout;
    c->command = calloc(3, sizeof(char *));
    c->command[0] = pg__strdup("/bin/sleep");
    c->command[1] = pg__strdup("30");
    pg_assert_ok(pg__case_finish(c));
    return meter(c, instrument, 0);
}

Test(meter, a_counted_process_may_take_fifty_times_the_cases_timeout)
{
    pg_case m, i;
    pg_run *rm = meter_sleeper(&m, PG_INSTRUMENT_MEMORY, 0.04), *ri = meter_sleeper(&i, PG_INSTRUMENT_INSTRUCTIONS, 0.04);

    const pg_result *bm = metric(rm, "bytes_per_iter"), *ir = metric(ri, "instructions");

    cr_assert_eq(bm->status, PG_STATUS_ERROR);
    cr_assert_str_eq(bm->message, "timed out after 0.04s (raise the case's timeout:)");
    cr_assert_eq(ir->status, PG_STATUS_ERROR);
    cr_assert_str_eq(ir->message, "timed out after 2s under Valgrind (a counted process may take 50 "
                                  "times the case's timeout: raise timeout:)");
    pg_run_free(rm);
    pg_run_free(ri);
    pg_case_clear(&m);
    pg_case_clear(&i);
}

Test(meter, memory_is_exact_and_a_leak_grows_the_peak)
{
    const char *exact[] = {"count=3", "size=1000", NULL}, *leaky[] = {"size=4096", NULL};
    pg_case a, l;
    pg_run *ra, *l2, *l4;

    make_case(&a, NULL, counted_lib(NULL), "alloc_exact", exact);
    ra = meter(&a, PG_INSTRUMENT_MEMORY, 3);
    cr_assert_eq(metric(ra, "bytes_per_iter")->status, PG_STATUS_OK, "%s", metric(ra, "bytes_per_iter")->message);
    cr_assert_eq(metric(ra, "bytes_per_iter")->samples[0], 3000.0);
    cr_assert_eq(metric(ra, "allocs_per_iter")->samples[0], 3.0);
    cr_assert_eq(metric(ra, "peak")->samples[0], 3000.0);
    cr_assert_eq(metric(ra, "bytes_per_iter")->samples[1], 3000.0);
    make_case(&l, NULL, lib, "leak", leaky);
    l2 = meter(&l, PG_INSTRUMENT_MEMORY, 2);
    l4 = meter(&l, PG_INSTRUMENT_MEMORY, 4);
    cr_assert_eq(metric(l2, "peak")->samples[0], 2 * 4096.0);
    cr_assert_eq(metric(l4, "peak")->samples[0], 4 * 4096.0);
    cr_assert_eq(metric(l4, "bytes_per_iter")->samples[0], 4096.0);
    pg_run_free(ra);
    pg_run_free(l2);
    pg_run_free(l4);
    pg_case_clear(&a);
    pg_case_clear(&l);
}

Test(meter, threads_and_gpu_cases_are_refused_with_the_reason)
{
    const char *params[] = {"n=64", NULL};
    pg_case c;
    pg_run *run;

    make_case(&c, "sgemm", NULL, NULL, params);
    c.threads = 2;
    run = meter(&c, PG_INSTRUMENT_INSTRUCTIONS, 1);
    cr_assert_eq(metric(run, "instructions")->status, PG_STATUS_SKIPPED);
    cr_assert(strstr(metric(run, "instructions")->message, "needs one thread") != NULL, "%s",
              metric(run, "instructions")->message);
    pg_run_free(run);
    c.threads = 1;
    free(c.device);
    c.device = pg__strdup("cuda");
    run = meter(&c, PG_INSTRUMENT_MEMORY, 1);
    cr_assert_eq(metric(run, "peak")->status, PG_STATUS_SKIPPED);
    cr_assert(strstr(metric(run, "peak")->message, "GPU") != NULL, "%s", metric(run, "peak")->message);
    pg_run_free(run);
    pg_case_clear(&c);
}

Test(meter, without_valgrind_the_instrument_is_refused_and_the_command_exits_2)
{
    pg_meter_options o = options(1);
    const char *env[] = {"PERFGATE_VALGRIND=/nonexistent/valgrind", NULL};
    char *suite = pg_test_write(tmp, "s.yaml", "suite: s\nbenchmarks:\n  - name: add\n    kernel: add\n"
                                               "    params: {n: 64}\n    instrument: instructions\n");
    const char *argv[] = {"run", "--no-store", suite, NULL};
    pg_proc p;

    setenv("PERFGATE_VALGRIND", "/nonexistent/valgrind", 1);
    cr_assert_eq(pg_meter_ready(PG_INSTRUMENT_INSTRUCTIONS, &o), PG_EUSAGE);
    cr_assert(strstr(pg_error_last(), "needs Valgrind") != NULL, "%s", pg_error_last());
    cr_assert_eq(pg_error_exit_code(PG_EUSAGE), 2);
    /* Memory needs no Valgrind. */
    pg_assert_ok(pg_meter_ready(PG_INSTRUMENT_MEMORY, &o));
    unsetenv("PERFGATE_VALGRIND");
    pg_test_run(&p, tmp, env, argv);
    cr_assert_eq(p.status, 2, "exit %d: %s", p.status, p.err);
    cr_assert(strstr(p.err, "needs Valgrind") != NULL, "%s", p.err);
    pg_proc_free(&p);
    free(suite);
}

Test(meter, identical_counts_same_over_threshold_regressed_differing_processes_unsure)
{
    double base[] = {1000, 1000}, same[] = {1000, 1000}, up[] = {1012, 1012}, small[] = {1005, 1005},
           down[] = {980, 980}, noisy[] = {1000, 1003};
    pg_case_verdict v;

    memset(&v, 0, sizeof(v));
    v.threshold = 0.01;
    pg_assert_ok(pg_verdict_exact(&v, same, 2, base, 2));
    cr_assert_eq(v.verdict, PG_VERDICT_SAME);
    cr_assert(strstr(v.reason, "identical") != NULL, "%s", v.reason);
    pg_assert_ok(pg_verdict_exact(&v, up, 2, base, 2));
    cr_assert_eq(v.verdict, PG_VERDICT_REGRESSED, "%s", v.reason);
    cr_assert(strstr(v.reason, "+1.2%") != NULL, "%s", v.reason);
    pg_assert_ok(pg_verdict_exact(&v, small, 2, base, 2));
    cr_assert_eq(v.verdict, PG_VERDICT_SAME, "%s", v.reason);
    v.threshold = 0.0025;
    pg_assert_ok(pg_verdict_exact(&v, small, 2, base, 2));
    cr_assert_eq(v.verdict, PG_VERDICT_REGRESSED, "%s", v.reason);
    pg_assert_ok(pg_verdict_exact(&v, down, 2, base, 2));
    cr_assert_eq(v.verdict, PG_VERDICT_IMPROVED, "%s", v.reason);
    /* The edge: an increase of exactly the threshold is SAME, one count more is REGRESSED; likewise downwards. */
    {
        double b2[] = {200000, 200000}, edge[] = {201000, 201000}, over[] = {201001, 201001},
               fall_edge[] = {199004.975124378, 199004.975124378}, fall[] = {199004, 199004};
        v.threshold = 0.005;
        pg_assert_ok(pg_verdict_exact(&v, edge, 2, b2, 2));
        cr_assert_eq(v.verdict, PG_VERDICT_SAME, "%s", v.reason);
        pg_assert_ok(pg_verdict_exact(&v, over, 2, b2, 2));
        cr_assert_eq(v.verdict, PG_VERDICT_REGRESSED, "%s", v.reason);
        pg_assert_ok(pg_verdict_exact(&v, fall_edge, 2, b2, 2));
        cr_assert_eq(v.verdict, PG_VERDICT_SAME, "%s", v.reason);
        pg_assert_ok(pg_verdict_exact(&v, fall, 2, b2, 2));
        cr_assert_eq(v.verdict, PG_VERDICT_IMPROVED, "%s", v.reason);
        v.threshold = 0.01;
    }
    /* No allocations on either side is identical; some where there were none is a regression at any threshold. */
    {
        double none[] = {0, 0}, some[] = {16, 16};
        pg_assert_ok(pg_verdict_exact(&v, none, 2, none, 2));
        cr_assert_eq(v.verdict, PG_VERDICT_SAME, "%s", v.reason);
        cr_assert(strstr(v.reason, "identical") != NULL, "%s", v.reason);
        pg_assert_ok(pg_verdict_exact(&v, some, 2, none, 2));
        cr_assert_eq(v.verdict, PG_VERDICT_REGRESSED, "%s", v.reason);
    }
    pg_assert_ok(pg_verdict_exact(&v, noisy, 2, base, 2));
    cr_assert_eq(v.verdict, PG_VERDICT_UNSURE);
    cr_assert(strstr(v.reason, "nondeterministic") != NULL, "%s", v.reason);
    cr_assert(strstr(v.reason, "0.3%") != NULL, "%s", v.reason);
    free(v.reason);
}

static pg_suite *load(const char *yaml)
{
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    char *path = pg_test_write(tmp, "m.yaml", yaml);
    pg_suite *s = NULL;

    pg_assert_ok(pg_suite_load(&s, path, &so, NULL));
    free(path);
    return s;
}

static pg_check_result check(const pg_suite *s, size_t i)
{
    pg_check_result r;

    memset(&r, 0, sizeof(r));
    pg_assert_ok(pg_check_run(&r, s, &s->checks[i], NULL));
    return r;
}

Test(meter, memory_checks_pass_and_fail_on_exact_values)
{
    char *yaml = pg__asprintf("suite: m\n"
                              "checks:\n"
                              "  - name: exact\n    kind: memory\n    benchmark: alloc\n"
                              "    expect: {bytes_per_iter: 6000, allocs_per_iter: 2, peak: {max: 6000}}\n"
                              "  - name: wrong\n    kind: memory\n    benchmark: alloc\n"
                              "    expect: {bytes_per_iter: 5999}\n"
                              "benchmarks:\n"
                              "  - name: alloc\n    plugin: %s\n    symbol: alloc_exact\n"
                              "    params: {size: 3000, count: 2}\n",
                              counted_lib(NULL));
    pg_suite *s = load(yaml);
    pg_check_result ok = check(s, 0), bad = check(s, 1);

    cr_assert(ok.passed, "%s", ok.message);
    cr_assert_str_eq(ok.actual, "bytes_per_iter = 6,000; allocs_per_iter = 2; peak = 6,000");
    cr_assert_not(bad.passed);
    cr_assert(strstr(bad.message, "bytes_per_iter is 6,000, expected bytes_per_iter = 5999") != NULL, "%s",
              bad.message);
    pg__check_clear(&ok);
    pg__check_clear(&bad);
    pg_suite_free(s);
    free(yaml);
}

Test(meter, torch_trace_memory_events_are_checked)
{
    char *trace = pg_test_data("traces/torch_memory.json");
    char *yaml = pg__asprintf("suite: m\n"
                              "checks:\n"
                              "  - name: trace_ok\n    kind: memory\n    trace: %s\n"
                              "    expect: {bytes_per_iter: 131364, allocs_per_iter: 4}\n"
                              "  - name: trace_wrong\n    kind: memory\n    trace: %s\n"
                              "    expect: {bytes_per_iter: 65536}\n",
                              trace, trace);
    pg_suite *s = load(yaml);
    pg_check_result ok = check(s, 0), bad = check(s, 1);

    cr_assert(ok.passed, "%s / %s", ok.message, ok.actual);
    cr_assert_not(bad.passed);
    cr_assert(strstr(bad.message, "ProfilerStep") != NULL, "%s", bad.message);
    pg__check_clear(&ok);
    pg__check_clear(&bad);
    pg_suite_free(s);
    free(yaml);
    free(trace);
}

Test(meter, suite_instrument_setting_is_validated_with_its_position)
{
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_diags diags = {0};
    char *path = pg_test_write(tmp, "bad.yaml", "suite: b\nbenchmarks:\n  - name: add\n    kernel: add\n"
                                                "    instrument: [time, cycles]\n");
    pg_suite *s = NULL;

    cr_assert_neq(pg_suite_load(&s, path, &so, &diags), 0);
    cr_assert_geq(diags.count, 1);
    cr_assert(strstr(diags.lines[0], "bad.yaml:5:24: unknown instrument 'cycles'") != NULL, "%s", diags.lines[0]);
    pg_diags_clear(&diags);
    free(path);
    s = load("suite: g\ndefaults: {instrument: [time, memory], regression: {exact_threshold: 0.25%}}\n"
             "benchmarks:\n  - name: add\n    kernel: add\n    params: {n: 64}\n");
    cr_assert_eq(s->cases[0].instruments, PG_INSTRUMENT_TIME | PG_INSTRUMENT_MEMORY);
    cr_assert_float_eq(s->cases[0].exact_threshold, 0.0025, 1e-12);
    pg_suite_free(s);
}

Test(meter, counted_runs_carry_the_fingerprint_of_counts_not_of_the_machine)
{
    pg_run *a = NULL, *b = NULL;
    pg_result *r;

    pg_assert_ok(pg_run_new(&a));
    pg_assert_ok(pg_run_new(&b));
    a->machine_json = pg__strdup("{\"arch\":\"x86_64\",\"cpu_model\":\"Model A\",\"libc\":\"2.36\","
                                 "\"isa\":\"avx2 fma avx512f\",\"openblas_version\":\"0.3.21\"}");
    b->machine_json = pg__strdup("{\"arch\":\"x86_64\",\"cpu_model\":\"Model B\",\"libc\":\"2.36\","
                                 "\"isa\":\"avx2 fma\",\"openblas_version\":\"0.3.21\"}");
    a->machine_hash = pg__strdup("aaaa");
    b->machine_hash = pg__strdup("bbbb");
    pg_assert_ok(pg_run_add_result(&r, a));
    r->metric = pg__strdup("instructions");
    pg_assert_ok(pg_run_add_result(&r, b));
    r->metric = pg__strdup("instructions");
    pg_assert_ok(pg_meter_fingerprint_run(a));
    pg_assert_ok(pg_meter_fingerprint_run(b));
    /* Another CPU model, and AVX-512 that Valgrind hides: the same counts, the same fingerprint. */
    cr_assert_str_eq(a->machine_hash, b->machine_hash);
    cr_assert(strstr(a->machine_json, "\"kind\":\"counts\"") != NULL, "%s", a->machine_json);
    cr_assert(strstr(a->machine_json, "\"measured_on\"") != NULL, "%s", a->machine_json);
    /* Another libc runs other code: another fingerprint. */
    pg_run_free(b);
    pg_assert_ok(pg_run_new(&b));
    b->machine_json = pg__strdup("{\"arch\":\"x86_64\",\"cpu_model\":\"Model A\",\"libc\":\"2.37\","
                                 "\"isa\":\"avx2 fma avx512f\",\"openblas_version\":\"0.3.21\"}");
    b->machine_hash = pg__strdup("cccc");
    pg_assert_ok(pg_run_add_result(&r, b));
    r->metric = pg__strdup("instructions");
    pg_assert_ok(pg_run_add_result(&r, b));
    r->metric = pg__strdup("time");
    pg_assert_ok(pg_meter_fingerprint_run(b));
    /* A run with a timed result keeps its machine's fingerprint. */
    cr_assert_str_eq(b->machine_hash, "cccc");
    pg_run_free(a);
    pg_run_free(b);
}

/* A stored counted result: `value` instructions per iteration in both processes. */
static void add_count(pg_run *run, const char *key, double value)
{
    pg_result *r;

    pg_assert_ok(pg_run_add_result(&r, run));
    r->key = pg__strdup(key);
    r->suite = pg__strdup("c");
    r->name = pg__strdup("case");
    r->params_json = pg__strdup("{}");
    r->threads = 1;
    r->device = pg__strdup("cpu");
    r->metric = pg__strdup("instructions");
    r->unit = pg__strdup("Ir");
    r->nsamples = 2;
    r->samples = malloc(2 * sizeof(double));
    r->samples[0] = r->samples[1] = value;
    r->number_per_run = 1;
    pg_assert_ok(pg_stats_summarize(&r->summary, r->samples, r->nsamples));
}

Test(meter, history_flags_a_one_percent_step_in_stored_instruction_counts)
{
    char *db = pg__asprintf("%s/counts.db", tmp);
    const char *argv[] = {"history", "--db", db, "--format", "json", "c/*", NULL};
    pg_store *s;
    pg_proc p;
    json_t *root, *cases;
    json_error_t e;
    size_t i, found = 0;
    int k;

    /* 24 commits of main: `stepped` grows 1% at commit 9 and 0.6% more at 17; `flat` never moves. */
    pg_assert_ok(pg_store_open(&s, db));
    for (k = 0; k < 24; k++) {
        pg_run *run;
        pg_assert_ok(pg_run_new(&run));
        run->branch = pg__strdup("main");
        run->commit = pg__asprintf("%040d", k + 1);
        run->machine_hash = pg__strdup("00000000000000cc");
        run->machine_json = pg__strdup("{}");
        run->started_at = 1700000000 + 3600LL * k;
        add_count(run, "c/stepped[]@1:cpu#instructions", k < 8 ? 1000000 : k < 16 ? 1010000 : 1016060);
        add_count(run, "c/flat[]@1:cpu#instructions", 2000000);
        pg_assert_ok(pg_store_save_run(s, run));
        pg_run_free(run);
    }
    pg_store_close(s);
    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "%s", p.err);
    root = json_loads(p.out, 0, &e);
    cr_assert(root != NULL, "%s", e.text);
    pg_proc_free(&p);
    cases = json_object_get(root, "cases");
    cr_assert_eq(json_array_size(cases), 2);
    for (i = 0; i < 2; i++) {
        json_t *c = json_array_get(cases, i), *cps = json_object_get(c, "change_points");
        if (strcmp(json_string_value(json_object_get(c, "key")), "c/flat[]@1:cpu#instructions") == 0) {
            cr_assert_eq(json_array_size(cps), 0);
            continue;
        }
        found++;
        cr_assert_eq(json_array_size(cps), 2, "%zu change points", json_array_size(cps));
        cr_assert_eq(json_integer_value(json_object_get(json_array_get(cps, 0), "index")), 8);
        cr_assert_eq(json_integer_value(json_object_get(json_array_get(cps, 1), "index")), 16);
        cr_assert_float_eq(json_real_value(json_object_get(json_array_get(cps, 0), "change")), 0.01, 1e-9);
        cr_assert_float_eq(json_real_value(json_object_get(json_array_get(cps, 1), "change")), 0.006, 1e-9);
    }
    cr_assert_eq(found, 1);
    json_decref(root);
    free(db);
}

/* `ab` and `gate --base-build` under instructions: each side counted, no rounds; a 1% data change REGRESSED. */
Test(meter, ab_and_interleaved_gate_count_each_side_and_decide_exactly)
{
    char *base = pg__strdup(counted_lib(NULL)), *head = pg__strdup(counted_lib("-DEXTRA_PERMILLE=10"));
    char *suite = pg_test_write(tmp, "ab.yaml", "suite: c\ndefaults: {threads: 1}\nbenchmarks:\n"
                                                "  - {name: work, symbol: work, plugin: ./none.so, params: {n: 20000}}\n");
    const char *ab[] = {"ab", "--instrument", "instructions", "--base", base, "--head", head, suite, NULL};
    const char *gate[] = {"gate", "--no-store", "--instrument", "instructions", "--base-build", base,
                          "--head-build", head, suite, NULL};
    const char *mixed[] = {"ab", "--instrument", "time,instructions", "--base", base, "--head", head, suite, NULL};
    const char *novg[] = {"PERFGATE_VALGRIND=/nonexistent/valgrind", NULL};
    pg_proc p;

    pg_test_run(&p, tmp, NULL, ab);
    cr_assert_eq(p.status, 1, "exit %d: %s%s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "no rounds") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "REGRESSED  instructions") != NULL, "%s", p.out);
    /* Counts alone: the method line names no test that was not run. */
    cr_assert(strstr(p.out, "method: counted metrics") != NULL && strstr(p.out, "Mann-Whitney") == NULL, "%s", p.out);
    pg_proc_free(&p);
    pg_test_run(&p, tmp, NULL, gate);
    cr_assert_eq(p.status, 1, "exit %d: %s%s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "REGRESSED") != NULL, "%s", p.out);
    pg_proc_free(&p);
    pg_test_run(&p, tmp, NULL, mixed);
    cr_assert_eq(p.status, 2, "exit %d: %s", p.status, p.err);
    cr_assert(strstr(p.err, "interleaved") != NULL, "%s", p.err);
    pg_proc_free(&p);
    pg_test_run(&p, tmp, novg, ab);
    cr_assert_eq(p.status, 2, "exit %d: %s", p.status, p.err);
    cr_assert(strstr(p.err, "needs Valgrind") != NULL, "%s", p.err);
    pg_proc_free(&p);
    free(base);
    free(head);
    free(suite);
}
