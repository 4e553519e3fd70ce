/* python_test.c - unmodified Python programs counted: NumPy's matrix products (float32 and float64, through
   whichever BLAS interface NumPy calls), ranges from python/perfgate_count.py, and the PyTorch example
   (examples/torch/): one training step of the lab's MLP is exactly 6*B*sum(in*out), by op, range and calling
   function; the example suite passes; one extra Linear fails it naming the shape; fence 3 on a fresh trace.
   They run Debian's /usr/bin/python3 with python3-numpy and python3-torch (ci/packages-test.txt); where those
   are missing the tests skip with the reason, and CI fails on a skip that tests/allowed-skips.txt does not
   allow. */
#include "compile.h"
#include "progs.h"
#include "support.h"

#include "base/util.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PYTHON "/usr/bin/python3"
#define EXAMPLE PG_TEST_SOURCE_DIR "/examples/torch"

/* B = 64 and sum(in*out) = 3*256*256 + 256*512 in the example's model. */
#define SUM_IN_OUT (3LL * 256 * 256 + 256 * 512)
#define STEP (6LL * 64 * SUM_IN_OUT)

/* Skips the test (with the reason) unless /usr/bin/python3 imports `module`. */
static void need_python_module(const char *module)
{
    char *cmd = pg__asprintf("%s -c 'import %s' 2>&1", PYTHON, module), *out = NULL;
    int rc = pg_test_sh(&out, cmd);

    free(cmd);
    if (rc != 0) {
        char why[300];
        snprintf(why, sizeof(why), "%s cannot import %s (python3-%s, ci/packages-test.txt): %.150s", PYTHON, module,
                 module, out ? out : "");
        free(out);
        cr_skip_test("%s", why);
    }
    free(out);
}

/* The environment of the runs: Debian's python3 first on PATH, as CI has it. */
static const char *const *python_env(void)
{
    static char path[8192];
    static const char *env[3];
    const char *old = getenv("PATH");

    snprintf(path, sizeof(path), "PATH=/usr/bin:%s", old ? old : "/bin");
    env[0] = path;
    env[1] = NULL;
    return env;
}

/* `perfgate count --json -- python3 ARGS...`: the program's output (on stderr: stdout holds the JSON alone)
   in *shown, the JSON object returned. */
static json_t *count_python(char **shown, const char *const *args, const char *const *env)
{
    const char *argv[16] = {"count", "--json", "--", PYTHON};
    size_t n = 4;
    pg_proc p;
    json_t *o;

    while (*args && n < 15)
        argv[n++] = *args++;
    argv[n] = NULL;
    pg_test_run(&p, NULL, env, argv);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    o = json_loads(p.out, 0, NULL);
    cr_assert_not_null(o, "%s", p.out);
    if (shown)
        *shown = pg__strdup(p.err);
    pg_proc_free(&p);
    return o;
}

static int64_t total_of(json_t *o)
{
    return json_integer_value(json_object_get(o, "total"));
}

Test(count_python, numpy_matmul_counts_two_m_n_k_per_product)
{
    static const char script[] =
        "import numpy as np\n"
        "for dt, (m, k, n) in ((np.float32, (64, 128, 32)), (np.float64, (10, 20, 30)), (np.float32, (7, 300, 5)),\n"
        "                      (np.float64, (96, 3, 40))):\n"
        "    a, b = np.ones((m, k), dt), np.ones((k, n), dt)\n"
        "    c = a @ b\n"
        "    assert c.shape == (m, n) and c[0, 0] == k, c\n";
    const char *args[] = {"-c", script, NULL};
    json_t *o, *rows;

    need_python_module("numpy");
    o = count_python(NULL, args, NULL);
    rows = json_object_get(o, "rows");
    cr_assert_eq(json_integer_value(json_object_get(o, "calls")), 4, "one BLAS call per product");
    cr_assert_eq(pg_test_row_flops(rows, "shape", "[64,128]x[128,32]"), 2 * 64 * 128 * 32);
    cr_assert_eq(pg_test_row_flops(rows, "shape", "[10,20]x[20,30]"), 2 * 10 * 20 * 30);
    cr_assert_eq(pg_test_row_flops(rows, "shape", "[7,300]x[300,5]"), 2 * 7 * 300 * 5);
    cr_assert_eq(pg_test_row_flops(rows, "shape", "[96,3]x[3,40]"), 2 * 96 * 3 * 40);
    cr_assert_eq(pg_test_row_flops(rows, "op", "sgemm"), 2 * 64 * 128 * 32 + 2 * 7 * 300 * 5);
    cr_assert_eq(pg_test_row_flops(rows, "op", "dgemm"), 2 * 10 * 20 * 30 + 2 * 96 * 3 * 40);
    cr_assert_eq(total_of(o), 2 * 64 * 128 * 32 + 2 * 10 * 20 * 30 + 2 * 7 * 300 * 5 + 2 * 96 * 3 * 40);
    json_decref(o);
}

