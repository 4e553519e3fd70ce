/* kernels_test.c - every built-in CPU kernel against a plain C reference in double. */
#include "support.h"

#include "kernels/kernels.h"
#include "kernels/ops.h"
#include "recorder.h"
#include "suite/suite.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Largest |got - ref| / (atol + rtol*|ref|) over n values: <= 1 means within bounds. */
static double worst_f32(const float *got, const double *ref, size_t n, double atol, double rtol, size_t *at)
{
    double worst = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        double e = fabs((double)got[i] - ref[i]) / (atol + rtol * fabs(ref[i]));
        if (!(e <= worst)) { /* also catches NaN */
            worst = isnan(e) ? INFINITY : e;
            *at = i;
        }
    }
    return worst;
}

static float *rand_f32(size_t n, uint64_t *seed, float lo, float hi)
{
    float *x = malloc(n * sizeof(*x));

    cr_assert_not_null(x);
    pg__fill_random_f32(x, n, seed, lo, hi);
    return x;
}

static double *alloc_f64(size_t n)
{
    double *x = calloc(n, sizeof(*x));

    cr_assert_not_null(x);
    return x;
}

Test(kernels_pointwise, add_mul_gelu_copy_match_reference)
{
    uint64_t seed0 = fresh_seed(), seed = seed0;
    size_t n = 4099, i, at = 0; /* not a multiple of any vector width */
    float *a = rand_f32(n, &seed, -3, 3), *b = rand_f32(n, &seed, -3, 3), *y = rand_f32(n, &seed, -9, 9);
    double *ref = alloc_f64(n), w;

    pg__add_f32(y, a, b, n);
    for (i = 0; i < n; i++)
        ref[i] = (double)a[i] + (double)b[i];
    /* One correctly rounded float operation: within half an ulp of the exact result. */
    w = worst_f32(y, ref, n, 0, FLT_EPSILON / 2, &at);
    cr_expect(w <= 1, "add: error %.3g bounds at %zu (PG_TEST_SEED=%llu replays it)", w, at, (unsigned long long)seed0);

    pg__mul_f32(y, a, b, n);
    for (i = 0; i < n; i++)
        ref[i] = (double)a[i] * (double)b[i];
    w = worst_f32(y, ref, n, 0, FLT_EPSILON / 2, &at);
    cr_expect(w <= 1, "mul: error %.3g bounds at %zu (PG_TEST_SEED=%llu replays it)", w, at, (unsigned long long)seed0);

    pg__gelu_f32(y, a, n);
    for (i = 0; i < n; i++)
        ref[i] = 0.5 * a[i] * (1.0 + erf(a[i] / sqrt(2.0)));
    w = worst_f32(y, ref, n, 1e-6, 1e-5, &at);
    cr_expect(w <= 1, "gelu: error %.3g bounds at %zu (PG_TEST_SEED=%llu replays it)", w, at, (unsigned long long)seed0);

    pg__gelu_backward_f32(y, b, a, n);
    for (i = 0; i < n; i++) {
        double x = a[i];
        ref[i] = b[i] * (0.5 * (1.0 + erf(x / sqrt(2.0))) + x * exp(-0.5 * x * x) / sqrt(2.0 * M_PI));
    }
    w = worst_f32(y, ref, n, 1e-6, 1e-5, &at);
    cr_expect(w <= 1, "gelu_backward: error %.3g bounds at %zu (PG_TEST_SEED=%llu replays it)", w, at, (unsigned long long)seed0);

    pg__copy_f32(y, b, n);
    cr_expect(memcmp(y, b, n * sizeof(float)) == 0, "copy differs (PG_TEST_SEED=%llu replays it)", (unsigned long long)seed0);
    free(a);
    free(b);
    free(y);
    free(ref);
}

