/*
 * ab_rounds.c - the per-round log ratios of an interleaved A/B, as data: the
 * measured noise that bench/seq_sim.c's "replay" mode resamples to check a
 * sequential rule on what this machine actually produces, not only on a
 * model of it.
 *
 * Runs `perfgate ab` (pg_ab_run) of BASE against HEAD over SUITE, every case
 * all ROUNDS rounds (the fixed-count schedule, default settings otherwise:
 * fresh processes, lockstep, the default round time), and prints one line
 * per case: its key and its ROUNDS values of d = log(head/base).
 *
 * usage: bench_ab_rounds BASE HEAD SUITE [ROUNDS=40] [SEED=1] > FILE
 */
#include "ab/ab.h"
#include "perfgate/errors.h"
#include "suite/suite.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_ab_options o = PG_AB_OPTIONS_INIT;
    pg_suite_set set = {0};
    pg_diags diags = {0};
    pg_ab_result ab;
    const char *paths[1];
    size_t i;
    int j, err;

    if (argc < 4) {
        fprintf(stderr, "usage: bench_ab_rounds BASE HEAD SUITE [ROUNDS=40] [SEED=1]\n");
        return 2;
    }
    paths[0] = argv[3];
    if ((err = pg_suite_set_load(&set, paths, 1, &so, &diags)) != 0) {
        fprintf(stderr, "bench_ab_rounds: %s\n", pg_error_last());
        return 2;
    }
    o.base = argv[1];
    o.head = argv[2];
    o.rounds = argc > 4 ? atoi(argv[4]) : 40;
    o.seed = argc > 5 ? strtoull(argv[5], NULL, 10) : 1;
    o.fixed = 1;
    o.progress = stderr;
    if (o.rounds < 1) {
        fprintf(stderr, "bench_ab_rounds: ROUNDS must be at least 1\n");
        return 2;
    }
    if ((err = pg_ab_run(&ab, &set, &o)) != 0) {
        fprintf(stderr, "bench_ab_rounds: %s\n", pg_error_last());
        return 3;
    }
    printf("# %s vs %s, %d rounds, seed %llu\n", o.base, o.head, o.rounds, (unsigned long long)o.seed);
    for (i = 0; i < ab.head->nresults; i++) {
        const pg_result *b = &ab.base->results[i], *h = &ab.head->results[i];

        if (b->status != PG_STATUS_OK || h->status != PG_STATUS_OK || b->nsamples != h->nsamples)
            continue;
        printf("%s", h->key);
        for (j = 0; j < (int)h->nsamples; j++)
            printf(" %.6g", log(h->samples[j] / b->samples[j]));
        printf("\n");
    }
    pg_ab_result_clear(&ab);
    pg_suite_set_clear(&set);
    pg_diags_clear(&diags);
    return 0;
}
