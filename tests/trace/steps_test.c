/*
 * steps_test.c - a trace split into steps: per-step time and op figures,
 * the GPU stream analysis (HTA's idle breakdown) on a hand-written Kineto
 * trace with hand-checked figures, clamped self times, directories of
 * traces, the ellipsis, the errors, and the host-sync ops checks.
 */
#include "support.h"

#include "checks/checks.h"
#include "suite/suite.h"
#include "trace/steps.h"
#include "base/util.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pg_trace_steps *load(const char *rel, const char *step)
{
    pg_trace_steps_options o = PG_TRACE_STEPS_OPTIONS_INIT;
    pg_trace_steps *s = NULL;
    char *path = pg_test_data(rel);

    o.step = step;
    pg_assert_ok(pg_trace_steps_load(&s, path, &o));
    free(path);
    return s;
}

static const pg_trace_cell *cell(const pg_trace_steps *s, const char *op, size_t step)
{
    long i = pg_trace_steps_find(s, op);

    cr_assert(i >= 0, "no op %s", op);
    return &s->cells[(size_t)i * s->nsteps + step];
}

/*
 * tests/data/traces/kineto_steps_gpu.json, times in µs. Kernels launched by
 * cudaLaunchKernel (runtime start in brackets); stream 7 and stream 20.
 *
 * Step 1 (ProfilerStep#1, 1000..1500):
 *   stream 7:  sgemm 1030..1130 [1015], relu 1134..1137 [1052],
 *              add 1210..1212 [1202], Memcpy DtoH 1320..1322 [1305]
 *     busy 100 + 3 + 2 + 2 = 107
 *     gap 1130->1134 = 4:   launch 1052 <= 1130, 4 < 30   -> kernel wait 4
 *     gap 1137->1210 = 73:  launch 1202 > 1137            -> host wait 73
 *     gap 1212->1320 = 108: launch 1305 > 1212            -> host wait 108
 *   stream 20: fill 1070..1120 [1062], zero 1160..1200 [1082]
 *     busy 50 + 40 = 90
 *     gap 1120->1160 = 40:  launch 1082 <= 1120, 40 >= 30 -> other wait 40
 *   step: busy 197, idle 4+73+108+40 = 225, host wait 181, kernel wait 4,
 *   other 40; kernels 5 (the memcpy is no kernel), under 5 µs: relu (3) and
 *   add (2) = 2; one DtoH copy; one cudaStreamSynchronize.
 *
 * Step 2 (ProfilerStep#2, 1600..1900): stream 7 only:
 *   sgemm 1620..1720 [1612], relu 1722..1725 [1642], add 1727..1729 [1662]
 *   gaps 2 and 2, both launched long before -> kernel wait 4, host wait 0;
 *   busy 105; kernels 3, small 2; no copy, no sync.
 *
 * setup_kernel (960..980) and aten::empty (950) come before every step and
 * count nowhere. aten::linear (10 µs) holds aten::t (6) and aten::matmul (6,
 * starting inside aten::t and ending after it, so both are its children):
 * self 10 - 12 = -2, clamped to 0 and marked.
 */
