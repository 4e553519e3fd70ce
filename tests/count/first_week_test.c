/* first_week_test.c - what a new user of `perfgate count` and counted cases meets: JSON that the program's
   own output cannot corrupt, a --help example that exists, a SIGILL explained (Valgrind on an AVX-512 CPU,
   a program built for another CPU), and a flops mismatch that names the call shape that changed inside the
   module. */
#include "compile.h"
#include "support.h"

#include "base/util.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Compiles `src` into dir/name with `flags`, as a user would (no sanitizers, no perfgate). */
static char *build(const char *dir, const char *name, const char *src, const char *flags)
{
    char *c = pg_test_write(dir, "src.c", src), *exe = pg__asprintf("%s/%s", dir, name), *out = NULL;
    char *cmd = pg__asprintf("cc -O1 -g %s -o %s %s -lopenblas 2>&1", flags, exe, c);

    cr_assert_eq(pg_test_sh(&out, cmd), 0, "compiling %s failed: %s", name, out ? out : "");
    free(out);
    free(cmd);
    free(c);
    return exe;
}

/* One sgemm, and lines on stdout that look like the start of a JSON document. */
static const char noisy[] = "#include <cblas.h>\n#include <stdio.h>\n"
                            "int main(void) {\n"
                            "  float a[4] = {1, 2, 3, 4}, c[4];\n"
                            "  puts(\"{ \\\"progress\\\": [\");\n"
                            "  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1, a, 2, a, 2, 0, c, 2);\n"
                            "  puts(\"done\");\n  return 0;\n}\n";

Test(count_first_week, the_json_is_one_document_whatever_the_program_prints)
{
    char *tmp = pg_test_tmpdir(), *prog = build(tmp, "noisy", noisy, ""), *file = pg__asprintf("%s/f.json", tmp);
    char *doc = NULL;
    const char *to_file[] = {"count", "--json", "-o", file, "--", prog, NULL};
    const char *to_stdout[] = {"count", "--json", "--", prog, NULL};
    json_t *o;
    pg_proc p;

    /* -o FILE: the file holds the JSON alone; the program's output stays on stdout. */
    pg_test_run(&p, tmp, NULL, to_file);
    cr_assert_eq(p.status, 0, "%s", p.err);
    cr_assert(strstr(p.out, "{ \"progress\": [") != NULL, "%s", p.out);
    pg_assert_ok(pg__read_file(&doc, NULL, file));
    o = json_loads(doc, 0, NULL);
    cr_assert_not_null(o, "%s", doc);
    cr_assert_eq(json_integer_value(json_object_get(o, "total")), 16);
    json_decref(o);
    free(doc);
    pg_proc_free(&p);
    /* --json on stdout: the program's stdout goes to stderr, so stdout parses whole. */
    pg_test_run(&p, tmp, NULL, to_stdout);
    cr_assert_eq(p.status, 0, "%s", p.err);
    o = json_loads(p.out, 0, NULL);
    cr_assert_not_null(o, "stdout is one JSON document: %s", p.out);
    cr_assert_eq(json_integer_value(json_object_get(o, "calls")), 1);
    cr_assert(strstr(p.err, "{ \"progress\": [\ndone\n") != NULL, "%s", p.err);
    json_decref(o);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(tmp);
    free(prog);
    free(file);
}

Test(count_first_week, an_output_file_that_cannot_be_written_fails_before_the_program_runs)
{
    char *tmp = pg_test_tmpdir(), *marker = pg__asprintf("%s/ran", tmp);
    const char *argv[] = {"count", "-o", "/nonexistent-dir/f.json", "--", "touch", marker, NULL};
    struct stat st;
    pg_proc p;

    pg_test_run(&p, tmp, NULL, argv);
    cr_assert_eq(p.status, 3, "%s", p.err);
    cr_assert(strstr(p.err, "/nonexistent-dir/f.json: cannot write") != NULL, "%s", p.err);
    cr_assert_neq(stat(marker, &st), 0, "the program did not run");
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(tmp);
    free(marker);
}

