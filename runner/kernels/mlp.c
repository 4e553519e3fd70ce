/*
 * mlp.c - mlp_train_step: the lab's Embedding -> L x (Linear + GELU) ->
 * Linear MLP with cross-entropy, backward and AdamW (see mlp.h).
 *
 * Ops follow PyTorch's CPU dispatch so a recorded step reads like the
 * lesson's profile: "embedding", "addmm", "gelu", "log_softmax", "nll_loss"
 * forward; "nll_loss_backward", "log_softmax_backward", "mm" (grad-weight,
 * grad-input), "sum" (grad-bias), "gelu_backward", "embedding_backward"
 * backward; the AdamW ops per parameter tensor in the optimizer.
 */
#include "kernels/mlp.h"

#include "base/case.h"
#include "kernels/kernels.h"
#include "kernels/ops.h"
#include "perfgate/errors.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Index of Linear i's weight in m->params (its bias follows). */
#define LINEAR_W(i) (1 + 2 * (size_t)(i))

static int linear_out(const pg__mlp_config *cfg, int i)
{
    return i < cfg->layers ? cfg->width : cfg->vocab;
}

static void module_name(char *out, size_t len, int index)
{
    snprintf(out, len, "mlp.%d", index);
}

double pg__mlp_step_flops(int B, int width, int vocab, int layers)
{
    return 6.0 * B * ((double)layers * width * width + (double)width * vocab);
}

static int param_init(pg__mlp_param *p, const char *name, size_t n, float bound, uint64_t *seed)
{
    snprintf(p->name, sizeof(p->name), "%s", name);
    p->n = n;
    p->w = malloc(n * sizeof(float));
    p->grad = calloc(n, sizeof(float));
    p->exp_avg = calloc(n, sizeof(float));
    p->exp_avg_sq = calloc(n, sizeof(float));
    if (!p->w || !p->grad || !p->exp_avg || !p->exp_avg_sq)
        return PG_ENOMEM;
    pg__fill_random_f32(p->w, n, seed, -bound, bound);
    return 0;
}

void pg__mlp_free(pg__mlp *m)
{
    size_t i;

    if (!m)
        return;
    for (i = 0; m->params && i < m->nparams; i++) {
        free(m->params[i].w);
        free(m->params[i].grad);
        free(m->params[i].exp_avg);
        free(m->params[i].exp_avg_sq);
    }
    for (i = 0; m->z && i <= (size_t)m->cfg.layers; i++)
        free(m->z[i]);
    for (i = 0; m->act && i < (size_t)m->cfg.layers; i++)
        free(m->act[i]);
    free(m->params);
    free(m->z);
    free(m->act);
    free(m->tokens);
    free(m->targets);
    free(m->h0);
    free(m->logp);
    free(m->dlogp);
    free(m->dcur);
    free(m->dx);
    free(m->denom);
    free(m);
}

