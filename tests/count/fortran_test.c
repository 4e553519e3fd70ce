/* fortran_test.c - the Fortran BLAS interface under libperfgate_count.so, and how the library finds the real
   BLAS: every Fortran entry point against its formula, one count for a CBLAS wrapper that calls the Fortran
   routine inside its own library (a wrapper of our own) and for OpenBLAS (whose cblas_sgemm does not), a BLAS
   that only a library loaded with RTLD_LOCAL sees (NumPy's case, which aborted the program before), and a call
   that no library can take, which must not end the program. */
#include "compile.h"
#include "progs.h"
#include "support.h"

#include "meter/count.h"
#include "base/util.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* Prototypes as C callers write them (torch's, NumPy's): no hidden string lengths. */
static const char fortran_decls[] =
    "typedef struct { float r, i; } cf; typedef struct { double r, i; } zf;\n"
    "#define GEMM(X, T) void X##gemm_(const char *, const char *, const int *, const int *, const int *, const T *,"
    " const T *, const int *, const T *, const int *, const T *, T *, const int *);\n"
    "#define GEMV(X, T) void X##gemv_(const char *, const int *, const int *, const T *, const T *, const int *,"
    " const T *, const int *, const T *, T *, const int *);\n"
    "#define SYMM(X, T) void X##symm_(const char *, const char *, const int *, const int *, const T *, const T *,"
    " const int *, const T *, const int *, const T *, T *, const int *);\n"
    "#define SYRK(X, T) void X##syrk_(const char *, const char *, const int *, const int *, const T *, const T *,"
    " const int *, const T *, T *, const int *);\n"
    "#define TRXM(X, OP, T) void X##OP##_(const char *, const char *, const char *, const char *, const int *,"
    " const int *, const T *, const T *, const int *, T *, const int *);\n"
    "GEMM(s, float) GEMM(d, double) GEMM(c, cf) GEMM(z, zf) void cgemm3m_(const char *, const char *,"
    " const int *, const int *, const int *, const cf *, const cf *, const int *, const cf *, const int *,"
    " const cf *, cf *, const int *);\n"
    "GEMV(s, float) GEMV(d, double) GEMV(z, zf) SYMM(d, double) SYMM(c, cf) SYRK(s, float) SYRK(z, zf)\n"
    "TRXM(s, trmm, float) TRXM(d, trsm, double) TRXM(c, trsm, cf)\n";

static const char fortran_calls[] =
    "#include <stdlib.h>\n"
    "int main(void) {\n"
    "  float *s = calloc(8192, 8); double *d = calloc(8192, 8); cf *c = calloc(8192, 8); zf *z = calloc(8192, 16);\n"
    "  float s1 = 1; double d1 = 1; cf c1 = {1, 0}; zf z1 = {1, 0};\n"
    "  int m = 5, n = 6, k = 7, one = 1, ld = 64;\n"
    "  sgemm_(\"N\", \"N\", &m, &n, &k, &s1, s, &ld, s, &ld, &s1, s + 4096, &ld);\n"
    "  dgemm_(\"T\", \"N\", &m, &n, &k, &d1, d, &ld, d, &ld, &d1, d + 4096, &ld);\n"
    "  cgemm_(\"N\", \"C\", &m, &n, &k, &c1, c, &ld, c, &ld, &c1, c + 4096, &ld);\n"
    "  zgemm_(\"N\", \"N\", &m, &n, &k, &z1, z, &ld, z, &ld, &z1, z + 4096, &ld);\n"
    "  cgemm3m_(\"N\", \"N\", &m, &n, &k, &c1, c, &ld, c, &ld, &c1, c + 4096, &ld);\n"
    "  int gm = 11, gn = 12;\n"
    "  sgemv_(\"N\", &gm, &gn, &s1, s, &ld, s, &one, &s1, s + 4096, &one);\n"
    "  dgemv_(\"T\", &gm, &gn, &d1, d, &ld, d, &one, &d1, d + 4096, &one);\n"
    "  zgemv_(\"N\", &gm, &gn, &z1, z, &ld, z, &one, &z1, z + 4096, &one);\n"
    "  int sm = 8, sn = 3;\n"
    "  dsymm_(\"L\", \"U\", &sm, &sn, &d1, d, &ld, d, &ld, &d1, d + 4096, &ld);\n"
    "  csymm_(\"R\", \"U\", &sm, &sn, &c1, c, &ld, c, &ld, &c1, c + 4096, &ld);\n"
    "  int rn = 9, rk = 4;\n"
    "  ssyrk_(\"U\", \"N\", &rn, &rk, &s1, s, &ld, &s1, s + 4096, &ld);\n"
    "  zsyrk_(\"U\", \"N\", &rn, &rk, &z1, z, &ld, &z1, z + 4096, &ld);\n"
    "  int tm = 10, tn = 2;\n"
    "  strmm_(\"L\", \"U\", \"N\", \"N\", &tm, &tn, &s1, s, &ld, s + 4096, &ld);\n"
    "  dtrsm_(\"R\", \"U\", \"N\", \"N\", &tm, &tn, &d1, d, &ld, d + 4096, &ld);\n"
    "  ctrsm_(\"L\", \"L\", \"N\", \"U\", &tm, &tn, &c1, c, &ld, c + 4096, &ld);\n"
    "  return 0;\n}\n";

