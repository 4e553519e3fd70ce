/*
 * cuda_test.c - the CUDA backend end to end.
 *
 * Always built. The no-device tests run where cudaGetDeviceCount fails (CI,
 * or CUDA_VISIBLE_DEVICES= on a GPU machine) and skip where a device exists;
 * the device tests do the opposite, with the probe's reason in the skip
 * message. Registry and parameter tests need no device at all.
 */
#include "support.h"

#include "backend/cuda_api.h"
#include "backend/cuda_registry.h"
#include "exec/exec.h"
#include "machine/fingerprint.h"
#include "base/instrument.h"
#include "kernels/kernels.h"
#include "perfgate/config.h"
#include "suite/suite.h"
#include "base/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static void need_no_device(void)
{
    if (pg_cuda_probe() == 0)
        cr_skip_test("a CUDA device is present: this test covers machines without one");
}

/* Loads a suite from text; the caller frees it. */
static pg_suite *load(const char *yaml)
{
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_diags d = {0};
    pg_suite *s = NULL;
    int err = pg_suite_load_buffer(&s, "t.yaml", yaml, strlen(yaml), &so, &d);

    cr_assert_eq(err, 0, "%s", d.count ? d.lines[0] : pg_error_last());
    pg_diags_clear(&d);
    return s;
}

/* ---- no device ------------------------------------------------------------ */

Test(cuda_nodevice, probe_says_no_cuda_device)
{
    need_no_device();
    cr_assert_eq(pg_cuda_probe(), PG_ESKIP);
    cr_assert(strncmp(pg_error_last(), "no CUDA device", 14) == 0, "%s", pg_error_last());
    /* The answer is cached, message included. */
    cr_assert_eq(pg_cuda_probe(), PG_ESKIP);
    cr_assert(strncmp(pg_error_last(), "no CUDA device", 14) == 0, "%s", pg_error_last());
}

Test(cuda_nodevice, gpu_case_is_skipped_with_the_reason)
{
    pg_suite *s;
    pg_result r = {0};
    pg_exec_options eo = PG_EXEC_OPTIONS_INIT;

    need_no_device();
    s = load("suite: g\nbenchmarks:\n  - {name: mm, kernel: gemm, device: cuda, params: {dtype: bf16, n: 64}}\n");
    cr_assert_eq(s->ncases, 1);
    pg_assert_ok(pg_exec_case(&r, &s->cases[0], &eo));
    cr_assert_eq(r.status, PG_STATUS_SKIPPED);
    cr_assert(strncmp(r.message, "no CUDA device", 14) == 0, "%s", r.message);
    cr_assert_eq(r.nsamples, 0);
    cr_assert_str_eq(r.device, "cuda");
    pg__result_clear(&r);
    pg_suite_free(s);
}

Test(cuda_nodevice, workload_setup_returns_eskip_for_checks)
{
    const pg_kernel *k = pg_kernel_find_for("step", "cuda");
    pg_suite *s;
    void *state = (void *)1;

    need_no_device();
    cr_assert_not_null(k);
    s = load("suite: g\nbenchmarks:\n  - {name: st, kernel: step, device: cuda, params: {masked: true}}\n");
    cr_assert_eq(k->setup(&state, &s->cases[0]), PG_ESKIP);
    cr_assert_null(state);
    cr_assert(strncmp(pg_error_last(), "no CUDA device", 14) == 0, "%s", pg_error_last());
    pg_suite_free(s);
}

Test(cuda_nodevice, run_gpu_suite_skips_every_case_and_exits_0)
{
    pg_proc p;
    const char *argv[] = {"run", "--no-store", "--filter", "gpu/*", PG_TEST_SOURCE_DIR "/suites/gpu.yaml", NULL};
    const char *line;
    int cases = 0;

    need_no_device();
    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "status %d\nstdout: %s\nstderr: %s", p.status, p.out, p.err);
    for (line = strstr(p.out, "gpu/"); line; line = strstr(line + 1, "\ngpu/")) {
        const char *eol = strchr(line + 1, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        char buf[512];
        snprintf(buf, sizeof(buf), "%.*s", (int)(n < 511 ? n : 511), line);
        /* The reason is written once; the rows below it that share it say so. */
        cr_assert(strstr(buf, cases == 0 ? "skipped: no CUDA device" : "skipped (same as above)") != NULL,
                  "not skipped: %s", buf);
        cases++;
    }
    cr_assert_eq(cases, 12, "%s", p.out);
    pg_proc_free(&p);
}

Test(cuda_nodevice, doctor_says_no_device)
{
    pg_proc p;
    const char *argv[] = {"doctor", NULL};

    need_no_device();
    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "%s", p.err);
    cr_assert(strstr(p.out, "\ngpu:\n  no CUDA device") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, PG_HAS_CUDA ? "cuda_backend             built" : "not built") != NULL, "%s", p.out);
    pg_proc_free(&p);
}

/* ---- registry and parameters (any machine) --------------------------------- */

