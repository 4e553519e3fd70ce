/*
 * ab_rounds.c - the rounds of an interleaved A/B, as data: the measured
 * noise that bench/seq_sim.c's replay modes resample to check a sequential
 * rule on what this machine actually produces, not only on a model of it.
 *
 * Runs `perfgate ab` (pg_ab_run) of BASE against HEAD over SUITE, every case
 * all ROUNDS rounds (the fixed-count schedule, default settings otherwise:
 * fresh processes, lockstep, the default round time), and prints either
 *
 *   one line per case: its key and its ROUNDS values of d = log(head/base)
 *   of the median blocks (seq_sim replay=FILE), or, with `blocks`,
 *
 *   one line per side of every round, every block of it (seq_sim
 *   replay2=FILE; bench/round_estimators.py; the corpus's raw rounds):
 *   KEY ROUND base|head WAITED STOLEN TRANSIENT v1 v2 ... (seconds per
 *   iteration, in block order; WAITED and STOLEN the shares of its wall time
 *   lost to waiting for a CPU and to steal).
 *
 * usage: bench_ab_rounds BASE HEAD SUITE [ROUNDS=40] [SEED=1] [blocks] > FILE
 */
#include "ab/ab.h"
#include "perfgate/errors.h"
#include "suite/suite.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    size_t i;
    int j, err, blocks = argc > 6 && strcmp(argv[6], "blocks") == 0;

    if (argc < 4 || (argc > 6 && !blocks)) {
        fprintf(stderr, "usage: bench_ab_rounds BASE HEAD SUITE [ROUNDS=40] [SEED=1] [blocks]\n");
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
    if (blocks) {
        o.on_round = on_round;
        o.payload = stdout;
    }
    if (o.rounds < 1) {
        fprintf(stderr, "bench_ab_rounds: ROUNDS must be at least 1\n");
        return 2;
    }
    printf("# %s vs %s, %d rounds, seed %llu%s\n", o.base, o.head, o.rounds, (unsigned long long)o.seed,
           blocks ? ": KEY ROUND SIDE WAITED STOLEN TRANSIENT BLOCKS..." : "");
    fflush(stdout);
    if ((err = pg_ab_run(&ab, &set, &o)) != 0) {
        fprintf(stderr, "bench_ab_rounds: %s\n", pg_error_last());
        return 3;
    }
    for (i = 0; !blocks && i < ab.head->nresults; i++) {
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
