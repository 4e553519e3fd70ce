/*
 * cuda_device_test.c - GPU workloads on a real device: outputs against CPU
 * references at each precision's tolerance, FLOPs and ops through the
 * instrument hooks, the host sync of a masked select inside a step, and a
 * timed case. Skipped, with the probe's reason, where there is no device.
 */
#include "support.h"

#include "backend/cuda_api.h"
#include "exec/exec.h"
#include "base/instrument.h"
#include "suite/suite.h"
#include "base/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static void need_device(void)
{
    if (pg_cuda_probe() != 0)
        cr_skip_test("%s", pg_error_last());
}

/* Runs one iteration of `spec` and checks it against the CPU reference. */
static void run_and_verify(const pg_cuda_spec *spec)
{
    pg_cuda_workload *w = NULL;

    pg_assert_ok(pg__cuda_workload_new(&w, spec));
    pg_assert_ok(pg__cuda_workload_run(w, 1));
    pg_assert_ok(pg__cuda_workload_verify(w));
    pg__cuda_workload_free(w);
}

Test(cuda_device, gemm_matches_cpu_reference_in_every_precision)
{
    pg_cuda_spec s = {0};
    int d;

    need_device();
    s.kind = PG_CUDA_GEMM;
    s.m = 200, s.n = 136, s.k = 520, s.seed = 3; /* not multiples of the tile sizes */
    for (d = PG_CUDA_FP32; d <= PG_CUDA_BF16; d++) {
        s.dtype = (pg_cuda_dtype)d;
        run_and_verify(&s);
    }
}

Test(cuda_device, elementwise_softmax_and_selection_match_cpu_reference)
{
    static const pg_cuda_kind kinds[] = {PG_CUDA_COPY, PG_CUDA_ADD, PG_CUDA_GELU};
    pg_cuda_spec s = {0};
    size_t i;

    need_device();
    s.seed = 11;
    s.n = 1000003;
    for (i = 0; i < 3; i++) {
        s.kind = kinds[i];
        run_and_verify(&s);
    }
    s.kind = PG_CUDA_SOFTMAX;
    s.rows = 37, s.cols = 1000;
    run_and_verify(&s);
    s.kind = PG_CUDA_MASKED_SELECT;
    s.rows = 5000, s.cols = 33;
    run_and_verify(&s);
    s.kind = PG_CUDA_STEP;
    s.rows = 64, s.cols = 256, s.masked = 0;
    run_and_verify(&s);
    s.masked = 1;
    run_and_verify(&s);
}

/* ---- a recorder of ops, ranges and GEMM FLOPs ------------------------------- */

typedef struct recorder {
    pg_buf log;      /* "+range(step) +op(mm) -op(mm) ..." */
    double flops;
    int sync_in_step; /* stream_sync began while range "step" was open */
    int in_step;
} recorder;

static void rec_op_begin(void *p, const char *name, const char *shape)
{
    recorder *r = p;

    (void)shape;
    pg__buf_printf(&r->log, "+%s ", name);
    if (strcmp(name, "stream_sync") == 0 && r->in_step)
        r->sync_in_step = 1;
}

static void rec_op_end(void *p, const char *name)
{
    pg__buf_printf(&((recorder *)p)->log, "-%s ", name);
}

static void rec_gemm(void *p, const char *name, int64_t m, int64_t n, int64_t k)
{
    (void)name;
    ((recorder *)p)->flops += 2.0 * (double)m * (double)n * (double)k;
}

static void rec_range_push(void *p, const char *name)
{
    recorder *r = p;

    pg__buf_printf(&r->log, "[%s ", name);
    r->in_step += strcmp(name, "step") == 0;
}

static void rec_range_pop(void *p, const char *name)
{
    recorder *r = p;

    pg__buf_printf(&r->log, "]%s ", name);
    r->in_step -= strcmp(name, "step") == 0;
}

static void record(recorder *r, const pg_cuda_spec *spec)
{
    pg_instrument ins = {rec_op_begin, rec_op_end, rec_gemm, rec_range_push, rec_range_pop, NULL, NULL, NULL};
    const pg_instrument *prev;
    pg_cuda_workload *w = NULL;
    int err;

    ins.payload = r;
    pg_assert_ok(pg__cuda_workload_new(&w, spec));
    prev = pg__instrument_set(&ins);
    err = pg__cuda_workload_run(w, 1);
    pg__instrument_set(prev);
    pg__cuda_workload_free(w);
    pg_assert_ok(err);
}

Test(cuda_device, gemm_flops_go_through_the_instrument_hooks)
{
    pg_cuda_spec s = {0};
    recorder r = {PG_BUF_INIT, 0, 0, 0};

    need_device();
    s.kind = PG_CUDA_GEMM;
    s.dtype = PG_CUDA_BF16;
    s.m = 256, s.n = 128, s.k = 64;
    record(&r, &s);
    cr_assert_float_eq(r.flops, 2.0 * 256 * 128 * 64, 0);
    cr_assert_str_eq(r.log.ptr, "+mm -mm ");
    pg__buf_clear(&r.log);
}

