/*
 * round_samples.c - every block of every round of an interleaved A/B, as
 * data: what the per-round estimators (the median block, the fastest tenth,
 * the fastest block) see, the regimes inside a process, and the contention
 * each side met. bench/round_estimators.py reads it to compare estimators;
 * the campaign (bench/corpus.sh) keeps such files as raw results.
 *
 * Runs pg_ab_run() of BASE against HEAD over SUITE, every case all ROUNDS
 * rounds (fixed count, default settings otherwise), and prints one line per
 * side of every round:
 *
 *   KEY ROUND base|head WAITED STOLEN TRANSIENT v1 v2 ... (seconds per iteration, in block order)
 *
 * usage: bench_round_samples BASE HEAD SUITE [ROUNDS=20] [SEED=1] > FILE
 */
#include "ab/ab.h"
#include "perfgate/errors.h"
#include "suite/suite.h"

#include <stdio.h>
#include <stdlib.h>

static void on_round(const char *key, int round, int head, const pg_result *r, void *payload)
{
    FILE *f = payload;
    size_t i;

    if (r->status != PG_STATUS_OK)
        return;
    fprintf(f, "%s %d %s %.4f %.4f %.4f", key, round, head ? "head" : "base", r->waited, r->stolen, r->transient);
    for (i = 0; i < r->nsamples; i++)
        fprintf(f, " %.6g", r->samples[i]);
    fprintf(f, "\n");
    fflush(f);
}

int main(int argc, char **argv)
{
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_ab_options o = PG_AB_OPTIONS_INIT;
    pg_suite_set set = {0};
    pg_diags diags = {0};
    pg_ab_result ab;
    const char *paths[1];
    int err;

    if (argc < 4) {
        fprintf(stderr, "usage: bench_round_samples BASE HEAD SUITE [ROUNDS=20] [SEED=1]\n");
        return 2;
    }
    paths[0] = argv[3];
    if ((err = pg_suite_set_load(&set, paths, 1, &so, &diags)) != 0) {
        fprintf(stderr, "bench_round_samples: %s\n", pg_error_last());
        return 2;
    }
    o.base = argv[1];
    o.head = argv[2];
    o.rounds = argc > 4 ? atoi(argv[4]) : 20;
    o.seed = argc > 5 ? strtoull(argv[5], NULL, 10) : 1;
    o.fixed = 1;
    o.progress = stderr;
    o.on_round = on_round;
    o.payload = stdout;
    if (o.rounds < 1) {
        fprintf(stderr, "bench_round_samples: ROUNDS must be at least 1\n");
        return 2;
    }
    printf("# %s vs %s, %d rounds, seed %llu: KEY ROUND SIDE WAITED STOLEN TRANSIENT BLOCKS...\n", o.base, o.head,
           o.rounds, (unsigned long long)o.seed);
    if ((err = pg_ab_run(&ab, &set, &o)) != 0) {
        fprintf(stderr, "bench_round_samples: %s\n", pg_error_last());
        return 3;
    }
    pg_ab_result_clear(&ab);
    pg_suite_set_clear(&set);
    pg_diags_clear(&diags);
    return 0;
}
