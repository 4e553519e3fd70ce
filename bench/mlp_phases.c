/*
 * mlp_phases.c - where mlp_train_step's time goes: per-phase (forward,
 * backward, optimizer) and per-op time of AdamW forloop versus fused,
 * measured through the kernels' own range/op hooks, plus the uninstrumented
 * step median of each and their ratio. The lesson's lab found the forloop
 * step optimizer-dominated (1.93 ms of 3.06 ms of phases on an M2 Pro at 4
 * threads); this prints the same split for this machine.
 *   usage: bench_mlp_phases [STEPS [THREADS [wall|cpu]]]
 * (default 200 steps, 1 thread, cpu: the process's CPU time, so preemption on a loaded machine
 * stays out of the figures; wall for wall-clock time.)
 */
#include "base/instrument.h"
#include "kernels/mlp.h"
#include "measure/measure.h"
#include "stats/stats.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAMES 64

static const pg_clock *clk = &pg_clock_process_cpu;

static int64_t now_ns(void)
{
    return clk->now_ns(clk->payload);
}

typedef struct timer {
    const char *names[MAX_NAMES];
    double *per_step[MAX_NAMES]; /* seconds per step, one entry per step */
    size_t n, steps, step;
    int64_t open_at[MAX_NAMES];
} timer;

static size_t slot(timer *t, const char *name)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        if (strcmp(t->names[i], name) == 0)
            return i;
    if (t->n == MAX_NAMES) {
        fprintf(stderr, "too many distinct names\n");
        exit(3);
    }
    t->names[t->n] = name;
    t->per_step[t->n] = calloc(t->steps, sizeof(double));
    if (!t->per_step[t->n])
        exit(3);
    return t->n++;
}

/* Ops of the MLP step never nest (checked by tests/kernels), so one start time per name suffices. */
static void op_begin(void *p, const char *name, const char *shape)
{
    timer *t = p;

    (void)shape;
    t->open_at[slot(t, name)] = now_ns();
}

static void op_end(void *p, const char *name)
{
    timer *t = p;
    size_t i = slot(t, name);

    t->per_step[i][t->step] += (double)(now_ns() - t->open_at[i]) * 1e-9;
}

/* Ranges are bracketed "[forward]" so they sort apart from ops of the same name. */
static const char *phase_key(const char *range)
{
    return strcmp(range, "forward") == 0 ? "[forward]" : strcmp(range, "backward") == 0 ? "[backward]" : "[optimizer]";
}

static void range_push(void *p, const char *name)
{
    timer *t = p;

    t->open_at[slot(t, phase_key(name))] = now_ns();
}

static void range_pop(void *p, const char *name)
{
    timer *t = p;
    size_t i = slot(t, phase_key(name));

    t->per_step[i][t->step] += (double)(now_ns() - t->open_at[i]) * 1e-9;
}

typedef struct ranked {
    const char *name;
    double median;
} ranked;

static int by_time(const void *a, const void *b)
{
    double x = ((const ranked *)a)->median, y = ((const ranked *)b)->median;

    return (x < y) - (x > y);
}

/* Prints a variant's phase split and top ops from its instrumented steps. */
static void report(const char *label, timer *t, double plain_median, double *out_phase)
{
    ranked r[MAX_NAMES];
    size_t i, k = 0;

    printf("adamw=%s: step median %.3f ms (uninstrumented, interleaved)\n", label, plain_median * 1e3);
    for (i = 0; i < t->n; i++) {
        r[k].name = t->names[i];
        r[k++].median = pg_stats_median(t->per_step[i], t->steps);
    }
    qsort(r, k, sizeof(r[0]), by_time);
    printf("  phases (median per step, instrumented):");
    for (i = 0; i < k; i++)
        if (r[i].name[0] == '[') {
            printf("  %s %.3f ms", r[i].name, r[i].median * 1e3);
            out_phase[strcmp(r[i].name, "[forward]") == 0 ? 0 : strcmp(r[i].name, "[backward]") == 0 ? 1 : 2] =
                r[i].median;
        }
    printf("\n  optimizer share of the phases: %.0f%%\n",
           100 * out_phase[2] / (out_phase[0] + out_phase[1] + out_phase[2]));
    printf("  top ops by median time per step (all calls of the op summed):\n");
    for (i = 0, k = 0; i < t->n && k < 8; i++)
        if (r[i].name[0] != '[') {
            printf("    %-22s %8.3f ms\n", r[i].name, r[i].median * 1e3);
            k++;
        }
}