Test(count_fortran, every_fortran_entry_point_counts_its_formula)
{
    char *tmp = pg_test_tmpdir(), *src = pg__asprintf("%s%s", fortran_decls, fortran_calls);
    char *prog = pg_test_cc(tmp, "fortran_calls", src, "-lopenblas");
    char *const argv[] = {prog, NULL};
    pg_counts c;
    struct {
        const char *op, *shape;
        int64_t flops;
    } want[] = {
        {"sgemm", "[5,7]x[7,6]", 2 * 5 * 6 * 7},   {"dgemm", "[5,7]x[7,6]", 2 * 5 * 6 * 7},
        {"cgemm", "[5,7]x[7,6]", 8 * 5 * 6 * 7},   {"zgemm", "[5,7]x[7,6]", 8 * 5 * 6 * 7},
        {"cgemm3m", "[5,7]x[7,6]", 8 * 5 * 6 * 7}, {"sgemv", "[11,12]x[12]", 2 * 11 * 12},
        {"dgemv", "[11,12]x[11]", 2 * 11 * 12},    {"zgemv", "[11,12]x[12]", 8 * 11 * 12},
        {"dsymm", "L[8,3]", 2 * 8 * 8 * 3},        {"csymm", "R[8,3]", 8 * 8 * 3 * 3},
        {"ssyrk", "[9,4]", 4 * 9 * 10},            {"zsyrk", "[9,4]", 4 * 4 * 9 * 10},
        {"strmm", "L[10,2]", 10 * 10 * 2},         {"dtrsm", "R[10,2]", 10 * 2 * 2},
        {"ctrsm", "L[10,2]", 4 * 10 * 10 * 2},
    };
    size_t i, j;
    int64_t total = 0;

    cr_assert_eq(pg_count_run(&c, argv, 60, 1), 0, "%s", pg_error_last());
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        for (j = 0; j < c.n && strcmp(c.rows[j].op, want[i].op) != 0; j++)
            ;
        cr_assert_lt(j, c.n, "no %s counted", want[i].op);
        cr_expect_eq(c.rows[j].flops, want[i].flops, "%s: got %lld, want %lld", want[i].op,
                     (long long)c.rows[j].flops, (long long)want[i].flops);
        cr_expect_str_eq(c.rows[j].shape, want[i].shape, "%s", want[i].op);
        cr_expect_str_eq(c.rows[j].function, "main");
        total += want[i].flops;
    }
    cr_assert_eq(c.total, total);
    cr_assert_eq(c.calls, (int64_t)(sizeof(want) / sizeof(want[0])), "each call once");
    pg_counts_clear(&c);
    pg_test_rmtree(tmp);
    free(prog);
    free(src);
    free(tmp);
}

