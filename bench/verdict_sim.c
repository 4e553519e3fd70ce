/*
 * verdict_sim.c - verdict quality in simulation: how often pg_compare()
 * fails an unchanged suite (A/A) and how often it catches a slowdown (A/B),
 * with the noise measured on our machines (notes/noise.md).
 *
 * Model per case c and run r: sample = base_c * exp(d_rc + e), with
 *   e    ~ sample noise: normal with sd sigma_c (sigma_c log-uniform in
 *          [noise_lo, noise_hi]; IQR 4.6..25.7% of the median at one
 *          thread means sigma 0.034..0.19), plus a fraction `outliers` of
 *          samples slowed by a factor 1 + |N(0, 0.5)| (the 2..9x blocks);
 *   d_rc ~ run-to-run drift: sd `drift`, a share `rho` of it common to every
 *          case of the run (the machine's state), the rest per case.
 * Every A/A suite runs `cases` cases: K baseline runs against one head run.
 * A/B slows case 0 of the head by `slow`.
 *
 * usage: bench_verdict_sim [trials=N] [cases=20] [n=20] [k=5] [drift=0.022]
 *        [rho=0.5] [noise_lo=0.034] [noise_hi=0.19] [outliers=0.03] [grid=1]
 * With grid=1 (default) it prints a table over K, n and drift; every figure is
 * reproducible (fixed seeds).
 */
#include "stats/stats.h"
#include "base/util.h"
#include "verdict/verdict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sim {
    int trials, cases, n, k, grid;
    double drift, rho, noise_lo, noise_hi, outliers;
} sim;

