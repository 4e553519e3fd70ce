/*
 * canary_test.c - the machine-drift rule (canary.h) on runs with seeded
 * log-normal samples (no timing): a canary shift explains the cases of its
 * kind and only those, never more than it moved, in both directions; the
 * canaries themselves never fail a build; canary rounds are pooled by the
 * executor.
 */
#include "fixture.h"
#include "support.h"

#include "verdict/canary.h"
#include "exec/exec.h"
#include "report/report.h"
#include "stats/stats.h"
#include "base/testhooks.h"
#include "base/util.h"
#include "verdict/verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double gauss(pg_rng *g)
{
    double u1 = ((double)(pg_stats_rng_next(g) >> 11) + 0.5) * 0x1.0p-53;
    double u2 = ((double)(pg_stats_rng_next(g) >> 11) + 0.5) * 0x1.0p-53;

    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* Adds suite/name with 30 samples around `median` (log-normal, sd `noise`) and the given FLOPs and bytes. */
static void add(pg_run *run, const char *suite, const char *name, double median, double noise, double flops,
                double bytes, pg_rng *g)
{
    size_t i, n = 30;
    pg_result *r = pg_test_add_result(run, suite, name, n);

    r->flops = flops;
    r->bytes = bytes;
    for (i = 0; i < n; i++)
        r->samples[i] = median * exp(noise * gauss(g));
    pg_assert_ok(pg_stats_summarize(&r->summary, r->samples, n));
}

/*
 * The factors by which head differs from base: the two canaries and three
 * cases (compute-bound gemm, memory-bound copy, and a command of unknown kind).
 */
typedef struct shifts {
    double compute, memory, gemm, copy, cmd;
    double canary_noise;
} shifts;

static pg_run *make_run(const shifts *s, uint64_t seed)
{
    pg_run *run;
    pg_rng g;
    double cn = s->canary_noise > 0 ? s->canary_noise : 0.01;

    /* The canaries replay the same draws on both sides, scaled by their shift: a pure machine phase. */
    pg_stats_rng_seed(&g, 99);
    pg_assert_ok(pg_run_new(&run));
    add(run, PG_CANARY_SUITE, PG_CANARY_COMPUTE, 1e-3 * s->compute, cn, 2.0 * 256 * 256 * 256, 3.0 * 4 * 256 * 256,
        &g);
    add(run, PG_CANARY_SUITE, PG_CANARY_MEMORY, 10e-3 * s->memory, cn, 0, 64.0 * 1024 * 1024, &g);
    pg_stats_rng_seed(&g, seed);
    add(run, "s", "gemm", 2e-3 * s->gemm, 0.01, 2.0 * 512 * 512 * 512, 3.0 * 4 * 512 * 512, &g);
    add(run, "s", "copy", 5e-3 * s->copy, 0.01, 0, 32.0 * 1024 * 1024, &g);
    add(run, "s", "cmd", 50e-3 * s->cmd, 0.01, 0, 0, &g);
    return run;
}

static pg_run *head, *base;
static pg_comparison *cmp;

static void compare(const shifts *h)
{
    shifts b = {1, 1, 1, 1, 1, h->canary_noise};
    const pg_run *bases[1];

    base = make_run(&b, 1);
    head = make_run(h, 2);
    bases[0] = base;
    pg_assert_ok(pg_compare(&cmp, head, bases, 1, NULL));
}

static void teardown(void)
{
    pg_comparison_free(cmp);
    pg_run_free(head);
    pg_run_free(base);
    cmp = NULL;
    head = base = NULL;
}

TestSuite(canary, .fini = teardown);

static const pg_case_verdict *of(const char *key)
{
    size_t i;

    for (i = 0; i < cmp->ncases; i++)
        if (strcmp(cmp->cases[i].key, key) == 0)
            return &cmp->cases[i];
    cr_assert_fail("no verdict for %s", key);
    return NULL;
}

static void expect(const char *key, pg_verdict v, const char *reason_part)
{
    const pg_case_verdict *c = of(key);

    cr_expect_eq(c->verdict, v, "%s: %s (%s), expected %s", key, pg_verdict_name(c->verdict),
                 c->reason ? c->reason : "", pg_verdict_name(v));
    if (reason_part)
        cr_expect(c->reason && strstr(c->reason, reason_part), "%s: reason '%s' lacks '%s'", key,
                  c->reason ? c->reason : "(none)", reason_part);
}

Test(canary, bound_from_flops_and_bytes)
{
    pg_result r = {0};

    cr_expect_eq(pg_canary_bound(&r), PG_BOUND_UNKNOWN);
    r.bytes = 1e6;
    cr_expect_eq(pg_canary_bound(&r), PG_BOUND_MEMORY);
    r.flops = 3.9e6;
    cr_expect_eq(pg_canary_bound(&r), PG_BOUND_MEMORY);
    r.flops = 4e6;
    cr_expect_eq(pg_canary_bound(&r), PG_BOUND_COMPUTE);
    r.bytes = 0;
    cr_expect_eq(pg_canary_bound(&r), PG_BOUND_COMPUTE);
}

Test(canary, small_significant_move_is_no_drift)
{
    /* Quiet canaries (sd 1%) that moved 1%: beyond their noise, but under PG_CANARY_MIN_SHIFT. */
    shifts h = {1.01, 0.99, 1, 1.38, 1, 0};

    compare(&h);
    cr_expect_eq(cmp->canary.drift, 0);
    expect("s/copy@1:cpu", PG_VERDICT_REGRESSED, NULL);
}

Test(canary, memory_phase_makes_memory_cases_unsure)
{
    shifts h = {1, 1.38, 1, 1.38, 1, 0};

    compare(&h);
    cr_expect_eq(cmp->canary.drift, PG_CANARY_DRIFT_MEMORY);
    cr_expect(fabs(cmp->canary.memory - 1.38) < 0.02, "memory canary %g", cmp->canary.memory);
    expect("s/copy@1:cpu", PG_VERDICT_UNSURE, "machine drift: memory canary +38%");
    expect("canary/memory@1:cpu", PG_VERDICT_UNSURE, "machine drift: this memory canary moved +3");
    cr_expect_neq(of("s/gemm@1:cpu")->verdict, PG_VERDICT_REGRESSED);
    cr_expect_eq(cmp->counts[PG_VERDICT_REGRESSED], 0);
    cr_expect_eq(cmp->exit_code, 0);
}

Test(canary, memory_phase_does_not_excuse_compute_case)
{
    shifts h = {1, 1.38, 1.38, 1, 1, 0};

    compare(&h);
    expect("s/gemm@1:cpu", PG_VERDICT_REGRESSED, "slower beyond");
    cr_expect_eq(cmp->exit_code, 1);
}

Test(canary, compute_phase_makes_compute_cases_unsure)
{
    shifts h = {1.25, 1, 1.25, 1, 1, 0};

    compare(&h);
    cr_expect_eq(cmp->canary.drift, PG_CANARY_DRIFT_COMPUTE);
    expect("s/gemm@1:cpu", PG_VERDICT_UNSURE, "machine drift: compute canary +2");
    expect("canary/compute@1:cpu", PG_VERDICT_UNSURE, "machine drift: this compute canary");
    cr_expect_eq(cmp->exit_code, 0);
}

Test(canary, regression_beyond_the_drift_still_fails)
{
    shifts h = {1, 1.10, 1, 1.60, 1, 0};

    compare(&h);
    cr_expect_eq(cmp->canary.drift, PG_CANARY_DRIFT_MEMORY);
    expect("s/copy@1:cpu", PG_VERDICT_REGRESSED, NULL);
    cr_expect_eq(cmp->exit_code, 1);
}

Test(canary, real_regression_with_calm_canaries)
{
    shifts h = {1, 1, 1.30, 1, 1, 0};

    compare(&h);
    cr_expect_eq(cmp->canary.drift, 0);
    expect("s/gemm@1:cpu", PG_VERDICT_REGRESSED, NULL);
    cr_expect_neq(of("canary/compute@1:cpu")->verdict, PG_VERDICT_REGRESSED);
    cr_expect_eq(cmp->exit_code, 1);
}

Test(canary, faster_machine_explains_improvement)
{
    shifts h = {1, 0.70, 1, 0.70, 1, 0};

    compare(&h);
    expect("s/copy@1:cpu", PG_VERDICT_UNSURE, "machine drift: memory canary -30%");
    cr_expect_eq(cmp->counts[PG_VERDICT_IMPROVED], 0);
}

Test(canary, unknown_kind_takes_the_larger_move)
{
    shifts h = {1.05, 1.40, 1, 1, 1.40, 0};

    compare(&h);
    expect("s/cmd@1:cpu", PG_VERDICT_UNSURE, "machine drift: memory canary +40%");
    cr_expect_eq(cmp->exit_code, 0);
}

Test(canary, canary_within_its_noise_is_no_drift)
{
    /* Noisy canaries (sd 10%) that moved 5%, within their noise: no drift, so the copy regression stands. */
    shifts h = {1.05, 1.05, 1, 1.38, 1, 0.10};

    compare(&h);
    cr_expect_eq(cmp->canary.drift, 0, "drift %u: compute %g [%g, %g], memory %g [%g, %g]", cmp->canary.drift,
                 cmp->canary.compute, of("canary/compute@1:cpu")->est.shift_lo,
                 of("canary/compute@1:cpu")->est.shift_hi, cmp->canary.memory,
                 of("canary/memory@1:cpu")->est.shift_lo, of("canary/memory@1:cpu")->est.shift_hi);
    expect("s/copy@1:cpu", PG_VERDICT_REGRESSED, NULL);
}

Test(canary, canaries_stay_out_of_holm)
{
    shifts h = {1, 1, 1.30, 1, 1, 0};

    compare(&h);
    /* Three cases are tested (gemm, copy, cmd); the two canaries are references. */
    expect("s/gemm@1:cpu", PG_VERDICT_REGRESSED, "over 3 cases");
}

Test(canary, no_canaries_no_drift)
{
    pg_run *h, *b;
    pg_comparison *c;
    const pg_run *bases[1];
    pg_rng g;

    pg_stats_rng_seed(&g, 7);
    pg_assert_ok(pg_run_new(&h));
    pg_assert_ok(pg_run_new(&b));
    add(b, "s", "copy", 5e-3, 0.01, 0, 1e6, &g);
    add(h, "s", "copy", 5e-3 * 1.38, 0.01, 0, 1e6, &g);
    bases[0] = b;
    pg_assert_ok(pg_compare(&c, h, bases, 1, NULL));
    cr_expect(isnan(c->canary.memory) && isnan(c->canary.compute));
    cr_expect_eq(c->canary.drift, 0);
    cr_expect_eq(c->cases[0].verdict, PG_VERDICT_REGRESSED);
    pg_comparison_free(c);
    pg_run_free(h);
    pg_run_free(b);
}

Test(canary, merge_pools_rounds)
{
    pg_result a = {0}, m = {0};
    double xa[] = {1, 2, 3}, xm[] = {4, 5};

    a.key = "k";
    a.samples = malloc(sizeof(xa));
    memcpy(a.samples, xa, sizeof(xa));
    a.nsamples = 3;
    m.samples = xm;
    m.nsamples = 2;
    pg_assert_ok(pg_canary_merge(&a, &m));
    cr_expect_eq(a.nsamples, 5);
    cr_expect_eq(a.summary.n, 5);
    cr_expect_float_eq(a.summary.median, 3.0, 1e-12);
    m.status = PG_STATUS_ERROR;
    m.message = "boom";
    pg_assert_ok(pg_canary_merge(&a, &m));
    cr_expect_eq(a.status, PG_STATUS_ERROR);
    cr_expect_str_eq(a.message, "boom");
    free(a.samples);
    free(a.message);
}

/* The executor measures the canaries in rounds: before, every `canary_every` cases and after the last. */
Test(canary_exec, rounds_are_pooled_into_canary_results, .timeout = 60)
{
    static const char yaml[] = "suite: t\n"
                               "defaults: {threads: 1, min_run_time: 10ms, min_samples: 3, warmup: 1ms}\n"
                               "benchmarks:\n"
                               "  - {name: a, kernel: sgemm, params: {n: 32}}\n"
                               "  - {name: b, kernel: sgemm, params: {n: 48}}\n";
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_exec_options eo = PG_EXEC_OPTIONS_INIT;
    pg_suite *s = NULL;
    pg_suite_set set;
    pg_run *run;
    size_t i, ncanary = 0;

    pg_assert_ok(pg_suite_load_buffer(&s, "t.yaml", yaml, sizeof(yaml) - 1, &so, NULL));
    set.suites = &s;
    set.count = 1;
    pg_assert_ok(pg_run_new(&run));
    eo.canary = 1;
    eo.canary_every = 1;
    eo.time_scale = 0.2;
    pg_assert_ok(pg_exec_run(run, &set, &eo));
    cr_assert_eq(run->nresults, 4);
    for (i = 0; i < run->nresults; i++) {
        const pg_result *r = &run->results[i];
        cr_expect_eq(r->status, PG_STATUS_OK, "%s: %s", r->key, r->message ? r->message : "");
        if (!pg_canary_is(r->suite))
            continue;
        ncanary++;
        /* Three rounds (before a, after a, after b) of at least min_samples each. */
        cr_expect_geq(r->nsamples, 9, "%s has %zu samples", r->key, r->nsamples);
        cr_expect_eq(r->summary.n, r->nsamples);
    }
    cr_expect_eq(ncanary, 2);
    cr_expect_eq(pg_canary_bound(pg_run_find(run, run->results[0].key)), PG_BOUND_COMPUTE);
    cr_expect_eq(pg_canary_bound(&run->results[1]), PG_BOUND_MEMORY);
    pg_run_free(run);
    pg_suite_free(s);
}

/* Both human reports show the canaries, the drift reason and each case's resolution. */
Test(canary, reports_show_canaries_drift_and_resolution)
{
    shifts h = {1, 1.38, 1, 1.38, 1, 0};
    pg_report_options o = PG_REPORT_OPTIONS_INIT;
    pg_report_data d;
    pg_buf md = PG_BUF_INIT, term = PG_BUF_INIT;
    char res[16];

    compare(&h);
    d.run = head;
    d.cmp = cmp;
    d.origin = NULL;
    pg_assert_ok(pg_render_markdown(&md, &d, &o));
    pg_assert_ok(pg_render_terminal(&term, &d, &o));
    pg_fmt_resolution(res, sizeof(res), of("s/copy@1:cpu")->est.resolution);
    cr_expect(isfinite(of("s/copy@1:cpu")->est.resolution) && strcmp(res, "-") != 0);
    cr_expect(strstr(md.ptr, "canaries: compute +0.0%, memory +38.0% (machine drift: memory;") != NULL, "%s", md.ptr);
    cr_expect(strstr(md.ptr, "| resolves | why |") != NULL, "%s", md.ptr);
    cr_expect(strstr(md.ptr, "machine drift: memory canary +38% (this case +3") != NULL, "%s", md.ptr);
    cr_expect(strstr(md.ptr, res) != NULL, "markdown lacks the resolution %s", res);
    cr_expect(strstr(term.ptr, "canaries: compute +0.0%, memory +38.0% (machine drift: memory;") != NULL, "%s",
              term.ptr);
    cr_expect(strstr(term.ptr, "resolves") != NULL, "%s", term.ptr);
    cr_expect(strstr(term.ptr, "machine drift: memory canary +38%") != NULL, "%s", term.ptr);
    cr_expect(strstr(term.ptr, res) != NULL, "terminal lacks the resolution %s", res);
    {
        pg_buf js = PG_BUF_INIT;
        pg_assert_ok(pg_render_json(&js, &d, &o));
        cr_expect(strstr(js.ptr, "\"canaries\"") && strstr(js.ptr, "\"memory_drift\": true"), "%s", js.ptr);
        pg__buf_clear(&js);
    }
    pg__buf_clear(&md);
    pg__buf_clear(&term);
}

/* ---- test-only slowdown injection (testhooks.h) ---------------------------------------------------- */

Test(testhooks, slowdown_spec_matches_by_glob)
{
#ifdef PG_TEST_HOOKS
    setenv("PG_TEST_SLOWDOWN", "cpu/sgemm?n=256?@*=1.10,bad,x/*=oops,cpu/copy*=1.5", 1);
    cr_expect_float_eq(pg__test_slowdown("cpu/sgemm[n=256]@1:cpu"), 1.10, 1e-12);
    cr_expect_float_eq(pg__test_slowdown("cpu/sgemm[n=128]@1:cpu"), 1.0, 1e-12);
    cr_expect_float_eq(pg__test_slowdown("cpu/copy[n=1]@1:cpu"), 1.5, 1e-12);
    cr_expect_float_eq(pg__test_slowdown("x/y@1:cpu"), 1.0, 1e-12, "a malformed factor is ignored");
    unsetenv("PG_TEST_SLOWDOWN");
    cr_expect_float_eq(pg__test_slowdown("cpu/sgemm[n=256]@1:cpu"), 1.0, 1e-12);
#else
    cr_skip_test("built without PG_TEST_HOOKS");
#endif
}

#ifdef PG_TEST_HOOKS
/* Two identical sgemm cases; the tests below slow down "slow" only. */
static const char twins_yaml[] = "suite: t\n"
                                 "defaults: {threads: 1, min_run_time: 50ms, min_samples: 9, warmup: 5ms}\n"
                                 "benchmarks:\n"
                                 "  - {name: slow, kernel: sgemm, params: {n: 64}}\n"
                                 "  - {name: same, kernel: sgemm, params: {n: 64}}\n";
#endif

/*
 * Two identical cases, one named in PG_TEST_SLOWDOWN with a large factor (4x, so that a loaded
 * machine cannot blur it): only that one gets slower. This compares the two cases with each other
 * inside one process; it asserts no absolute speed.
 */
Test(testhooks, slowdown_hits_only_the_named_case, .timeout = 60)
{
#ifdef PG_TEST_HOOKS
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_exec_options eo = PG_EXEC_OPTIONS_INIT;
    pg_suite *s = NULL;
    pg_suite_set set;
    pg_run *run;
    double slow, same;

    pg_assert_ok(pg_suite_load_buffer(&s, "t.yaml", twins_yaml, sizeof(twins_yaml) - 1, &so, NULL));
    set.suites = &s;
    set.count = 1;
    pg_assert_ok(pg_run_new(&run));
    setenv("PG_TEST_SLOWDOWN", "t/slow*=4", 1);
    pg_assert_ok(pg_exec_run(run, &set, &eo));
    unsetenv("PG_TEST_SLOWDOWN");
    cr_assert_eq(run->nresults, 2);
    slow = run->results[0].summary.min;
    same = run->results[1].summary.min;
    /* Fastest blocks: preemption only ever adds time, so the minimum is the cleanest comparison. */
    cr_expect(slow > 2 * same, "slowed case %g s, untouched twin %g s", slow, same);
    pg_run_free(run);
    pg_suite_free(s);
#else
    cr_skip_test("built without PG_TEST_HOOKS");
#endif
}

/*
 * Confirmation re-runs measure in a fresh process (exec.h: pg_exec_case_fresh): the result comes
 * back whole, and the injected slowdown (an environment the child inherits) still shows against
 * the untouched twin measured the same way.
 */
Test(testhooks, a_case_measured_in_a_fresh_process_comes_back_whole, .timeout = 60)
{
#ifdef PG_TEST_HOOKS
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_suite *s = NULL;
    pg_result r[2];
    int i;

    pg_assert_ok(pg_suite_load_buffer(&s, "t.yaml", twins_yaml, sizeof(twins_yaml) - 1, &so, NULL));
    memset(r, 0, sizeof(r));
    setenv("PG_TEST_SLOWDOWN", "t/slow*=4", 1);
    for (i = 0; i < 2; i++)
        pg_assert_ok(pg_exec_case_fresh(&r[i], &s->cases[i], NULL));
    unsetenv("PG_TEST_SLOWDOWN");
    for (i = 0; i < 2; i++) {
        cr_assert_eq(r[i].status, PG_STATUS_OK, "%s", r[i].message);
        cr_assert_str_eq(r[i].key, s->cases[i].key);
        cr_assert_geq(r[i].nsamples, 9);
        cr_assert_gt(r[i].flops, 0);
    }
    cr_expect(r[0].summary.min > 2 * r[1].summary.min, "slowed case %g s, untouched twin %g s", r[0].summary.min,
              r[1].summary.min);
    pg__result_clear(&r[0]);
    pg__result_clear(&r[1]);
    pg_suite_free(s);
#else
    cr_skip_test("built without PG_TEST_HOOKS");
#endif
}
