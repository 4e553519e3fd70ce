/*
 * pointwise.c - memory-bound elementwise kernels: add, mul, gelu, copy, and
 * the empty kernel that measures the harness's own per-iteration cost.
 *
 * These count zero FLOPs (the matmul-only convention MFU uses, as
 * FlopCounterMode does); their throughput is reported in bytes per second,
 * counting each element read and written once. `copy` is the streaming
 * bandwidth ceiling the others can be compared with.
 */
#include "kernels/kernels.h"
#include "kernels/ops.h"

#include "base/case.h"
#include "perfgate/errors.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pg__op_begin_2d(const char *name, int64_t rows, int64_t cols)
{
    char shape[64];

    if (!pg__instrument)
        return;
    if (cols < 0)
        snprintf(shape, sizeof(shape), "[%lld]", (long long)rows);
    else
        snprintf(shape, sizeof(shape), "[%lld,%lld]", (long long)rows, (long long)cols);
    pg__op_begin(name, shape);
}

void pg__add_f32(float *out, const float *a, const float *b, size_t n)
{
    size_t i;

    pg__op_begin_2d("add", (int64_t)n, -1);
    for (i = 0; i < n; i++)
        out[i] = a[i] + b[i];
    pg__op_end("add");
}

void pg__mul_f32(float *out, const float *a, const float *b, size_t n)
{
    size_t i;

    pg__op_begin_2d("mul", (int64_t)n, -1);
    for (i = 0; i < n; i++)
        out[i] = a[i] * b[i];
    pg__op_end("mul");
}

void pg__gelu_f32(float *out, const float *x, size_t n)
{
    size_t i;

    pg__op_begin_2d("gelu", (int64_t)n, -1);
    for (i = 0; i < n; i++)
        out[i] = 0.5f * x[i] * (1.0f + erff(x[i] * (float)M_SQRT1_2));
    pg__op_end("gelu");
}

void pg__gelu_backward_f32(float *grad_in, const float *grad_out, const float *x, size_t n)
{
    /* d/dx [x·Φ(x)] = Φ(x) + x·φ(x) */
    const float inv_sqrt_2pi = 0.3989422804014327f;
    size_t i;

    pg__op_begin_2d("gelu_backward", (int64_t)n, -1);
    for (i = 0; i < n; i++) {
        float cdf = 0.5f * (1.0f + erff(x[i] * (float)M_SQRT1_2));
        float pdf = inv_sqrt_2pi * expf(-0.5f * x[i] * x[i]);
        grad_in[i] = grad_out[i] * (cdf + x[i] * pdf);
    }
    pg__op_end("gelu_backward");
}

void pg__copy_f32(float *out, const float *x, size_t n)
{
    pg__op_begin_2d("copy", (int64_t)n, -1);
    memcpy(out, x, n * sizeof(*out));
    pg__op_end("copy");
}

/* ---- kernel descriptors: params n (elements, default 1Mi) ------------------ */

typedef enum pw_kind { PW_ADD, PW_MUL, PW_GELU, PW_COPY } pw_kind;

typedef struct pw_state {
    pw_kind kind;
    size_t n;
    float *a, *b, *out;
} pw_state;

static int64_t pw_n(const pg_case *c)
{
    return pg_case_param_int(c, "n", (int64_t)1 << 20);
}

