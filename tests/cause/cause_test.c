/*
 * cause_test.c - what changed behind a verdict: Callgrind's format read
 * into a profile (compressed names, relative positions, inlined files,
 * calls, recursion), profiles as JSON and back, and the diagnosis of each
 * kind of case with its one line: counted instructions, a timed case with
 * the instructions unchanged, heap traffic, BLAS calls, trace ops; and a
 * diagnosis read back from a report a pull request's code could have
 * written.
 */
#include "fixture.h"
#include "support.h"

#include "base/case.h"
#include "base/util.h"
#include "cause/cause.h"
#include "meter/profile.h"
#include "stats/stats.h"
#include "verdict/verdict.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Each rule of the format once: compression, relative and repeated positions, fi=/fe=, a call, recursion, short lines. */
static const char dump[] = "# callgrind format\n"
                           "version: 1\n"
                           "creator: callgrind-3.19.0\n"
                           "cmd: ./bench --param n=4\n"
                           "positions: line\n"
                           "events: Ir Dr Dw\n"
                           "summary: 950 10 10\n"
                           "\n"
                           "ob=(1) /lib/libx.so\n"
                           "fl=(1) /src/lib.c\n"
                           "fn=(1) outer\n"
                           "10 5 1\n"
                           "+1 5\n"
                           "cfi=(2) /src/inner.c\n"
                           "cfn=(2) inner\n"
                           "calls=2 20\n"
                           "+2 900 9 9\n"
                           "fn=(3) outer'2\n"
                           "cfn=(1)\n"
                           "calls=1 10\n"
                           "* 40\n"
                           "fl=(2)\n"
                           "fn=(2)\n"
                           "20 800\n"
                           "+3 100\n"
                           "fi=(3) /src/inline.h\n"
                           "99 7\n"
                           "fe=(2)\n"
                           "-1 0\n"
                           "fl=(1)\n"
                           "fn=(1)\n"
                           "12 40\n"
                           "totals: 950 10 10\n";

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

TestSuite(profile, .init = setup, .fini = teardown);
TestSuite(cause, .init = setup, .fini = teardown);

static const pg_profile_fn *fn(const pg_profile *p, const char *name)
{
    long i = pg_profile_find(p, name);

    cr_assert(i >= 0, "no function %s", name);
    return &p->fns[i];
}

Test(profile, reads_callgrind_names_positions_calls_and_recursion)
{
    char *path = pg_test_write(tmp, "callgrind.out.2", dump);
    const char *paths[] = {path};
    pg_profile p;

    pg_assert_ok(pg_profile_read_callgrind(&p, paths, 1));
    cr_assert_eq(p.total, 950);
    /* outer'2 is outer: a recursion level is the same function. */
    cr_assert_eq(p.nfns, 2, "%zu functions", p.nfns);
    cr_assert_eq(fn(&p, "outer")->self, 5 + 5 + 40);
    cr_assert_str_eq(fn(&p, "outer")->file, "/src/lib.c");
    cr_assert_eq(fn(&p, "outer")->line, 10);
    /* Inclusive: its self and its calls to another function; its call to itself is inside already. */
    cr_assert_eq(fn(&p, "outer")->incl, 950);
    /* Lines of code inlined from another file (fi=) are not where the function is. */
    cr_assert_eq(fn(&p, "inner")->self, 907);
    cr_assert_eq(fn(&p, "inner")->line, 20);
    cr_assert_str_eq(fn(&p, "inner")->file, "/src/inner.c");
    cr_assert_eq(p.ncalls, 1);
    cr_assert_eq(p.calls[0].count, 2);
    cr_assert_eq(p.calls[0].cost, 900);
    pg_profile_scale(&p, 0.5);
    cr_assert_eq(fn(&p, "outer")->incl, 475);
    pg_profile_clear(&p);
    free(path);
}

