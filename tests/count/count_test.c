/* count_test.c - libperfgate_count.so on real programs and real OpenBLAS: `perfgate count`, flops checks
   on command workloads, `count: blas` timed cases, and what the preload library does with forks, children,
   early exits and files it did not write. */
#include "compile.h"
#include "progs.h"
#include "support.h"

#include "meter/count.h"
#include "base/flopcount.h"
#include "base/util.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The closed forms of examples/blas-count/blas_prog.c. */
#define EMBED (3LL * 2 * 64 * 48 * 32)
#define REFINE (2LL * 40 * 40 * 40)
#define SCORE (2LL * 100 * 50)

static char *example(void)
{
    char *dir = pg_test_build_dir(), *p = pg__asprintf("%s/examples/blas-count/blas_prog", dir);

    free(dir);
    return p;
}

/* Compiles `src` (a program calling CBLAS) into dir/name, as a user would: no sanitizers, no perfgate. */
static char *build_prog(const char *dir, const char *name, const char *src)
{
    return pg_test_cc(dir, name, src, "-lopenblas");
}

Test(count, example_program_counts_exact_flops_per_function_op_and_range)
{
    char *prog = example();
    const char *argv[] = {"count", "--json", "--", prog, NULL};
    pg_proc p;
    json_t *o, *rows;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "%s", p.err);
    /* The program's own output goes to stderr: stdout is the JSON object alone. */
    o = json_loads(p.out, 0, NULL);
    cr_assert_not_null(o, "%s", p.out);
    rows = json_object_get(o, "rows");
    cr_assert_eq(json_integer_value(json_object_get(o, "total")), EMBED + REFINE + SCORE);
    cr_assert_eq(json_integer_value(json_object_get(o, "calls")), 5);
    cr_assert_eq(pg_test_row_flops(rows, "function", "embed"), EMBED);
    cr_assert_eq(pg_test_row_flops(rows, "function", "refine"), REFINE);
    cr_assert_eq(pg_test_row_flops(rows, "function", "score"), SCORE);
    cr_assert_eq(pg_test_row_flops(rows, "op", "sgemm"), EMBED);
    cr_assert_eq(pg_test_row_flops(rows, "op", "dgemm"), REFINE);
    cr_assert_eq(pg_test_row_flops(rows, "op", "sgemv"), SCORE);
    cr_assert_eq(pg_test_row_flops(rows, "range", "refine_step"), REFINE, "the dgemm runs inside PG_COUNT_RANGE_PUSH");
    cr_assert_eq(pg_test_row_flops(rows, "range", ""), EMBED + SCORE);
    json_decref(o);
    pg_proc_free(&p);
    free(prog);
}

Test(count, table_names_functions_ops_and_shapes)
{
    char *prog = example();
    const char *argv[] = {"count", "--", prog, "2", NULL};
    pg_proc p;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "%s", p.err);
    cr_assert(strstr(p.out, "Total: 1,455,648 FLOP in 10 BLAS calls (1 process)") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "By function") && strstr(p.out, "By op") && strstr(p.out, "By range"), "%s", p.out);
    cr_assert(strstr(p.out, "sgemm [64,32]x[32,48]") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "1,179,648") != NULL, "embed twice: %s", p.out);
    pg_proc_free(&p);
    free(prog);
}