Test(kernels_norm, softmax_and_layernorm_match_reference)
{
    uint64_t seed0 = fresh_seed(), seed = seed0;
    size_t rows = 37, cols = 301, r, j, at = 0;
    float *x = rand_f32(rows * cols, &seed, -6, 6), *y = rand_f32(rows * cols, &seed, -1, 1);
    float *gamma = rand_f32(cols, &seed, 0.5f, 1.5f), *beta = rand_f32(cols, &seed, -0.5f, 0.5f);
    double *ref = alloc_f64(rows * cols), w;

    /* A large offset on one row: softmax must subtract the max, layer norm must not lose the variance. */
    for (j = 0; j < cols; j++)
        x[5 * cols + j] += 80.0f;
    pg__softmax_f32(y, x, rows, cols);
    for (r = 0; r < rows; r++) {
        double mx = -INFINITY, s = 0;
        for (j = 0; j < cols; j++)
            mx = fmax(mx, x[r * cols + j]);
        for (j = 0; j < cols; j++)
            s += exp((double)x[r * cols + j] - mx);
        for (j = 0; j < cols; j++)
            ref[r * cols + j] = exp((double)x[r * cols + j] - mx) / s;
    }
    w = worst_f32(y, ref, rows * cols, 1e-9, 1e-5, &at);
    cr_expect(w <= 1, "softmax: error %.3g bounds at %zu (PG_TEST_SEED=%llu replays it)", w, at, (unsigned long long)seed0);

    pg__layernorm_f32(y, x, gamma, beta, rows, cols, 1e-5f);
    for (r = 0; r < rows; r++) {
        double mean = 0, var = 0;
        for (j = 0; j < cols; j++)
            mean += x[r * cols + j];
        mean /= (double)cols;
        for (j = 0; j < cols; j++)
            var += ((double)x[r * cols + j] - mean) * ((double)x[r * cols + j] - mean);
        var /= (double)cols;
        for (j = 0; j < cols; j++)
            ref[r * cols + j] = ((double)x[r * cols + j] - mean) / sqrt(var + 1e-5) * gamma[j] + beta[j];
    }
    /* Outputs are O(1); the offset row loses about log2(80/6) bits to the mean's rounding. */
    w = worst_f32(y, ref, rows * cols, 1e-4, 1e-4, &at);
    cr_expect(w <= 1, "layernorm: error %.3g bounds at %zu (PG_TEST_SEED=%llu replays it)", w, at, (unsigned long long)seed0);
    free(x);
    free(y);
    free(gamma);
    free(beta);
    free(ref);
}

/* Checks C = op(A) op(B) (+ beta*C0) for row-major operands against a double triple loop, with the
   classic bound |error| <= 2*k*eps * sum_k |a||b| per entry. */
static void check_gemm_f32(int ta, int tb, int m, int n, int k, float beta, uint64_t seed0)
{
    uint64_t seed = seed0;
    int lda = ta ? m : k, ldb = tb ? k : n, i, j, p;
    float *a = rand_f32((size_t)m * (size_t)k, &seed, -1, 1), *b = rand_f32((size_t)k * (size_t)n, &seed, -1, 1);
    float *c = rand_f32((size_t)m * (size_t)n, &seed, -1, 1), *c0 = malloc((size_t)m * (size_t)n * sizeof(float));

    cr_assert_not_null(c0);
    memcpy(c0, c, (size_t)m * (size_t)n * sizeof(float));
    pg_kernels_gemm_f32("mm", ta, tb, m, n, k, 1.0f, a, lda, b, ldb, beta, c, n);
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++) {
            double s = beta * (double)c0[i * n + j], mag = fabs(beta * (double)c0[i * n + j]);
            for (p = 0; p < k; p++) {
                double av = ta ? a[p * lda + i] : a[i * lda + p];
                double bv = tb ? b[j * ldb + p] : b[p * ldb + j];
                s += av * bv;
                mag += fabs(av * bv);
            }
            cr_assert(fabs(c[i * n + j] - s) <= 2.0 * (k + 1) * FLT_EPSILON * mag + 1e-30,
                      "sgemm ta=%d tb=%d %dx%dx%d at (%d,%d): %.9g vs %.9g (PG_TEST_SEED=%llu replays it)", ta, tb, m, n, k, i, j,
                      c[i * n + j], s, (unsigned long long)seed0);
        }
    free(a);
    free(b);
    free(c);
    free(c0);
}

Test(kernels_gemm, sgemm_all_transposes_match_reference)
{
    uint64_t seed = fresh_seed();

    check_gemm_f32(0, 0, 33, 47, 61, 0.0f, seed);
    check_gemm_f32(1, 0, 29, 17, 64, 1.0f, seed + 1);
    check_gemm_f32(0, 1, 16, 40, 23, 1.0f, seed + 2);
    check_gemm_f32(1, 1, 7, 9, 130, 0.0f, seed + 3);
}