int pg__mlp_new(pg__mlp **out, const pg__mlp_config *cfg)
{
    pg__mlp *m = NULL;
    uint64_t seed = cfg->seed;
    size_t B, W, V, maxn = 0, i;
    int L = cfg->layers, l, err = PG_ENOMEM;
    char name[32];
    float u[2];

    *out = NULL;
    if (cfg->B < 1 || cfg->width < 1 || cfg->vocab < 1 || cfg->layers < 0)
        return pg_error_set(PG_EINVAL, "mlp_train_step: B, width and vocab must be >= 1 and layers >= 0 "
                                       "(got B=%d width=%d vocab=%d layers=%d)",
                            cfg->B, cfg->width, cfg->vocab, cfg->layers);
    B = (size_t)cfg->B;
    W = (size_t)cfg->width;
    V = (size_t)cfg->vocab;
    if (!(m = calloc(1, sizeof(*m))))
        goto cleanup;
    m->cfg = *cfg;
    m->nparams = 1 + 2 * ((size_t)L + 1);
    m->params = calloc(m->nparams, sizeof(*m->params));
    m->z = calloc((size_t)L + 1, sizeof(*m->z));
    m->act = calloc((size_t)L + 1, sizeof(*m->act));
    m->tokens = malloc(B * sizeof(int));
    m->targets = malloc(B * sizeof(int));
    if (!m->params || !m->z || !m->act || !m->tokens || !m->targets)
        goto cleanup;

    /* nn.Embedding draws N(0,1); uniform(-1,1) keeps the same scale without zeros' special cases. */
    if (param_init(&m->params[0], "mlp.0.weight", V * W, 1.0f, &seed) != 0)
        goto cleanup;
    for (l = 0; l <= L; l++) {
        size_t o = (size_t)linear_out(cfg, l);
        /* nn.Linear's default init: uniform(-1/sqrt(in), 1/sqrt(in)) for weight and bias. */
        float bound = 1.0f / sqrtf((float)W);
        snprintf(name, sizeof(name), "mlp.%d.weight", 2 * l + 1);
        if (param_init(&m->params[LINEAR_W(l)], name, o * W, bound, &seed) != 0)
            goto cleanup;
        snprintf(name, sizeof(name), "mlp.%d.bias", 2 * l + 1);
        if (param_init(&m->params[LINEAR_W(l) + 1], name, o, bound, &seed) != 0)
            goto cleanup;
        if (!(m->z[l] = malloc(B * o * sizeof(float))))
            goto cleanup;
        if (l < L && !(m->act[l] = malloc(B * W * sizeof(float))))
            goto cleanup;
    }
    for (i = 0; i < m->nparams; i++)
        maxn = m->params[i].n > maxn ? m->params[i].n : maxn;
    m->h0 = malloc(B * W * sizeof(float));
    m->logp = malloc(B * V * sizeof(float));
    m->dlogp = malloc(B * V * sizeof(float));
    m->dcur = malloc(B * (V > W ? V : W) * sizeof(float));
    m->dx = malloc(B * W * sizeof(float));
    m->denom = malloc(maxn * sizeof(float));
    if (!m->h0 || !m->logp || !m->dlogp || !m->dcur || !m->dx || !m->denom)
        goto cleanup;
    for (i = 0; i < B; i++) {
        pg__fill_random_f32(u, 2, &seed, 0, 1);
        m->tokens[i] = (int)(u[0] * (float)V) % (int)V;
        m->targets[i] = (int)(u[1] * (float)V) % (int)V;
    }
    *out = m;
    m = NULL;
    err = 0;

cleanup:
    pg__mlp_free(m);
    if (err)
        pg_error_set(err, "mlp_train_step: out of memory for B=%d width=%d vocab=%d layers=%d", cfg->B,
                     cfg->width, cfg->vocab, cfg->layers);
    return err;
}

/* ---- forward -------------------------------------------------------------- */

static void linear_forward(pg__mlp *m, int l, const float *x)
{
    const pg__mlp_param *w = &m->params[LINEAR_W(l)], *b = &m->params[LINEAR_W(l) + 1];
    int B = m->cfg.B, in = m->cfg.width, o = linear_out(&m->cfg, l), r;
    float *y = m->z[l];

    /* addmm(bias, x, W^T): the bias broadcast is the beta=1 input of the single GEMM. */
    for (r = 0; r < B; r++)
        memcpy(y + (size_t)r * (size_t)o, b->w, (size_t)o * sizeof(float));
    pg_kernels_gemm_f32("addmm", 0, 1, B, o, in, 1.0f, x, in, w->w, in, 1.0f, y, o);
}

static void cross_entropy_forward(pg__mlp *m)
{
    size_t B = (size_t)m->cfg.B, V = (size_t)m->cfg.vocab, r, j;
    const float *z = m->z[m->cfg.layers];
    double loss = 0;

    pg__op_begin_2d("log_softmax", (int64_t)B, (int64_t)V);
    for (r = 0; r < B; r++) {
        const float *zr = z + r * V;
        float *lr = m->logp + r * V, mx = zr[0], sum = 0, lse;
        for (j = 1; j < V; j++)
            mx = zr[j] > mx ? zr[j] : mx;
        for (j = 0; j < V; j++)
            sum += expf(zr[j] - mx);
        lse = mx + logf(sum);
        for (j = 0; j < V; j++)
            lr[j] = zr[j] - lse;
    }
    pg__op_end("log_softmax");
    pg__op_begin_2d("nll_loss", (int64_t)B, (int64_t)V);
    for (r = 0; r < B; r++)
        loss -= m->logp[r * V + (size_t)m->targets[r]];
    m->loss = loss / (double)B;
    pg__op_end("nll_loss");
}