/* Every wrapped entry point, each once, against the formulas of flopcount.h written out by hand. */
static const char all_calls[] =
    "#include <cblas.h>\n#include <stdlib.h>\n"
    "int main(void) {\n"
    "  float *s = calloc(4096, 8); double *d = calloc(4096, 8); float *c = calloc(4096, 16); double *z = calloc(4096, 16);\n"
    "  float one[2] = {1, 0}; double oned[2] = {1, 0};\n"
    "  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 5, 6, 7, 1, s, 7, s, 6, 0, s + 2048, 6);\n"
    "  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 5, 6, 7, 1, d, 7, d, 6, 0, d + 2048, 6);\n"
    "  cblas_cgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 5, 6, 7, one, c, 7, c, 6, one, c + 2048, 6);\n"
    "  cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 5, 6, 7, oned, z, 7, z, 6, oned, z + 2048, 6);\n"
    "  cblas_cgemm3m(CblasRowMajor, CblasNoTrans, CblasNoTrans, 5, 6, 7, one, c, 7, c, 6, one, c + 2048, 6);\n"
    "  cblas_ssymm(CblasRowMajor, CblasLeft, CblasUpper, 8, 3, 1, s, 8, s, 3, 0, s + 2048, 3);\n"
    "  cblas_dsymm(CblasRowMajor, CblasRight, CblasUpper, 8, 3, 1, d, 3, d, 3, 0, d + 2048, 3);\n"
    "  cblas_zsymm(CblasRowMajor, CblasLeft, CblasUpper, 8, 3, oned, z, 8, z, 3, oned, z + 2048, 3);\n"
    "  cblas_ssyrk(CblasRowMajor, CblasUpper, CblasNoTrans, 9, 4, 1, s, 4, 0, s + 2048, 9);\n"
    "  cblas_csyrk(CblasRowMajor, CblasUpper, CblasNoTrans, 9, 4, one, c, 4, one, c + 2048, 9);\n"
    "  cblas_strmm(CblasRowMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, 10, 2, 1, s, 10, s + 2048, 2);\n"
    "  cblas_dtrsm(CblasRowMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, 10, 2, 1, d, 2, d + 2048, 2);\n"
    "  cblas_sgemv(CblasRowMajor, CblasNoTrans, 11, 12, 1, s, 12, s, 1, 0, s + 2048, 1);\n"
    "  cblas_zgemv(CblasRowMajor, CblasTrans, 11, 12, oned, z, 12, z, 1, oned, z + 2048, 1);\n"
    "  return 0;\n}\n";

Test(count, every_wrapped_call_counts_its_formula)
{
    char *tmp = pg_test_tmpdir(), *prog = build_prog(tmp, "all_calls", all_calls);
    char *const argv[] = {prog, NULL};
    pg_counts c;
    struct {
        const char *op;
        int64_t flops;
    } want[] = {
        {"sgemm", 2 * 5 * 6 * 7},    {"dgemm", 2 * 5 * 6 * 7},  {"cgemm", 8 * 5 * 6 * 7},  {"zgemm", 8 * 5 * 6 * 7},
        {"cgemm3m", 8 * 5 * 6 * 7},  {"ssymm", 2 * 8 * 8 * 3},  {"dsymm", 2 * 8 * 3 * 3},  {"zsymm", 8 * 8 * 8 * 3},
        {"ssyrk", 4 * 9 * 10},       {"csyrk", 4 * 4 * 9 * 10}, {"strmm", 10 * 10 * 2},    {"dtrsm", 10 * 2 * 2},
        {"sgemv", 2 * 11 * 12},      {"zgemv", 8 * 11 * 12},
    };
    size_t i;
    int64_t total = 0, f;

    cr_assert_eq(pg_count_run(&c, argv, 60, 1), 0, "%s", pg_error_last());
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        cr_expect_eq(pg_counts_sum(&c, "op", want[i].op), want[i].flops, "%s: got %lld, want %lld", want[i].op,
                     (long long)pg_counts_sum(&c, "op", want[i].op), (long long)want[i].flops);
        total += want[i].flops;
    }
    cr_assert_eq(c.total, total);
    cr_assert_eq(c.calls, (int64_t)(sizeof(want) / sizeof(want[0])));
    cr_assert_eq(pg_counts_sum(&c, "function", "main"), total, "every call is main's");
    /* The same formulas the FLOP counter of the kernels uses. */
    cr_assert_eq(pg_flops_gemm(&f, 5, 6, 7, 0), 0);
    cr_assert_eq(pg_counts_sum(&c, "op", "sgemm"), f);
    cr_assert_eq(pg_flops_gemm(&f, INT64_MAX, 2, 1, 0), 1, "overflow is reported, not wrapped");
    cr_assert_eq(pg_flops_gemm(&f, -1, 2, 1, 0), 1, "a negative dimension is rejected");
    pg_counts_clear(&c);
    pg_test_rmtree(tmp);
    free(prog);
    free(tmp);
}

