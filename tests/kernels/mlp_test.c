/* mlp_test.c - mlp_train_step: loss against a double reference, gradients by finite differences,
   AdamW against the update formula, and the op/range/module/FLOP contract. */
#include "support.h"

#include "kernels/mlp.h"
#include "recorder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tiny shape: every parameter can be perturbed one by one. */
static pg__mlp *tiny(pg__adamw_kind adamw, uint64_t seed)
{
    pg__mlp_config cfg = PG_MLP_CONFIG_INIT;
    pg__mlp *m = NULL;

    cfg.B = 5;
    cfg.width = 6;
    cfg.vocab = 7;
    cfg.layers = 2;
    cfg.adamw = adamw;
    cfg.seed = seed;
    pg_assert_ok(pg__mlp_new(&m, &cfg));
    return m;
}

static double gelu_d(double x)
{
    return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
}

/* The same network written plainly in double: embedding, Linear+GELU layers, Linear, cross-entropy. */
static double ref_loss(const pg__mlp *m)
{
    int B = m->cfg.B, W = m->cfg.width, V = m->cfg.vocab, L = m->cfg.layers, b, l, i, o;
    double loss = 0, *h = calloc((size_t)B * (size_t)(W > V ? W : V), sizeof(double));
    double *next = calloc((size_t)B * (size_t)(W > V ? W : V), sizeof(double));

    cr_assert(h && next);
    for (b = 0; b < B; b++)
        for (i = 0; i < W; i++)
            h[b * W + i] = m->params[0].w[m->tokens[b] * W + i];
    for (l = 0; l <= L; l++) {
        const float *w = m->params[1 + 2 * l].w, *bias = m->params[2 + 2 * l].w;
        int out = l < L ? W : V;
        double *t;
        for (b = 0; b < B; b++)
            for (o = 0; o < out; o++) {
                double s = bias[o];
                for (i = 0; i < W; i++)
                    s += h[b * W + i] * w[o * W + i];
                next[b * out + o] = l < L ? gelu_d(s) : s;
            }
        t = h;
        h = next;
        next = t;
    }
    for (b = 0; b < B; b++) {
        double mx = -INFINITY, s = 0;
        for (o = 0; o < V; o++)
            mx = fmax(mx, h[b * V + o]);
        for (o = 0; o < V; o++)
            s += exp(h[b * V + o] - mx);
        loss -= h[b * V + m->targets[b]] - mx - log(s);
    }
    free(h);
    free(next);
    return loss / B;
}

Test(mlp, forward_loss_matches_double_reference)
{
    uint64_t seed = fresh_seed();
    pg__mlp *m = tiny(PG_ADAMW_FUSED, seed);
    double loss, ref = ref_loss(m);

    pg__mlp_forward(m, &loss);
    cr_expect(isfinite(loss) && loss > 0, "loss %g", loss);
    cr_expect(fabs(loss - ref) <= 1e-5 * fabs(ref), "loss %.9g vs reference %.9g (PG_TEST_SEED=%llu replays it)", loss, ref,
              (unsigned long long)seed);
    pg__mlp_free(m);
}

Test(mlp, gradients_match_central_differences_of_the_reference)
{
    uint64_t seed = fresh_seed();
    pg__mlp *m = tiny(PG_ADAMW_FUSED, seed);
    const double h = 1e-3;
    size_t p, i, checked = 0;

    pg__mlp_forward(m, NULL);
    pg__mlp_backward(m);
    for (p = 0; p < m->nparams; p++) {
        pg__mlp_param *t = &m->params[p];
        for (i = 0; i < t->n; i++) {
            float w0 = t->w[i];
            double lp, lm, fd;
            /* Perturb in double through the float weight: use the actually represented step. */
            float wp = (float)(w0 + h), wm = (float)(w0 - h);
            t->w[i] = wp;
            lp = ref_loss(m);
            t->w[i] = wm;
            lm = ref_loss(m);
            t->w[i] = w0;
            fd = (lp - lm) / ((double)wp - (double)wm);
            cr_assert(fabs(t->grad[i] - fd) <= 2e-5 + 2e-3 * fabs(fd),
                      "%s[%zu]: backward %.7g, finite difference %.7g (PG_TEST_SEED=%llu replays it)", t->name, i, t->grad[i], fd,
                      (unsigned long long)seed);
            checked++;
        }
    }
    /* 7x6 embedding, two 6x6 Linears, a 6->7 Linear, with biases. */
    cr_expect_eq(checked, 7 * 6 + 2 * (36 + 6) + (42 + 7));
    pg__mlp_free(m);
}

