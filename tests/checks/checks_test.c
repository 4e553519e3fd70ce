/*
 * checks_test.c - exact checks end to end: the shipped fences suite, checks
 * over real torch.profiler traces and a Kineto GPU trace, the deliberately
 * broken variants and their messages, the FLOP counter's module attribution,
 * and the CLI (exit codes, --trace-dir, stored check results).
 */
#include "support.h"

#include "checks/checks.h"
#include "checks/flop_counter.h"
#include "kernels/kernels.h"
#include "base/instrument.h"
#include "perfgate/config.h"
#include "store/store.h"
#include "suite/suite.h"
#include "base/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

typedef struct ran {
    pg_suite *suite;
    pg_check_result *res;
    int *rc;
    size_t n;
} ran;

/* Loads a suite and runs every check in-process. */
static void run_suite(ran *out, const char *path)
{
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    size_t i;

    memset(out, 0, sizeof(*out));
    pg_assert_ok(pg_suite_load(&out->suite, path, &so, NULL));
    out->n = out->suite->nchecks;
    out->res = calloc(out->n, sizeof(*out->res));
    out->rc = calloc(out->n, sizeof(*out->rc));
    for (i = 0; i < out->n; i++)
        out->rc[i] = pg_check_run(&out->res[i], out->suite, &out->suite->checks[i], NULL);
}

static const pg_check_result *result(const ran *r, const char *name)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        if (strcmp(r->suite->checks[i].name, name) == 0) {
            cr_assert_eq(r->rc[i], 0, "%s could not run: %s", name, r->res[i].message);
            return &r->res[i];
        }
    cr_assert_fail("no check %s", name);
    return NULL;
}

static void ran_free(ran *r)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        pg__check_clear(&r->res[i]);
    free(r->res);
    free(r->rc);
    pg_suite_free(r->suite);
}

static void assert_passed(const ran *r, const char *name)
{
    const pg_check_result *c = result(r, name);

    cr_assert(c->passed, "%s failed: %s (expected %s; actual %s)", name, c->message, c->expected, c->actual);
}

static void assert_failed_with(const ran *r, const char *name, const char *const *needles)
{
    const pg_check_result *c = result(r, name);

    cr_assert(!c->passed, "%s passed but must fail (actual %s)", name, c->actual);
    cr_assert_not_null(c->message);
    cr_assert_null(strchr(c->message, '\n'), "one line: %s", c->message);
    for (; *needles; needles++)
        cr_assert(strstr(c->message, *needles) != NULL, "%s: message lacks '%s':\n%s", name, *needles, c->message);
}

Test(checks_fences, shipped_suite_passes_with_the_lesson_numbers)
{
    ran r;

    run_suite(&r, PG_TEST_SOURCE_DIR "/suites/fences.yaml");
    /* Fence 1: 1,024 forward; 3,072 for a step with addmm 1,024 and mm 2,048; 0 for elementwise. */
    assert_passed(&r, "linear_forward_flops");
    cr_assert_str_eq(result(&r, "linear_forward_flops")->actual, "total 1,024, per_op addmm 1,024");
    assert_passed(&r, "linear_train_flops");
    cr_assert_str_eq(result(&r, "linear_train_flops")->actual,
                     "total 3,072, per_op addmm 1,024, per_op mm 2,048, per_module Global 3,072, per_module linear 3,072");
    assert_passed(&r, "linear_first_layer_flops");
    cr_assert(strstr(result(&r, "linear_first_layer_flops")->actual, "total 2,048") != NULL);
    assert_passed(&r, "elementwise_counts_zero");
    cr_assert_str_eq(result(&r, "elementwise_counts_zero")->actual, "total 0");
    assert_passed(&r, "elementwise_ops_recorded");
    /* Fence 4: one window holding the two active steps. */
    assert_passed(&r, "schedule_one_window");
    cr_assert_str_eq(result(&r, "schedule_one_window")->actual,
                     "windows 1; window 1 (steps 2-3): ProfilerStep#* 2, step_body 2, sgemm 2");
    assert_passed(&r, "schedule_cycles");
    cr_assert(strstr(result(&r, "linear_train_flops")->detail, "linear") != NULL, "the per-module table");
    ran_free(&r);
}