Test(kernels_gemm, dgemm_matches_reference)
{
    uint64_t seed0 = fresh_seed(), seed = seed0;
    int m = 31, n = 45, k = 77, i, j, p;
    double *a = alloc_f64((size_t)m * k), *b = alloc_f64((size_t)k * n), *c = alloc_f64((size_t)m * n);

    pg__fill_random_f64(a, (size_t)m * k, &seed, -1, 1);
    pg__fill_random_f64(b, (size_t)k * n, &seed, -1, 1);
    pg_kernels_gemm_f64("dgemm", 0, 0, m, n, k, 1.0, a, k, b, n, 0.0, c, n);
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++) {
            double s = 0, mag = 0;
            for (p = 0; p < k; p++) {
                s += a[i * k + p] * b[p * n + j];
                mag += fabs(a[i * k + p] * b[p * n + j]);
            }
            cr_assert(fabs(c[i * n + j] - s) <= 2.0 * k * DBL_EPSILON * mag, "dgemm at (%d,%d) (PG_TEST_SEED=%llu replays it)", i,
                      j, (unsigned long long)seed0);
        }
    free(a);
    free(b);
    free(c);
}

Test(kernels_gemm, entry_point_reports_op_and_flops)
{
    recorder r;
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, -1, 2, -2, 3, -3}, c[4];

    recorder_start(&r);
    pg_kernels_gemm_f32("addmm", 0, 0, 2, 2, 3, 1.0f, a, 3, b, 2, 0.0f, c, 2);
    cr_expect_eq(recorder_count(&r, "op+ addmm"), 1);
    cr_expect_eq(recorder_count(&r, "op- addmm"), 1);
    cr_expect(r.flops == 2.0 * 2 * 2 * 3, "flops %g", r.flops);
    recorder_stop(&r);
    /* [1 2 3; 4 5 6] x [1 -1; 2 -2; 3 -3] */
    cr_expect(c[0] == 14 && c[1] == -14 && c[2] == 32 && c[3] == -32);
}

Test(kernels_masked_select, count_then_gather_matches_reference)
{
    uint64_t seed0 = fresh_seed(), seed = seed0;
    size_t rows = 513, cols = 19, r, got_rows = 0, want = 0, at = 0;
    float *x = rand_f32(rows * cols, &seed, -1, 1), *y = NULL;
    unsigned char *mask = malloc(rows);

    cr_assert_not_null(mask);
    for (r = 0; r < rows; r++) {
        mask[r] = x[r * cols] > 0;
        want += mask[r];
    }
    pg_assert_ok(pg__masked_rows_f32(&y, &got_rows, x, mask, rows, cols));
    cr_assert_eq(got_rows, want, "selected %zu rows, want %zu (PG_TEST_SEED=%llu replays it)", got_rows, want,
                 (unsigned long long)seed0);
    for (r = 0; r < rows; r++)
        if (mask[r]) {
            cr_assert(memcmp(y + at * cols, x + r * cols, cols * sizeof(float)) == 0, "row %zu differs", r);
            at++;
        }
    free(y);
    /* All-false mask: data-dependent shape of zero rows, no allocation. */
    memset(mask, 0, rows);
    pg_assert_ok(pg__masked_rows_f32(&y, &got_rows, x, mask, rows, cols));
    cr_expect(got_rows == 0 && y == NULL);
    free(x);
    free(mask);
}

/* Loads a suite from text and returns it; every case names a kernel. */
static pg_suite *load_suite(const char *yaml)
{
    pg_suite *s = NULL;
    pg_diags d = {0};

    if (pg_suite_load_buffer(&s, "kernels.yaml", yaml, strlen(yaml), NULL, &d) != 0)
        cr_assert_fail("suite: %s", d.count ? d.lines[0] : pg_error_last());
    pg_diags_clear(&d);
    return s;
}

static void run_case(const pg_case *c, int64_t iters, recorder *r)
{
    const pg_kernel *k = pg_kernel_find_for(c->kernel, "cpu");
    void *state = NULL;

    cr_assert_not_null(k, "kernel %s not registered", c->kernel);
    pg_assert_ok(k->setup(&state, c));
    if (r)
        recorder_start(r);
    pg_assert_ok(k->run(state, iters));
    if (r)
        pg__instrument_set(NULL);
    k->teardown(state);
}