Test(count_first_week, the_help_examples_program_exists)
{
    const char *argv[] = {"count", "--help", NULL};
    char *dir = pg_test_build_dir(), *path;
    const char *at, *end;
    struct stat st;
    pg_proc p;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0);
    at = strstr(p.out, "perfgate count -- ./build/");
    cr_assert_not_null(at, "%s", p.out);
    at += strlen("perfgate count -- ./build/");
    end = at + strcspn(at, " \n");
    path = pg__asprintf("%s/%.*s", dir, (int)(end - at), at);
    cr_assert(stat(path, &st) == 0 && (st.st_mode & S_IXUSR), "the example names %s, which is not there", path);
    pg_proc_free(&p);
    free(path);
    free(dir);
}

Test(count_first_week, a_program_built_for_another_cpu_is_explained)
{
    char *tmp = pg_test_tmpdir();
    char *prog = build(tmp, "trap", "int main(void) { __builtin_trap(); }\n", "");
    const char *argv[] = {"count", "--", prog, NULL};
    pg_proc p;

    pg_test_run(&p, tmp, NULL, argv);
    cr_assert_eq(p.status, 3, "%s", p.err);
    cr_assert(strstr(p.err, "died of SIGILL (illegal instruction): it ran an instruction this CPU does not have") !=
                  NULL,
              "%s", p.err);
    cr_assert(strstr(p.err, "-march=x86-64-v3") != NULL, "%s", p.err);
    cr_assert(strchr(p.err, '\n') == strrchr(p.err, '\n'), "one line: %s", p.err);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(tmp);
    free(prog);
}

/* AVX-512 arithmetic the compiler cannot fold away (the input comes from argc). */
static const char avx512[] = "#include <immintrin.h>\n#include <stdio.h>\n"
                             "int main(int argc, char **argv) {\n"
                             "  float a[16], b[16]; int i;\n  (void)argv;\n"
                             "  for (i = 0; i < 16; i++) a[i] = (float)(i + argc);\n"
                             "#ifdef __AVX512F__\n"
                             "  _mm512_storeu_ps(b, _mm512_add_ps(_mm512_loadu_ps(a), _mm512_loadu_ps(a)));\n"
                             "#else\n"
                             "  for (i = 0; i < 16; i++) b[i] = a[i] + a[i];\n"
                             "#endif\n"
                             "  printf(\"%g\\n\", b[3]);\n  return 0;\n}\n";

Test(count_first_week, valgrind_on_avx512_code_says_to_build_for_x86_64_v3, .timeout = 240)
{
    char *tmp = pg_test_tmpdir(), *out = NULL, *native, *v3, *suite, *text;
    const char *argv[] = {"run", "--no-store", "--json", "r.json", "vg.yaml", NULL};
    char *doc = NULL, *report = pg__asprintf("%s/r.json", tmp);
    json_t *o, *r;
    size_t i;
    pg_proc p;

    if (pg_test_sh(&out, "grep -qw avx512f /proc/cpuinfo") != 0) {
        free(out);
        pg_test_rmtree(tmp);
        free(tmp);
        free(report);
        cr_skip_test("this CPU has no AVX-512: -march=native code runs under Valgrind here");
    }
    free(out);
    native = build(tmp, "native", avx512, "-march=native");
    v3 = build(tmp, "v3", avx512, "-march=x86-64-v3");
    /* Native: it runs on this CPU (which has AVX-512) and prints 8. */
    cr_assert_eq(pg_test_sh(&out, native), 0);
    cr_assert_str_eq(out, "8\n");
    free(out);
    text = pg__asprintf("suite: vg\nbenchmarks:\n"
                        "  - {name: native, command: [\"%s\"], instrument: instructions}\n"
                        "  - {name: v3, command: [\"%s\"], instrument: instructions}\n",
                        native, v3);
    suite = pg_test_write(tmp, "vg.yaml", text);
    pg_test_run(&p, tmp, NULL, argv);
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    pg_proc_free(&p);
    pg_assert_ok(pg__read_file(&doc, NULL, report));
    o = json_loads(doc, 0, NULL);
    json_array_foreach(json_object_get(o, "results"), i, r) {
        const char *key = json_string_value(json_object_get(r, "key"));
        const char *status = json_string_value(json_object_get(r, "status"));
        const char *msg = json_string_value(json_object_get(r, "message"));
        if (strstr(key, "vg/native[]") && strstr(key, "#instructions")) {
            cr_assert_str_eq(status, "error", "%s", key);
            cr_assert(strstr(msg, "died of SIGILL under Valgrind: Valgrind cannot run some of this CPU's "
                                  "instructions (AVX-512)") != NULL,
                      "%s", msg);
            cr_assert(strstr(msg, "build the counted code for x86-64-v3 (-march=x86-64-v3") != NULL, "%s", msg);
        } else if (strstr(key, "vg/v3[]") && strstr(key, "#instructions")) {
            cr_assert_str_eq(status, "ok", "the x86-64-v3 build is counted: %s", msg ? msg : "");
        }
    }
    json_decref(o);
    free(doc);
    pg_test_rmtree(tmp);
    free(tmp);
    free(native);
    free(v3);
    free(suite);
    free(text);
    free(report);
}