void pg__mlp_forward(pg__mlp *m, double *out_loss)
{
    size_t B = (size_t)m->cfg.B, W = (size_t)m->cfg.width, r;
    const float *x = m->h0;
    char name[24];
    int l, L = m->cfg.layers;

    pg__module_push("mlp", 0);
    pg__module_push("mlp.0", 0);
    pg__op_begin_2d("embedding", (int64_t)B, (int64_t)W);
    for (r = 0; r < B; r++)
        memcpy(m->h0 + r * W, m->params[0].w + (size_t)m->tokens[r] * W, W * sizeof(float));
    pg__op_end("embedding");
    pg__module_pop("mlp.0");
    for (l = 0; l <= L; l++) {
        module_name(name, sizeof(name), 2 * l + 1);
        pg__module_push(name, 0);
        linear_forward(m, l, x);
        pg__module_pop(name);
        if (l < L) {
            module_name(name, sizeof(name), 2 * l + 2);
            pg__module_push(name, 0);
            pg__gelu_f32(m->act[l], m->z[l], B * W);
            pg__module_pop(name);
            x = m->act[l];
        }
    }
    pg__module_pop("mlp");
    cross_entropy_forward(m);
    if (out_loss)
        *out_loss = m->loss;
}

/* ---- backward ------------------------------------------------------------- */

static void cross_entropy_backward(pg__mlp *m)
{
    size_t B = (size_t)m->cfg.B, V = (size_t)m->cfg.vocab, r, j;
    float scale = 1.0f / (float)B;

    /* d loss / d logp: -1/B at each target, zero elsewhere. */
    pg__op_begin_2d("nll_loss_backward", (int64_t)B, (int64_t)V);
    memset(m->dlogp, 0, B * V * sizeof(float));
    for (r = 0; r < B; r++)
        m->dlogp[r * V + (size_t)m->targets[r]] = -scale;
    pg__op_end("nll_loss_backward");
    /* d logits = dlogp - softmax * sum(dlogp) per row, softmax = exp(logp). */
    pg__op_begin_2d("log_softmax_backward", (int64_t)B, (int64_t)V);
    for (r = 0; r < B; r++) {
        const float *g = m->dlogp + r * V, *lp = m->logp + r * V;
        float *d = m->dcur + r * V, s = 0;
        for (j = 0; j < V; j++)
            s += g[j];
        for (j = 0; j < V; j++)
            d[j] = g[j] - expf(lp[j]) * s;
    }
    pg__op_end("log_softmax_backward");
}

static void linear_backward(pg__mlp *m, int l, const float *x, const float *dy, float *dx)
{
    pg__mlp_param *w = &m->params[LINEAR_W(l)], *b = &m->params[LINEAR_W(l) + 1];
    int B = m->cfg.B, in = m->cfg.width, o = linear_out(&m->cfg, l), r, j;

    /* grad-weight: dY^T [o,B] @ X [B,in] */
    pg_kernels_gemm_f32("mm", 1, 0, o, in, B, 1.0f, dy, o, x, in, 0.0f, w->grad, in);
    pg__op_begin_2d("sum", B, o);
    for (j = 0; j < o; j++)
        b->grad[j] = 0;
    for (r = 0; r < B; r++)
        for (j = 0; j < o; j++)
            b->grad[j] += dy[(size_t)r * (size_t)o + (size_t)j];
    pg__op_end("sum");
    /* grad-input: every Linear's input requires grad (the embedding is in front). */
    pg_kernels_gemm_f32("mm", 0, 0, B, in, o, 1.0f, dy, o, w->w, in, 0.0f, dx, in);
}

