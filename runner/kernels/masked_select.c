/*
 * masked_select.c - boolean-mask row selection, the lesson's fence 3.
 *
 * x[mask] has a data-dependent output shape: PyTorch's aten::index calls
 * aten::nonzero to count the selected rows before it can allocate the
 * output, then gathers. On a GPU that count is a host-device sync; on the
 * CPU it is an extra pass over the mask. One iteration opens the range
 * "masked_select" and inside it the op "index", which contains the op
 * "nonzero" and then the gather, so the op checks see the same nesting a
 * torch profile shows.
 */
#include "kernels/kernels.h"
#include "kernels/ops.h"

#include "base/case.h"
#include "perfgate/errors.h"

#include <stdlib.h>
#include <string.h>

int pg__masked_rows_f32(float **out, size_t *out_rows, const float *x, const unsigned char *mask, size_t rows,
                        size_t cols)
{
    size_t r, count = 0, at = 0;
    float *y = NULL;

    pg__op_begin_2d("index", (int64_t)rows, (int64_t)cols);
    /* The count pass: nothing can be allocated before it ends. */
    pg__op_begin_2d("nonzero", (int64_t)rows, -1);
    for (r = 0; r < rows; r++)
        count += mask[r] != 0;
    pg__op_end("nonzero");
    if (count > 0 && !(y = malloc(count * cols * sizeof(*y)))) {
        pg__op_end("index");
        *out = NULL;
        *out_rows = 0;
        return pg_error_set(PG_ENOMEM, "masked_select: out of memory for %zu rows", count);
    }
    for (r = 0; r < rows; r++)
        if (mask[r])
            memcpy(y + (at++) * cols, x + r * cols, cols * sizeof(*y));
    pg__op_end("index");
    *out = y;
    *out_rows = count;
    return 0;
}

/* ---- kernel descriptor: params rows (default 4096), cols (default 256) ----- */

typedef struct ms_state {
    size_t rows, cols, selected;
    float *x;
    unsigned char *mask;
} ms_state;

static void ms_shape(const pg_case *c, int64_t *rows, int64_t *cols)
{
    *rows = pg_case_param_int(c, "rows", 4096);
    *cols = pg_case_param_int(c, "cols", 256);
}

static int ms_setup(void **out, const pg_case *c)
{
    ms_state *s = calloc(1, sizeof(*s));
    int64_t rows, cols;
    uint64_t seed = 3;
    size_t r;

    *out = NULL;
    if (!s)
        return pg_error_set(PG_ENOMEM, "%s: out of memory", c->key);
    ms_shape(c, &rows, &cols);
    if (rows <= 0 || cols <= 0) {
        free(s);
        return pg_error_set(PG_EINVAL, "%s: params rows and cols must be positive", c->key);
    }
    s->rows = (size_t)rows;
    s->cols = (size_t)cols;
    s->x = malloc(s->rows * s->cols * sizeof(float));
    s->mask = malloc(s->rows);
    if (!s->x || !s->mask) {
        free(s->x);
        free(s->mask);
        free(s);
        return pg_error_set(PG_ENOMEM, "%s: out of memory for a %lldx%lld matrix", c->key, (long long)rows,
                            (long long)cols);
    }
    pg__fill_random_f32(s->x, s->rows * s->cols, &seed, -1, 1);
    /* The fence's mask: x[:, 0] > 0, about half the rows, in no pattern a branch predictor learns. */
    for (r = 0; r < s->rows; r++) {
        s->mask[r] = s->x[r * s->cols] > 0;
        s->selected += s->mask[r];
    }
    *out = s;
    return 0;
}

static int ms_run(void *state, int64_t iters)
{
    ms_state *s = state;
    int64_t i;

    for (i = 0; i < iters; i++) {
        float *y;
        size_t n;
        int err;
        pg__range_push("masked_select");
        err = pg__masked_rows_f32(&y, &n, s->x, s->mask, s->rows, s->cols);
        pg__range_pop("masked_select");
        /* The output is allocated per call, as torch does: that cost is part of the op. */
        free(y);
        if (err)
            return err;
    }
    return 0;
}

static void ms_teardown(void *state)
{
    ms_state *s = state;

    if (!s)
        return;
    free(s->x);
    free(s->mask);
    free(s);
}

static double ms_bytes(const pg_case *c)
{
    int64_t rows, cols;

    /* The mask is read once; about half the rows are read and written by the gather. */
    ms_shape(c, &rows, &cols);
    return (double)rows + 8.0 * 0.5 * (double)rows * (double)cols;
}

static const char *const ms_params[] = {"rows", "cols", NULL};

const pg_kernel pg__kernel_masked_select = {
    "masked_select", "cpu", "x[mask] row selection: nonzero count pass, then gather (rows, cols)",
    ms_params, ms_setup, ms_run, ms_teardown, NULL, ms_bytes};