/* A CBLAS of our own in the reference CBLAS's shape: cblas_sgemm calls sgemm_ of the same library, through
   its PLT (a -fPIC library may have its exported functions interposed), so the preload library sees both. */
static const char wrapper_lib[] =
    "void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const float *alpha,\n"
    "            const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,\n"
    "            const int *ldc) {\n"
    "  for (int j = 0; j < *n; j++) for (int i = 0; i < *m; i++) {\n"
    "    float s = 0; for (int p = 0; p < *k; p++) s += a[i + p * *lda] * b[p + j * *ldb];\n"
    "    c[i + j * *ldc] = *alpha * s + *beta * c[i + j * *ldc]; }\n"
    "  (void)ta; (void)tb;\n}\n"
    "enum { RowMajor = 101, ColMajor = 102 };\n"
    "void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,\n"
    "                 const float *b, int ldb, float beta, float *c, int ldc) {\n"
    "  (void)ta; (void)tb;\n"
    "  if (order == RowMajor) sgemm_(\"N\", \"N\", &n, &m, &k, &alpha, b, &ldb, a, &lda, &beta, c, &ldc);\n"
    "  else sgemm_(\"N\", \"N\", &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);\n}\n";

static const char wrapper_prog[] =
    "#include <stdio.h>\n"
    "void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *,"
    " int);\n"
    "void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *, const float *,"
    " const int *, const float *, const int *, const float *, float *, const int *);\n"
    "static float a[6 * 4], b[4 * 5], c[6 * 5];\n"
    "__attribute__((noinline)) void through_cblas(void) { cblas_sgemm(101, 111, 111, 6, 5, 4, 1, a, 4, b, 5, 0, c, 5); }\n"
    "__attribute__((noinline)) void through_fortran(void) {\n"
    "  int m = 5, n = 6, k = 4; float one = 1, zero = 0;\n"
    "  sgemm_(\"N\", \"N\", &m, &n, &k, &one, b, &m, a, &k, &zero, c, &m); }\n"
    "int main(void) {\n"
    "  for (int i = 0; i < 24; i++) a[i] = (float)(i % 5);\n"
    "  for (int i = 0; i < 20; i++) b[i] = (float)(i % 3);\n"
    "  through_cblas(); float first = c[7];\n"
    "  through_fortran();\n"
    "  printf(\"c[7]=%g %g\\n\", first, c[7]);\n"
    "  return 0;\n}\n";

Test(count_fortran, a_cblas_wrapper_calling_fortran_counts_once)
{
    char *tmp = pg_test_tmpdir(), *lib = pg_test_cc_shared(tmp, "wrapblas", wrapper_lib, NULL);
    char *flags = pg__asprintf("-L%s -lwrapblas -Wl,-rpath,%s", tmp, tmp);
    char *prog = pg_test_cc(tmp, "wrapped", wrapper_prog, flags), *plain = NULL, *cmd;
    const char *argv[] = {"count", "--json", "--", prog, NULL};
    pg_proc p;
    json_t *o, *rows;

    /* The results are the program's own: the library only forwards. Row 1 of A·B with these inputs: 12. */
    cmd = pg__asprintf("%s", prog);
    cr_assert_eq(pg_test_sh(&plain, cmd), 0, "%s", plain);
    cr_assert_str_eq(plain, "c[7]=12 12\n");
    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "%s", p.err);
    /* With --json on stdout the program's own output is on stderr. */
    cr_assert(strncmp(p.err, plain, strlen(plain)) == 0, "the same results under the counter: %s", p.err);
    o = json_loads(p.out, 0, NULL);
    rows = json_object_get(o, "rows");
    /* cblas_sgemm -> sgemm_ inside the wrapper is one call of the program's, not two. */
    cr_assert_eq(json_integer_value(json_object_get(o, "calls")), 2, "%s", p.out);
    cr_assert_eq(pg_test_row_flops(rows, "function", "through_cblas"), 2 * 6 * 5 * 4, "%s", p.out);
    cr_assert_eq(pg_test_row_calls(rows, "function", "through_cblas"), 1, "%s", p.out);
    cr_assert_eq(pg_test_row_flops(rows, "function", "through_fortran"), 2 * 5 * 6 * 4, "%s", p.out);
    cr_assert_eq(json_integer_value(json_object_get(o, "total")), 2 * (2 * 6 * 5 * 4));
    json_decref(o);
    pg_proc_free(&p);
    free(cmd);
    free(plain);
    free(prog);
    free(flags);
    free(lib);
    pg_test_rmtree(tmp);
    free(tmp);
}