static const char forking[] =
    "#include <cblas.h>\n#include <stdlib.h>\n#include <unistd.h>\n#include <sys/wait.h>\n"
    "static float a[64*64], b[64*64], c[64*64];\n"
    "__attribute__((noinline)) void parent_work(void) { cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 64, 64, 64, 1, a, 64, b, 64, 0, c, 64); }\n"
    "__attribute__((noinline)) void child_work(void) { cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 32, 32, 32, 1, a, 32, b, 32, 0, c, 32); }\n"
    "int main(void) {\n"
    "  parent_work();\n"
    "  pid_t p = fork();\n"
    "  if (p == 0) { child_work(); exit(0); }\n"
    "  int st; waitpid(p, &st, 0);\n"
    "  return 0;\n}\n";

Test(count, forked_children_count_once_each)
{
    char *tmp = pg_test_tmpdir(), *prog = build_prog(tmp, "forking", forking);
    char *const argv[] = {prog, NULL};
    pg_counts c;

    cr_assert_eq(pg_count_run(&c, argv, 60, 1), 0, "%s", pg_error_last());
    cr_assert_eq(c.processes, 2);
    cr_assert_eq(pg_counts_sum(&c, "function", "parent_work"), 2LL * 64 * 64 * 64,
                 "the parent's call is not counted again by the child");
    cr_assert_eq(pg_counts_sum(&c, "function", "child_work"), 2LL * 32 * 32 * 32);
    pg_counts_clear(&c);
    pg_test_rmtree(tmp);
    free(prog);
    free(tmp);
}

Test(count, a_shell_wrapper_is_followed_into_the_program)
{
    char *prog = example(), *cmd = pg__asprintf("%s 3 > /dev/null", prog);
    char *const argv[] = {"/bin/sh", "-c", cmd, NULL};
    pg_counts c;

    cr_assert_eq(pg_count_run(&c, argv, 60, 1), 0, "%s", pg_error_last());
    cr_assert_eq(c.total, 3 * (EMBED + REFINE + SCORE));
    pg_counts_clear(&c);
    free(cmd);
    free(prog);
}

Test(count, failures_are_errors_with_the_reason)
{
    char *tmp = pg_test_tmpdir();
    char *quits = build_prog(tmp, "quits", "#include <cblas.h>\n#include <unistd.h>\nint main(void) { _exit(0); }\n");
    char *fails = build_prog(tmp, "fails", "int main(void) { return 3; }\n");
    char *forges = build_prog(tmp, "forges",
                              "#include <stdio.h>\n#include <stdlib.h>\nint main(void) {\n"
                              "  char p[4096]; snprintf(p, sizeof p, \"%s/count.1.tsv\", getenv(\"PERFGATE_COUNT_DIR\"));\n"
                              "  FILE *f = fopen(p, \"w\"); fputs(\"perfgate-count 1\\nsgemm\\tmain\\tnot a number\\n\", f);\n"
                              "  fclose(f); return 0;\n}\n");
    char *const a1[] = {quits, NULL}, *const a2[] = {fails, NULL}, *const a3[] = {forges, NULL};
    char *const a4[] = {"no-such-program-perfgate", NULL};
    pg_counts c;

    cr_assert_neq(pg_count_run(&c, a1, 60, 1), 0);
    cr_assert(strstr(pg_error_last(), "wrote no counts") != NULL, "%s", pg_error_last());
    cr_assert_neq(pg_count_run(&c, a2, 60, 1), 0);
    cr_assert(strstr(pg_error_last(), "exited with status 3") != NULL, "%s", pg_error_last());
    cr_assert_neq(pg_count_run(&c, a3, 60, 1), 0);
    cr_assert(strstr(pg_error_last(), "count.1.tsv:2: malformed line") != NULL, "%s", pg_error_last());
    cr_assert_neq(pg_count_run(&c, a4, 60, 1), 0);
    cr_assert(strstr(pg_error_last(), "is not in PATH") != NULL, "%s", pg_error_last());
    pg_test_rmtree(tmp);
    free(quits);
    free(fails);
    free(forges);
    free(tmp);
}

Test(count, without_the_variable_the_library_only_forwards)
{
    char *tmp = pg_test_tmpdir(), *prog = example(), *lib = NULL, *out = NULL, *plain = NULL, *cmd;

    cr_assert_eq(pg_count_library(&lib), 0, "%s", pg_error_last());
    cmd = pg__asprintf("LD_PRELOAD=%s %s 2", lib, prog);
    cr_assert_eq(pg_test_sh(&out, cmd), 0, "%s", out);
    free(cmd);
    cmd = pg__asprintf("%s 2", prog);
    cr_assert_eq(pg_test_sh(&plain, cmd), 0);
    cr_assert_str_eq(out, plain, "the results do not change under the preload library");
    free(cmd);
    free(out);
    free(plain);
    free(lib);
    free(prog);
    pg_test_rmtree(tmp);
    free(tmp);
}