Test(profile, a_file_that_is_not_callgrinds_is_refused_with_its_line)
{
    char *path = pg_test_write(tmp, "bad.out", "positions: line\nevents: Ir\nfn=(1) f\n10 5\ncalls=1 3\nfoo bar\n");
    char *undefined = pg_test_write(tmp, "undef.out", "events: Ir\nfn=(7)\n1 2\n");
    const char *paths[] = {path}, *other[] = {undefined};
    pg_profile p;

    cr_assert_eq(pg_profile_read_callgrind(&p, paths, 1), PG_EFORMAT);
    cr_assert(strstr(pg_error_last(), "bad.out:") != NULL, "%s", pg_error_last());
    cr_assert_eq(pg_profile_read_callgrind(&p, other, 1), PG_EFORMAT);
    cr_assert(strstr(pg_error_last(), "undef.out:2") != NULL, "%s", pg_error_last());
    free(path);
    free(undefined);
}

Test(profile, json_round_trip_and_malformed_profiles_refused)
{
    char *path = pg_test_write(tmp, "callgrind.out.2", dump), *text;
    const char *paths[] = {path};
    pg_profile p, q;

    pg_assert_ok(pg_profile_read_callgrind(&p, paths, 1));
    text = pg_profile_to_json(&p);
    cr_assert(text != NULL);
    pg_assert_ok(pg_profile_from_json(&q, text));
    cr_assert_eq(q.nfns, 2);
    cr_assert_eq(fn(&q, "inner")->self, 907);
    cr_assert_str_eq(fn(&q, "outer")->file, "/src/lib.c");
    cr_assert_eq(q.ncalls, 1);
    cr_assert_eq(q.calls[0].cost, 900);
    pg_profile_clear(&q);
    /* What a report could hold instead: a call to a function it does not list, a negative cost, another version. */
    cr_assert_eq(pg_profile_from_json(&q, "{\"v\":1,\"total\":1,\"files\":[],\"fns\":[[\"f\",-1,0,1,1]],"
                                          "\"calls\":[[0,5,1,1]]}"),
                 PG_EFORMAT);
    cr_assert_eq(pg_profile_from_json(&q, "{\"v\":1,\"total\":1,\"files\":[],\"fns\":[[\"f\",-1,0,-1,1]],"
                                          "\"calls\":[]}"),
                 PG_EFORMAT);
    cr_assert_eq(pg_profile_from_json(&q, "{\"v\":1,\"total\":1,\"files\":[],\"fns\":[[\"f\",3,0,1,1]],"
                                          "\"calls\":[]}"),
                 PG_EFORMAT);
    cr_assert_eq(pg_profile_from_json(&q, "{\"v\":2,\"total\":1}"), PG_EFORMAT);
    cr_assert_eq(pg_profile_from_json(&q, "not json"), PG_EFORMAT);
    free(text);
    pg_profile_clear(&p);
    free(path);
}

Test(profile, pruning_keeps_what_carries_cost_and_says_it_cut)
{
    pg_profile p;
    size_t i;

    memset(&p, 0, sizeof(p));
    p.nfns = 3;
    p.fns = calloc(3, sizeof(*p.fns));
    p.total = 1e6;
    for (i = 0; i < 3; i++)
        p.fns[i].name = pg__asprintf("f%zu", i);
    p.fns[0].self = p.fns[0].incl = 999000;
    p.fns[1].self = p.fns[1].incl = 990;
    p.fns[2].self = p.fns[2].incl = 10; /* under 1e-4 of the total */
    pg_assert_ok(pg_profile_prune(&p));
    cr_assert_eq(p.nfns, 2);
    cr_assert(p.truncated);
    cr_assert_eq(pg_profile_find(&p, "f2"), -1);
    pg_profile_clear(&p);
}

/* ---- diagnoses ---------------------------------------------------------- */

/* A profile of `sweep` (self `sweep`) and `norm` (self `norm`) under `step`, as JSON. */
static char *two_function_profile(double sweep, double norm)
{
    return pg__asprintf("{\"v\":1,\"total\":%g,\"truncated\":false,\"files\":[\"/src/stencil.c\"],"
                        "\"fns\":[[\"step\",0,80,10,%g],[\"sweep\",0,46,%g,%g],[\"norm\",0,60,%g,%g]],"
                        "\"calls\":[[0,1,1,%g],[0,2,1,%g]]}",
                        10 + sweep + norm, 10 + sweep + norm, sweep, sweep, norm, norm, sweep, norm);
}

static void counted(pg_run *run, const char *key, const char *metric, double value, const char *extra)
{
    pg_test_add_count(run, key, metric, value, extra);
}