Test(count_fortran, openblas_cblas_and_fortran_count_once_each)
{
    char *tmp = pg_test_tmpdir();
    char *prog = pg_test_cc(tmp, "both",
                            "#include <cblas.h>\n"
                            "void sgemm_(const char *, const char *, const int *, const int *, const int *,"
                            " const float *, const float *, const int *, const float *, const int *, const float *,"
                            " float *, const int *);\n"
                            "static float a[64 * 64], b[64 * 64], c[64 * 64];\n"
                            "int main(void) {\n"
                            "  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 32, 16, 8, 1, a, 8, b, 16, 0,"
                            " c, 16);\n"
                            "  int m = 16, n = 32, k = 8; float one = 1, zero = 0;\n"
                            "  sgemm_(\"N\", \"N\", &m, &n, &k, &one, b, &m, a, &k, &zero, c, &m);\n"
                            "  return 0;\n}\n",
                            "-lopenblas");
    char *const argv[] = {prog, NULL};
    pg_counts c;

    cr_assert_eq(pg_count_run(&c, argv, 60, 1), 0, "%s", pg_error_last());
    cr_assert_eq(c.calls, 2, "OpenBLAS's cblas_sgemm does not go through sgemm_, and each counts once");
    cr_assert_eq(c.total, 2 * (2 * 32 * 16 * 8));
    cr_assert_eq(pg_counts_sum(&c, "op", "sgemm"), c.total, "both interfaces count as the op sgemm");
    pg_counts_clear(&c);
    pg_test_rmtree(tmp);
    free(prog);
    free(tmp);
}

/* A library that links OpenBLAS, loaded by the program with dlopen(RTLD_LOCAL) as Python loads NumPy: its BLAS
   is in no global scope, so dlsym(RTLD_NEXT) from the preload library finds nothing. */
static const char local_lib[] =
    "#include <cblas.h>\n"
    "void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,"
    " const double *, const int *, const double *, const int *, const double *, double *, const int *);\n"
    "static double a[40 * 40], b[40 * 40], c[40 * 40];\n"
    "double user_work(void) {\n"
    "  for (int i = 0; i < 1600; i++) { a[i] = 1; b[i] = 2; }\n"
    "  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 40, 30, 20, 1, a, 20, b, 30, 0, c, 30);\n"
    "  double first = c[0];\n"
    "  int m = 10, n = 20, k = 30; double one = 1, zero = 0;\n"
    "  dgemm_(\"N\", \"N\", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m);\n"
    "  return first + c[0];\n}\n";

