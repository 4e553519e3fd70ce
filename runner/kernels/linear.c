/*
 * linear.c - the workloads of the profiling lesson's fence 1.
 *
 * "linear": one nn.Linear(in, out) on a batch of B, forward only or a
 * training step (loss = y.sum(), backward). Its GEMMs follow the kernels'
 * op contract: forward "addmm" (2·B·in·out), backward grad-input "mm" only
 * when the input requires grad, and grad-weight "mm" (2·B·in·out each), so a
 * step counts 6·B·in·out, or 4·B·in·out for a first layer.
 * "elementwise": a chain of elementwise ops and reductions over n floats
 * (like (x * x).relu().sum()); none is a matmul, so it counts zero FLOPs.
 */
#include "kernels/kernels.h"

#include "base/case.h"
#include "base/instrument.h"
#include "perfgate/errors.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- linear ------------------------------------------------------------- */

typedef struct linear_state {
    int B, in, out, train, input_grad;
    float *x, *w, *bias, *y, *dy, *dx, *dw, *db;
    char shape_x[48], shape_b[48];
    float loss;
} linear_state;

static int param_bool(const pg_case *c, const char *name, int dflt, int *out)
{
    const char *v = pg_case_param_str(c, name, NULL);

    if (!v) {
        *out = dflt;
        return 0;
    }
    if (!strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "yes")) {
        *out = 1;
        return 0;
    }
    if (!strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "no")) {
        *out = 0;
        return 0;
    }
    return pg_error_set(PG_EINVAL, "%s: %s must be true or false, not '%s'", c->key, name, v);
}

static int linear_shape(const pg_case *c, int *B, int *in, int *out, int *train, int *input_grad)
{
    const char *mode = pg_case_param_str(c, "mode", "train");
    int64_t b = pg_case_param_int(c, "B", 4), i = pg_case_param_int(c, "in", 16), o = pg_case_param_int(c, "out", 8);

    if (b <= 0 || i <= 0 || o <= 0 || b > 1 << 20 || i > 1 << 20 || o > 1 << 20 || b * i > 1 << 28 ||
        i * o > 1 << 28 || b * o > 1 << 28)
        return pg_error_set(PG_EINVAL, "%s: B, in and out must be positive and the matrices under 2^28 elements",
                            c->key);
    if (strcmp(mode, "train") && strcmp(mode, "forward"))
        return pg_error_set(PG_EINVAL, "%s: mode must be forward or train, not '%s'", c->key, mode);
    *B = (int)b;
    *in = (int)i;
    *out = (int)o;
    *train = strcmp(mode, "train") == 0;
    return param_bool(c, "input_requires_grad", 1, input_grad);
}

static void linear_teardown(void *state)
{
    linear_state *s = state;

    if (!s)
        return;
    free(s->x);
    free(s->w);
    free(s->bias);
    free(s->y);
    free(s->dy);
    free(s->dx);
    free(s->dw);
    free(s->db);
    free(s);
}

static int linear_setup(void **out, const pg_case *c)
{
    linear_state *s = calloc(1, sizeof(*s));
    uint64_t seed = 7;
    size_t bi, oi, bo;
    int err;

    *out = NULL;
    if (!s)
        return pg_error_set(PG_ENOMEM, "%s: out of memory", c->key);
    if ((err = linear_shape(c, &s->B, &s->in, &s->out, &s->train, &s->input_grad)) != 0) {
        free(s);
        return err;
    }
    bi = (size_t)s->B * (size_t)s->in;
    oi = (size_t)s->out * (size_t)s->in;
    bo = (size_t)s->B * (size_t)s->out;
    s->x = malloc(bi * sizeof(float));
    s->w = malloc(oi * sizeof(float));
    s->bias = malloc((size_t)s->out * sizeof(float));
    s->y = malloc(bo * sizeof(float));
    s->dy = malloc(bo * sizeof(float));
    s->dx = malloc(bi * sizeof(float));
    s->dw = malloc(oi * sizeof(float));
    s->db = malloc((size_t)s->out * sizeof(float));
    if (!s->x || !s->w || !s->bias || !s->y || !s->dy || !s->dx || !s->dw || !s->db) {
        linear_teardown(s);
        return pg_error_set(PG_ENOMEM, "%s: out of memory for the linear layer", c->key);
    }
    /* nn.Linear's init: uniform in ±1/sqrt(in). */
    pg__fill_random_f32(s->x, bi, &seed, -1, 1);
    pg__fill_random_f32(s->w, oi, &seed, -1.0f / sqrtf((float)s->in), 1.0f / sqrtf((float)s->in));
    pg__fill_random_f32(s->bias, (size_t)s->out, &seed, -1.0f / sqrtf((float)s->in), 1.0f / sqrtf((float)s->in));
    snprintf(s->shape_x, sizeof(s->shape_x), "[%d,%d]", s->B, s->out);
    snprintf(s->shape_b, sizeof(s->shape_b), "[%d]", s->out);
    *out = s;
    return 0;
}