Test(steps_gpu, idle_breakdown_matches_the_hand_derivation)
{
    pg_trace_steps *s = load("traces/kineto_steps_gpu.json", NULL);
    const pg_trace_gpu *g1, *g2;

    cr_assert_eq(s->nsteps, 2);
    cr_assert(s->gpu);
    cr_assert_str_eq(s->steps[0].name, "ProfilerStep#1");
    cr_assert_eq(s->steps[0].dur, 500000);
    cr_assert_eq(s->steps[1].dur, 300000);
    g1 = &s->steps[0].gpu;
    g2 = &s->steps[1].gpu;
    cr_assert_eq(g1->busy_ns, 197000);
    cr_assert_eq(g1->idle_ns, 225000);
    cr_assert_eq(g1->host_wait_ns, 181000);
    cr_assert_eq(g1->kernel_wait_ns, 4000);
    cr_assert_eq(g1->other_wait_ns, 40000);
    cr_assert_eq(g1->kernels, 5);
    cr_assert_eq(g1->small_kernels, 2);
    cr_assert_eq(g1->dtoh, 1);
    cr_assert_eq(g1->syncs, 1);
    cr_assert_eq(g2->busy_ns, 105000);
    cr_assert_eq(g2->idle_ns, 4000);
    cr_assert_eq(g2->host_wait_ns, 0);
    cr_assert_eq(g2->kernel_wait_ns, 4000);
    cr_assert_eq(g2->other_wait_ns, 0);
    cr_assert_eq(g2->kernels, 3);
    cr_assert_eq(g2->small_kernels, 2);
    cr_assert_eq(g2->dtoh + g2->syncs, 0);
    cr_assert_eq(pg_trace_steps_find(s, "setup_kernel"), -1, "events before the first step count nowhere");
    cr_assert_eq(pg_trace_steps_find(s, "aten::empty"), -1);
    pg_trace_steps_free(s);
}

Test(steps_gpu, kernel_wait_bound_moves_the_split)
{
    pg_trace_steps_options o = PG_TRACE_STEPS_OPTIONS_INIT;
    pg_trace_steps *s = NULL;
    char *path = pg_test_data("traces/kineto_steps_gpu.json");

    /* With a 50 µs bound the 40 µs gap on stream 20 is launch overhead too. */
    o.kernel_wait_ns = 50000;
    pg_assert_ok(pg_trace_steps_load(&s, path, &o));
    cr_assert_eq(s->steps[0].gpu.kernel_wait_ns, 44000);
    cr_assert_eq(s->steps[0].gpu.other_wait_ns, 0);
    cr_assert_eq(s->steps[0].gpu.host_wait_ns, 181000);
    pg_trace_steps_free(s);
    free(path);
}

Test(steps_gpu, ops_per_step_self_total_and_paths)
{
    pg_trace_steps *s = load("traces/kineto_steps_gpu.json", NULL);
    long mm = pg_trace_steps_find(s, "aten::mm"), k = pg_trace_steps_find(s, "sgemm_128x64_nn");
    long lin = pg_trace_steps_find(s, "aten::linear"), d2h = pg_trace_steps_find(s, "Memcpy DtoH (Device -> Pageable)");

    /* aten::mm: 30 - its launch 5 = 25 in step 1; 20 - 4 = 16 in step 2. */
    cr_assert_eq(cell(s, "aten::mm", 0)->self_ns, 25000);
    cr_assert_eq(cell(s, "aten::mm", 0)->total_ns, 30000);
    cr_assert_eq(cell(s, "aten::mm", 1)->self_ns, 16000);
    /* aten::_local_scalar_dense: 146 - 5 (memcpy call) - 130 (sync) = 11; aten::item 150 - 146 = 4. */
    cr_assert_eq(cell(s, "aten::_local_scalar_dense", 0)->self_ns, 11000);
    cr_assert_eq(cell(s, "aten::item", 0)->self_ns, 4000);
    cr_assert_eq(cell(s, "aten::item", 1)->count, 0);
    cr_assert_eq(cell(s, "cudaLaunchKernel", 0)->count, 5);
    cr_assert_eq(cell(s, "cudaLaunchKernel", 1)->count, 3);
    cr_assert_eq(cell(s, "sgemm_128x64_nn", 1)->self_ns, 100000);
    cr_assert_eq(s->ops[k].kind, PG_TRACE_OP_KERNEL);
    cr_assert_eq(s->ops[d2h].kind, PG_TRACE_OP_MEMCPY);
    cr_assert_eq(s->ops[mm].kind, PG_TRACE_OP_CPU);
    cr_assert_str_eq(s->ops[k].path, "train_step > aten::mm > cudaLaunchKernel > sgemm_128x64_nn");
    cr_assert_str_eq(s->ops[d2h].path, "train_step > aten::item > aten::_local_scalar_dense > cudaMemcpyAsync > "
                                       "Memcpy DtoH (Device -> Pageable)");
    /* Clamped: -2 µs counts as 0 and is marked, on the op and in the total. */
    cr_assert_eq(cell(s, "aten::linear", 1)->self_ns, 0);
    cr_assert_eq(cell(s, "aten::linear", 1)->total_ns, 10000);
    cr_assert_eq(s->ops[lin].clamped, 1);
    cr_assert_eq(s->clamped, 1);
    pg_trace_steps_free(s);
}