Test(checks_traces, torch_profiler_and_kineto_traces)
{
    ran r;
    size_t i;

    run_suite(&r, PG_TEST_DATA_DIR "/traces/torch_traces.yaml");
    for (i = 0; i < r.n; i++)
        assert_passed(&r, r.suite->checks[i].name);
    cr_assert_str_eq(result(&r, "lab_steps_hold_phases")->actual,
                     "3 occurrences of ProfilerStep#*; forward: 1,1,1; backward: 1,1,1; optimizer: 1,1,1; "
                     "aten::nonzero: 0,0,0; aten::addmm: 4,4,4; aten::mm: 8,8,8; forward > aten::addmm: 4,4,4; "
                     "optimizer: 1,1,1");
    ran_free(&r);
}

Test(checks_broken, each_variant_fails_with_an_actionable_message)
{
    ran r;

    run_suite(&r, PG_TEST_DATA_DIR "/traces/broken.yaml");
    assert_failed_with(&r, "flops_wrong_total_and_op",
                       (const char *[]){"total: expected 3,072, got 2,048 (-1,024)",
                                        "op mm: expected 2,048, got 1,024 (-1,024)", NULL});
    assert_failed_with(&r, "flops_unexpected_op",
                       (const char *[]){"module linear: expected 1,024, got 3,072 (+2,048)",
                                        "op mm: not expected, got 2,048 FLOPs", NULL});
    assert_failed_with(&r, "ops_index_without_nonzero",
                       (const char *[]){"expected 'aten::index > aten::nonzero' but found none inside 'my_block'",
                                        "trace fence3_mask.json", NULL});
    assert_failed_with(&r, "ops_sync_inside_steps",
                       (const char *[]){"'cudaStreamSynchronize' must not occur but occurs 1 time inside 'ProfilerStep#0' (occurrence 1 of 2",
                                        "under ProfilerStep#0 > masked_select > aten::index > aten::nonzero", NULL});
    assert_failed_with(&r, "ops_mm_count",
                       (const char *[]){"expected 7 x 'aten::mm', found 8 (+1) inside 'ProfilerStep#1'",
                                        "(also in 'ProfilerStep#2', 'ProfilerStep#3': 3 of 3 occurrences fail)", NULL});
    assert_failed_with(&r, "ops_no_such_range", (const char *[]){"no range matching 'ProfilerStep #*'", NULL});
    assert_failed_with(&r, "ops_own_recording",
                       (const char *[]){"expected 'sum' but found none inside 'ProfilerStep#0' (occurrence 1 of 1",
                                        "in the recording of kernel 'elementwise'",
                                        "expected at least 2 x 'mul', found 1", NULL});
    assert_failed_with(&r, "schedule_three_active",
                       (const char *[]){"window 1 (steps 2-4) holds 3 x 'step_body', expected 2 (+1)", NULL});
    assert_failed_with(&r, "schedule_repeat_forever",
                       (const char *[]){"expected 1 window, 2 fired (after steps 3, 7) over 8 steps", NULL});
    ran_free(&r);
}

/* The suite loader validates checks with the same rules the checks apply at run time:
 * a typo never reaches a workload, and every message names file:line:col. */
Test(checks_errors, bad_expectations_name_file_line_col)
{
    char *dir = pg_test_tmpdir(), *path;
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_diags diags = {0};
    pg_suite *s = NULL;
    pg_buf all = PG_BUF_INIT;
    size_t i;

    path = pg_test_write(dir, "s.yaml",
                         "suite: s\nchecks:\n"
                         "  - name: typo\n    kind: flops\n    workload: {kernel: linear, B: 4, in: 16, out: 8}\n"
                         "    expect: {total: 6*Bx*in}\n"
                         "  - name: badkey\n    kind: ops\n    workload: {kernel: sgemm, n: 8}\n"
                         "    expect: {contain: [sgemm]}\n"
                         "  - name: notrace\n    kind: ops\n    trace: missing.json\n    expect: {contains: [x]}\n");
    cr_assert_neq(pg_suite_load(&s, path, &so, &diags), 0);
    for (i = 0; i < diags.count; i++)
        pg__buf_printf(&all, "%s\n", diags.lines[i]);
    cr_assert(strstr(all.ptr, "s.yaml:6:") && strstr(all.ptr, "Bx"), "%s", all.ptr);
    cr_assert(strstr(all.ptr, "s.yaml:10:14:") && strstr(all.ptr, "contain"), "%s", all.ptr);
    cr_assert(strstr(all.ptr, "s.yaml:13:12:") && strstr(all.ptr, "missing.json"), "%s", all.ptr);
    pg__buf_clear(&all);
    pg_diags_clear(&diags);
    free(path);
    pg_test_rmtree(dir);
    free(dir);
}