static char *suite_with(const char *dir, const char *total)
{
    char *build = pg_test_build_dir();
    char *text = pg__asprintf("suite: blas_count\n"
                              "checks:\n"
                              "  - name: blas_prog_flops\n"
                              "    kind: flops\n"
                              "    workload: {command: [\"%s/examples/blas-count/blas_prog\"], count: blas}\n"
                              "    expect:\n"
                              "      total: %s\n"
                              "      per_op: {sgemm: 3*2*64*48*32, dgemm: 2*40*40*40, sgemv: 2*100*50}\n"
                              "      per_module: {embed: 3*2*64*48*32, refine_step: 2*40*40*40}\n",
                              build, total);
    char *path = pg_test_write(dir, "blas.yaml", text);

    free(text);
    free(build);
    return path;
}

Test(count, flops_check_on_a_command_passes_and_names_the_missing_gemm)
{
    char *tmp = pg_test_tmpdir();
    char *good = suite_with(tmp, "3*2*64*48*32 + 2*40*40*40 + 2*100*50");
    const char *argv[] = {"run", "--no-store", good, NULL};
    pg_proc p;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "check blas_count/blas_prog_flops (flops): passed") != NULL, "%s", p.out);
    pg_proc_free(&p);
    free(good);
    /* One sgemm more than the program does: fails, and says which call the difference is. */
    good = suite_with(tmp, "4*2*64*48*32 + 2*40*40*40 + 2*100*50");
    argv[2] = good;
    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 1, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "total: expected 924,432, got 727,824 (-196,608) (-1 call of sgemm [64,32]x[32,48])"),
              "%s", p.out);
    pg_proc_free(&p);
    free(good);
    pg_test_rmtree(tmp);
    free(tmp);
}

Test(count, ops_check_on_a_command_sees_calls_inside_ranges)
{
    char *tmp = pg_test_tmpdir(), *build = pg_test_build_dir();
    char *text = pg__asprintf("suite: blas_ops\nchecks:\n"
                              "  - name: refine_is_one_dgemm\n    kind: ops\n"
                              "    workload: {command: [\"%s/examples/blas-count/blas_prog\", \"2\"]}\n"
                              "    expect: {within: refine_step, contains: [dgemm], not_contains: [sgemm], count: {dgemm: 2}}\n"
                              "  - name: three_sgemms_a_pass\n    kind: ops\n"
                              "    workload: {command: [\"%s/examples/blas-count/blas_prog\"], count: blas}\n"
                              "    expect: {count: {sgemm: 4}}\n",
                              build, build);
    char *suite = pg_test_write(tmp, "ops.yaml", text);
    const char *argv[] = {"run", "--no-store", suite, NULL};
    pg_proc p;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 1, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "check blas_ops/refine_is_one_dgemm (ops): passed") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "check blas_ops/three_sgemms_a_pass (ops): FAILED") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "sgemm") && strstr(p.out, "3"), "%s", p.out);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(suite);
    free(text);
    free(build);
    free(tmp);
}

Test(count, command_case_with_count_blas_gets_flops_and_mfu)
{
    char *tmp = pg_test_tmpdir(), *build = pg_test_build_dir(), *json = pg__asprintf("%s/r.json", tmp);
    char *text = pg__asprintf("suite: blas_count\ndefaults: {min_run_time: 0.05s, min_samples: 3, warmup: 10ms}\n"
                              "benchmarks:\n  - name: prog\n    command: [\"%s/examples/blas-count/blas_prog\", \"4\"]\n"
                              "    count: blas\n",
                              build);
    char *suite = pg_test_write(tmp, "b.yaml", text), *doc;
    const char *argv[] = {"run", "--no-store", "--json", json, suite, NULL};
    pg_proc p;
    json_t *o, *r;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    cr_assert_eq(pg__read_file(&doc, NULL, json), 0);
    o = json_loads(doc, 0, NULL);
    r = json_array_get(json_object_get(o, "results"), 0);
    cr_assert_eq(json_number_value(json_object_get(r, "flops")), 4.0 * (EMBED + REFINE + SCORE));
    cr_assert_gt(json_number_value(json_object_get(r, "mfu")), 0);
    cr_assert_leq(json_number_value(json_object_get(r, "mfu")), 1.0);
    cr_assert_eq(json_integer_value(json_object_get(
                     json_object_get(json_object_get(json_object_get(r, "extra"), "count_blas"), "per_op"), "sgemm")),
                 4 * EMBED);
    json_decref(o);
    free(doc);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(suite);
    free(text);
    free(json);
    free(build);
    free(tmp);
}