static void linear_step(linear_state *s)
{
    int i, j;

    if (s->train)
        pg__range_push("forward");
    pg__module_push("linear", 0);
    /* addmm: y = bias + x·Wᵀ; the bias broadcast is addmm's `self` operand. */
    for (i = 0; i < s->B; i++)
        memcpy(s->y + (size_t)i * (size_t)s->out, s->bias, (size_t)s->out * sizeof(float));
    pg_kernels_gemm_f32("addmm", 0, 1, s->B, s->out, s->in, 1.0f, s->x, s->in, s->w, s->in, 1.0f, s->y, s->out);
    pg__module_pop("linear");
    if (!s->train)
        return;
    pg__op_begin("sum", s->shape_x);
    s->loss = 0;
    for (i = 0; i < s->B * s->out; i++)
        s->loss += s->y[i];
    pg__op_end("sum");
    pg__range_pop("forward");

    pg__range_push("backward");
    /* d(sum)/dy is all ones. */
    pg__op_begin("ones_like", s->shape_x);
    for (i = 0; i < s->B * s->out; i++)
        s->dy[i] = 1.0f;
    pg__op_end("ones_like");
    pg__module_push("linear", 1);
    if (s->input_grad) /* grad-input: dX[B,in] = dY[B,out]·W[out,in] */
        pg_kernels_gemm_f32("mm", 0, 0, s->B, s->in, s->out, 1.0f, s->dy, s->out, s->w, s->in, 0.0f, s->dx, s->in);
    /* grad-weight: dW[out,in] = dYᵀ[out,B]·X[B,in] */
    pg_kernels_gemm_f32("mm", 1, 0, s->out, s->in, s->B, 1.0f, s->dy, s->out, s->x, s->in, 0.0f, s->dw, s->in);
    pg__op_begin("sum", s->shape_x);
    for (j = 0; j < s->out; j++)
        s->db[j] = 0;
    for (i = 0; i < s->B; i++)
        for (j = 0; j < s->out; j++)
            s->db[j] += s->dy[(size_t)i * (size_t)s->out + (size_t)j];
    pg__op_end("sum");
    pg__module_pop("linear");
    pg__range_pop("backward");
}

static int linear_run(void *state, int64_t iters)
{
    int64_t i;

    for (i = 0; i < iters; i++)
        linear_step(state);
    return 0;
}

static double linear_flops(const pg_case *c)
{
    int B = 0, in = 0, out = 0, train = 0, input_grad = 0;

    if (linear_shape(c, &B, &in, &out, &train, &input_grad) != 0)
        return 0;
    return 2.0 * B * in * out * (train ? (input_grad ? 3 : 2) : 1);
}

static double linear_bytes(const pg_case *c)
{
    int B = 0, in = 0, out = 0, train = 0, input_grad = 0;

    if (linear_shape(c, &B, &in, &out, &train, &input_grad) != 0)
        return 0;
    return 4.0 * ((double)B * in + (double)in * out + (double)B * out);
}

static const char *const linear_params[] = {"B", "in", "out", "input_requires_grad", "mode", NULL};

const pg_kernel pg__kernel_linear = {
    "linear", "cpu", "nn.Linear(in, out) on a batch of B: forward or a train step (params B, in, out, "
    "input_requires_grad, mode)",
    linear_params, linear_setup, linear_run, linear_teardown, linear_flops, linear_bytes};

/* ---- elementwise ----------------------------------------------------------- */

enum { EW_MUL, EW_ADD, EW_RELU, EW_GELU, EW_EXP, EW_SUM, EW_COPY };
static const char *const ew_names[] = {"mul", "add", "relu", "gelu", "exp", "sum", "copy", NULL};