Test(cuda_device, masked_select_records_the_sync_inside_nonzero)
{
    pg_cuda_spec s = {0};
    recorder r = {PG_BUF_INIT, 0, 0, 0};

    need_device();
    s.kind = PG_CUDA_MASKED_SELECT;
    s.rows = 64, s.cols = 64, s.seed = 42;
    record(&r, &s);
    cr_assert_str_eq(r.log.ptr, "[masked_select +index +nonzero +memcpy_dtoh -memcpy_dtoh +stream_sync -stream_sync "
                                "-nonzero -index ]masked_select ");
    pg__buf_clear(&r.log);
}

Test(cuda_device, step_syncs_only_with_masked_select)
{
    pg_cuda_spec s = {0};
    recorder plain = {PG_BUF_INIT, 0, 0, 0}, masked = {PG_BUF_INIT, 0, 0, 0};

    need_device();
    s.kind = PG_CUDA_STEP;
    s.rows = 64, s.cols = 256, s.seed = 42;
    record(&plain, &s);
    cr_assert_eq(plain.sync_in_step, 0, "%s", plain.log.ptr);
    cr_assert_str_eq(plain.log.ptr, "[step +mm -mm +gelu -gelu ]step ");
    cr_assert_float_eq(plain.flops, 2.0 * 64 * 256 * 256, 0);
    s.masked = 1;
    record(&masked, &s);
    cr_assert_eq(masked.sync_in_step, 1, "%s", masked.log.ptr);
    cr_assert(strstr(masked.log.ptr, "+stream_sync") != NULL);
    pg__buf_clear(&plain.log);
    pg__buf_clear(&masked.log);
}

Test(cuda_device, timed_case_has_device_event_samples_and_clocks)
{
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_exec_options eo = PG_EXEC_OPTIONS_INIT;
    const char *yaml = "suite: g\ndefaults: {device: cuda, min_run_time: 0.1s, warmup: 10ms, min_samples: 10}\n"
                       "benchmarks:\n"
                       "  - {name: mm, kernel: gemm, params: {dtype: bf16, n: 1024}}\n"
                       "  - {name: add, kernel: add, cold: true, params: {n: 1048576}}\n";
    pg_diags d = {0};
    pg_suite *s = NULL;
    pg_result r[2];
    json_t *x;
    int i;

    need_device();
    memset(r, 0, sizeof(r));
    pg_assert_ok(pg_suite_load_buffer(&s, "t.yaml", yaml, strlen(yaml), &so, &d));
    eo.peak_tflops = 1000; /* a fixed MFU denominator: no ceiling GEMM in a unit test */
    for (i = 0; i < 2; i++) {
        pg_assert_ok(pg_exec_case(&r[i], &s->cases[i], &eo));
        cr_assert_eq(r[i].status, PG_STATUS_OK, "%s", r[i].message ? r[i].message : "");
        cr_assert_geq(r[i].nsamples, 10);
        cr_assert_gt(r[i].summary.median, 0);
        x = json_loads(r[i].extra_json, 0, NULL);
        cr_assert_not_null(x, "%s", r[i].extra_json);
        cr_assert_str_eq(json_string_value(json_object_get(x, "timer")), "cuda_events");
        cr_assert(json_is_integer(json_object_get(x, "throttled_samples")));
        cr_assert_str_neq(json_string_value(json_object_get(json_object_get(x, "device"), "name")), "");
        json_decref(x);
    }
    /* Warm blocks last at least 1 ms of device time; cold blocks are one iteration. */
    cr_assert_geq(r[0].summary.median * (double)r[0].number_per_run, 0.9e-3);
    cr_assert_eq(r[1].number_per_run, 1);
    cr_assert_float_eq(r[0].flops, 2.0 * 1024 * 1024 * 1024, 0);
    cr_assert_float_eq(r[0].mfu, r[0].flops / r[0].summary.median / 1e15, 1e-12);
    cr_assert_lt(r[1].mfu, 0, "no FLOPs, no MFU");
    for (i = 0; i < 2; i++)
        pg__result_clear(&r[i]);
    pg_diags_clear(&d);
    pg_suite_free(s);
}

Test(cuda_device, fingerprint_names_the_device)
{
    pg_cuda_info in;
    char *json = NULL;
    json_t *o;

    need_device();
    pg_assert_ok(pg__cuda_info(&in));
    cr_assert_gt(in.sm_count, 0);
    cr_assert_gt(in.total_mem, 0);
    cr_assert_gt(in.l2_bytes, 0);
    cr_assert_gt(in.runtime_version, 0);
    cr_assert_gt(in.cublas_version, 0);
    pg_assert_ok(pg_cuda_fingerprint(&json));
    o = json_loads(json, 0, NULL);
    cr_assert_not_null(o, "%s", json);
    cr_assert_str_eq(json_string_value(json_object_get(o, "name")), in.name);
    cr_assert(json_is_string(json_object_get(o, "compute_capability")));
    json_decref(o);
    free(json);
}