Test(checks_errors, cuda_workload_without_a_device_is_skipped)
{
    ran r;
    const pg_check_result *c;

    run_suite(&r, PG_TEST_DATA_DIR "/checks/gpu_mask.yaml");
    c = result(&r, "gpu_mask_syncs");
    /* With a device the GPU masked_select must hold its sync; without one the check is skipped, and passes. */
    cr_assert(c->passed, "%s (actual %s)", c->message, c->actual);
    if (c->skipped)
        cr_assert(strstr(c->message, "CUDA") != NULL, "%s", c->message);
    ran_free(&r);
}

Test(checks_flops, modules_count_for_their_parents_and_global)
{
    pg_flop_counter *fc = NULL;
    const pg_instrument *prev;
    pg_buf table = PG_BUF_INIT;

    pg_assert_ok(pg_flop_counter_new(&fc));
    prev = pg__instrument_set(pg_flop_counter_instrument(fc, NULL));
    pg__module_push("mlp.1", 0);
    pg__op_gemm("addmm", 64, 256, 256);
    pg__module_pop("mlp.1");
    pg__module_push("mlp.1", 1);
    pg__op_gemm("mm", 64, 256, 256);
    pg__module_pop("mlp.1");
    pg__module_push("mlp.3", 0);
    pg__op_gemm("addmm", 64, 512, 256);
    pg__module_pop("mlp.3");
    pg__op_begin("gelu", NULL); /* not a matmul: zero */
    pg__op_end("gelu");
    pg__instrument_set(prev);
    pg_assert_ok(pg_flop_counter_status(fc));
    cr_assert_eq(pg_flop_counter_total(fc), 2 * 64 * 256 * 256 * 2 + 2 * 64 * 512 * 256);
    cr_assert_eq(pg_flop_counter_get(fc, "Global", NULL), pg_flop_counter_total(fc));
    cr_assert_eq(pg_flop_counter_get(fc, "mlp", NULL), pg_flop_counter_total(fc), "mlp.N runs inside mlp");
    cr_assert_eq(pg_flop_counter_get(fc, "mlp.1", "mm"), 2 * 64 * 256 * 256);
    cr_assert_eq(pg_flop_counter_get(fc, "mlp.3", NULL), 2 * 64 * 512 * 256);
    cr_assert_eq(pg_flop_counter_get(fc, "Global", "gelu"), 0);
    pg_assert_ok(pg_flop_counter_table(fc, &table));
    cr_assert(strstr(table.ptr, "mlp.3") && strstr(table.ptr, "- addmm"), "%s", table.ptr);
    pg__buf_clear(&table);
    pg_flop_counter_free(fc);
}

Test(checks_flops, overflow_is_an_error_not_a_wrap)
{
    pg_flop_counter *fc = NULL;
    const pg_instrument *prev;

    pg_assert_ok(pg_flop_counter_new(&fc));
    prev = pg__instrument_set(pg_flop_counter_instrument(fc, NULL));
    pg__op_gemm("mm", INT64_C(1) << 40, INT64_C(1) << 20, INT64_C(1) << 10);
    pg__instrument_set(prev);
    cr_assert_eq(pg_flop_counter_status(fc), PG_EINVAL);
    cr_assert(strstr(pg_error_last(), "overflow") != NULL, "%s", pg_error_last());
    pg_flop_counter_free(fc);
}

/* ---- the binary ----------------------------------------------------------- */

Test(checks_cli, run_exports_traces_and_prints_the_module_table)
{
    char *dir = pg_test_tmpdir(), *tdir = pg__asprintf("%s/traces", dir), *f;
    const char *argv[] = {"run", "--no-store", "--trace-dir", tdir, PG_TEST_SOURCE_DIR "/suites/fences.yaml", NULL};
    pg_proc p;
    json_t *root;
    json_error_t jerr;
    size_t i, found = 0;
    json_t *e;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "status %d\n%s\n%s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "check fences/linear_train_flops (flops): passed") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "     - mm                2,048    66.67%") != NULL, "%s", p.out);
    f = pg__asprintf("%s/fences.linear_train_flops.json", tdir);
    root = json_load_file(f, 0, &jerr);
    cr_assert_not_null(root, "%s: %s", f, jerr.text);
    json_array_foreach(json_object_get(root, "traceEvents"), i, e) {
        const char *name = json_string_value(json_object_get(e, "name"));
        found += name && (strcmp(name, "addmm") == 0 || strcmp(name, "mm") == 0);
    }
    cr_assert_eq(found, 3, "one addmm and two mm in the exported step");
    json_decref(root);
    free(f);
    f = pg__asprintf("%s/fences.schedule_one_window.window1.json", tdir);
    root = json_load_file(f, 0, &jerr);
    cr_assert_not_null(root, "%s: %s", f, jerr.text);
    json_decref(root);
    free(f);
    pg_proc_free(&p);
    pg_test_rmtree(dir);
    free(tdir);
    free(dir);
}