Test(mlp, gradients_match_finite_differences_of_the_kernel_forward)
{
    /* The fp32 forward itself, differenced: coarser (float rounding), over each tensor as a whole. */
    uint64_t seed = fresh_seed();
    pg__mlp *m = tiny(PG_ADAMW_FUSED, seed);
    const float h = 1e-2f;
    size_t p, i;

    pg__mlp_forward(m, NULL);
    pg__mlp_backward(m);
    for (p = 0; p < m->nparams; p++) {
        pg__mlp_param *t = &m->params[p];
        double num = 0, den = 0;
        for (i = 0; i < t->n; i++) {
            float w0 = t->w[i];
            double lp, lm, fd;
            t->w[i] = w0 + h;
            pg__mlp_forward(m, &lp);
            t->w[i] = w0 - h;
            pg__mlp_forward(m, &lm);
            t->w[i] = w0;
            fd = (lp - lm) / ((double)(w0 + h) - (double)(w0 - h));
            num += (fd - t->grad[i]) * (fd - t->grad[i]);
            den += (double)t->grad[i] * t->grad[i];
        }
        cr_expect(sqrt(num) <= 2e-2 * sqrt(den) + 1e-6, "%s: |fd - grad| / |grad| = %.3g (PG_TEST_SEED=%llu replays it)", t->name,
                  sqrt(num / (den > 0 ? den : 1)), (unsigned long long)seed);
    }
    pg__mlp_free(m);
}

/* AdamW (decoupled weight decay) in double, one step at step number t. */
static void ref_adamw(double *w, double *ea, double *es, double g, const pg__mlp_config *c, int t)
{
    double bc1 = 1 - pow(c->beta1, t), bc2 = 1 - pow(c->beta2, t);

    *w *= 1 - (double)c->lr * c->weight_decay;
    *ea = c->beta1 * *ea + (1 - (double)c->beta1) * g;
    *es = c->beta2 * *es + (1 - (double)c->beta2) * g * g;
    *w -= (double)c->lr / bc1 * *ea / (sqrt(*es) / sqrt(bc2) + c->eps);
}

static void check_adamw(pg__adamw_kind kind)
{
    uint64_t seed = fresh_seed();
    pg__mlp *m = tiny(kind, seed);
    double **want = calloc(m->nparams, sizeof(*want));
    size_t p, i;
    int t;

    cr_assert_not_null(want);
    /* Real gradients, then three optimizer steps with them held fixed. */
    pg__mlp_forward(m, NULL);
    pg__mlp_backward(m);
    for (p = 0; p < m->nparams; p++) {
        const pg__mlp_param *q = &m->params[p];
        double *ea = calloc(q->n, sizeof(double)), *es = calloc(q->n, sizeof(double));
        want[p] = malloc(q->n * sizeof(double));
        cr_assert(want[p] && ea && es);
        for (i = 0; i < q->n; i++)
            want[p][i] = q->w[i];
        for (t = 1; t <= 3; t++)
            for (i = 0; i < q->n; i++)
                ref_adamw(&want[p][i], &ea[i], &es[i], q->grad[i], &m->cfg, t);
        free(ea);
        free(es);
    }
    for (t = 1; t <= 3; t++)
        pg__mlp_optimizer_step(m);
    cr_expect_eq(m->step, 3);
    for (p = 0; p < m->nparams; p++) {
        const pg__mlp_param *q = &m->params[p];
        for (i = 0; i < q->n; i++) {
            /* Each step moves a weight by about lr; compare the motion, not just the value. */
            cr_assert(fabs(q->w[i] - want[p][i]) <= 1e-6 + 1e-5 * fabs(want[p][i]),
                      "%s %s[%zu]: %.9g vs %.9g (PG_TEST_SEED=%llu replays it)", kind == PG_ADAMW_FUSED ? "fused" : "forloop",
                      q->name, i, q->w[i], want[p][i], (unsigned long long)seed);
        }
        free(want[p]);
    }
    free(want);
    pg__mlp_free(m);
}

Test(mlp, adamw_forloop_matches_update_formula)
{
    check_adamw(PG_ADAMW_FORLOOP);
}

Test(mlp, adamw_fused_matches_update_formula)
{
    check_adamw(PG_ADAMW_FUSED);
}

Test(mlp, forloop_and_fused_train_the_same)
{
    uint64_t seed = fresh_seed();
    pg__mlp *a = tiny(PG_ADAMW_FORLOOP, seed), *b = tiny(PG_ADAMW_FUSED, seed);
    double la0, la, lb;
    size_t p, i;
    int s;

    pg__mlp_forward(a, &la0);
    for (s = 0; s < 20; s++) {
        pg__mlp_train_step(a);
        pg__mlp_train_step(b);
    }
    pg__mlp_forward(a, &la);
    pg__mlp_forward(b, &lb);
    cr_expect(la < la0, "20 AdamW steps did not lower the loss: %g -> %g (PG_TEST_SEED=%llu replays it)", la0, la,
              (unsigned long long)seed);
    cr_expect(fabs(la - lb) <= 1e-4 * la, "forloop %g vs fused %g", la, lb);
    for (p = 0; p < a->nparams; p++)
        for (i = 0; i < a->params[p].n; i++)
            cr_assert(fabs(a->params[p].w[i] - b->params[p].w[i]) <= 1e-5, "%s[%zu]", a->params[p].name, i);
    pg__mlp_free(a);
    pg__mlp_free(b);
}