Test(cuda_registry, every_gpu_kernel_is_registered_for_cuda)
{
    static const char *const names[] = {"gemm", "copy", "add", "gelu", "softmax", "masked_select", "step"};
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const pg_kernel *k = pg_kernel_find_for(names[i], "cuda");
        cr_assert_not_null(k, "%s", names[i]);
        cr_assert_str_eq(k->device, "cuda");
        cr_assert_not_null(k->summary);
        cr_assert_not_null(k->params);
    }
}

Test(cuda_registry, gpu_suite_validates)
{
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_diags d = {0};
    pg_suite *s = NULL;
    size_t i;

    pg_assert_ok(pg_suite_load(&s, PG_TEST_SOURCE_DIR "/suites/gpu.yaml", &so, &d));
    cr_assert_eq(s->ncases, 12);
    cr_assert_eq(s->nchecks, 3); /* the failing variant lives in examples/gpu-host-sync.yaml */
    for (i = 0; i < s->ncases; i++) {
        pg_cuda_spec spec;
        cr_assert_str_eq(s->cases[i].device, "cuda");
        pg_assert_ok(pg__cuda_spec_from_case(&spec, &s->cases[i]));
    }
    pg_diags_clear(&d);
    pg_suite_free(s);
}

Test(cuda_registry, flops_and_bytes_per_iteration)
{
    pg_suite *s = load("suite: g\ndefaults: {device: cuda}\nbenchmarks:\n"
                       "  - {name: a, kernel: gemm, params: {dtype: bf16, m: 256, n: 128, k: 64}}\n"
                       "  - {name: b, kernel: gemm, params: {dtype: fp32, n: 100}}\n"
                       "  - {name: c, kernel: copy, params: {n: 1000}}\n"
                       "  - {name: d, kernel: add, params: {n: 1000}}\n"
                       "  - {name: e, kernel: softmax, params: {rows: 10, cols: 20}}\n"
                       "  - {name: f, kernel: step, params: {B: 64, width: 256, masked: true}}\n"
                       "  - {name: g, kernel: masked_select, params: {rows: 8, cols: 8}}\n");
    const pg_kernel *k = pg_kernel_find_for("gemm", "cuda");

    cr_assert_eq(s->ncases, 7);
    cr_assert_float_eq(k->flops(&s->cases[0]), 2.0 * 256 * 128 * 64, 0);
    cr_assert_float_eq(k->bytes(&s->cases[0]), 2.0 * (256 * 64 + 64 * 128 + 256 * 128), 0);
    cr_assert_float_eq(k->flops(&s->cases[1]), 2.0 * 100 * 100 * 100, 0);
    cr_assert_float_eq(k->bytes(&s->cases[1]), 4.0 * 3 * 100 * 100, 0);
    cr_assert_float_eq(k->flops(&s->cases[2]), 0, 0);
    cr_assert_float_eq(k->bytes(&s->cases[2]), 8000, 0);
    cr_assert_float_eq(k->bytes(&s->cases[3]), 12000, 0);
    cr_assert_float_eq(k->bytes(&s->cases[4]), 1600, 0);
    cr_assert_float_eq(k->flops(&s->cases[5]), 2.0 * 64 * 256 * 256, 0);
    cr_assert_float_eq(k->flops(&s->cases[6]), 0, 0);
    cr_assert_float_eq(k->bytes(&s->cases[6]), 0, 0);
    pg_suite_free(s);
}

Test(cuda_registry, bad_dtype_is_an_error_on_every_machine)
{
    pg_suite *s = load("suite: g\nbenchmarks:\n  - {name: mm, kernel: gemm, device: cuda, params: {dtype: fp8, n: 64}}\n");
    pg_exec_options eo = PG_EXEC_OPTIONS_INIT;
    pg_cuda_spec spec;
    pg_result r = {0};

    cr_assert_eq(pg__cuda_spec_from_case(&spec, &s->cases[0]), PG_EINVAL);
    cr_assert(strstr(pg_error_last(), "g/mm[dtype=fp8,n=64]") != NULL, "%s", pg_error_last());
    cr_assert(strstr(pg_error_last(), "dtype must be fp32, tf32, fp16 or bf16, not 'fp8'") != NULL, "%s",
              pg_error_last());
    /* Checked before the device: an ERROR, not a skip, even without a GPU. */
    pg_assert_ok(pg_exec_case(&r, &s->cases[0], &eo));
    cr_assert_eq(r.status, PG_STATUS_ERROR);
    cr_assert(strstr(r.message, "not 'fp8'") != NULL, "%s", r.message);
    pg__result_clear(&r);
    pg_suite_free(s);
}