static char *with_profile(const char *profile)
{
    return pg__asprintf("{\"deterministic\":true,\"profile\":%s}", profile);
}

/* Base and head runs of case `key`'s instructions, `ir` per iteration each, with the profiles `prof` (text). */
typedef struct counted_pair {
    pg_run *base, *head;
    pg_comparison *cmp;
} counted_pair;

static void compare_counts(counted_pair *p, const char *key, const double ir[2], const char *const prof[2])
{
    pg_run **side[2] = {&p->base, &p->head};
    int k;

    for (k = 0; k < 2; k++) {
        char *extra = with_profile(prof[k]);
        pg_assert_ok(pg_run_new(side[k]));
        counted(*side[k], key, "instructions", ir[k], extra);
        free(extra);
    }
}

static void attach(counted_pair *p)
{
    pg_assert_ok(pg_compare(&p->cmp, p->head, (const pg_run *const *)&p->base, 1, NULL));
    pg_assert_ok(pg_cause_attach(p->cmp));
}

static void counted_pair_free(counted_pair *p)
{
    pg_comparison_free(p->cmp);
    pg_run_free(p->base);
    pg_run_free(p->head);
}

static const pg_case_verdict *verdict_of(const pg_comparison *cmp, const char *key)
{
    size_t i;

    for (i = 0; i < cmp->ncases; i++)
        if (strcmp(cmp->cases[i].key, key) == 0)
            return &cmp->cases[i];
    cr_assert_fail("no verdict for %s", key);
    return NULL;
}

Test(cause, a_counted_regression_names_the_function_with_its_share)
{
    char *bp = two_function_profile(100000, 20000), *hp = two_function_profile(110000, 20000);
    const char *prof[2] = {bp, hp};
    const double ir[2] = {120010, 130010};
    counted_pair p;
    const pg_case_verdict *v;
    const pg_diagnosis *d;

    compare_counts(&p, "s/relax[]@1:cpu", ir, prof);
    counted(p.base, "s/relax[]@1:cpu", "est_cycles", 200000, NULL);
    counted(p.head, "s/relax[]@1:cpu", "est_cycles", 215000, NULL);
    attach(&p);
    v = verdict_of(p.cmp, "s/relax[]@1:cpu#instructions");
    cr_assert_eq(v->verdict, PG_VERDICT_REGRESSED);
    d = v->diag;
    cr_assert(d != NULL && d->line != NULL);
    cr_assert_str_eq(d->line, "+8.3 % instructions, 100 % of it in `sweep` (stencil.c:46)");
    cr_assert_str_eq(d->self[0].name, "sweep");
    cr_assert_float_eq(d->self[0].share, 1.0, 1e-12);
    cr_assert_eq(d->self[0].base, 100000);
    cr_assert_eq(d->self[0].head, 110000);
    /* The unchanged sibling is no delta at all. */
    cr_assert_eq(d->nself, 1);
    /* The cycles' row says how far they moved, then where the instructions went. */
    cr_assert_str_eq(verdict_of(p.cmp, "s/relax[]@1:cpu#est_cycles")->diag->line,
                     "est. cycles +7.5 %: +8.3 % instructions, 100 % of it in `sweep` (stencil.c:46)");
    cr_assert(d->base_profile && d->head_profile, "the flame graph needs both profiles");
    counted_pair_free(&p);
    free(bp);
    free(hp);
}

/* A timed case counted on both builds: `ir`, `cycles`, `bytes`, `allocs` per iteration of each. */
static pg_diagnosis *timed(const double ir[2], const double cycles[2], const double bytes[2], const double allocs[2],
                           const pg_counts *blas)
{
    pg_run *run[2] = {NULL, NULL};
    pg_case_verdict v;
    pg_cause_counts in = {NULL, NULL, NULL, NULL, NULL, 2.5};
    pg_diagnosis *d = NULL;
    int k;

    memset(&v, 0, sizeof(v));
    v.key = "s/relax[]@1:cpu";
    v.verdict = PG_VERDICT_REGRESSED;
    for (k = 0; k < 2; k++) {
        pg_assert_ok(pg_run_new(&run[k]));
        counted(run[k], v.key, "instructions", ir[k], "{\"deterministic\":true}");
        counted(run[k], v.key, "est_cycles", cycles[k], NULL);
        counted(run[k], v.key, "bytes_per_iter", bytes[k], NULL);
        counted(run[k], v.key, "allocs_per_iter", allocs[k], NULL);
    }
    in.base = run[0];
    in.head = run[1];
    in.base_blas = blas ? &blas[0] : NULL;
    in.head_blas = blas ? &blas[1] : NULL;
    pg_assert_ok(pg_cause_from_counts(&d, &v, &in));
    pg_run_free(run[0]);
    pg_run_free(run[1]);
    cr_assert(d != NULL);
    return d;
}

