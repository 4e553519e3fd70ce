/*
 * scale_db.c - generated databases for the time of `compare` and `history`
 * at scale (bench/scale.sh).
 *
 *   bench_scale_db compare PATH [CASES=10000] [RUNS=6] [SAMPLES=20]
 *       RUNS runs of one branch with CASES cases each: compare the newest
 *       against `last:5`.
 *   bench_scale_db history PATH [CASES=1000] [RUNS=365] [SAMPLES=20]
 *       RUNS nightly runs of CASES cases on successive commits.
 *   bench_scale_db site PATH [CASES=1000] [RUNS=365] [SAMPLES=20]
 *       the same nights, each decided by a gate (a decision per run, every
 *       case in it), with a step of +12 % in every 25th case and -10 % in
 *       every 40th on a day of its own, for `perfgate site` (bench/scale.sh).
 *
 * Samples are log-normal about a per-case level with 3 % noise (seeded), so
 * every statistic has real work to do.
 */
#include "base/model.h"
#include "perfgate/errors.h"
#include "stats/stats.h"
#include "store/store.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double gauss(pg_rng *g)
{
    double u1 = ((double)(pg_stats_rng_next(g) >> 11) + 0.5) * 0x1.0p-53;
    double u2 = ((double)(pg_stats_rng_next(g) >> 11) + 0.5) * 0x1.0p-53;

    return sqrt(-2 * log(u1)) * cos(2 * 3.14159265358979323846 * u2);
}

/* The site mode's steps: +12 % in every 25th case, -10 % in every 40th, each from a day of its own. */
static double level_step(int c, int day)
{
    double f = 1;

    if (c % 25 == 0 && day >= 30 + (c * 7) % 300)
        f *= 1.12;
    if (c % 40 == 0 && day >= 20 + (c * 11) % 320)
        f /= 1.10;
    return f;
}

static pg_run *make_run(int day, int cases, int samples, pg_rng *g, int steps)
{
    pg_run *run;
    int c, j;

    if (pg_run_new(&run) != 0)
        exit(3);
    run->branch = pg__strdup("main");
    run->commit = steps ? pg__asprintf("%08x%032x", (unsigned)day * 2654435761u, (unsigned)day) : pg__asprintf("%040d", day);
    run->suite_set = pg__strdup("scale");
    run->machine_hash = pg__strdup("00000000000000cc");
    run->machine_json = pg__strdup("{\"cpu_model\":\"sim\"}");
    run->started_at = 1700000000 + 86400LL * day;
    run->finished_at = run->started_at + 600;
    for (c = 0; c < cases; c++) {
        pg_result *r;
        pg_run_add_result(&r, run);
        r->key = pg__asprintf("scale/case%05d[n=%d]@1:cpu", c, 64 << (c % 5));
        r->suite = pg__strdup("scale");
        r->name = pg__asprintf("case%05d", c);
        r->params_json = pg__asprintf("{\"n\":%d}", 64 << (c % 5));
        r->threads = 1;
        r->device = pg__strdup("cpu");
        r->metric = pg__strdup("time");
        r->unit = pg__strdup("s");
        r->threshold = 0.05;
        r->alpha = 0.05;
        r->status = PG_STATUS_OK;
        r->nsamples = (size_t)samples;
        r->samples = malloc((size_t)samples * sizeof(double));
        for (j = 0; j < samples; j++)
            r->samples[j] = 1e-5 * (1 + c % 97) * (steps ? level_step(c, day) : 1) * exp(0.03 * gauss(g));
        r->number_per_run = 100;
        pg_stats_summarize(&r->summary, r->samples, r->nsamples);
    }
    return run;
}

/* The gate's decision on the night `day` against the night before: REGRESSED where a step began, else SAME. */
static int save_decision(pg_store *s, const pg_run *run, int day, int cases)
{
    pg_decision d;
    int c, err, fail = 0;

    memset(&d, 0, sizeof(d));
    d.run_id = run->id;
    d.made_at = run->finished_at;
    d.method = pg__strdup("Mann-Whitney U on log times, Holm");
    d.baseline = pg__strdup("runs");
    d.cases = calloc((size_t)cases, sizeof(*d.cases));
    d.ncases = (size_t)cases;
    for (c = 0; c < cases; c++) {
        pg_decision_case *k = &d.cases[c];
        double step = level_step(c, day) / level_step(c, day - 1);
        k->key = pg__strdup(run->results[c].key);
        k->verdict = pg__strdup(step > 1.05 ? "REGRESSED" : step < 0.95 ? "IMPROVED" : "SAME");
        k->ratio = step * (1 + 0.002 * ((c * 31 + day) % 7 - 3));
        k->ci_lo = k->ratio * 0.97;
        k->ci_hi = k->ratio * 1.03;
        k->p = k->p_adj = step > 1.05 || step < 0.95 ? 1e-4 : 0.5;
        k->method = pg__strdup("unpaired");
        if (step > 1.05 || step < 0.95)
            k->reason = pg__asprintf("%s beyond 5%% (Holm p=0.0001 over %d cases)", step > 1 ? "slower" : "faster",
                                     cases);
        fail |= step > 1.05;
    }
    d.outcome = pg__strdup(fail ? "FAIL" : "PASS");
    d.exit_code = fail;
    /* Every seventh night's gate ran for a pull request: the site links it. */
    d.detail = day % 7 == 0 ? pg__asprintf("{\"origin\":{\"repository\":\"example/lib\",\"pr\":%d}}", 100 + day)
                            : pg__strdup("{}");
    err = pg_store_save_decision(s, &d);
    pg_decision_clear(&d);
    return err;
}

int main(int argc, char **argv)
{
    int site = argc > 2 && strcmp(argv[1], "site") == 0;
    int history = argc > 2 && (strcmp(argv[1], "history") == 0 || site);
    int cases = argc > 3 ? atoi(argv[3]) : history ? 1000 : 10000;
    int runs = argc > 4 ? atoi(argv[4]) : history ? 365 : 6;
    int samples = argc > 5 ? atoi(argv[5]) : 20, day;
    pg_store *s;
    pg_rng g;

    if (argc < 3 || (!history && strcmp(argv[1], "compare") != 0)) {
        fprintf(stderr, "usage: bench_scale_db compare|history|site PATH [CASES] [RUNS] [SAMPLES]\n");
        return 2;
    }
    remove(argv[2]);
    pg_stats_rng_seed(&g, 2026);
    if (pg_store_open(&s, argv[2]) != 0) {
        fprintf(stderr, "%s\n", pg_error_last());
        return 3;
    }
    for (day = 0; day < runs; day++) {
        pg_run *r = make_run(day, cases, samples, &g, site);
        if (pg_store_save_run(s, r) != 0 || (site && day > 0 && save_decision(s, r, day, cases) != 0)) {
            fprintf(stderr, "%s\n", pg_error_last());
            return 3;
        }
        pg_run_free(r);
    }
    pg_store_close(s);
    printf("%s: %d runs x %d cases x %d samples\n", argv[2], runs, cases, samples);
    return 0;
}
