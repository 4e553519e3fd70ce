/*
 * ops.h - the compute routines behind the built-in CPU kernels.
 *
 * Each routine is one op in the sense of the kernel op contract
 * (docs/measuring.md): it brackets its work with pg__op_begin()/pg__op_end()
 * under an aten-like name ("add", "gelu", "softmax", "index" ...), so the op
 * recorder and FLOP counter of the exact checks see the same ops a PyTorch
 * profile shows. The kernel descriptors (setup/run/teardown) wrap these, and
 * tests call them directly on fresh random inputs to compare with plain C
 * references.
 */
#ifndef PG_KERNELS_OPS_H
#define PG_KERNELS_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "base/instrument.h"

/** Opens op `name` with shape "[rows,cols]" (or "[rows]" when cols < 0), formatted only when
 *  an instrument listens, so an uninstrumented run pays one branch. */
void pg__op_begin_2d(const char *name, int64_t rows, int64_t cols);

/* Elementwise ops over n floats; out may alias an input. */
void pg__add_f32(float *out, const float *a, const float *b, size_t n);
void pg__mul_f32(float *out, const float *a, const float *b, size_t n);
/** Exact (erf) GELU, PyTorch's default approximate='none'. */
void pg__gelu_f32(float *out, const float *x, size_t n);
/** grad_in = grad_out * GELU'(x). */
void pg__gelu_backward_f32(float *grad_in, const float *grad_out, const float *x, size_t n);
/** out = x, through memcpy: the machine's streaming copy ceiling. */
void pg__copy_f32(float *out, const float *x, size_t n);

/** Row-wise softmax of a [rows, cols] row-major matrix (max-subtracted). */
void pg__softmax_f32(float *out, const float *x, size_t rows, size_t cols);
/** Row-wise layer norm over cols with affine gamma, beta (biased variance, like torch). */
void pg__layernorm_f32(float *out, const float *x, const float *gamma, const float *beta, size_t rows,
                       size_t cols, float eps);

/**
 * Boolean-mask row selection x[mask] (PyTorch's aten::index on a bool mask):
 * op "index" containing op "nonzero" (the count pass that fixes the output
 * shape), then the allocation and the gather.
 * @param[out] out selected rows, row-major [*out_rows, cols]; caller frees (NULL when none).
 * @param[out] out_rows number of rows selected.
 * @return 0 or PG_ENOMEM.
 */
int pg__masked_rows_f32(float **out, size_t *out_rows, const float *x, const unsigned char *mask, size_t rows,
                        size_t cols);

#endif
