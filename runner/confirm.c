/* confirm.c - confirmation re-runs of REGRESSED cases (see confirm.h). */
#include "confirm.h"

#include "perfgate/errors.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Estimates and decides the re-run `r` of case `v` against the baseline runs; fills the confirm fields. */
static int judge(pg_case_verdict *v, const pg_result *r, const pg_run *const *bases, size_t nbases,
                 const pg_compare_options *opts)
{
    pg_case_verdict t = {0};
    pg_sample_set hs = {r->samples, r->nsamples}, *bs;
    size_t i, n = 0;
    int err;

    bs = malloc((nbases ? nbases : 1) * sizeof(*bs));
    if (!bs)
        return pg_error_set(PG_ENOMEM, "out of memory confirming %s", v->key);
    for (i = 0; i < nbases; i++) {
        const pg_result *b = pg_run_find(bases[i], v->key);
        if (b && b->status == PG_STATUS_OK && b->nsamples > 0)
            bs[n++] = (pg_sample_set){b->samples, b->nsamples};
    }
    t.key = v->key;
    t.threshold = v->threshold;
    t.alpha = v->alpha;
    err = n ? pg_verdict_estimate(&t, &hs, 1, bs, n, opts) : PG_EINVAL;
    free(bs);
    if (err == PG_EINVAL) {
        v->confirm = PG_CONFIRM_NOT_RUN;
        return 0;
    }
    if (err)
        return err;
    t.p_adj = t.p;
    pg_verdict_decide(&t, 1);
    free(t.reason);
    v->confirm = t.verdict == PG_VERDICT_REGRESSED ? PG_CONFIRM_CONFIRMED : PG_CONFIRM_REFUTED;
    v->confirm_ratio = t.ratio;
    v->confirm_lo = t.ci_lo;
    v->confirm_hi = t.ci_hi;
    return 0;
}

/* Puts both measurements in the reason (so every report shows them) and settles the verdict. */
static int settle(pg_case_verdict *v, const char *why_not_run)
{
    char *reason;

    if (v->confirm == PG_CONFIRM_NOT_RUN)
        reason = pg__asprintf("%s; not confirmed: %s", v->reason ? v->reason : "slower", why_not_run);
    else
        reason = pg__asprintf("%s: first run %+.1f%% [%+.1f, %+.1f], re-run %+.1f%% [%+.1f, %+.1f]",
                              v->confirm == PG_CONFIRM_CONFIRMED ? "confirmed by a re-run"
                                                                 : "not confirmed by a re-run (noise or a "
                                                                   "machine phase)",
                              100 * (v->ratio - 1), 100 * (v->ci_lo - 1), 100 * (v->ci_hi - 1),
                              100 * (v->confirm_ratio - 1), 100 * (v->confirm_lo - 1), 100 * (v->confirm_hi - 1));
    if (!reason)
        return pg_error_set(PG_ENOMEM, "out of memory confirming %s", v->key);
    free(v->reason);
    v->reason = reason;
    if (v->confirm == PG_CONFIRM_REFUTED)
        v->verdict = PG_VERDICT_UNSURE;
    return 0;
}

int pg_confirm_apply(pg_comparison *cmp, const pg_run *rerun, const pg_run *const *bases, size_t nbases,
                     const pg_compare_options *opts)
{
    size_t i;
    int err;

    for (i = 0; i < cmp->ncases; i++) {
        pg_case_verdict *v = &cmp->cases[i];
        const pg_result *r;

        if (v->verdict != PG_VERDICT_REGRESSED)
            continue;
        r = rerun ? pg_run_find(rerun, v->key) : NULL;
        v->confirm = PG_CONFIRM_NOT_RUN;
        v->confirm_ratio = v->confirm_lo = v->confirm_hi = NAN;
        if (r && r->status == PG_STATUS_OK && r->nsamples > 0 && (err = judge(v, r, bases, nbases, opts)) != 0)
            return err;
        if ((err = settle(v, r ? "the re-run produced no samples" : "no re-run within --confirm-budget")) != 0)
            return err;
    }
    pg__comparison_recount(cmp, opts);
    return 0;
}

int pg_confirm_apply_paired(pg_comparison *cmp, const pg_comparison *again, const pg_compare_options *opts)
{
    size_t i, j;
    int err;

    for (i = 0; i < cmp->ncases; i++) {
        pg_case_verdict *v = &cmp->cases[i];
        const pg_case_verdict *a = NULL;

        if (v->verdict != PG_VERDICT_REGRESSED)
            continue;
        for (j = 0; again && j < again->ncases && !a; j++)
            if (strcmp(again->cases[j].key, v->key) == 0)
                a = &again->cases[j];
        v->confirm = PG_CONFIRM_NOT_RUN;
        v->confirm_ratio = v->confirm_lo = v->confirm_hi = NAN;
        if (a && isfinite(a->ratio)) {
            v->confirm = a->verdict == PG_VERDICT_REGRESSED ? PG_CONFIRM_CONFIRMED : PG_CONFIRM_REFUTED;
            v->confirm_ratio = a->ratio;
            v->confirm_lo = a->ci_lo;
            v->confirm_hi = a->ci_hi;
        }
        if ((err = settle(v, a ? "the re-run produced no samples" : "no re-run within --confirm-budget")) != 0)
            return err;
    }
    pg__comparison_recount(cmp, opts);
    return 0;
}
