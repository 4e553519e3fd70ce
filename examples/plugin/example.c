/*
 * example.c - an example perfgate plugin with two benchmarks.
 *
 * saxpy         y = a*x + y over n floats, the loop form
 *               (while (pg_keep_running(st))), with bytes per iteration.
 * matmul_chain  a chain of `layers` n×n GEMMs through the instrumented
 *               entry point inside a "forward" range, the callback form
 *               (setup/iterate/teardown), with a FLOP count.
 *
 * Built with -DPG_EXAMPLE_SLOWDOWN, matmul_chain runs one extra GEMM per
 * ten layers: a deliberate 10% slowdown for A/B tests (its declared FLOPs
 * stay the same, as in a real regression that adds hidden work).
 */
#include <perfgate/perfgate.h>

#include <math.h>
#include <stdlib.h>

/* Tells the compiler the memory is used, so the work is not optimised away. */
static void escape(void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

static float *random_floats(size_t n, unsigned seed)
{
    float *x = malloc(n * sizeof(*x));
    size_t i;

    for (i = 0; x && i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
    }
    return x;
}

static void saxpy(pg_state *st)
{
    int64_t n = pg_param_int(st, "n", 4096), i;
    float a = (float)pg_param_double(st, "a", 1.5);
    float *x = random_floats((size_t)n, 1), *y = random_floats((size_t)n, 2);

    if (!x || !y || n <= 0) {
        pg_error(st, "cannot allocate the vectors (is n positive?)");
        free(x);
        free(y);
        return;
    }
    pg_bytes(st, 12.0 * (double)n); /* read x and y, write y */
    while (pg_keep_running(st)) {
        for (i = 0; i < n; i++)
            y[i] = a * x[i] + y[i];
        escape(y);
    }
    free(x);
    free(y);
}

typedef struct chain {
    int n, layers, gemms;
    float scale;              /* keeps activations near unit variance: no denormals */
    float *w, *x, *h[2];
} chain;

static void chain_free(void *ctx)
{
    chain *c = ctx;

    if (!c)
        return;
    free(c->w);
    free(c->x);
    free(c->h[0]);
    free(c->h[1]);
    free(c);
}

static void *chain_setup(pg_state *st)
{
    chain *c = calloc(1, sizeof(*c));
    size_t nn;

    if (!c) {
        pg_error(st, "out of memory");
        return NULL;
    }
    c->n = (int)pg_param_int(st, "n", 64);
    c->layers = (int)pg_param_int(st, "layers", 10);
    if (c->n <= 0 || c->layers <= 0) {
        pg_error(st, "n and layers must be positive");
        return c;
    }
    c->gemms = c->layers;
#ifdef PG_EXAMPLE_SLOWDOWN
    c->gemms += (c->layers + 9) / 10;
#endif
    nn = (size_t)c->n * (size_t)c->n;
    /* Entries are uniform in [-0.5, 0.5) (variance 1/12): scale each GEMM by sqrt(12/n). */
    c->scale = (float)sqrt(12.0 / (double)c->n);
    c->w = random_floats(nn, 3);
    c->x = random_floats(nn, 4);
    c->h[0] = random_floats(nn, 5);
    c->h[1] = random_floats(nn, 6);
    if (!c->w || !c->x || !c->h[0] || !c->h[1])
        pg_error(st, "out of memory");
    pg_flops(st, 2.0 * (double)c->n * (double)c->n * (double)c->n * (double)c->layers);
    return c;
}

static void chain_iterate(void *ctx, pg_state *st, int64_t iters)
{
    chain *c = ctx;
    int64_t it;
    int l;

    for (it = 0; it < iters; it++) {
        pg_range_push(st, "forward");
        /* Every iteration starts from the same input, so values never drift. */
        for (l = 0; l < c->gemms; l++)
            pg_gemm_f32(st, "mm", 0, 0, c->n, c->n, c->n, c->scale, l == 0 ? c->x : c->h[(l - 1) & 1], c->n,
                        c->w, c->n, 0.0f, c->h[l & 1], c->n);
        pg_range_pop(st, "forward");
    }
}

static const pg_benchmark benchmarks[] = {
    {"saxpy", "y = a*x + y over n floats (loop form)", saxpy, NULL, NULL, NULL},
    {"matmul_chain", "layers x (n x n) GEMMs in a forward range (callback form)", NULL, chain_setup,
     chain_iterate, chain_free},
};

PG_PLUGIN_DEFINE("example", benchmarks)