/* The kernel op contract that the FLOP counter and op checks build on. */
static void check_contract(pg__adamw_kind kind)
{
    pg__mlp_config cfg = PG_MLP_CONFIG_INIT;
    const int B = 8, W = 16, V = 24, L = 3;
    pg__mlp *m = NULL;
    recorder r;
    char line[32];
    int l;

    cfg.B = B;
    cfg.width = W;
    cfg.vocab = V;
    cfg.layers = L;
    cfg.adamw = kind;
    pg_assert_ok(pg__mlp_new(&m, &cfg));
    recorder_start(&r);
    pg__mlp_train_step(m);
    cr_expect(r.flops == 6.0 * B * (L * W * W + W * V), "step FLOPs %g", r.flops);
    cr_expect(r.flops == pg__mlp_step_flops(B, W, V, L));
    cr_expect_eq(r.depth, 0, "unbalanced op brackets");
    cr_expect_eq(r.max_depth, 1, "ops of the step do not nest");
    cr_expect_eq(recorder_count(&r, "range+ forward"), 1);
    cr_expect_eq(recorder_count(&r, "range+ backward"), 1);
    cr_expect_eq(recorder_count(&r, "range+ optimizer"), 1);
    cr_expect_eq(recorder_count(&r, "op+ addmm"), L + 1);
    cr_expect_eq(recorder_count(&r, "op+ mm"), 2 * (L + 1));
    cr_expect_eq(recorder_count(&r, "op+ gelu"), L);
    cr_expect_eq(recorder_count(&r, "op+ gelu_backward"), L);
    cr_expect_eq(recorder_count(&r, "op+ embedding"), 1);
    cr_expect_eq(recorder_count(&r, "op+ embedding_backward"), 1);
    cr_expect_eq(recorder_count(&r, "op+ log_softmax"), 1);
    cr_expect_eq(recorder_count(&r, "op+ nll_loss"), 1);
    cr_expect_eq(recorder_count(&r, "mod+ mlp"), 1);
    cr_expect_eq(recorder_count(&r, "mod+ mlp bw"), 1);
    cr_expect_eq(recorder_count(&r, "mod+ mlp.0"), 1);
    cr_expect_eq(recorder_count(&r, "mod+ mlp.0 bw"), 1);
    for (l = 0; l <= L; l++) {
        snprintf(line, sizeof(line), "mod+ mlp.%d", 2 * l + 1);
        cr_expect_eq(recorder_count(&r, line), 1, "%s", line);
        snprintf(line, sizeof(line), "mod+ mlp.%d bw", 2 * l + 1);
        cr_expect_eq(recorder_count(&r, line), 1, "%s", line);
        snprintf(line, sizeof(line), "mod+ mlp.%d", 2 * l + 2);
        cr_expect_eq(recorder_count(&r, line), l < L, "%s", line);
    }
    /* Embedding + (weight, bias) per Linear: 9 tensors for the lab's 3 hidden layers. */
    cr_expect_eq(m->nparams, 9);
    if (kind == PG_ADAMW_FUSED) {
        cr_expect_eq(recorder_count(&r, "op+ adamw_fused"), 9);
        cr_expect_eq(recorder_count(&r, "op+ addcdiv_"), 0);
    } else {
        cr_expect_eq(recorder_count(&r, "op+ adamw_fused"), 0);
        cr_expect_eq(recorder_count(&r, "op+ mul_"), 3 * 9);
        cr_expect_eq(recorder_count(&r, "op+ add_"), 2 * 9);
        cr_expect_eq(recorder_count(&r, "op+ addcmul_"), 9);
        cr_expect_eq(recorder_count(&r, "op+ sqrt"), 9);
        cr_expect_eq(recorder_count(&r, "op+ div_"), 9);
        cr_expect_eq(recorder_count(&r, "op+ addcdiv_"), 9);
    }
    recorder_stop(&r);
    pg__mlp_free(m);
}

Test(mlp, forloop_step_follows_the_op_contract)
{
    check_contract(PG_ADAMW_FORLOOP);
}

Test(mlp, fused_step_follows_the_op_contract)
{
    check_contract(PG_ADAMW_FUSED);
}

Test(mlp, ranges_wrap_the_phases_in_order)
{
    pg__mlp *m = tiny(PG_ADAMW_FUSED, 1);
    recorder r;
    const char *f, *b, *o, *first_mm, *first_addmm, *first_opt;

    recorder_start(&r);
    pg__mlp_train_step(m);
    f = strstr(r.log.ptr, "range+ forward\n");
    b = strstr(r.log.ptr, "range+ backward\n");
    o = strstr(r.log.ptr, "range+ optimizer\n");
    first_addmm = strstr(r.log.ptr, "op+ addmm\n");
    first_mm = strstr(r.log.ptr, "op+ mm\n");
    first_opt = strstr(r.log.ptr, "op+ adamw_fused\n");
    cr_assert(f && b && o && first_mm && first_addmm && first_opt);
    cr_expect(f < first_addmm && first_addmm < strstr(r.log.ptr, "range- forward\n"));
    cr_expect(b < first_mm && first_mm < strstr(r.log.ptr, "range- backward\n"));
    cr_expect(o < first_opt && first_opt < strstr(r.log.ptr, "range- optimizer\n"));
    recorder_stop(&r);
    pg__mlp_free(m);
}