Test(count, suite_errors_name_the_position)
{
    char *tmp = pg_test_tmpdir();
    char *s1 = pg_test_write(tmp, "a.yaml",
                             "suite: a\nbenchmarks:\n  - name: k\n    kernel: sgemm\n    params: {n: 8}\n    count: blas\n");
    char *s2 = pg_test_write(tmp, "b.yaml",
                             "suite: b\nbenchmarks:\n  - name: c\n    command: [/bin/true]\n    count: cuda\n");
    char *s3 = pg_test_write(tmp, "c.yaml",
                             "suite: c\nchecks:\n  - name: x\n    kind: schedule\n    workload: {command: [/bin/true]}\n"
                             "    schedule: {wait: 1, warmup: 1, active: 1}\n    steps: 3\n    expect: {windows: 1}\n");
    const char *v1[] = {"validate", s1, NULL}, *v2[] = {"validate", s2, NULL}, *v3[] = {"run", "--no-store", s3, NULL};
    pg_proc p;

    pg_test_run(&p, NULL, NULL, v1);
    cr_assert_eq(p.status, 2);
    cr_assert(strstr(p.err, "a.yaml:6:12") && strstr(p.err, "'count' applies only to command benchmarks"), "%s", p.err);
    pg_proc_free(&p);
    pg_test_run(&p, NULL, NULL, v2);
    cr_assert_eq(p.status, 2);
    cr_assert(strstr(p.err, "b.yaml:5:") && strstr(p.err, "'blas' or 'none'"), "%s", p.err);
    pg_proc_free(&p);
    pg_test_run(&p, NULL, NULL, v3);
    cr_assert_eq(p.status, 2, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "a schedule check needs a kernel; flops and ops checks count a command workload"),
              "%s%s", p.out, p.err);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(s1);
    free(s2);
    free(s3);
    free(tmp);
}

/* examples/cublas-count/cublas_prog (built with CUDA): its GEMMs' closed forms. */
#define PROJECT (2LL * 128 * 96 * 64)
#define BATCH (8LL * 2 * 32 * 32 * 16)
#define MIXED (2LL * 64 * 64 * 64)

/* Runs `perfgate count --json` on the cuBLAS example; NULL (test skipped) without a CUDA build. *out is what
   the program printed (on stderr: stdout holds the JSON alone) followed by the JSON. */
static json_t *count_cublas_prog(char **out)
{
    char *dir = pg_test_build_dir(), *prog = pg__asprintf("%s/examples/cublas-count/cublas_prog", dir);
    const char *argv[] = {"count", "--json", "--", prog, NULL};
    pg_proc p;
    json_t *o;

    free(dir);
    if (access(prog, X_OK) != 0) {
        free(prog);
        cr_skip_test("perfgate was built without CUDA: no cuBLAS example to count");
    }
    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "%s", p.err);
    o = json_loads(p.out, 0, NULL);
    cr_assert_not_null(o, "stdout is the JSON alone: %s", p.out);
    *out = pg__asprintf("%s%s", p.err, p.out);
    pg_proc_free(&p);
    free(prog);
    return o;
}