Test(count_fortran, a_blas_loaded_with_rtld_local_is_found_and_counted)
{
    char *tmp = pg_test_tmpdir(), *lib = pg_test_cc_shared(tmp, "localuser", local_lib, "-lopenblas");
    char *src = pg__asprintf("#include <dlfcn.h>\n#include <stdio.h>\n"
                             "int main(void) {\n"
                             "  void *h = dlopen(\"%s\", RTLD_NOW | RTLD_LOCAL);\n"
                             "  if (!h) { puts(dlerror()); return 1; }\n"
                             "  double (*work)(void) = (double (*)(void))dlsym(h, \"user_work\");\n"
                             "  printf(\"result %%g\\n\", work());\n"
                             "  return 0;\n}\n",
                             lib);
    char *prog = pg_test_cc(tmp, "loads_local", src, "-ldl");
    const char *argv[] = {"count", "--json", "--", prog, NULL};
    pg_proc p;
    json_t *o, *rows;

    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 0, "the program runs to its end under the counter: %s%s", p.out, p.err);
    /* 20 products of 1*2, then 30: the real BLAS ran both calls. */
    cr_assert(strncmp(p.err, "result 100\n", 11) == 0, "%s", p.err);
    o = json_loads(p.out, 0, NULL);
    rows = json_object_get(o, "rows");
    cr_assert_eq(pg_test_row_flops(rows, "function", "user_work"), 2 * 40 * 30 * 20 + 2 * 10 * 20 * 30, "%s", p.out);
    cr_assert_eq(json_integer_value(json_object_get(o, "calls")), 2, "%s", p.out);
    json_decref(o);
    pg_proc_free(&p);
    free(prog);
    free(src);
    free(lib);
    pg_test_rmtree(tmp);
    free(tmp);
}

/* A program that probes for CBLAS through a weak reference and links none: under the preload library the
   reference finds the wrapper. The first call has nothing to reach; after the program loads OpenBLAS
   itself (RTLD_LOCAL), the second is found among the loaded objects. */
static const char probing[] =
    "#include <dlfcn.h>\n#include <stdio.h>\n"
    "void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *,"
    " int) __attribute__((weak));\n"
    "static float a[4] = {1, 1, 1, 1}, b[4] = {2, 2, 2, 2}, c[4];\n"
    "int main(void) {\n"
    "  if (!cblas_sgemm) { puts(\"no cblas\"); return 0; }\n"
    "  cblas_sgemm(101, 111, 111, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2);\n"
    "  printf(\"first %g\\n\", c[0]);\n"
    "  if (!dlopen(\"libopenblas.so.0\", RTLD_NOW | RTLD_LOCAL)) { puts(dlerror()); return 1; }\n"
    "  cblas_sgemm(101, 111, 111, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2);\n"
    "  printf(\"second %g\\n\", c[0]);\n"
    "  return 0;\n}\n";

Test(count_fortran, a_call_with_no_real_blas_does_not_end_the_program)
{
    char *tmp = pg_test_tmpdir(), *prog = pg_test_cc(tmp, "probing", probing, "-ldl"), *lib = NULL, *out = NULL;
    char *cmd;
    const char *argv[] = {"count", "--", prog, NULL};
    pg_proc p;

    cr_assert_eq(pg_count_library(&lib), 0, "%s", pg_error_last());
    /* Without the library the program takes its own way. */
    cr_assert_eq(pg_test_sh(&out, prog), 0);
    cr_assert_str_eq(out, "no cblas\n");
    free(out);
    /* Preloaded but not counting: the program ends normally, says what happened, and the second call ran. */
    cmd = pg__asprintf("LD_PRELOAD=%s %s", lib, prog);
    cr_assert_eq(pg_test_sh(&out, cmd), 0, "%s", out);
    cr_assert(strstr(out, "libperfgate_count: cblas_sgemm was called, but no library loaded in this process "
                          "defines it") != NULL,
              "%s", out);
    cr_assert(strstr(out, "first 0\n") && strstr(out, "second 4\n"), "%s", out);
    /* Counting: the count is refused with the reason, never a signal. */
    pg_test_run(&p, NULL, NULL, argv);
    cr_assert_eq(p.status, 3, "%s%s", p.out, p.err);
    cr_assert(strstr(p.out, "second 4") != NULL, "%s", p.out);
    cr_assert(strstr(p.err, "the program called cblas_sgemm, which no library loaded in it defines") != NULL, "%s",
              p.err);
    cr_assert(strstr(p.err, "signal") == NULL, "%s", p.err);
    pg_proc_free(&p);
    free(cmd);
    free(out);
    free(lib);
    free(prog);
    pg_test_rmtree(tmp);
    free(tmp);
}
