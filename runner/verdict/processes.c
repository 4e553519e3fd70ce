/*
 * processes.c - the confirmation stage of history mode (verdict.h): a
 * REGRESSED or IMPROVED case measured against stored runs is re-measured
 * in fresh processes and decided again against the same baseline runs.
 *
 * A process can land in a mode of its own (saxpy runs at 0.6 or 1.05 us
 * per iteration depending on the process) and stay there for every sample
 * it takes, so a verdict that one process's mode explains must not stand on
 * one more process that may share it. With several re-runs, the case keeps
 * its verdict only when every re-run gives it alone, and when all the head's
 * processes pooled give it too, with the drift between processes measured
 * on the head's processes as well as on the baseline's (estimate.c): a head
 * whose processes disagree widens its own interval.
 */
#include "verdict/verdict.h"
#include "verdict/confirm.h"
#include "verdict/internal.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Decides `t`, estimated on its own: a single hypothesis (the one the first measurement raised), no Holm. */
static int decide_alone(pg_case_verdict *t, int err)
{
    if (err == PG_EINVAL)
        return 0;
    if (err)
        return err;
    t->est.p_adj = t->est.p;
    return pg_verdict_decide(t, 1);
}

static void target(pg_case_verdict *t, const pg_case_verdict *v)
{
    t->key = v->key;
    t->threshold = v->threshold;
    t->alpha = v->alpha;
    t->est.ratio = NAN;
}

/* Estimates and decides the re-run `r` of case `v` on its own against the baseline runs, into `t`. */
static int remeasure(pg_case_verdict *t, const pg_case_verdict *v, const pg_result *r, pg_sample_set *sets,
                     const pg_run *const *bases, size_t nbases, const pg_compare_options *opts)
{
    pg_sample_set hs = {r->samples, r->nsamples};
    const pg_result *first;
    size_t nsets = pg__verdict_base_sets(sets, &first, bases, NULL, nbases, v->key);
    int err;

    target(t, v);
    if (r->status != PG_STATUS_OK || r->nsamples == 0 || nsets == 0)
        return 0;
    err = pg_verdict_estimate(t, &hs, 1, sets, nsets, opts);
    t->est.busy = r->waited + r->stolen;
    return decide_alone(t, err);
}

/* Every process of the head pooled: the first run and the re-runs `r`, against the baseline runs, into `t`. */
static int pool(pg_case_verdict *t, const pg_case_verdict *v, const pg_result *const *r, size_t n, pg_sample_set *sets,
                const pg_run *const *bases, size_t nbases, const pg_compare_options *opts)
{
    pg_sample_set *hs = calloc(n + 1, sizeof(*hs));
    const pg_result *first;
    size_t nsets = pg__verdict_base_sets(sets, &first, bases, NULL, nbases, v->key), i, nh = 0;
    double busy = 0;
    int err;

    target(t, v);
    if (!hs)
        return pg_error_set(PG_ENOMEM, "out of memory confirming %s", v->key);
    if (v->head && v->head->status == PG_STATUS_OK && v->head->nsamples > 0)
        hs[nh++] = (pg_sample_set){v->head->samples, v->head->nsamples};
    for (i = 0; i < n; i++) {
        hs[nh++] = (pg_sample_set){r[i]->samples, r[i]->nsamples};
        busy = fmax(busy, r[i]->waited + r[i]->stolen);
    }
    err = nsets ? pg_verdict_estimate(t, hs, nh, sets, nsets, opts) : 0;
    free(hs);
    t->est.busy = busy;
    return nsets ? decide_alone(t, err) : 0;
}

/* The re-runs of case `key` that produced samples. */
static size_t found(const pg_result **out, const pg_run *const *reruns, size_t nreruns, const char *key)
{
    size_t j, n = 0;

    for (j = 0; j < nreruns; j++) {
        const pg_result *r = reruns[j] ? pg_run_find(reruns[j], key) : NULL;
        if (r && r->status == PG_STATUS_OK && r->nsamples > 0)
            out[n++] = r;
    }
    return n;
}

int pg_verdict_confirm(pg_comparison *c, const pg_run *rerun, const pg_run *const *bases, size_t nbases,
                       const pg_compare_options *opts)
{
    size_t i, n = c->ncases ? c->ncases : 1;
    pg_case_verdict *fresh = calloc(n, sizeof(*fresh));
    const pg_case_verdict **again = calloc(n, sizeof(*again));
    pg_sample_set *sets = malloc((nbases ? nbases : 1) * sizeof(*sets));
    int err = 0;

    if (!fresh || !again || !sets) {
        err = pg_error_set(PG_ENOMEM, "out of memory confirming verdicts");
        goto cleanup;
    }
    for (i = 0; i < c->ncases; i++) {
        const pg_result *r;
        if (!pg_verdict_to_confirm(&c->cases[i], 1) || !rerun || !(r = pg_run_find(rerun, c->cases[i].key)))
            continue;
        if ((err = remeasure(&fresh[i], &c->cases[i], r, sets, bases, nbases, opts)) != 0)
            goto cleanup;
        again[i] = &fresh[i];
    }
    if ((err = pg__verdict_stage_confirm(c, again, 1)) == 0)
        pg__verdict_recount(c);

cleanup:
    for (i = 0; fresh && i < c->ncases; i++)
        free(fresh[i].reason);
    free(fresh);
    free(again);
    free(sets);
    return err;
}

int pg_verdict_confirm_processes(pg_comparison *c, const pg_run *const *reruns, size_t nreruns,
                                 const pg_run *const *bases, size_t nbases, const pg_compare_options *opts)
{
    pg_case_verdict *alone = calloc(nreruns ? nreruns : 1, sizeof(*alone)), pooled;
    const pg_case_verdict **ptr = calloc(nreruns ? nreruns : 1, sizeof(*ptr));
    const pg_result **r = calloc(nreruns ? nreruns : 1, sizeof(*r));
    pg_sample_set *sets = malloc((nbases ? nbases : 1) * sizeof(*sets));
    size_t i, j, n;
    int err = 0;

    memset(&pooled, 0, sizeof(pooled));
    if (!alone || !ptr || !r || !sets) {
        err = pg_error_set(PG_ENOMEM, "out of memory confirming verdicts");
        goto cleanup;
    }
    for (i = 0; i < c->ncases && !err; i++) {
        pg_case_verdict *v = &c->cases[i];
        if (!pg_verdict_to_confirm(v, 1))
            continue;
        n = found(r, reruns, nreruns, v->key);
        for (j = 0; j < n && !err; j++) {
            memset(&alone[j], 0, sizeof(alone[j]));
            err = remeasure(&alone[j], v, r[j], sets, bases, nbases, opts);
            ptr[j] = &alone[j];
        }
        if (!err && n)
            err = pool(&pooled, v, r, n, sets, bases, nbases, opts);
        if (!err)
            err = pg_confirm_settle_processes(v, ptr, n, n ? &pooled : NULL);
        for (j = 0; j < n; j++)
            free(alone[j].reason);
        free(pooled.reason);
        memset(&pooled, 0, sizeof(pooled));
    }
    if (!err)
        pg__verdict_recount(c);

cleanup:
    free(alone);
    free(ptr);
    free(r);
    free(sets);
    return err;
}