static int pw_setup(void **out, const pg_case *c, pw_kind kind)
{
    pw_state *s = calloc(1, sizeof(*s));
    int64_t n = pw_n(c);
    uint64_t seed = 7;

    *out = NULL;
    if (!s)
        return pg_error_set(PG_ENOMEM, "%s: out of memory", c->key);
    if (n <= 0) {
        free(s);
        return pg_error_set(PG_EINVAL, "%s: param n must be positive, got %lld", c->key, (long long)n);
    }
    s->kind = kind;
    s->n = (size_t)n;
    s->a = malloc(s->n * sizeof(float));
    s->b = malloc(s->n * sizeof(float));
    s->out = malloc(s->n * sizeof(float));
    if (!s->a || !s->b || !s->out) {
        free(s->a);
        free(s->b);
        free(s->out);
        free(s);
        return pg_error_set(PG_ENOMEM, "%s: out of memory for %lld elements", c->key, (long long)n);
    }
    pg__fill_random_f32(s->a, s->n, &seed, -3, 3);
    pg__fill_random_f32(s->b, s->n, &seed, -3, 3);
    pg__fill_random_f32(s->out, s->n, &seed, -3, 3);
    *out = s;
    return 0;
}

static int add_setup(void **out, const pg_case *c) { return pw_setup(out, c, PW_ADD); }
static int mul_setup(void **out, const pg_case *c) { return pw_setup(out, c, PW_MUL); }
static int gelu_setup(void **out, const pg_case *c) { return pw_setup(out, c, PW_GELU); }
static int copy_setup(void **out, const pg_case *c) { return pw_setup(out, c, PW_COPY); }

static int pw_run(void *state, int64_t iters)
{
    pw_state *s = state;
    int64_t i;

    for (i = 0; i < iters; i++) {
        switch (s->kind) {
        case PW_ADD:
            pg__add_f32(s->out, s->a, s->b, s->n);
            break;
        case PW_MUL:
            pg__mul_f32(s->out, s->a, s->b, s->n);
            break;
        case PW_GELU:
            pg__gelu_f32(s->out, s->a, s->n);
            break;
        case PW_COPY:
            pg__copy_f32(s->out, s->a, s->n);
            break;
        }
    }
    return 0;
}

static void pw_teardown(void *state)
{
    pw_state *s = state;

    if (!s)
        return;
    free(s->a);
    free(s->b);
    free(s->out);
    free(s);
}

static double binary_bytes(const pg_case *c)
{
    return 12.0 * (double)pw_n(c); /* two floats read, one written */
}

static double unary_bytes(const pg_case *c)
{
    return 8.0 * (double)pw_n(c); /* one float read, one written */
}

static const char *const pw_params[] = {"n", NULL};

const pg_kernel pg__kernel_add = {"add", "cpu", "fp32 elementwise c = a + b over n elements (bytes/s)",
                                  pw_params, add_setup, pw_run, pw_teardown, NULL, binary_bytes};
const pg_kernel pg__kernel_mul = {"mul", "cpu", "fp32 elementwise c = a * b over n elements (bytes/s)",
                                  pw_params, mul_setup, pw_run, pw_teardown, NULL, binary_bytes};
const pg_kernel pg__kernel_gelu = {"gelu", "cpu", "fp32 exact (erf) GELU over n elements (bytes/s)",
                                   pw_params, gelu_setup, pw_run, pw_teardown, NULL, unary_bytes};
const pg_kernel pg__kernel_copy = {"copy", "cpu", "fp32 memcpy of n elements: the memory bandwidth ceiling",
                                   pw_params, copy_setup, pw_run, pw_teardown, NULL, unary_bytes};

/* ---- empty: the harness's own cost per iteration ------------------------- */

static int empty_setup(void **out, const pg_case *c)
{
    static int token;

    (void)c;
    *out = &token;
    return 0;
}

static int empty_run(void *state, int64_t iters)
{
    int64_t i;

    /* The barrier keeps the loop: each iteration is one trip through it, which is
       what a real kernel's run() adds around its work. */
    for (i = 0; i < iters; i++)
        __asm__ __volatile__("" : : "r"(state) : "memory");
    return 0;
}

static void empty_teardown(void *state)
{
    (void)state;
}

static const char *const empty_params[] = {NULL};

const pg_kernel pg__kernel_empty = {"empty", "cpu", "does nothing: the timing harness's overhead per iteration",
                                    empty_params, empty_setup, empty_run, empty_teardown, NULL, NULL};
