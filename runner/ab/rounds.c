/*
 * rounds.c - the rounds of one case of an interleaved A/B as they come in:
 * each side's round gives two values (its median block and its fastest
 * tenth), its shape (regimes, drift) and its contention (contention.h). A
 * round in which a side did not get its CPU for half its wall time is left
 * out: the blocks of both sides then measure the neighbour as much as the
 * code, and a gate must never call SAME on them (docs/statistics.md,
 * "Contention").
 */
#include "ab/internal.h"
#include "ab/ab.h"

#include "perfgate/errors.h"
#include "stats/stats.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int pg__ab_case_init(ab_case *ac, const pg_case *c, double threshold, int rounds)
{
    size_t n = (size_t)rounds, i;

    memset(ac, 0, sizeof(*ac));
    ac->c = c;
    ac->threshold = threshold;
    for (i = 0; i < 2; i++)
        if (!(ac->vals[i] = calloc(n, sizeof(double))) || !(ac->lows[i] = calloc(n, sizeof(double))))
            return pg_error_set(PG_ENOMEM, "out of memory");
    if (!(ac->d = calloc(n, sizeof(double))) || !(ac->dl = calloc(n, sizeof(double))) ||
        !(ac->fast = calloc(2 * n, sizeof(double))) || !(ac->slow = calloc(2 * n, sizeof(double))) ||
        !(ac->share = calloc(2 * n, sizeof(double))) || !(ac->drift = calloc(2 * n, sizeof(double))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    return 0;
}

void pg__ab_case_clear(ab_case *ac)
{
    int i;

    for (i = 0; i < 2; i++) {
        free(ac->vals[i]);
        free(ac->lows[i]);
        pg__result_clear(&ac->last[i]);
        pg__result_clear(&ac->pend[i]);
    }
    free(ac->d);
    free(ac->dl);
    free(ac->fast);
    free(ac->slow);
    free(ac->share);
    free(ac->drift);
    memset(ac, 0, sizeof(*ac));
}

int pg__ab_keep(ab_case *ac, int which, pg_result *r, const pg_ab_options *o)
{
    if (o->on_round)
        o->on_round(ac->c->key, ac->round, which, r, o->payload);
    if (r->status != PG_STATUS_OK || r->nsamples == 0) {
        ac->failed[which] = 1;
        pg__result_clear(&ac->last[which]);
        ac->last[which] = *r;
        if (ac->last[which].status == PG_STATUS_OK)
            pg__result_error(&ac->last[which], "the round gave no samples");
        return 0;
    }
    pg__result_clear(&ac->pend[which]);
    ac->pend[which] = *r;
    ac->have[which] = 1;
    return 0;
}

/* The shape of a kept side: two regimes and drift go into the notes. */
static void note_shape(ab_case *ac, const pg_sample_shape *sh)
{
    pg_round_notes *n = &ac->notes;

    n->sides++;
    if (sh->regimes == 2) {
        ac->fast[ac->nbimodal] = sh->fast;
        ac->slow[ac->nbimodal] = sh->slow;
        ac->share[ac->nbimodal++] = sh->slow_share;
        n->bimodal++;
    }
    if (fabs(sh->drift) > ac->threshold) {
        ac->drift[ac->ndrift++] = sh->drift;
        n->drifting++;
    }
}

/* Contention and the warm-up's transient of one side, whether the round is kept or not. */
static double note_side(ab_case *ac, const pg_result *r)
{
    pg_round_notes *n = &ac->notes;
    double busy = r->waited + r->stolen;

    n->busiest = fmax(n->busiest, busy);
    n->stolen = fmax(n->stolen, r->stolen);
    n->transient = fmax(n->transient, r->transient);
    n->not_steady += (r->warnings & PG_WARN_NOT_STEADY) != 0;
    return busy;
}

int pg__ab_settle(ab_case *ac, const pg_ab_options *o)
{
    pg_sample_shape sh[2];
    double busy;
    size_t k;
    int i, kept = 0, err = 0;

    if (ac->failed[0] || ac->failed[1] || !ac->have[0] || !ac->have[1])
        goto done;
    for (i = 0; i < 2; i++) {
        int e = pg_stats_shape(&sh[i], ac->pend[i].samples, ac->pend[i].nsamples);
        if (e == PG_ENOMEM)
            return e;
        if (e) {
            /* A sample that is zero, negative or not finite is a broken measurement, as a failed side is. */
            ac->failed[i] = 1;
            pg__result_error(&ac->pend[i], "the round gave a sample that is not a positive time");
            err = e;
        }
    }
    if (err)
        goto done;
    ac->notes.measured++;
    busy = fmax(note_side(ac, &ac->pend[0]), note_side(ac, &ac->pend[1]));
    ac->notes.busy_mean += busy;
    if (busy >= PG_AB_LEFT_OUT_SHARE) {
        ac->notes.contended++;
        goto done;
    }
    for (i = 0; i < 2; i++) {
        /* The median block by default, or the fastest block on request (--round-min). */
        ac->vals[i][ac->n[i]] = o->round_min ? ac->pend[i].summary.min : sh[i].median;
        ac->lows[i][ac->n[i]] = sh[i].low;
        ac->n[i]++;
        note_shape(ac, &sh[i]);
    }
    k = ac->n[1] - 1;
    ac->d[k] = log(ac->vals[1][k] / ac->vals[0][k]);
    ac->dl[k] = log(ac->lows[1][k] / ac->lows[0][k]);
    kept = 1;

done:
    for (i = 0; i < 2; i++) {
        if (ac->have[i] || ac->failed[i]) {
            pg_result *keep = ac->have[i] ? &ac->pend[i] : NULL;
            if (keep) {
                pg__result_clear(&ac->last[i]);
                ac->last[i] = *keep;
                memset(keep, 0, sizeof(*keep));
            }
        }
        ac->have[i] = 0;
    }
    return kept;
}

int pg__ab_case_starved(const ab_case *ac)
{
    return ac->n[1] == 0 && ac->notes.measured >= PG_AB_BUSY_ROUNDS && ac->notes.contended == ac->notes.measured;
}

void pg__ab_notes(pg_round_notes *out, const ab_case *ac)
{
    *out = ac->notes;
    if (out->measured)
        out->busy_mean /= (double)out->measured;
    if (ac->nbimodal) {
        out->fast = pg_stats_median(ac->fast, ac->nbimodal);
        out->slow = pg_stats_median(ac->slow, ac->nbimodal);
        out->slow_share = pg_stats_median(ac->share, ac->nbimodal);
    }
    if (ac->ndrift)
        out->drift = pg_stats_median(ac->drift, ac->ndrift);
}

static int one_value(pg_result *r, double v)
{
    if (!(r->samples = malloc(sizeof(double))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    r->samples[0] = v;
    r->nsamples = 1;
    return pg_stats_summarize(&r->summary, r->samples, r->nsamples);
}

int pg__ab_side_result(pg_run *run, const ab_case *ac, int which, int rounds)
{
    const pg_result *last = &ac->last[which];
    pg_result *r;
    int err;

    if ((err = pg_run_add_result(&r, run)) != 0)
        return err;
    r->key = pg__strdup(last->key ? last->key : ac->c->key);
    r->suite = pg__strdup(ac->c->suite);
    r->name = pg__strdup(ac->c->name);
    r->params_json = pg__strdup(ac->c->params_json);
    r->threads = ac->c->threads;
    r->device = pg__strdup(ac->c->device);
    r->metric = pg__strdup("time");
    r->unit = pg__strdup("s");
    r->threshold = ac->c->threshold;
    r->alpha = ac->c->alpha;
    r->flops = last->flops;
    r->bytes = last->bytes;
    r->number_per_run = 1;
    r->waited = ac->notes.busiest;
    /* What the last round described beyond its time (a trace's ops per step): what changed reads it. */
    if (last->extra_json && !(r->extra_json = pg__strdup(last->extra_json)))
        return pg_error_set(PG_ENOMEM, "out of memory");
    if (!ac->failed[which] && ac->n[which] == 0 && ac->failed[1 - which] && last->status == PG_STATUS_OK &&
        last->nsamples > 0) {
        /* The other side failed in the first round: this side's round is its only value, and the case is
           the other side's ERROR, with its cause. */
        r->status = PG_STATUS_OK;
        return one_value(r, last->summary.median);
    }
    if (ac->failed[which] || (ac->n[which] == 0 && ac->notes.contended == 0)) {
        char *msg = pg__asprintf("%s build: %s", which ? "head" : "base",
                                 last->message ? last->message : "no round was measured");
        r->status = last->status == PG_STATUS_SKIPPED ? PG_STATUS_SKIPPED : PG_STATUS_ERROR;
        r->absent = last->absent;
        r->message = msg;
        return msg ? 0 : PG_ENOMEM;
    }
    /* Every round left out for contention: measured, nothing to compare (the paired stage says why). */
    r->status = PG_STATUS_OK;
    if (ac->n[which] == 0)
        return 0;
    r->samples = malloc(ac->n[which] * sizeof(double));
    if (!r->samples)
        return pg_error_set(PG_ENOMEM, "out of memory");
    memcpy(r->samples, ac->vals[which], ac->n[which] * sizeof(double));
    r->nsamples = ac->n[which];
    if ((int)ac->n[which] < rounds)
        r->warnings |= PG_WARN_FEW_SAMPLES;
    if (ac->notes.busiest >= 0.10)
        r->warnings |= PG_WARN_CONTENDED;
    return pg_stats_summarize(&r->summary, r->samples, r->nsamples);
}