Test(kernels_masked_select, one_iteration_is_range_index_nonzero)
{
    pg_suite *s = load_suite("suite: t\nbenchmarks:\n"
                             "  - {name: m, kernel: masked_select, params: {rows: 64, cols: 64}}\n");
    recorder r;

    run_case(&s->cases[0], 1, &r);
    cr_expect_str_eq(r.log.ptr, "range+ masked_select\nop+ index\nop+ nonzero\nop- nonzero\nop- index\n"
                                "range- masked_select\n");
    cr_expect_eq(r.flops, 0);
    recorder_stop(&r);
    pg_suite_free(s);
}

Test(kernels_registry, every_cpu_kernel_runs_from_a_suite)
{
    static const char yaml[] =
        "suite: t\nbenchmarks:\n"
        "  - {name: sgemm, kernel: sgemm, params: {n: 16}}\n"
        "  - {name: dgemm, kernel: dgemm, params: {m: 8, n: 16, k: 4}}\n"
        "  - {name: add, kernel: add, params: {n: 1000}}\n"
        "  - {name: mul, kernel: mul, params: {n: 1000}}\n"
        "  - {name: gelu, kernel: gelu, params: {n: 1000}}\n"
        "  - {name: copy, kernel: copy, params: {n: 1000}}\n"
        "  - {name: softmax, kernel: softmax, params: {rows: 4, cols: 33}}\n"
        "  - {name: layernorm, kernel: layernorm, params: {rows: 4, cols: 33}}\n"
        "  - {name: masked_select, kernel: masked_select, params: {rows: 40, cols: 8}}\n"
        "  - {name: mlp, kernel: mlp_train_step, params: {B: 4, width: 8, vocab: 12, layers: 2, adamw: [forloop, fused]}}\n"
        "  - {name: empty, kernel: empty}\n";
    const char *const want[] = {"sgemm", "dgemm", "add", "mul", "gelu", "copy", "softmax", "layernorm",
                                "masked_select", "mlp_train_step", "empty"};
    pg_suite *s = load_suite(yaml);
    size_t i, j;

    cr_assert_eq(s->ncases, 12);
    for (i = 0; i < s->ncases; i++)
        run_case(&s->cases[i], 3, NULL);
    for (j = 0; j < sizeof(want) / sizeof(want[0]); j++)
        cr_expect_not_null(pg_kernel_find_for(want[j], "cpu"), "%s", want[j]);
    /* Elementwise kernels count zero FLOPs and report bytes; GEMMs report 2mnk. */
    for (i = 0; i < s->ncases; i++) {
        const pg_case *c = &s->cases[i];
        const pg_kernel *k = pg_kernel_find_for(c->kernel, "cpu");
        double f = k->flops ? k->flops(c) : 0;
        if (strcmp(c->kernel, "dgemm") == 0)
            cr_expect(f == 2.0 * 8 * 16 * 4);
        else if (strcmp(c->kernel, "mlp_train_step") == 0)
            cr_expect(f == 6.0 * 4 * (2 * 8 * 8 + 8 * 12));
        else if (strcmp(c->kernel, "add") == 0)
            cr_expect(f == 0 && k->bytes(c) == 12000);
    }
    pg_suite_free(s);
}

Test(kernels_registry, bad_params_are_errors_not_crashes)
{
    pg_suite *s = load_suite("suite: t\nbenchmarks:\n"
                             "  - {name: a, kernel: mlp_train_step, params: {adamw: sgd}}\n"
                             "  - {name: b, kernel: add, params: {n: -5}}\n"
                             "  - {name: c, kernel: softmax, params: {rows: 0}}\n");
    size_t i;

    for (i = 0; i < s->ncases; i++) {
        const pg_kernel *k = pg_kernel_find_for(s->cases[i].kernel, "cpu");
        void *state = (void *)1;
        cr_expect_eq(k->setup(&state, &s->cases[i]), PG_EINVAL, "%s", s->cases[i].key);
        cr_expect_null(state);
    }
    cr_expect(strstr(pg_error_last(), "rows and cols must be positive") != NULL, "%s", pg_error_last());
    pg_suite_free(s);
}
