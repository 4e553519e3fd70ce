/*
 * history_accuracy.c - how well change-point detection finds injected steps.
 *
 * Simulates N histories of 120 commits (steps +8% at 40 and -5% at 90, run
 * drift 2.2% sd with 5% of runs three times that, 30 log-normal samples of
 * 4% per run) and N flat histories, and prints how often both steps are
 * found within +-1 and +-2 commits, and how many false change points appear.
 * usage: bench_history_accuracy [N] [penalty]
 */
#include "history/history.h"
#include "stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t state;

static double uniform(void)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double gauss(void)
{
    return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform());
}

static double run_median(double truth)
{
    double s[30];
    int j;
    double d = 0.022 * gauss();

    if (uniform() < 0.05)
        d *= 3;
    for (j = 0; j < 30; j++)
        s[j] = truth * exp(d) * exp(0.04 * gauss());
    return pg_stats_median(s, 30);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 500, t, i;
    pg_history_options o = PG_HISTORY_OPTIONS_INIT;
    int within1 = 0, within2 = 0, extra = 0, flat_false = 0;

    if (argc > 2)
        o.penalty = atof(argv[2]);
    for (t = 0; t < n; t++) {
        double y[120], f[120];
        pg_change_point *c;
        size_t nc, k;
        int hit40 = 9, hit90 = 9;
        state = (uint64_t)t * 7919 + 1;
        for (i = 0; i < 120; i++) {
            y[i] = run_median(1e-3 * (i >= 90 ? 1.08 * 0.95 : i >= 40 ? 1.08 : 1.0));
            f[i] = run_median(1e-3);
        }
        pg_history_detect(&c, &nc, y, 120, &o);
        for (k = 0; k < nc; k++) {
            int d40 = abs((int)c[k].index - 40), d90 = abs((int)c[k].index - 90);
            if (d40 < hit40)
                hit40 = d40;
            else if (d90 < hit90)
                hit90 = d90;
            if (d40 > 2 && d90 > 2)
                extra++;
        }
        within1 += hit40 <= 1 && hit90 <= 1 && nc == 2;
        within2 += hit40 <= 2 && hit90 <= 2;
        free(c);
        pg_history_detect(&c, &nc, f, 120, &o);
        flat_false += nc > 0;
        free(c);
    }
    printf("histories: %d (penalty %.1f)\n", n, o.penalty);
    printf("both steps found within +-1 commit and nothing else: %d (%.1f%%)\n", within1, 100.0 * within1 / n);
    printf("both steps found within +-2 commits:                %d (%.1f%%)\n", within2, 100.0 * within2 / n);
    printf("false change points in stepped histories:           %d\n", extra);
    printf("flat histories with any change point:               %d (%.1f%%)\n", flat_false,
           100.0 * flat_false / n);
    return 0;
}