Test(count, cublas_entry_points_are_interposed_on_the_host)
{
    char *out = NULL;
    json_t *o = count_cublas_prog(&out), *rows = json_object_get(o, "rows"), *r;
    int device = strstr(out, "device calls skipped") == NULL;
    size_t i;
    const char *suffix = device ? "" : "!failed";
    char op[64];

    /* Every entry point reached the library with its shape, whether or not a device ran it. */
    cr_assert_eq(json_integer_value(json_object_get(o, "calls")), 3, "%s", out);
    json_array_foreach(rows, i, r) {
        const char *fn = json_string_value(json_object_get(r, "function"));
        const char *shape = json_string_value(json_object_get(r, "shape"));
        if (strcmp(fn, "project") == 0)
            cr_assert_str_eq(shape, "[128,64]x[64,96]");
        else if (strcmp(fn, "batch") == 0)
            cr_assert_str_eq(shape, "8x[32,16]x[16,32]");
        else
            cr_assert_str_eq(fn, "mixed");
    }
    snprintf(op, sizeof(op), "cublasSgemm%s", suffix);
    cr_assert_eq(json_array_size(rows), 3);
    cr_assert_eq(pg_test_row_flops(rows, "op", op), device ? PROJECT : 0, "%s", out);
    snprintf(op, sizeof(op), "cublasGemmEx%s", suffix);
    cr_assert_eq(pg_test_row_flops(rows, "op", op), device ? MIXED : 0, "%s", out);
    if (!device) /* refused calls count no FLOPs: a count says what ran */
        cr_assert_eq(json_integer_value(json_object_get(o, "total")), 0, "%s", out);
    json_decref(o);
    free(out);
}

Test(count, cublas_flops_on_a_device)
{
    char *out = NULL, *why;
    json_t *o = count_cublas_prog(&out), *rows = json_object_get(o, "rows");

    if ((why = strstr(out, "device calls skipped")) != NULL) {
        char reason[200];
        snprintf(reason, sizeof(reason), "%.*s", (int)strcspn(why, "\n"), why);
        json_decref(o);
        free(out);
        cr_skip_test("%s", reason);
    }
    cr_assert_eq(pg_test_row_flops(rows, "function", "project"), PROJECT);
    cr_assert_eq(pg_test_row_flops(rows, "function", "batch"), BATCH);
    cr_assert_eq(pg_test_row_flops(rows, "function", "mixed"), MIXED);
    cr_assert_eq(pg_test_row_flops(rows, "op", "cublasGemmEx"), MIXED);
    cr_assert_eq(json_integer_value(json_object_get(o, "total")), PROJECT + BATCH + MIXED);
    json_decref(o);
    free(out);
}

/* A C++ program (its runtime loaded, as any that uses the standard library): callers demangled. */
Test(count, cpp_callers_are_named_without_their_parameters)
{
    static const char src[] =
        "#include <cblas.h>\n#include <cstdio>\n#include <vector>\n"
        "static std::vector<float> a(32 * 32), b(32 * 32), c(32 * 32);\n"
        "namespace lab {\n"
        "struct Layer { __attribute__((noinline)) void forward(int n) const;\n"
        "               __attribute__((noinline)) void forward(int n, float s) const; };\n"
        "void Layer::forward(int n) const {\n"
        "  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a.data(), n, b.data(), n, 0,"
        " c.data(), n); }\n"
        "void Layer::forward(int n, float s) const {\n"
        "  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, s, a.data(), n, b.data(), n, 0,"
        " c.data(), n); }\n"
        "}\n"
        "int main() { lab::Layer l; l.forward(8); l.forward(16, 2.0f); std::printf(\"%g\\n\", c[0]); }\n";
    char *tmp = pg_test_tmpdir(), *cpp = pg_test_write(tmp, "prog.cpp", src), *prog = pg__asprintf("%s/cpp", tmp);
    char *cmd = pg__asprintf("c++ -O1 -g -o %s %s -lopenblas 2>&1", prog, cpp), *out = NULL;
    char *const argv[] = {prog, NULL};
    pg_counts c;

    cr_assert_eq(pg_test_sh(&out, cmd), 0, "%s", out);
    cr_assert_eq(pg_count_run(&c, argv, 60, 1), 0, "%s", pg_error_last());
    /* Both overloads are one function by name: the parameter list is dropped. */
    cr_assert_eq(pg_counts_sum(&c, "function", "lab::Layer::forward"), 2LL * 8 * 8 * 8 + 2LL * 16 * 16 * 16, "%s",
                 c.n ? c.rows[0].function : "no rows");
    pg_counts_clear(&c);
    free(out);
    free(cmd);
    free(prog);
    free(cpp);
    pg_test_rmtree(tmp);
    free(tmp);
}
