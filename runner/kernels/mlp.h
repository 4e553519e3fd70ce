/*
 * mlp.h - the lesson lab's training step, in plain C over OpenBLAS.
 *
 * Embedding(vocab, width) -> layers x (Linear(width, width) + GELU) ->
 * Linear(width, vocab), cross-entropy (log_softmax + nll_loss) against
 * random targets, backward, and AdamW in PyTorch's two CPU shapes:
 * `forloop` (per parameter tensor, about ten small passes: mul_, add_,
 * addcmul_, sqrt, div_, addcdiv_) and `fused` (one pass per tensor).
 * Modules are named as nn.Sequential names them ("mlp.0" the Embedding,
 * "mlp.1", "mlp.3" ... the Linears, "mlp.2" ... the GELUs), and a step has
 * the ranges "forward", "backward" and "optimizer". Every matmul goes
 * through pg_kernels_gemm_f32: "addmm" forward, "mm" for grad-input and
 * grad-weight, so one step is exactly 6*B*(layers*width^2 + width*vocab)
 * FLOPs. Internal: used by the mlp_train_step kernel and by its tests.
 */
#ifndef PG_KERNELS_MLP_H
#define PG_KERNELS_MLP_H

#include <stddef.h>
#include <stdint.h>

typedef enum pg__adamw_kind { PG_ADAMW_FORLOOP = 0, PG_ADAMW_FUSED = 1 } pg__adamw_kind;

typedef struct pg__mlp_config {
    int B, width, vocab, layers;
    pg__adamw_kind adamw;
    uint64_t seed;            /* parameters, tokens and targets */
    float lr, beta1, beta2, eps, weight_decay; /* torch's AdamW defaults unless set */
} pg__mlp_config;

#define PG_MLP_CONFIG_INIT {64, 256, 512, 3, PG_ADAMW_FUSED, 42, 1e-3f, 0.9f, 0.999f, 1e-8f, 1e-2f}

/** One parameter tensor with its gradient and AdamW state (all `n` floats). */
typedef struct pg__mlp_param {
    char name[32];            /* "mlp.0.weight", "mlp.1.bias" ... */
    size_t n;
    float *w, *grad, *exp_avg, *exp_avg_sq;
} pg__mlp_param;

typedef struct pg__mlp {
    pg__mlp_config cfg;
    int *tokens, *targets;    /* [B] each */
    pg__mlp_param *params;    /* embedding weight, then weight and bias of each Linear */
    size_t nparams;
    float **z;                /* [layers+1] pre-activations of each Linear, [B, out] */
    float **act;              /* [layers] GELU outputs, [B, width] */
    float *h0;                /* embedding output [B, width] */
    float *logp;              /* log_softmax of the logits [B, vocab] */
    float *dlogp, *dcur, *dx; /* backward scratch */
    float *denom;             /* forloop AdamW's out-of-place sqrt */
    int64_t step;
    double loss;
} pg__mlp;

/** Allocates and initialises (uniform ±1/sqrt(in) weights, never zeros). Free with pg__mlp_free(). */
int pg__mlp_new(pg__mlp **out, const pg__mlp_config *cfg);
void pg__mlp_free(pg__mlp *m);

/** Forward and loss; sets m->loss (mean cross-entropy) and returns it through `out_loss` if not NULL. */
void pg__mlp_forward(pg__mlp *m, double *out_loss);
/** Backward from the last forward: fills every param's grad. */
void pg__mlp_backward(pg__mlp *m);
/** One AdamW step over every parameter tensor (cfg.adamw picks forloop or fused). */
void pg__mlp_optimizer_step(pg__mlp *m);
/** forward + backward + optimizer inside the ranges "forward", "backward", "optimizer". */
void pg__mlp_train_step(pg__mlp *m);

/** Matmul FLOPs of one step: 6*B*(layers*width*width + width*vocab). */
double pg__mlp_step_flops(int B, int width, int vocab, int layers);

#endif