static const char ranges_script[] =
    "import sys\n"
    "sys.path.insert(0, '" PG_TEST_SOURCE_DIR "/python')\n"
    "import numpy as np, perfgate_count as pc\n"
    "a, b = np.ones((16, 8), np.float32), np.ones((8, 4), np.float32)\n"
    "@pc.range('decorated')\n"
    "def f():\n"
    "    return a @ b\n"
    "with pc.range('outer'):\n"
    "    a @ b\n"
    "    with pc.range('inner'):\n"
    "        a @ b\n"
    "f()\n"
    "a @ b\n"
    "print('active', pc.active(), pc.wrap_record_function())\n";

Test(count_python, ranges_from_python_attribute_flops_and_do_nothing_uncounted)
{
    const char *args[] = {"-c", ranges_script, NULL};
    const int64_t one = 2 * 16 * 8 * 4;
    char *shown = NULL, *out = NULL, *script_path, *cmd, *tmp = pg_test_tmpdir();
    json_t *o, *rows;

    need_python_module("numpy");
    o = count_python(&shown, args, NULL);
    rows = json_object_get(o, "rows");
    cr_assert_eq(total_of(o), 4 * one);
    cr_assert_eq(pg_test_row_flops(rows, "range", "outer"), one);
    cr_assert_eq(pg_test_row_flops(rows, "range", "outer/inner"), one);
    cr_assert_eq(pg_test_row_flops(rows, "range", "decorated"), one);
    cr_assert_eq(pg_test_row_flops(rows, "range", ""), one);
    cr_assert(strstr(shown, "active True") != NULL, "%s", shown);
    /* Without the library the module is a no-op: the same script runs and says so. */
    script_path = pg_test_write(tmp, "ranges.py", ranges_script);
    cmd = pg__asprintf("%s %s 2>&1", PYTHON, script_path);
    cr_assert_eq(pg_test_sh(&out, cmd), 0, "%s", out);
    cr_assert_str_eq(out, "active False False\n");
    json_decref(o);
    free(cmd);
    free(out);
    free(script_path);
    free(shown);
    pg_test_rmtree(tmp);
    free(tmp);
}