Test(cause, time_regressed_with_the_same_instructions_says_layout)
{
    const double ir[] = {147648, 147648}, cy[] = {190709, 314000}, none[] = {0, 0};
    pg_diagnosis *d = timed(ir, cy, none, none, NULL);

    cr_assert_str_eq(d->line, "same instructions (+0.00 %): a memory or layout effect (est. cycles +64.6 %)");
    cr_assert_str_eq(d->source, "recounted");
    cr_assert_eq(d->seconds, 2.5);
    pg_diagnosis_free(d);
}

Test(cause, heap_traffic_that_moved_is_said)
{
    const double ir[] = {100000, 100100}, cy[] = {150000, 150200}, bytes[] = {0, 4096}, allocs[] = {0, 1};
    pg_diagnosis *d = timed(ir, cy, bytes, allocs, NULL);

    cr_assert_str_eq(d->line, "same instructions (+0.10 %): a memory or layout effect (est. cycles +0.1 %); "
                              "+1 allocation (+4,096 B) per iteration");
    pg_diagnosis_free(d);
}

Test(cause, a_blas_call_that_appeared_leads_the_line)
{
    const double ir[] = {1000000, 1100000}, cy[] = {1500000, 1650000}, none[] = {0, 0};
    pg_count_row rb[] = {{"sgemm", "step", "", "[64,96]x[96,64]", 2, 1572864}};
    pg_count_row rh[] = {{"sgemm", "step", "", "[64,96]x[96,64]", 3, 2359296},
                         {"sgemv", "step", "", "[64,96]x[96]", 1, 12288}};
    pg_counts blas[2] = {{rb, 1, 1572864, 2, 1}, {rh, 2, 2371584, 4, 1}};
    pg_diagnosis *d = timed(ir, cy, none, none, blas);

    cr_assert_str_eq(d->line, "+1 call of `sgemv [64,96]x[96]` per iteration (new); 1 more call site changed; "
                              "+10.0 % instructions");
    cr_assert_eq(d->ncounts, 2);
    cr_assert_eq(d->flops_head, 2371584);
    /* No allocation moved: said nowhere. */
    cr_assert(strstr(d->line, "allocation") == NULL);
    blas[0].rows = blas[1].rows = NULL;
    pg_diagnosis_free(d);
}

/* A trace case's result: a step time whose extra holds the ops per step (backend/trace.c). */
static void trace_result(pg_run *run, const char *ops)
{
    pg_result *r;

    pg_assert_ok(pg_run_add_result(&r, run));
    r->key = pg__strdup("t/train[]@1:cpu");
    r->suite = pg__strdup("t");
    r->name = pg__strdup("train");
    r->metric = pg__strdup("step_time");
    r->unit = pg__strdup("s");
    r->threshold = 0.05;
    r->alpha = 0.05;
    r->samples = malloc(8 * sizeof(double));
    for (size_t i = 0; i < 8; i++)
        r->samples[i] = strstr(ops, "aten::index") ? 0.020 + 1e-4 * (double)i : 0.010 + 1e-4 * (double)i;
    r->nsamples = 8;
    r->number_per_run = 1;
    pg_stats_summarize(&r->summary, r->samples, 8);
    r->extra_json = pg__asprintf("{\"trace\":{\"steps\":8,\"ops\":%s}}", ops);
}