typedef struct ew_state {
    int *ops;
    size_t nops;
    size_t n;
    float *x, *y;
    float acc;
    char shape[32];
} ew_state;

static void ew_teardown(void *state)
{
    ew_state *s = state;

    if (!s)
        return;
    free(s->ops);
    free(s->x);
    free(s->y);
    free(s);
}

static int ew_setup(void **out, const pg_case *c)
{
    const char *list = pg_case_param_str(c, "ops", "mul,relu,sum");
    int64_t n = pg_case_param_int(c, "n", 256);
    ew_state *s = calloc(1, sizeof(*s));
    uint64_t seed = 11;
    const char *p = list;
    int err;

    *out = NULL;
    if (!s)
        return pg_error_set(PG_ENOMEM, "%s: out of memory", c->key);
    if (n <= 0 || n > (int64_t)1 << 28) {
        free(s);
        return pg_error_set(PG_EINVAL, "%s: n must be in 1..2^28", c->key);
    }
    s->n = (size_t)n;
    s->ops = calloc(strlen(list) + 1, sizeof(int));
    s->x = malloc(s->n * sizeof(float));
    s->y = malloc(s->n * sizeof(float));
    if (!s->ops || !s->x || !s->y) {
        ew_teardown(s);
        return pg_error_set(PG_ENOMEM, "%s: out of memory", c->key);
    }
    while (*p) {
        size_t len = strcspn(p, ","), k;
        for (k = 0; ew_names[k]; k++)
            if (strlen(ew_names[k]) == len && strncmp(ew_names[k], p, len) == 0)
                break;
        if (!ew_names[k]) {
            err = pg_error_set(PG_EINVAL, "%s: unknown elementwise op '%.*s' (mul, add, relu, gelu, exp, sum, copy)",
                               c->key, (int)len, p);
            ew_teardown(s);
            return err;
        }
        s->ops[s->nops++] = (int)k;
        p += len;
        if (*p == ',')
            p++;
    }
    pg__fill_random_f32(s->x, s->n, &seed, -1, 1);
    snprintf(s->shape, sizeof(s->shape), "[%zu]", s->n);
    *out = s;
    return 0;
}

static void ew_apply(ew_state *s, int op)
{
    const float *in = s->x;
    size_t i;

    pg__op_begin(ew_names[op], s->shape);
    switch (op) {
    case EW_MUL: for (i = 0; i < s->n; i++) s->y[i] = in[i] * in[i]; break;
    case EW_ADD: for (i = 0; i < s->n; i++) s->y[i] = in[i] + in[i]; break;
    case EW_RELU: for (i = 0; i < s->n; i++) s->y[i] = in[i] > 0 ? in[i] : 0; break;
    case EW_GELU:
        for (i = 0; i < s->n; i++)
            s->y[i] = 0.5f * in[i] * (1.0f + tanhf(0.7978845608f * (in[i] + 0.044715f * in[i] * in[i] * in[i])));
        break;
    case EW_EXP: for (i = 0; i < s->n; i++) s->y[i] = expf(in[i]); break;
    case EW_COPY: memcpy(s->y, in, s->n * sizeof(float)); break;
    case EW_SUM:
        s->acc = 0;
        for (i = 0; i < s->n; i++)
            s->acc += in[i];
        break;
    }
    pg__op_end(ew_names[op]);
}

static int ew_run(void *state, int64_t iters)
{
    ew_state *s = state;
    int64_t it;
    size_t k;

    for (it = 0; it < iters; it++)
        for (k = 0; k < s->nops; k++)
            ew_apply(s, s->ops[k]);
    return 0;
}

static double ew_flops(const pg_case *c)
{
    return 0; /* elementwise work is not matmul FLOPs (the MFU convention) */
}

static double ew_bytes(const pg_case *c)
{
    return 8.0 * (double)pg_case_param_int(c, "n", 256);
}

static const char *const ew_params[] = {"ops", "n", NULL};

const pg_kernel pg__kernel_elementwise = {
    "elementwise", "cpu", "a chain of elementwise ops over n floats (ops: mul, add, relu, gelu, exp, sum, copy)",
    ew_params, ew_setup, ew_run, ew_teardown, ew_flops, ew_bytes};