void pg__mlp_backward(pg__mlp *m)
{
    size_t B = (size_t)m->cfg.B, W = (size_t)m->cfg.width, r, j;
    pg__mlp_param *e = &m->params[0];
    int l, L = m->cfg.layers;
    char name[24];

    cross_entropy_backward(m);
    pg__module_push("mlp", 1);
    for (l = L; l >= 0; l--) {
        const float *x = l > 0 ? m->act[l - 1] : m->h0;
        module_name(name, sizeof(name), 2 * l + 1);
        pg__module_push(name, 1);
        linear_backward(m, l, x, m->dcur, m->dx);
        pg__module_pop(name);
        if (l > 0) {
            module_name(name, sizeof(name), 2 * l);
            pg__module_push(name, 1);
            pg__gelu_backward_f32(m->dcur, m->dx, m->z[l - 1], B * W);
            pg__module_pop(name);
        }
    }
    pg__module_push("mlp.0", 1);
    pg__op_begin_2d("embedding_backward", (int64_t)B, (int64_t)W);
    memset(e->grad, 0, e->n * sizeof(float));
    for (r = 0; r < B; r++) {
        float *g = e->grad + (size_t)m->tokens[r] * W;
        for (j = 0; j < W; j++)
            g[j] += m->dx[r * W + j];
    }
    pg__op_end("embedding_backward");
    pg__module_pop("mlp.0");
    pg__module_pop("mlp");
}

/* ---- AdamW ---------------------------------------------------------------- */

/* torch's _single_tensor_adamw on CPU: each line is one small op over the tensor. */
static void adamw_forloop(pg__mlp *m, pg__mlp_param *p, float step_size, float bc2_sqrt)
{
    const pg__mlp_config *c = &m->cfg;
    /* Distinct tensors: restrict lets -O2 vectorise each pass as ATen's kernels are. */
    float *restrict w = p->w, *restrict ea = p->exp_avg, *restrict es = p->exp_avg_sq, *restrict d = m->denom;
    const float *restrict g = p->grad;
    int64_t n = (int64_t)p->n;
    size_t i, N = p->n;

    pg__op_begin_2d("mul_", n, -1); /* param.mul_(1 - lr*wd) */
    for (i = 0; i < N; i++)
        w[i] *= 1.0f - c->lr * c->weight_decay;
    pg__op_end("mul_");
    pg__op_begin_2d("mul_", n, -1); /* exp_avg.mul_(beta1) */
    for (i = 0; i < N; i++)
        ea[i] *= c->beta1;
    pg__op_end("mul_");
    pg__op_begin_2d("add_", n, -1); /* exp_avg.add_(grad, alpha=1-beta1) */
    for (i = 0; i < N; i++)
        ea[i] += (1.0f - c->beta1) * g[i];
    pg__op_end("add_");
    pg__op_begin_2d("mul_", n, -1); /* exp_avg_sq.mul_(beta2) */
    for (i = 0; i < N; i++)
        es[i] *= c->beta2;
    pg__op_end("mul_");
    pg__op_begin_2d("addcmul_", n, -1); /* exp_avg_sq.addcmul_(grad, grad, value=1-beta2) */
    for (i = 0; i < N; i++)
        es[i] += (1.0f - c->beta2) * g[i] * g[i];
    pg__op_end("addcmul_");
    pg__op_begin_2d("sqrt", n, -1); /* denom = exp_avg_sq.sqrt() (a new tensor) */
    for (i = 0; i < N; i++)
        d[i] = sqrtf(es[i]);
    pg__op_end("sqrt");
    pg__op_begin_2d("div_", n, -1); /* .div_(bias_correction2_sqrt) */
    for (i = 0; i < N; i++)
        d[i] /= bc2_sqrt;
    pg__op_end("div_");
    pg__op_begin_2d("add_", n, -1); /* .add_(eps) */
    for (i = 0; i < N; i++)
        d[i] += c->eps;
    pg__op_end("add_");
    pg__op_begin_2d("addcdiv_", n, -1); /* param.addcdiv_(exp_avg, denom, value=-step_size) */
    for (i = 0; i < N; i++)
        w[i] -= step_size * ea[i] / d[i];
    pg__op_end("addcdiv_");
}

/* The same arithmetic in one pass: what fused=True buys is fewer trips through memory. */
static void adamw_fused(pg__mlp *m, pg__mlp_param *p, float step_size, float bc2_sqrt)
{
    const pg__mlp_config *c = &m->cfg;
    float *restrict w = p->w, *restrict ea = p->exp_avg, *restrict es = p->exp_avg_sq;
    const float *restrict g = p->grad;
    size_t i, N = p->n;

    pg__op_begin_2d("adamw_fused", (int64_t)N, -1);
    for (i = 0; i < N; i++) {
        float a, s, d;
        w[i] *= 1.0f - c->lr * c->weight_decay;
        a = ea[i] * c->beta1;
        a += (1.0f - c->beta1) * g[i];
        s = es[i] * c->beta2;
        s += (1.0f - c->beta2) * g[i] * g[i];
        d = sqrtf(s) / bc2_sqrt + c->eps;
        w[i] -= step_size * a / d;
        ea[i] = a;
        es[i] = s;
    }
    pg__op_end("adamw_fused");
}