Test(cuda_registry, bad_shapes_and_flags_are_errors)
{
    pg_suite *s = load("suite: g\ndefaults: {device: cuda}\nbenchmarks:\n"
                       "  - {name: a, kernel: gemm, params: {m: 0, n: 8}}\n"
                       "  - {name: b, kernel: softmax, params: {rows: -1}}\n"
                       "  - {name: c, kernel: step, params: {masked: maybe}}\n"
                       "  - {name: d, kernel: add, params: {n: 0}}\n");
    pg_cuda_spec spec;
    size_t i;

    for (i = 0; i < s->ncases; i++)
        cr_assert_eq(pg__cuda_spec_from_case(&spec, &s->cases[i]), PG_EINVAL, "case %zu", i);
    cr_assert(strstr(pg_error_last(), "n must be at least 1") != NULL, "%s", pg_error_last());
    pg_suite_free(s);
}

Test(cuda_registry, fingerprint_has_a_gpu_field)
{
    char *json = NULL, *hash = NULL;
    json_t *o;

    pg_assert_ok(pg_fingerprint_read(&json, &hash));
    o = json_loads(json, 0, NULL);
    cr_assert_not_null(o);
    cr_assert(json_object_get(o, "gpu") != NULL, "%s", json);
    if (pg_cuda_probe() != 0)
        cr_assert(json_is_null(json_object_get(o, "gpu")), "%s", json);
    else
        cr_assert_str_neq(json_string_value(json_object_get(json_object_get(o, "gpu"), "name")), "");
    json_decref(o);
    free(json);
    free(hash);
}

Test(cuda_registry, host_sync_demo_suite_validates)
{
    pg_suite *s = NULL;

    pg_assert_ok(pg_suite_load(&s, PG_TEST_SOURCE_DIR "/examples/gpu-host-sync.yaml", NULL, NULL));
    cr_assert_eq(s->nchecks, 1);
    cr_assert_str_eq(s->checks[0].name, "step_with_masked_select_has_no_host_sync");
    pg_suite_free(s);
}

/* ---- loading the backend (any machine) ------------------------------------- */

/* Whether glibc's LD_DEBUG=files trace of a run shows a CUDA library or the backend module being opened. */
static int opened_cuda(const char *trace)
{
    return strstr(trace, "libcudart") || strstr(trace, "libcublas") || strstr(trace, "libperfgate-cuda");
}

static void run_traced(pg_proc *p, const char *const *argv)
{
    const char *env[] = {"LD_DEBUG=files", NULL};

    pg_test_run(p, NULL, env, argv);
    /* The trace names every library opened, so a missing name means "not loaded", not "not traced". */
    cr_assert(strstr(p->err, "libsqlite3") != NULL, "no loader trace in: %.2000s", p->err);
}

Test(cuda_loading, commands_that_need_no_gpu_never_load_cuda)
{
    pg_proc p;
    char *file = pg__asprintf("%s/import/hyperfine_params.json", PG_TEST_DATA_DIR);
    const char *import[] = {"import", "--no-store", "hyperfine", file, NULL};
    const char *version[] = {"--version", NULL};

    run_traced(&p, import);
    cr_assert_eq(p.status, 0, "%s", p.err);
    cr_assert(!opened_cuda(p.err), "import opened CUDA: %.4000s", p.err);
    pg_proc_free(&p);
    run_traced(&p, version);
    cr_assert_eq(p.status, 0, "%s", p.err);
    cr_assert(!opened_cuda(p.err), "--version opened CUDA: %.4000s", p.err);
    pg_proc_free(&p);
    free(file);
}

Test(cuda_loading, the_doctor_opens_the_backend_where_it_is_built)
{
    pg_proc p;
    const char *argv[] = {"doctor", NULL};

    run_traced(&p, argv);
    cr_assert_eq(p.status, 0, "%s", p.err);
    if (PG_HAS_CUDA) {
        cr_assert(strstr(p.err, "libperfgate-cuda.so") && strstr(p.err, "libcudart"),
                  "the doctor did not load the CUDA backend: %.4000s", p.err);
        /* Opened and linked: its answer is the runtime's, not the loader's. */
        cr_assert(strstr(p.out, "could not be loaded") == NULL && strstr(p.out, "is not this perfgate") == NULL,
                  "%s", p.out);
    }
    else
        cr_assert(!opened_cuda(p.err), "a build without CUDA opened it: %.4000s", p.err);
    pg_proc_free(&p);
}

Test(cuda_loading, a_missing_module_is_a_skip_with_the_reason)
{
    pg_proc p;
    const char *env[] = {"PERFGATE_CUDA_MODULE=/nonexistent/libperfgate-cuda.so", NULL};
    const char *argv[] = {"doctor", NULL};

    pg_test_run(&p, NULL, env, argv);
    cr_assert_eq(p.status, 0, "%s", p.err);
    if (PG_HAS_CUDA)
        cr_assert(strstr(p.out, "no CUDA device: the CUDA backend could not be loaded (/nonexistent/libperfgate-cuda.so") != NULL,
                  "%s", p.out);
    else
        cr_assert(strstr(p.out, "\ngpu:\n  no CUDA device") != NULL, "%s", p.out);
    pg_proc_free(&p);
}
