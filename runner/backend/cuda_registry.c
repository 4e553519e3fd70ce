/*
 * cuda_registry.c - descriptors of the built-in CUDA kernels.
 *
 * Always compiled, so suites naming GPU kernels validate (and `list` shows
 * their FLOPs and bytes) on machines built without CUDA. The descriptors'
 * setup/run/teardown go through cuda_api.h, whose functions report "no CUDA
 * device" (PG_ESKIP) when there is none or the backend was not built: an
 * exact check that runs a GPU workload gets PG_ESKIP from setup() and should
 * report itself skipped with pg_error_last() as the reason.
 */
#include "backend/cuda_registry.h"

#include "kernels/kernels.h"
#include "perfgate/errors.h"
#include "base/case.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

int pg__cuda_dtype_parse(pg_cuda_dtype *out, const char *name)
{
    static const char *const names[] = {"fp32", "tf32", "fp16", "bf16"};
    int i;

    for (i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (pg_cuda_dtype)i;
            return 0;
        }
    return pg_error_set(PG_EINVAL, "dtype must be fp32, tf32, fp16 or bf16, not '%s'", name);
}

const char *pg__cuda_dtype_name(pg_cuda_dtype d)
{
    return d == PG_CUDA_TF32 ? "tf32" : d == PG_CUDA_FP16 ? "fp16" : d == PG_CUDA_BF16 ? "bf16" : "fp32";
}

static int parse_bool(int *out, const char *text)
{
    if (strcmp(text, "true") == 0 || strcmp(text, "1") == 0 || strcmp(text, "yes") == 0)
        *out = 1;
    else if (strcmp(text, "false") == 0 || strcmp(text, "0") == 0 || strcmp(text, "no") == 0)
        *out = 0;
    else
        return pg_error_set(PG_EINVAL, "expected true or false, not '%s'", text);
    return 0;
}

static const struct {
    const char *name;
    pg_cuda_kind kind;
} kinds[] = {
    {"gemm", PG_CUDA_GEMM}, {"copy", PG_CUDA_COPY}, {"add", PG_CUDA_ADD}, {"gelu", PG_CUDA_GELU},
    {"softmax", PG_CUDA_SOFTMAX}, {"masked_select", PG_CUDA_MASKED_SELECT}, {"step", PG_CUDA_STEP},
};