Test(checks_cli, failed_checks_exit_1_and_are_stored)
{
    char *dir = pg_test_tmpdir(), *db = pg__asprintf("%s/pg.db", dir);
    const char *argv[] = {"run", "--db", db, "--commit", "abc", "--branch", "main",
                          PG_TEST_DATA_DIR "/traces/broken.yaml", NULL};
    pg_proc p;
    pg_store *st = NULL;
    pg_run *run = NULL;
    size_t i, failed = 0;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 1, "status %d\n%s\n%s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "FAILED - total: expected 3,072, got 2,048") != NULL, "%s", p.out);
    pg_assert_ok(pg_store_open(&st, db));
    pg_assert_ok(pg_store_load_run(&run, st, 1));
    cr_assert_eq(run->nchecks, 9);
    for (i = 0; i < run->nchecks; i++) {
        failed += !run->checks[i].passed;
        cr_assert(run->checks[i].expected[0] && run->checks[i].actual[0], "%s", run->checks[i].name);
    }
    cr_assert_eq(failed, 9);
    pg_run_free(run);
    pg_store_close(st);
    pg_proc_free(&p);
    pg_test_rmtree(dir);
    free(db);
    free(dir);
}

Test(checks_cli, malformed_trace_exits_2_with_the_byte_offset)
{
    char *dir = pg_test_tmpdir(), *suite;
    const char *argv[] = {"run", "--no-store", NULL, NULL};
    const char *targv[] = {"trace", NULL, NULL};
    pg_proc p;

    free(pg_test_write(dir, "bad.json", "{\"traceEvents\": [{\"name\": \"a\", \"ph\": \"X\", \"ts\": 1}, oops]}"));
    suite = pg_test_write(dir, "s.yaml", "suite: s\nchecks:\n  - name: t\n    kind: ops\n    trace: bad.json\n"
                                         "    expect: {contains: [a]}\n");
    argv[2] = suite;
    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 2, "status %d\n%s\n%s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "s.yaml:5:12: ") != NULL && strstr(p.out, "bad.json: malformed trace at byte 52: expected an event object") != NULL,
              "%s", p.out);
    pg_proc_free(&p);
    targv[1] = pg__asprintf("%s/bad.json", dir);
    pg_test_run(&p, NULL, NULL, targv);
    cr_assert_eq(p.status, 2, "status %d\n%s", p.status, p.err);
    cr_assert(strstr(p.err, "at byte 52") != NULL, "%s", p.err);
    pg_proc_free(&p);
    free((char *)targv[1]);
    free(suite);
    pg_test_rmtree(dir);
    free(dir);
}

Test(checks_cli, trace_command_prints_key_averages)
{
    const char *argv[] = {"trace", "-n", "0", PG_TEST_DATA_DIR "/traces/fence3_mask.json", NULL};
    pg_proc p;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "%s", p.err);
    cr_assert(strstr(p.out, "24 events (24 read)") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "aten::nonzero") != NULL && strstr(p.out, "Self %") != NULL, "%s", p.out);
    pg_proc_free(&p);
}

/* Fence 3 on perfgate's own masked_select and the lab's mlp_train_step (CPU engine kernels, always built). */
Test(checks_fences, own_masked_select_and_mlp_train_step)
{
    ran r;

    cr_assert(pg_kernel_find("masked_select") != NULL && pg_kernel_find("mlp_train_step") != NULL,
              "the CPU engine's masked_select/mlp_train_step kernels are missing from the registry");
    run_suite(&r, PG_TEST_DATA_DIR "/checks/fences_cpu.yaml");
    assert_passed(&r, "mask_index_holds_nonzero");
    assert_passed(&r, "mlp_train_step_flops");
    /* 6·B·Σ in·out = 6·64·(3·256·256 + 256·512) = 125,829,120. */
    cr_assert(strncmp(result(&r, "mlp_train_step_flops")->actual, "total 125,829,120,", 18) == 0, "%s",
              result(&r, "mlp_train_step_flops")->actual);
    cr_assert(strstr(result(&r, "mlp_train_step_flops")->detail, "mlp.7") != NULL, "the per-module table");
    assert_passed(&r, "mlp_train_step_phases");
    ran_free(&r);
}