void pg__mlp_optimizer_step(pg__mlp *m)
{
    const pg__mlp_config *c = &m->cfg;
    double bc1, bc2;
    float step_size, bc2_sqrt;
    size_t i;

    m->step++;
    bc1 = 1.0 - pow(c->beta1, (double)m->step);
    bc2 = 1.0 - pow(c->beta2, (double)m->step);
    step_size = (float)(c->lr / bc1);
    bc2_sqrt = (float)sqrt(bc2);
    for (i = 0; i < m->nparams; i++) {
        if (c->adamw == PG_ADAMW_FUSED)
            adamw_fused(m, &m->params[i], step_size, bc2_sqrt);
        else
            adamw_forloop(m, &m->params[i], step_size, bc2_sqrt);
    }
}

void pg__mlp_train_step(pg__mlp *m)
{
    pg__range_push("forward");
    pg__mlp_forward(m, NULL);
    pg__range_pop("forward");
    pg__range_push("backward");
    pg__mlp_backward(m);
    pg__range_pop("backward");
    pg__range_push("optimizer");
    pg__mlp_optimizer_step(m);
    pg__range_pop("optimizer");
}

/* ---- kernel descriptor: B, width, vocab, layers, adamw -------------------- */

static int mlp_config(pg__mlp_config *out, const pg_case *c)
{
    pg__mlp_config dflt = PG_MLP_CONFIG_INIT;
    const char *adamw = pg_case_param_str(c, "adamw", "fused");
    int64_t v[4];
    int i;

    *out = dflt;
    v[0] = pg_case_param_int(c, "B", dflt.B);
    v[1] = pg_case_param_int(c, "width", dflt.width);
    v[2] = pg_case_param_int(c, "vocab", dflt.vocab);
    v[3] = pg_case_param_int(c, "layers", dflt.layers);
    for (i = 0; i < 4; i++)
        if (v[i] < (i == 3 ? 0 : 1) || v[i] > (1 << 20))
            return pg_error_set(PG_EINVAL, "%s: params B, width, vocab must be in 1..2^20 and layers in 0..2^20",
                                c->key);
    out->B = (int)v[0];
    out->width = (int)v[1];
    out->vocab = (int)v[2];
    out->layers = (int)v[3];
    if (strcmp(adamw, "forloop") == 0)
        out->adamw = PG_ADAMW_FORLOOP;
    else if (strcmp(adamw, "fused") == 0)
        out->adamw = PG_ADAMW_FUSED;
    else
        return pg_error_set(PG_EINVAL, "%s: param adamw must be 'forloop' or 'fused', got '%s'", c->key, adamw);
    return 0;
}

static int mlp_setup(void **out, const pg_case *c)
{
    pg__mlp_config cfg;
    pg__mlp *m;
    int err;

    *out = NULL;
    if ((err = mlp_config(&cfg, c)) != 0 || (err = pg__mlp_new(&m, &cfg)) != 0)
        return err;
    *out = m;
    return 0;
}

static int mlp_run(void *state, int64_t iters)
{
    int64_t i;

    for (i = 0; i < iters; i++)
        pg__mlp_train_step(state);
    return 0;
}

static void mlp_teardown(void *state)
{
    pg__mlp_free(state);
}

static double mlp_flops(const pg_case *c)
{
    pg__mlp_config cfg;

    if (mlp_config(&cfg, c) != 0)
        return 0;
    return pg__mlp_step_flops(cfg.B, cfg.width, cfg.vocab, cfg.layers);
}

static const char *const mlp_params[] = {"B", "width", "vocab", "layers", "adamw", NULL};

const pg_kernel pg__kernel_mlp_train_step = {
    "mlp_train_step", "cpu",
    "Embedding -> layers x (Linear+GELU) -> Linear, cross-entropy, backward, AdamW forloop|fused",
    mlp_params, mlp_setup, mlp_run, mlp_teardown, mlp_flops, NULL};