static int64_t timed_step(pg__mlp *m)
{
    int64_t t0 = now_ns();

    pg__mlp_train_step(m);
    return now_ns() - t0;
}

int main(int argc, char **argv)
{
    size_t steps = argc > 1 ? (size_t)atol(argv[1]) : 200, i, v;
    int threads = argc > 2 ? atoi(argv[2]) : 1;
    const char *clock_name = argc > 3 ? argv[3] : "cpu";
    double ph[2][3] = {{0}}, med[2], *plain[2], *ratio;
    pg__mlp_config cfg = PG_MLP_CONFIG_INIT;
    pg__mlp *m[2] = {NULL, NULL};
    timer t[2];
    pg_instrument ins[2];

    if (strcmp(clock_name, "wall") == 0)
        clk = &pg_clock_monotonic;
    if (steps < 1 || threads < 1 || (strcmp(clock_name, "wall") != 0 && strcmp(clock_name, "cpu") != 0) ||
        pg_measure_set_threads(NULL, threads) != 0) {
        fprintf(stderr, "usage: bench_mlp_phases [STEPS [THREADS [wall|cpu]]]\n");
        return 2;
    }
    printf("mlp_train_step B=%d width=%d vocab=%d layers=%d at %d thread%s, %zu interleaved rounds, %s time\n",
           cfg.B, cfg.width, cfg.vocab, cfg.layers, threads, threads > 1 ? "s" : "", steps,
           clk == &pg_clock_monotonic ? "wall" : "process CPU");
    ratio = calloc(steps, sizeof(double));
    for (v = 0; v < 2; v++) {
        pg_instrument one = {op_begin, op_end, NULL, range_push, range_pop, NULL, NULL, &t[v]};
        cfg.adamw = v == 0 ? PG_ADAMW_FORLOOP : PG_ADAMW_FUSED;
        memset(&t[v], 0, sizeof(t[v]));
        t[v].steps = steps;
        ins[v] = one;
        plain[v] = calloc(steps, sizeof(double));
        if (!plain[v] || !ratio || pg__mlp_new(&m[v], &cfg) != 0)
            return 3;
        for (i = 0; i < 20; i++) /* warm-up: page faults, caches, BLAS buffers */
            pg__mlp_train_step(m[v]);
    }
    /* Alternate the variants step by step, so load from other processes hits both alike; the
       uninstrumented steps give the times, the instrumented ones the split. */
    for (i = 0; i < steps; i++) {
        for (v = 0; v < 2; v++)
            plain[v][i] = (double)timed_step(m[v]) * 1e-9;
        ratio[i] = plain[0][i] / plain[1][i];
        for (v = 0; v < 2; v++) {
            t[v].step = i;
            pg__instrument_set(&ins[v]);
            pg__mlp_train_step(m[v]);
            pg__instrument_set(NULL);
        }
    }
    for (v = 0; v < 2; v++) {
        med[v] = pg_stats_median(plain[v], steps);
        report(v == 0 ? "forloop" : "fused", &t[v], med[v], ph[v]);
    }
    printf("forloop / fused: step %.2fx (ratio of medians), %.2fx (median of per-round ratios); "
           "optimizer phase %.3f -> %.3f ms (%.2fx)\n",
           med[0] / med[1], pg_stats_median(ratio, steps), ph[0][2] * 1e3, ph[1][2] * 1e3, ph[0][2] / ph[1][2]);
    for (v = 0; v < 2; v++) {
        for (i = 0; i < t[v].n; i++)
            free(t[v].per_step[i]);
        free(plain[v]);
        pg__mlp_free(m[v]);
    }
    free(ratio);
    return 0;
}