Test(count_python, torch_mlp_step_is_six_b_sum_in_out_by_op_range_and_function)
{
    const char *args[] = {EXAMPLE "/mlp_step.py", NULL};
    char *shown = NULL;
    json_t *o, *rows, *r;
    size_t i;

    need_python_module("torch");
    o = count_python(&shown, args, python_env());
    rows = json_object_get(o, "rows");
    cr_assert(strstr(shown, "sum(in*out)=327,680, 6*B*sum=125,829,120") != NULL, "%s", shown);
    cr_assert_eq(total_of(o), STEP, "%s", shown);
    cr_assert_eq(json_integer_value(json_object_get(o, "calls")), 12, "4 forward addmm, 8 backward mm");
    cr_assert_eq(pg_test_row_flops(rows, "op", "sgemm"), STEP, "torch's CPU matmuls are Fortran sgemm_ calls");
    cr_assert_eq(pg_test_row_flops(rows, "range", "forward"), 2 * 64 * SUM_IN_OUT);
    cr_assert_eq(pg_test_row_flops(rows, "range", "backward"), 4 * 64 * SUM_IN_OUT);
    cr_assert_eq(pg_test_row_flops(rows, "range", "optimizer"), 0);
    /* One calling function inside libtorch makes every call. */
    json_array_foreach(rows, i, r)
        cr_assert(strstr(json_string_value(json_object_get(r, "function")), "libtorch_cpu") ||
                      strstr(json_string_value(json_object_get(r, "function")), "at::"),
                  "%s", json_string_value(json_object_get(r, "function")));
    cr_assert_eq(pg_test_row_flops(rows, "function", json_string_value(json_object_get(json_array_get(rows, 0),
                                                                                        "function"))),
                 STEP);
    json_decref(o);
    free(shown);
}

Test(count_python, torch_example_suite_passes_and_an_extra_linear_fails_naming_the_shape)
{
    const char *run[] = {"run", "--no-store", EXAMPLE "/mlp.yaml", NULL};
    const char *only[] = {"run", "--no-store", "-f", "*mlp_step_flops", EXAMPLE "/mlp.yaml", NULL};
    const char *env[3] = {python_env()[0], "MLP_VARIANT=extra-linear", NULL};
    const char *line;
    int samples = 0;
    pg_proc p;

    need_python_module("torch");
    pg_test_run(&p, NULL, python_env(), run);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "check torch_mlp/mlp_step_flops (flops): passed") &&
                  strstr(p.out, "check torch_mlp/first_layer_rule (flops): passed") &&
                  strstr(p.out, "check torch_mlp/step_has_no_nonzero (ops): passed"),
              "%s", p.out);
    line = strstr(p.out, "\ntorch_mlp/step_time[]@1:cpu ");
    cr_assert_not_null(line, "%s", p.out);
    cr_assert(sscanf(line, " torch_mlp/step_time[]@1:cpu %*s %*s %*s %d", &samples) == 1 && samples == 20,
              "one sample per profiled step, 20: %s", p.out);
    pg_proc_free(&p);
    pg_test_run(&p, NULL, env, only);
    cr_assert_eq(p.status, 1, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "total: expected 125,829,120, got 150,994,944 (+25,165,824)") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "module forward: expected 41,943,040, got 50,331,648 (+8,388,608) "
                            "(+1 call of sgemm [256,256]x[256,64])") != NULL,
              "the forward range names the extra Linear's GEMM: %s", p.out);
    pg_proc_free(&p);
}

Test(count_python, fence3_on_a_fresh_trace_of_the_example)
{
    char *tmp = pg_test_tmpdir(), *suite = pg__asprintf("%s/mlp.yaml", tmp), *traces = pg__asprintf("%s/traces", tmp);
    char *cmd = pg__asprintf("mkdir -p %s && cp %s/mlp.yaml %s", traces, EXAMPLE, suite), *out = NULL;
    const char *argv[] = {"run", "--no-store", "-f", "*step_has_no_nonzero", suite, NULL};
    pg_proc p;

    need_python_module("torch");
    cr_assert_eq(pg_test_sh(&out, cmd), 0, "%s", out);
    free(out);
    free(cmd);
    /* The shipped suite's check on a trace this machine's torch records now. */
    cmd = pg__asprintf("%s %s/mlp_step.py --trace %s/mlp_step.json 2>&1", PYTHON, EXAMPLE, traces);
    cr_assert_eq(pg_test_sh(&out, cmd), 0, "%s", out);
    free(out);
    free(cmd);
    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    pg_proc_free(&p);
    /* A boolean mask inside forward: aten::index calls aten::nonzero in every step. */
    cmd = pg__asprintf("%s %s/mlp_step.py --variant mask --trace %s/mlp_step.json 2>&1", PYTHON, EXAMPLE, traces);
    cr_assert_eq(pg_test_sh(&out, cmd), 0, "%s", out);
    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 1, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "'aten::nonzero' must not occur") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "under ProfilerStep#1 > forward > aten::index") != NULL, "%s", p.out);
    pg_proc_free(&p);
    free(out);
    free(cmd);
    free(traces);
    free(suite);
    pg_test_rmtree(tmp);
    free(tmp);
}