int pg__cuda_spec_from_case(pg_cuda_spec *out, const pg_case *c)
{
    size_t i;
    int found = 0, err = 0;
    char *why;

    memset(out, 0, sizeof(*out));
    out->seed = 42;
    for (i = 0; c->kernel && i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (strcmp(c->kernel, kinds[i].name) == 0) {
            out->kind = kinds[i].kind;
            found = 1;
        }
    if (!found)
        return pg_error_set(PG_EINVAL, "%s: '%s' is not a GPU kernel", c->key ? c->key : "?",
                            c->kernel ? c->kernel : "(none)");
    switch (out->kind) {
    case PG_CUDA_GEMM:
        out->n = pg_case_param_int(c, "n", 1024);
        out->m = pg_case_param_int(c, "m", out->n);
        out->k = pg_case_param_int(c, "k", out->n);
        err = pg__cuda_dtype_parse(&out->dtype, pg_case_param_str(c, "dtype", "fp32"));
        if (!err && (out->m < 1 || out->n < 1 || out->k < 1 || out->m > INT32_MAX || out->n > INT32_MAX ||
                     out->k > INT32_MAX))
            err = pg_error_set(PG_EINVAL, "m, n and k must be between 1 and %d", INT32_MAX);
        break;
    case PG_CUDA_COPY:
    case PG_CUDA_ADD:
    case PG_CUDA_GELU:
        out->n = pg_case_param_int(c, "n", (int64_t)1 << 24);
        if (out->n < 1)
            err = pg_error_set(PG_EINVAL, "n must be at least 1");
        break;
    case PG_CUDA_SOFTMAX:
    case PG_CUDA_MASKED_SELECT:
        out->rows = pg_case_param_int(c, "rows", 4096);
        out->cols = pg_case_param_int(c, "cols", 1024);
        break;
    case PG_CUDA_STEP:
        out->rows = pg_case_param_int(c, "B", 64);
        out->cols = pg_case_param_int(c, "width", 256);
        err = parse_bool(&out->masked, pg_case_param_str(c, "masked", "false"));
        break;
    }
    if (!err && (out->kind == PG_CUDA_SOFTMAX || out->kind == PG_CUDA_MASKED_SELECT || out->kind == PG_CUDA_STEP) &&
        (out->rows < 1 || out->cols < 1 || out->rows > INT32_MAX || out->cols > INT32_MAX))
        err = pg_error_set(PG_EINVAL, "rows and columns must be between 1 and %d", INT32_MAX);
    if (err) {
        /* Name the case: the parser's message says what, not where. */
        why = pg__strdup(pg_error_last());
        err = pg_error_set(err, "%s: %s", c->key ? c->key : c->kernel, why ? why : "invalid parameter");
        free(why);
    }
    return err;
}

/* ---- the descriptors' functions ------------------------------------------- */

static int setup(void **out, const pg_case *c)
{
    pg_cuda_spec spec;
    int err;

    *out = NULL;
    if ((err = pg__cuda_spec_from_case(&spec, c)) != 0)
        return err;
    return pg__cuda_workload_new((pg_cuda_workload **)out, &spec);
}

static int run(void *state, int64_t iters)
{
    return pg__cuda_workload_run(state, iters);
}

static void teardown(void *state)
{
    pg__cuda_workload_free(state);
}

static double flops(const pg_case *c)
{
    pg_cuda_spec s;

    if (pg__cuda_spec_from_case(&s, c) != 0)
        return 0;
    if (s.kind == PG_CUDA_GEMM)
        return 2.0 * (double)s.m * (double)s.n * (double)s.k;
    if (s.kind == PG_CUDA_STEP)
        return 2.0 * (double)s.rows * (double)s.cols * (double)s.cols;
    return 0; /* elementwise, softmax and selection count zero FLOPs (the MFU convention) */
}

static double bytes(const pg_case *c)
{
    pg_cuda_spec s;
    double es;

    if (pg__cuda_spec_from_case(&s, c) != 0)
        return 0;
    switch (s.kind) {
    case PG_CUDA_GEMM:
        es = s.dtype == PG_CUDA_FP16 || s.dtype == PG_CUDA_BF16 ? 2 : 4;
        return es * ((double)s.m * (double)s.k + (double)s.k * (double)s.n + (double)s.m * (double)s.n);
    case PG_CUDA_COPY:
    case PG_CUDA_GELU:
        return 8.0 * (double)s.n; /* one fp32 read, one write */
    case PG_CUDA_ADD:
        return 12.0 * (double)s.n;
    case PG_CUDA_SOFTMAX:
        return 8.0 * (double)s.rows * (double)s.cols;
    default:
        return 0; /* data-dependent */
    }
}

static const char *const gemm_params[] = {"dtype", "m", "n", "k", NULL};
static const char *const n_params[] = {"n", NULL};
static const char *const rc_params[] = {"rows", "cols", NULL};
static const char *const step_params[] = {"B", "width", "masked", NULL};

static const pg_kernel gemm = {"gemm", "cuda",
                               "GEMM through cublasGemmEx, fp32 accumulation (dtype fp32|tf32|fp16|bf16; n, or m/n/k)",
                               gemm_params, setup, run, teardown, flops, bytes};
static const pg_kernel copy = {"copy", "cuda", "device-to-device copy of n fp32 values (bandwidth ceiling)",
                               n_params, setup, run, teardown, flops, bytes};
static const pg_kernel add = {"add", "cuda", "elementwise c = a + b on n fp32 values", n_params, setup, run, teardown,
                              flops, bytes};
static const pg_kernel gelu = {"gelu", "cuda", "elementwise exact-erf GELU on n fp32 values", n_params, setup, run,
                               teardown, flops, bytes};
static const pg_kernel softmax = {"softmax", "cuda", "row softmax of a rows x cols fp32 matrix", rc_params, setup,
                                  run, teardown, flops, bytes};
static const pg_kernel masked_select = {
    "masked_select", "cuda",
    "x[x[:, 0] > 0] on rows x cols: count pass, count copied to the host, stream sync, gather", rc_params, setup,
    run, teardown, flops, bytes};
static const pg_kernel step = {"step", "cuda",
                               "range 'step': Linear (mm, B x width x width) + GELU, then a masked select if masked",
                               step_params, setup, run, teardown, flops, bytes};

const pg_kernel *const pg__cuda_kernels[] = {
    &gemm, &copy, &add, &gelu, &softmax, &masked_select, &step, NULL,
};