static double gauss(pg_rng *g)
{
    double u1 = ((double)(pg_stats_rng_next(g) >> 11) + 0.5) * 0x1.0p-53;
    double u2 = ((double)(pg_stats_rng_next(g) >> 11) + 0.5) * 0x1.0p-53;

    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static double unif(pg_rng *g)
{
    return ((double)(pg_stats_rng_next(g) >> 11) + 0.5) * 0x1.0p-53;
}

/* One run of the suite; `slow` multiplies case 0. */
static pg_run *make_run(const sim *s, const double *sigma, double slow, pg_rng *g)
{
    pg_run *run;
    double common = gauss(g);
    int c, i;

    if (pg_run_new(&run) != 0)
        abort();
    for (c = 0; c < s->cases; c++) {
        pg_result *r;
        double d = s->drift * (sqrt(s->rho) * common + sqrt(1 - s->rho) * gauss(g));
        double level = 1e-3 * (1 + c) * exp(d) * (c == 0 ? slow : 1.0);
        if (pg_run_add_result(&r, run) != 0)
            abort();
        r->key = pg__asprintf("sim/c%02d@1:cpu", c);
        r->suite = pg__strdup("sim");
        r->name = pg__asprintf("c%02d", c);
        r->status = PG_STATUS_OK;
        r->nsamples = (size_t)s->n;
        r->samples = malloc((size_t)s->n * sizeof(double));
        for (i = 0; i < s->n; i++) {
            double x = level * exp(sigma[c] * gauss(g));
            if (unif(g) < s->outliers)
                x *= 1 + fabs(0.5 * gauss(g));
            r->samples[i] = x;
        }
        pg_stats_summarize(&r->summary, r->samples, r->nsamples);
    }
    return run;
}

typedef struct tally {
    int suites_with_false_regression, suites_with_false_verdict;
    long cases, regressed, improved, same, unsure;
    int caught;        /* A/B: case 0 REGRESSED */
    double compare_ns; /* time spent in pg_compare */
} tally;

static void one(const sim *s, double slow, pg_rng *g, tally *t)
{
    pg_run *bases[64], *head;
    pg_comparison *cmp = NULL;
    double sigma[256];
    int c, i, any = 0, anyv = 0;
    int64_t t0;

    for (c = 0; c < s->cases && c < 256; c++)
        sigma[c] = s->noise_lo * pow(s->noise_hi / s->noise_lo, unif(g));
    for (i = 0; i < s->k; i++)
        bases[i] = make_run(s, sigma, 1.0, g);
    head = make_run(s, sigma, slow, g);
    t0 = pg__mono_ns();
    if (pg_compare(&cmp, head, (const pg_run *const *)bases, (size_t)s->k, NULL) != 0)
        abort();
    t->compare_ns += (double)(pg__mono_ns() - t0);
    for (c = 0; c < (int)cmp->ncases; c++) {
        pg_verdict v = cmp->cases[c].verdict;
        int changed = slow != 1.0 && c == 0;
        if (changed) {
            t->caught += v == PG_VERDICT_REGRESSED;
            continue;
        }
        t->cases++;
        t->regressed += v == PG_VERDICT_REGRESSED;
        t->improved += v == PG_VERDICT_IMPROVED;
        t->same += v == PG_VERDICT_SAME;
        t->unsure += v == PG_VERDICT_UNSURE;
        any |= v == PG_VERDICT_REGRESSED;
        anyv |= v == PG_VERDICT_REGRESSED || v == PG_VERDICT_IMPROVED;
    }
    t->suites_with_false_regression += any;
    t->suites_with_false_verdict += anyv;
    pg_comparison_free(cmp);
    pg_run_free(head);
    for (i = 0; i < s->k; i++)
        pg_run_free(bases[i]);
}

static void row(const sim *s)
{
    const double slows[] = {1.05, 1.10, 1.20};
    tally aa = {0}, ab[3] = {{0}};
    pg_rng g;
    int i, j;

    pg_stats_rng_seed(&g, 20261129u + (uint64_t)s->k * 1000 + (uint64_t)s->n + (uint64_t)(s->drift * 1e4));
    for (i = 0; i < s->trials; i++)
        one(s, 1.0, &g, &aa);
    for (j = 0; j < 3; j++)
        for (i = 0; i < s->trials; i++)
            one(s, slows[j], &g, &ab[j]);
    printf("| %2d | %3d | %4.1f%% | %6.2f%% | %6.3f%% | %5.1f%% | %5.1f%% | %5.1f%% | %5.1f%% | %5.1f%% | %6.2f |\n",
           s->k, s->n, 100 * s->drift, 100.0 * aa.suites_with_false_regression / s->trials,
           100.0 * (double)aa.regressed / (double)aa.cases, 100.0 * (double)aa.same / (double)aa.cases,
           100.0 * (double)aa.unsure / (double)aa.cases, 100.0 * ab[0].caught / s->trials,
           100.0 * ab[1].caught / s->trials, 100.0 * ab[2].caught / s->trials,
           aa.compare_ns / s->trials / 1e6);
    fflush(stdout);
}

static void header(const sim *s)
{
    printf("trials %d per cell, %d cases per suite, sample noise sd %.3g..%.3g (log-uniform), outliers %.0f%%, "
           "drift share common to the run %.0f%%\n\n",
           s->trials, s->cases, s->noise_lo, s->noise_hi, 100 * s->outliers, 100 * s->rho);
    printf("| K | n | drift sd | A/A suites with a false REGRESSED | A/A cases REGRESSED | A/A SAME | A/A UNSURE "
           "| power +5%% | power +10%% | power +20%% | compare ms/suite |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
}

int main(int argc, char **argv)
{
    sim s = {1000, 20, 20, 5, 1, 0.022, 0.5, 0.034, 0.19, 0.03};
    int i;

    for (i = 1; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        double v;
        if (!eq) {
            fprintf(stderr, "usage: %s [key=value]... (see the header of bench/verdict_sim.c)\n", argv[0]);
            return 2;
        }
        v = atof(eq + 1);
        *eq = '\0';
        if (!strcmp(argv[i], "trials")) s.trials = (int)v;
        else if (!strcmp(argv[i], "cases")) s.cases = (int)v;
        else if (!strcmp(argv[i], "n")) s.n = (int)v;
        else if (!strcmp(argv[i], "k")) s.k = (int)v;
        else if (!strcmp(argv[i], "grid")) s.grid = (int)v;
        else if (!strcmp(argv[i], "drift")) s.drift = v;
        else if (!strcmp(argv[i], "rho")) s.rho = v;
        else if (!strcmp(argv[i], "noise_lo")) s.noise_lo = v;
        else if (!strcmp(argv[i], "noise_hi")) s.noise_hi = v;
        else if (!strcmp(argv[i], "outliers")) s.outliers = v;
        else {
            fprintf(stderr, "unknown parameter '%s'\n", argv[i]);
            return 2;
        }
    }
    if (s.k < 1 || s.k > 64 || s.cases < 1 || s.cases > 256 || s.n < 2) {
        fprintf(stderr, "need 1 <= k <= 64, 1 <= cases <= 256, n >= 2\n");
        return 2;
    }
    header(&s);
    if (!s.grid) {
        row(&s);
        return 0;
    }
    {
        const int ks[] = {1, 5, 10};
        const int ns[] = {20, 50};
        const double drifts[] = {0.01, 0.022, 0.03};
        size_t a, b, c;
        for (c = 0; c < 3; c++)
            for (a = 0; a < 3; a++)
                for (b = 0; b < 2; b++) {
                    s.k = ks[a];
                    s.n = ns[b];
                    s.drift = drifts[c];
                    row(&s);
                }
    }
    return 0;
}
