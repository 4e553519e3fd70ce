/*
 * norm.c - row-wise reductions that stream memory: softmax and layer norm.
 *
 * Both read a [rows, cols] fp32 matrix and write one of the same shape,
 * accumulating in float like PyTorch's CPU kernels do for fp32 (with the
 * max subtracted for softmax). They count zero FLOPs by the matmul-only
 * convention; throughput is bytes per second (one read, one write).
 */
#include "kernels/kernels.h"
#include "kernels/ops.h"

#include "base/case.h"
#include "perfgate/errors.h"

#include <math.h>
#include <stdlib.h>

void pg__softmax_f32(float *out, const float *x, size_t rows, size_t cols)
{
    size_t r, j;

    pg__op_begin_2d("softmax", (int64_t)rows, (int64_t)cols);
    for (r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float *yr = out + r * cols;
        float mx = xr[0], sum = 0, inv;
        for (j = 1; j < cols; j++)
            mx = xr[j] > mx ? xr[j] : mx;
        for (j = 0; j < cols; j++) {
            yr[j] = expf(xr[j] - mx);
            sum += yr[j];
        }
        inv = 1.0f / sum;
        for (j = 0; j < cols; j++)
            yr[j] *= inv;
    }
    pg__op_end("softmax");
}

void pg__layernorm_f32(float *out, const float *x, const float *gamma, const float *beta, size_t rows,
                       size_t cols, float eps)
{
    size_t r, j;

    pg__op_begin_2d("layer_norm", (int64_t)rows, (int64_t)cols);
    for (r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float *yr = out + r * cols;
        float mean = 0, var = 0, rstd;
        for (j = 0; j < cols; j++)
            mean += xr[j];
        mean /= (float)cols;
        /* Two passes: the one-pass E[x²]-E[x]² loses digits when the mean is large. */
        for (j = 0; j < cols; j++)
            var += (xr[j] - mean) * (xr[j] - mean);
        var /= (float)cols;
        rstd = 1.0f / sqrtf(var + eps);
        for (j = 0; j < cols; j++)
            yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
    }
    pg__op_end("layer_norm");
}

/* ---- kernel descriptors: params rows (default 256), cols (default 1024) ---- */

typedef struct norm_state {
    int layer;
    size_t rows, cols;
    float *x, *out, *gamma, *beta;
} norm_state;

static void norm_shape(const pg_case *c, int64_t *rows, int64_t *cols)
{
    *rows = pg_case_param_int(c, "rows", 256);
    *cols = pg_case_param_int(c, "cols", 1024);
}

static int norm_setup(void **out, const pg_case *c, int layer)
{
    norm_state *s = calloc(1, sizeof(*s));
    int64_t rows, cols;
    uint64_t seed = 11;

    *out = NULL;
    if (!s)
        return pg_error_set(PG_ENOMEM, "%s: out of memory", c->key);
    norm_shape(c, &rows, &cols);
    if (rows <= 0 || cols <= 0) {
        free(s);
        return pg_error_set(PG_EINVAL, "%s: params rows and cols must be positive", c->key);
    }
    s->layer = layer;
    s->rows = (size_t)rows;
    s->cols = (size_t)cols;
    s->x = malloc(s->rows * s->cols * sizeof(float));
    s->out = malloc(s->rows * s->cols * sizeof(float));
    s->gamma = malloc(s->cols * sizeof(float));
    s->beta = malloc(s->cols * sizeof(float));
    if (!s->x || !s->out || !s->gamma || !s->beta) {
        free(s->x);
        free(s->out);
        free(s->gamma);
        free(s->beta);
        free(s);
        return pg_error_set(PG_ENOMEM, "%s: out of memory for a %lldx%lld matrix", c->key, (long long)rows,
                            (long long)cols);
    }
    pg__fill_random_f32(s->x, s->rows * s->cols, &seed, -4, 4);
    pg__fill_random_f32(s->gamma, s->cols, &seed, 0.5f, 1.5f);
    pg__fill_random_f32(s->beta, s->cols, &seed, -0.5f, 0.5f);
    *out = s;
    return 0;
}

static int softmax_setup(void **out, const pg_case *c) { return norm_setup(out, c, 0); }
static int layernorm_setup(void **out, const pg_case *c) { return norm_setup(out, c, 1); }

static int norm_run(void *state, int64_t iters)
{
    norm_state *s = state;
    int64_t i;

    for (i = 0; i < iters; i++) {
        if (s->layer)
            pg__layernorm_f32(s->out, s->x, s->gamma, s->beta, s->rows, s->cols, 1e-5f);
        else
            pg__softmax_f32(s->out, s->x, s->rows, s->cols);
    }
    return 0;
}

static void norm_teardown(void *state)
{
    norm_state *s = state;

    if (!s)
        return;
    free(s->x);
    free(s->out);
    free(s->gamma);
    free(s->beta);
    free(s);
}

static double norm_bytes(const pg_case *c)
{
    int64_t rows, cols;

    norm_shape(c, &rows, &cols);
    return 8.0 * (double)rows * (double)cols;
}

static const char *const norm_params[] = {"rows", "cols", NULL};

const pg_kernel pg__kernel_softmax = {"softmax", "cpu", "fp32 row-wise softmax of a rows x cols matrix (bytes/s)",
                                      norm_params, softmax_setup, norm_run, norm_teardown, NULL, norm_bytes};
const pg_kernel pg__kernel_layernorm = {"layernorm", "cpu",
                                        "fp32 row-wise layer norm with affine weights, rows x cols (bytes/s)",
                                        norm_params, layernorm_setup, norm_run, norm_teardown, NULL, norm_bytes};
