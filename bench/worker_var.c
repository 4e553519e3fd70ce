/*
 * worker_var.c - how much of the spread of per-round ratios comes from the
 * processes that measured them: the measurement behind the period after
 * which an interleaved gate replaces its worker processes (ab.h,
 * PG_AB_WORKER_ROUNDS; docs/statistics.md, "Worker processes").
 *
 * Runs `perfgate ab` (pg_ab_run) of BASE against HEAD (an identical build:
 * A/A) over SUITE with every case all ROUNDS rounds, the workers replaced
 * every K rounds, so each case's rounds fall in ROUNDS/K groups of K rounds
 * measured by one pair of processes. Per case, a one-way random-effects
 * analysis of variance of the per-round log ratios d = log(head/base):
 *   MSB = K * sum over groups (mean_g - mean)^2 / (G - 1)
 *   MSW = sum over groups and rounds (d - mean_g)^2 / (G (K - 1))
 *   between-process variance sb^2 = max(0, (MSB - MSW) / K), within sw^2 = MSW
 * F = MSB / MSW is about 1 when the processes add nothing. With `fresh` as
 * the last argument every round gets fresh processes and the same grouping
 * is a control (F near 1 by construction).
 *
 * usage: bench_worker_var BASE HEAD SUITE [ROUNDS=24] [K=4] [fresh]
 * Prints one line per case and the pooled figures (F pooled over cases:
 * sum of MSB and MSW degrees of freedom).
 */
#include "ab/ab.h"
#include "suite/suite.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_ab_options o = PG_AB_OPTIONS_INIT;
    pg_suite_set set = {0};
    pg_diags diags = {0};
    pg_ab_result ab;
    const char *paths[1];
    int rounds, k, groups, g, j, err;
    size_t i, ncase = 0;
    double ssb_all = 0, ssw_all = 0, dfb_all = 0, dfw_all = 0, *ratio;

    if (argc < 4) {
        fprintf(stderr, "usage: bench_worker_var BASE HEAD SUITE [ROUNDS=24] [K=4] [fresh]\n");
        return 2;
    }
    rounds = argc > 4 ? atoi(argv[4]) : 24;
    k = argc > 5 ? atoi(argv[5]) : 4;
    if (rounds < 4 || k < 2 || rounds % k != 0 || rounds / k < 2) {
        fprintf(stderr, "bench_worker_var: ROUNDS must be a multiple of K >= 2, with two groups at least\n");
        return 2;
    }
    groups = rounds / k;
    paths[0] = argv[3];
    if ((err = pg_suite_set_load(&set, paths, 1, &so, &diags)) != 0) {
        fprintf(stderr, "bench_worker_var: cannot load %s\n", argv[3]);
        return 2;
    }
    o.base = argv[1];
    o.head = argv[2];
    o.rounds = rounds;
    o.fixed = 1;
    o.worker_rounds = k;
    o.fresh = argc > 6 && strcmp(argv[6], "fresh") == 0;
    o.progress = stderr;
    if ((err = pg_ab_run(&ab, &set, &o)) != 0) {
        fprintf(stderr, "bench_worker_var: the A/B failed (%d)\n", err);
        return 3;
    }
    ratio = calloc(ab.head->nresults + 1, sizeof(double));
    printf("# %s vs %s, %d rounds, %s every %d rounds (%u worker processes, %u replaced)\n", o.base, o.head, rounds,
           o.fresh ? "fresh processes each round, grouped" : "workers replaced", k, ab.worker_processes,
           ab.workers_replaced);
    printf("%-36s %9s %9s %7s %9s %9s\n", "case", "sw %", "sb %", "F", "sb/sw", "mean %");
    for (i = 0; i < ab.head->nresults; i++) {
        const pg_result *b = &ab.base->results[i], *h = &ab.head->results[i];
        double d[4096], mean = 0, ssb = 0, ssw = 0, msb, msw, sb2;
        if (b->status != PG_STATUS_OK || h->status != PG_STATUS_OK || (int)b->nsamples != rounds ||
            (int)h->nsamples != rounds || rounds > 4096) {
            printf("%-36s  (not all rounds measured)\n", h->key);
            continue;
        }
        for (j = 0; j < rounds; j++)
            mean += (d[j] = log(h->samples[j] / b->samples[j])) / rounds;
        for (g = 0; g < groups; g++) {
            double m = 0;
            for (j = 0; j < k; j++)
                m += d[g * k + j] / k;
            ssb += k * (m - mean) * (m - mean);
            for (j = 0; j < k; j++)
                ssw += (d[g * k + j] - m) * (d[g * k + j] - m);
        }
        msb = ssb / (groups - 1);
        msw = ssw / (groups * (k - 1));
        sb2 = fmax(0, (msb - msw) / k);
        ssb_all += ssb;
        ssw_all += ssw;
        dfb_all += groups - 1;
        dfw_all += groups * (k - 1);
        ratio[ncase++] = msw > 0 ? sqrt(sb2 / msw) : 0;
        printf("%-36s %9.3f %9.3f %7.2f %9.2f %9.3f\n", h->key, 100 * sqrt(msw), 100 * sqrt(sb2),
               msw > 0 ? msb / msw : NAN, msw > 0 ? sqrt(sb2 / msw) : NAN, 100 * mean);
    }
    qsort(ratio, ncase, sizeof(double), cmp);
    printf("pooled over %zu cases: F = %.3f on (%.0f, %.0f) degrees of freedom; sb/sw median %.2f, max %.2f\n", ncase,
           (ssb_all / dfb_all) / (ssw_all / dfw_all), dfb_all, dfw_all, ncase ? ratio[ncase / 2] : NAN,
           ncase ? ratio[ncase - 1] : NAN);
    free(ratio);
    pg_ab_result_clear(&ab);
    pg_suite_set_clear(&set);
    pg_diags_clear(&diags);
    return 0;
}