Test(steps_gpu, a_named_range_is_the_step)
{
    pg_trace_steps *s = load("traces/kineto_steps_gpu.json", "train_step");

    cr_assert_eq(s->nsteps, 2);
    cr_assert_eq(s->steps[0].dur, 490000);
    cr_assert_eq(pg_trace_steps_find(s, "ProfilerStep#1"), -1, "the enclosing step range is outside the step");
    cr_assert_str_eq(s->ops[pg_trace_steps_find(s, "aten::mm")].path, "aten::mm");
    pg_trace_steps_free(s);
}

Test(steps_cpu, legacy_torch_trace_and_json_form)
{
    pg_trace_steps *s = load("traces/lab_step_sched.json", NULL);
    FILE *f = tmpfile();
    char *text;
    long len;
    json_t *doc;
    json_error_t jerr;

    /* The lab trace records three active steps, each with 4 addmm (forward) and 8 mm (backward). */
    cr_assert_eq(s->nsteps, 3);
    cr_assert(!s->gpu);
    cr_assert_eq(cell(s, "aten::addmm", 0)->count, 4);
    cr_assert_eq(cell(s, "aten::mm", 2)->count, 8);
    cr_assert_str_eq(s->ops[pg_trace_steps_find(s, "aten::addmm")].path, "forward > aten::linear > aten::addmm");
    pg_assert_ok(pg_trace_steps_json(f, s));
    len = ftell(f);
    rewind(f);
    text = calloc(1, (size_t)len + 1);
    cr_assert_eq(fread(text, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    doc = json_loads(text, 0, &jerr);
    cr_assert(doc, "steps JSON does not parse: %s", jerr.text);
    cr_assert_eq(json_integer_value(json_object_get(doc, "schema_version")), 1);
    cr_assert_eq(json_array_size(json_object_get(doc, "steps")), 3);
    cr_assert_eq(json_array_size(json_object_get(doc, "ops")), s->nops);
    json_decref(doc);
    free(text);
    pg_trace_steps_free(s);
}

Test(steps_cpu, a_directory_pools_its_files_in_name_order)
{
    char *dir = pg_test_tmpdir(), *src = pg_test_data("traces/lab_step_sched.json"), *text = NULL, *p1, *p2;
    pg_trace_steps *s = NULL;
    size_t n = 0;

    pg_assert_ok(pg__read_file(&text, &n, src));
    p1 = pg_test_write(dir, "b.json", text);
    p2 = pg_test_write(dir, "a.json", text);
    free(pg_test_write(dir, "notes.txt", "not a trace"));
    pg_assert_ok(pg_trace_steps_load(&s, dir, NULL));
    cr_assert_eq(s->sources, 2);
    cr_assert_eq(s->nsteps, 6);
    cr_assert_eq(s->steps[0].round, 0);
    cr_assert_eq(s->steps[5].round, 1);
    cr_assert(strstr(s->steps[0].source, "/a.json") != NULL, "files are read in name order");
    cr_assert_eq(cell(s, "aten::addmm", 5)->count, 4);
    pg_trace_steps_free(s);
    pg_test_rmtree(dir);
    free(dir);
    free(src);
    free(text);
    free(p1);
    free(p2);
}

Test(steps_errors, no_step_names_the_glob_and_the_ranges_there)
{
    pg_trace_steps_options o = PG_TRACE_STEPS_OPTIONS_INIT;
    pg_trace_steps *s = NULL;
    char *path = pg_test_data("traces/fence3_mask.json"), *dir = pg_test_tmpdir();

    cr_assert_eq(pg_trace_steps_load(&s, path, NULL), PG_EINVAL);
    cr_assert(strstr(pg_error_last(), "no range matches 'ProfilerStep#*'") != NULL, "%s", pg_error_last());
    cr_assert(strstr(pg_error_last(), "'my_block'") != NULL, "%s", pg_error_last());
    o.step = "my_block";
    pg_assert_ok(pg_trace_steps_load(&s, path, &o));
    cr_assert_eq(s->nsteps, 1);
    pg_trace_steps_free(s);
    cr_assert_eq(pg_trace_steps_load(&s, dir, NULL), PG_EINVAL);
    cr_assert(strstr(pg_error_last(), "no *.json trace file") != NULL, "%s", pg_error_last());
    cr_assert_eq(pg_trace_steps_load(&s, "/nonexistent/trace.json", NULL), PG_EIO);
    cr_assert_null(s);
    pg_test_rmtree(dir);
    free(dir);
    free(path);
}

Test(steps_out, long_names_keep_an_ellipsis)
{
    char out[64];

    pg_trace_ellipsize(out, sizeof(out), "autograd::engine::evaluate_function: AddmmBackward0", 20);
    cr_assert_str_eq(out, "autograd::engine:...");
    pg_trace_ellipsize(out, sizeof(out), "aten::mm", 20);
    cr_assert_str_eq(out, "aten::mm");
}

/* The lesson's host-sync pattern as ops checks over the GPU fixture: step 1 syncs, step 2 does not. */
Test(steps_checks, host_sync_and_kernel_budget)
{
    char *dir = pg_test_tmpdir(), *fixture = pg_test_data("traces/kineto_steps_gpu.json"), *yaml, *path;
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_suite *suite = NULL;
    pg_check_result r[3];

    yaml = pg__asprintf("suite: sync\nchecks:\n"
                        "  - {name: no_sync, kind: ops, trace: %s, expect: {within: train_step, no_host_sync: true}}\n"
                        "  - {name: kernels_4, kind: ops, trace: %s, expect: {within: train_step, max_kernels: 4}}\n"
                        "  - {name: kernels_5, kind: ops, trace: %s, expect: {within: train_step, max_kernels: 5}}\n",
                        fixture, fixture, fixture);
    path = pg_test_write(dir, "sync.yaml", yaml);
    pg_assert_ok(pg_suite_load(&suite, path, &so, NULL));
    memset(r, 0, sizeof(r));
    pg_assert_ok(pg_check_run(&r[0], suite, &suite->checks[0], NULL));
    pg_assert_ok(pg_check_run(&r[1], suite, &suite->checks[1], NULL));
    pg_assert_ok(pg_check_run(&r[2], suite, &suite->checks[2], NULL));
    cr_assert(!r[0].passed);
    cr_assert(strstr(r[0].message, "'@dtoh' must not occur but occurs 1 time inside 'train_step' (occurrence 1 of 2") !=
                  NULL, "%s", r[0].message);
    cr_assert(strstr(r[0].message, "'@sync' must not occur but occurs 1 time") != NULL, "%s", r[0].message);
    cr_assert(strstr(r[0].message, "aten::_local_scalar_dense > cudaMemcpyAsync") != NULL, "the path: %s",
              r[0].message);
    cr_assert_str_eq(r[0].actual, "2 occurrences of train_step; @dtoh: 1,0; @sync: 1,0");
    cr_assert(!r[1].passed);
    cr_assert(strstr(r[1].message, "expected 0..4 x '@kernel', found 5 inside 'train_step' (occurrence 1 of 2") != NULL,
              "%s", r[1].message);
    cr_assert(r[2].passed, "%s", r[2].message);
    cr_assert_str_eq(r[2].actual, "2 occurrences of train_step; @kernel: 5,3");
    pg__check_clear(&r[0]);
    pg__check_clear(&r[1]);
    pg__check_clear(&r[2]);
    pg_suite_free(suite);
    pg_test_rmtree(dir);
    free(dir);
    free(fixture);
    free(yaml);
    free(path);
}