/* What Debian's torch 1.13 runs through BLAS on the CPU, as docs/checks.md lists it, each exactly. */
static const char torch_ops_script[] =
    "import sys, torch, torch.nn as nn, torch.nn.functional as F\n"
    "sys.path.insert(0, '" PG_TEST_SOURCE_DIR "/python')\n"
    "import perfgate_count as pc\n"
    "torch.manual_seed(0); torch.set_num_threads(1)\n"
    "x, w = torch.randn(2, 3, 16, 16), torch.randn(8, 3, 3, 3)\n"
    "with pc.range('conv_onednn'): F.conv2d(x, w, padding=1)\n"
    "with torch.backends.mkldnn.flags(enabled=False), pc.range('conv_im2col'): F.conv2d(x, w, padding=1)\n"
    "with pc.range('conv_f64'): F.conv2d(x.double(), w.double(), padding=1)\n"
    "mha, q = nn.MultiheadAttention(64, 4, batch_first=True), torch.randn(2, 10, 64)\n"
    "with pc.range('attention'): mha(q, q, q, need_weights=False)\n"
    "with pc.range('bmm_392'): torch.bmm(torch.randn(2, 7, 7), torch.randn(2, 7, 8))\n"
    "with pc.range('bmm_448'): torch.bmm(torch.randn(2, 7, 8), torch.randn(2, 8, 8))\n"
    "with pc.range('linear_bf16'): F.linear(torch.randn(4, 16).bfloat16(), torch.randn(8, 16).bfloat16())\n";

Test(count_python, conv2d_and_attention_count_when_they_run_as_blas)
{
    const char *args[] = {"-c", torch_ops_script, NULL};
    /* Conv2d(3 -> 8, 3x3, padding 1) on 2 images of 16x16: 2*N*Cout*Ho*Wo*Cin*k*k, one GEMM per image. */
    const int64_t conv = 2LL * 2 * 8 * 16 * 16 * 3 * 3 * 3;
    /* MultiheadAttention(64, 4 heads) on 2 x 10 tokens: the q/k/v projection, q.k^T and att.v per batch and
       head (2*4 GEMMs of 2*10*10*16 each), the output projection. */
    const int64_t attention = 2LL * 20 * 64 * 192 + 2 * 8 * (2LL * 10 * 10 * 16) + 2LL * 20 * 64 * 64;
    json_t *o, *rows;

    need_python_module("torch");
    o = count_python(NULL, args, python_env());
    rows = json_object_get(o, "rows");
    cr_assert_eq(pg_test_row_flops(rows, "range", "conv_onednn"), 0, "oneDNN's convolution makes no BLAS call");
    cr_assert_eq(pg_test_row_flops(rows, "range", "conv_im2col"), conv);
    cr_assert_eq(pg_test_row_calls(rows, "range", "conv_im2col"), 2);
    cr_assert_eq(pg_test_row_flops(rows, "range", "conv_f64"), conv, "float64 has no oneDNN path: dgemm");
    cr_assert_eq(pg_test_row_flops(rows, "range", "attention"), attention);
    cr_assert_eq(pg_test_row_calls(rows, "range", "attention"), 2 + 2 * 8);
    cr_assert_eq(pg_test_row_flops(rows, "range", "bmm_392"), 0, "torch multiplies under 400 products itself");
    cr_assert_eq(pg_test_row_flops(rows, "range", "bmm_448"), 2 * (2 * 7 * 8 * 8));
    cr_assert_eq(pg_test_row_flops(rows, "range", "linear_bf16"), 0, "bfloat16 reaches no BLAS");
    json_decref(o);
}
