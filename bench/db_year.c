/*
 * db_year.c - database size over a simulated year of nightly runs.
 *
 * Stores 365 nightly runs of a suite of C cases with S samples each, pruning
 * raw samples older than 90 days (summaries kept) after every night, as the
 * nightly workflow does. Prints the size per run and the final size, with and
 * without pruning.
 * usage: bench_db_year DIR [CASES=20] [SAMPLES=200]
 *
 * With --fill it only stores the year, unpruned, into DB (a SQLite file or a
 * postgresql:// URL), for timing compare and history on either engine
 * (bench/db_fleet.sh): bench_db_year --fill DB [CASES=1000] [SAMPLES=50]
 */
#include "base/model.h"
#include "perfgate/errors.h"
#include "stats/stats.h"
#include "store/store.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pg_run *night(int day, int cases, int samples)
{
    pg_run *run;
    int c, j;

    if (pg_run_new(&run) != 0)
        exit(3);
    run->branch = pg__strdup("nightly");
    run->commit = pg__asprintf("%040d", day);
    run->machine_hash = pg__strdup("00000000000000cc");
    run->machine_json = pg__strdup("{\"cpu_model\":\"sim\"}");
    run->started_at = 1700000000 + 86400LL * day;
    for (c = 0; c < cases; c++) {
        pg_result *r;
        pg_run_add_result(&r, run);
        r->key = pg__asprintf("nightly/case%02d[n=%d]@1:cpu", c, 64 << (c % 5));
        r->suite = pg__strdup("nightly");
        r->name = pg__asprintf("case%02d", c);
        r->params_json = pg__asprintf("{\"n\":%d}", 64 << (c % 5));
        r->threads = 1;
        r->device = pg__strdup("cpu");
        r->nsamples = (size_t)samples;
        r->samples = malloc((size_t)samples * sizeof(double));
        for (j = 0; j < samples; j++)
            r->samples[j] = 1e-4 * (c + 1) * (1 + 0.01 * ((j * 37 + day * 11) % 17));
        r->number_per_run = 100;
        pg_stats_summarize(&r->summary, r->samples, r->nsamples);
    }
    return run;
}

static int64_t year(const char *path, int cases, int samples, int prune, int64_t *after_one)
{
    pg_store *s;
    int day;

    remove(path);
    if (pg_store_open(&s, path) != 0) {
        fprintf(stderr, "%s\n", pg_error_last());
        exit(3);
    }
    for (day = 0; day < 365; day++) {
        pg_run *r = night(day, cases, samples);
        if (pg_store_save_run(s, r) != 0) {
            fprintf(stderr, "%s\n", pg_error_last());
            exit(3);
        }
        pg_run_free(r);
        if (prune && (day % 7 == 6 || day == 364)) {
            pg_prune_options po = PG_PRUNE_OPTIONS_INIT;
            pg_prune_stats ps;
            po.older_than = 90 * 86400;
            po.keep_summaries = 1;
            po.now = 1700000000 + 86400LL * day;
            pg_store_prune(&ps, s, &po);
        }
        if (day == 0 && after_one) {
            *after_one = pg_store_file_size(s);
        }
    }
    {
        pg_prune_options po = PG_PRUNE_OPTIONS_INIT;
        pg_prune_stats ps;
        /* Compact once at the end so both variants are measured the same way. */
        po.keep_runs = 1000000;
        pg_store_prune(&ps, s, &po);
    }
    {
        int64_t size = pg_store_file_size(s);
        pg_store_close(s);
        return size;
    }
}

/* Stores the year into `db` and prints how long that took. */
static int fill(const char *db, int cases, int samples)
{
    struct timespec a, b;
    double t;

    clock_gettime(CLOCK_MONOTONIC, &a);
    year(db, cases, samples, 0, NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    t = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    printf("stored 365 runs x %d cases x %d samples into %s in %.1f s (%.1f ms per run)\n", cases, samples,
           strncmp(db, "postgres", 8) == 0 ? "the server" : db, t, t * 1000 / 365);
    return 0;
}

static int sizes(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    int cases = argc > 2 ? atoi(argv[2]) : 20, samples = argc > 3 ? atoi(argv[3]) : 200;
    char *a = pg__asprintf("%s/year-unpruned.db", dir), *b = pg__asprintf("%s/year-pruned.db", dir);
    int64_t one = 0, full = year(a, cases, samples, 0, &one), pruned = year(b, cases, samples, 1, NULL);

    printf("suite: %d cases x %d samples per nightly run\n", cases, samples);
    printf("empty schema + 1 run: %.1f KiB\n", one / 1024.0);
    printf("365 nights, no pruning:                         %.2f MiB (%.1f KiB per run)\n", full / 1048576.0,
           full / 1024.0 / 365);
    printf("365 nights, samples older than 90 days pruned:  %.2f MiB (%.1f KiB per run)\n", pruned / 1048576.0,
           pruned / 1024.0 / 365);
    free(a);
    free(b);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--fill") == 0)
        return fill(argv[2], argc > 3 ? atoi(argv[3]) : 1000, argc > 4 ? atoi(argv[4]) : 50);
    return sizes(argc, argv);
}