/* A program whose `head` calls one dgemm [40,40]x[40,40] and one sgemm [64,96]x[96,64], and whose `embed`
   calls sgemm [64,32]x[32,48] three times: 2*64*96*64 = 786,432 is also 4 calls of embed's shape. */
static const char two_modules[] =
    "#include <cblas.h>\n#include <stdlib.h>\n"
    "static float f[96 * 96], g[96 * 96], h[96 * 96];\nstatic double d[1600], e[1600], k[1600];\n"
    "__attribute__((noinline)) void embed(void) {\n  int i;\n"
    "  for (i = 0; i < 3; i++)\n"
    "    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 64, 48, 32, 1, f, 32, g, 48, 0, h, 48);\n}\n"
    "__attribute__((noinline)) void head(void) {\n"
    "  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 40, 40, 40, 1, d, 40, e, 40, 0, k, 40);\n"
    "  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 64, 64, 96, 1, f, 96, g, 64, 0, h, 64);\n}\n"
    "int main(void) { embed(); head(); return 0; }\n";

Test(count_first_week, a_module_mismatch_names_the_shape_that_changed_inside_it, .timeout = 120)
{
    char *tmp = pg_test_tmpdir(), *prog = build(tmp, "two", two_modules, ""), *text, *suite;
    const char *argv[] = {"run", "--no-store", "s.yaml", NULL};
    pg_proc p;

    /* What the suite expected before head gained its sgemm. */
    text = pg__asprintf("suite: s\nchecks:\n  - name: flops\n    kind: flops\n"
                        "    workload: {command: [\"%s\"], count: blas}\n"
                        "    expect:\n      per_module: {embed: 3*2*64*48*32, head: 2*40*40*40}\n"
                        "      per_op: {sgemm: 3*2*64*48*32, dgemm: 2*40*40*40}\n",
                        prog);
    suite = pg_test_write(tmp, "s.yaml", text);
    pg_test_run(&p, tmp, NULL, argv);
    cr_assert_eq(p.status, 1, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "module head: expected 128,000, got 914,432 (+786,432) (+1 call of sgemm [64,96]x[96,64])"),
              "%s", p.out);
    /* Over the whole op both shapes could explain it: both are named. */
    cr_assert(strstr(p.out, "op sgemm: expected 589,824, got 1,376,256 (+786,432) (+") != NULL, "%s", p.out);
    cr_assert(strstr(p.out, "+1 call of sgemm [64,96]x[96,64], or +4 calls of sgemm [64,32]x[32,48])") ||
                  strstr(p.out, "+4 calls of sgemm [64,32]x[32,48], or +1 call of sgemm [64,96]x[96,64])"),
              "%s", p.out);
    cr_assert(strstr(p.out, "(+786,432) (+4 calls of sgemm [64,32]x[32,48]);") == NULL, "%s", p.out);
    pg_proc_free(&p);
    pg_test_rmtree(tmp);
    free(tmp);
    free(prog);
    free(text);
    free(suite);
}