Test(cause, a_trace_case_names_the_op_that_appeared_where_the_time_went)
{
    pg_run *base = NULL, *head = NULL;
    pg_comparison *cmp = NULL;
    const pg_diagnosis *d;

    pg_assert_ok(pg_run_new(&base));
    pg_assert_ok(pg_run_new(&head));
    trace_result(base, "[[\"train_step\",\"train_step\",1,true,9000000],"
                       "[\"aten::addmm\",\"train_step > aten::linear > aten::addmm\",2,true,4000000]]");
    /* Two ops appeared: the one that took the time is named, the small one counted. */
    trace_result(head, "[[\"train_step\",\"train_step\",1,true,9000000],"
                       "[\"aten::addmm\",\"train_step > aten::linear > aten::addmm\",2,true,4000000],"
                       "[\"aten::select\",\"train_step > aten::select\",2,true,3000],"
                       "[\"aten::index\",\"train_step > aten::index\",1,true,9800000],"
                       "[\"aten::nonzero\",\"train_step > aten::index > aten::nonzero\",1,true,200000]]");
    pg_assert_ok(pg_compare(&cmp, head, (const pg_run *const *)&base, 1, NULL));
    cr_assert_eq(cmp->cases[0].verdict, PG_VERDICT_REGRESSED, "%s", cmp->cases[0].reason);
    pg_assert_ok(pg_cause_attach(cmp));
    d = cmp->cases[0].diag;
    cr_assert(d != NULL);
    cr_assert_str_eq(d->line, "+1 `aten::index` per step under `train_step` (new, 9.80 ms of self time a step); "
                              "2 more ops changed");
    cr_assert_str_eq(d->counts[1].what, "aten::nonzero");
    pg_comparison_free(cmp);
    pg_run_free(base);
    pg_run_free(head);
}

Test(cause, a_name_cannot_break_the_line_or_the_markup)
{
    const char *prof[2] = {"{\"v\":1,\"total\":100,\"files\":[\"/src/a`b.c\"],\"fns\":[[\"f`|<b>\",0,3,100,100]],"
                           "\"calls\":[]}",
                           "{\"v\":1,\"total\":200,\"files\":[\"/src/a`b.c\"],\"fns\":[[\"f`|<b>\",0,3,200,200]],"
                           "\"calls\":[]}"};
    const double ir[2] = {100, 200};
    counted_pair p;

    compare_counts(&p, "s/x[]@1:cpu", ir, prof);
    attach(&p);
    /* Backticks delimit the names and nothing else: the two in the line are the span's. */
    cr_assert_str_eq(p.cmp->cases[0].diag->line, "+100.0 % instructions, 100 % of it in `f'|<b>` (a'b.c:3)");
    counted_pair_free(&p);
}

Test(cause, a_diagnosis_read_back_keeps_its_figures_and_its_limits)
{
    const double ir[] = {147648, 147648}, cy[] = {190709, 314000}, none[] = {0, 0};
    pg_diagnosis *d = timed(ir, cy, none, none, NULL), *back = NULL;
    char *text = pg_cause_to_json(d);
    pg_buf big = PG_BUF_INIT;
    int i;

    cr_assert(text != NULL);
    pg_assert_ok(pg_cause_from_json(&back, text));
    cr_assert_str_eq(back->line, d->line);
    cr_assert_str_eq(back->source, "recounted");
    cr_assert_eq(back->cycles_head, 314000);
    cr_assert_eq(back->seconds, 2.5);
    pg_diagnosis_free(back);
    /* From a report: a thousand functions are cut to the ten kept, values of the wrong type left out. */
    pg__buf_puts(&big, "{\"what_changed\":\"x\",\"functions\":{\"exclusive\":[");
    for (i = 0; i < 1000; i++)
        pg__buf_printf(&big, "%s{\"name\":\"f%d\",\"base\":1,\"head\":2,\"share\":0.001,\"line\":\"x\"}", i ? "," : "", i);
    pg__buf_puts(&big, "],\"inclusive\":[{\"name\":7}]},\"counts\":[{\"what\":[]}],\"instructions\":{\"base\":\"9\"}}");
    pg_assert_ok(pg_cause_from_json(&back, big.ptr));
    cr_assert_eq(back->nself, PG_DIAG_TOP);
    cr_assert_eq(back->nincl, 0);
    cr_assert_eq(back->ncounts, 0);
    cr_assert_eq(back->self[0].line, 0);
    cr_assert(isnan(back->ir_base));
    pg_diagnosis_free(back);
    pg_assert_ok(pg_cause_from_json(&back, "[1, 2]"));
    cr_assert_null(back);
    pg__buf_clear(&big);
    free(text);
    pg_diagnosis_free(d);
}
