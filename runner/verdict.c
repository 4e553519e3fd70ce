/* verdict.c - per-case verdicts between a head run and its baseline. */
#include "verdict.h"

#include "perfgate/errors.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[PG_VERDICT__COUNT] = {
    "SAME", "REGRESSED", "IMPROVED", "UNSURE", "NEW", "MISSING", "ERROR", "SKIPPED"};

const char *pg_verdict_name(pg_verdict v)
{
    return (unsigned)v < PG_VERDICT__COUNT ? verdict_names[v] : "UNKNOWN";
}

static const pg_result *find_in_bases(const pg_run *const *bases, size_t nbases, const char *key)
{
    size_t i;

    for (i = 0; i < nbases; i++) {
        const pg_result *r = pg_run_find(bases[i], key);
        if (r)
            return r;
    }
    return NULL;
}

static int push(pg_comparison *c, pg_case_verdict **out)
{
    pg_case_verdict *p = realloc(c->cases, (c->ncases + 1) * sizeof(*p));

    if (!p)
        return pg_error_set(PG_ENOMEM, "out of memory comparing runs");
    c->cases = p;
    memset(&p[c->ncases], 0, sizeof(*p));
    *out = &p[c->ncases++];
    return 0;
}

/*
 * PLACEHOLDER RULE: the ratio of medians against the threshold, with no
 * statistics. It is named as such in every report (`method`).
 */
static void decide(pg_case_verdict *v)
{
    if (v->ratio > 1 + v->threshold) {
        v->verdict = PG_VERDICT_REGRESSED;
    } else if (v->ratio < 1 / (1 + v->threshold)) {
        v->verdict = PG_VERDICT_IMPROVED;
    } else {
        v->verdict = PG_VERDICT_SAME;
    }
    v->ci_lo = v->ci_hi = v->ratio;
    v->p = v->p_adj = NAN;
}

int pg_compare(pg_comparison **out, const pg_run *head, const pg_run *const *bases, size_t nbases,
               const pg_compare_options *opts)
{
    pg_compare_options dflt = PG_COMPARE_OPTIONS_INIT;
    pg_comparison *c;
    size_t i, b;
    int err;

    *out = NULL;
    if (!opts)
        opts = &dflt;
    c = calloc(1, sizeof(*c));
    if (!c)
        return pg_error_set(PG_ENOMEM, "out of memory comparing runs");
    c->head = head;
    c->base = nbases ? bases[0] : NULL;
    c->nbases = nbases;
    c->method = pg__strdup("placeholder rule: ratio of medians beyond the threshold (no statistics yet)");

    for (i = 0; i < head->nresults; i++) {
        const pg_result *h = &head->results[i];
        const pg_result *base = find_in_bases(bases, nbases, h->key);
        pg_case_verdict *v;

        if ((err = push(c, &v)) != 0)
            goto fail;
        v->key = pg__strdup(h->key);
        v->suite = pg__strdup(h->suite);
        v->name = pg__strdup(h->name);
        v->head = h;
        v->base = base;
        v->threshold = opts->threshold >= 0 ? opts->threshold : (h->threshold > 0 ? h->threshold : 0.05);
        v->alpha = opts->alpha >= 0 ? opts->alpha : (h->alpha > 0 ? h->alpha : 0.05);
        v->head_n = h->nsamples;
        v->head_median = h->summary.median;
        v->ratio = v->ci_lo = v->ci_hi = v->p = v->p_adj = NAN;
        if (h->status == PG_STATUS_SKIPPED) {
            v->verdict = PG_VERDICT_SKIPPED;
            v->reason = pg__strdup(h->message ? h->message : "skipped");
        } else if (h->status == PG_STATUS_ERROR) {
            v->verdict = PG_VERDICT_ERROR;
            v->reason = pg__strdup(h->message ? h->message : "failed");
        } else if (!base) {
            v->verdict = PG_VERDICT_NEW;
            v->reason = pg__strdup(nbases ? "not in the baseline" : "no baseline yet");
        } else if (base->status != PG_STATUS_OK || base->summary.median <= 0) {
            v->verdict = PG_VERDICT_UNSURE;
            v->reason = pg__strdup("the baseline has no samples for this case");
        } else {
            v->base_n = base->nsamples;
            v->base_median = base->summary.median;
            v->ratio = v->head_median / v->base_median;
            decide(v);
        }
        c->counts[v->verdict]++;
    }
    /* Cases in the baseline that the head no longer has. */
    for (b = 0; b < nbases && b < 1; b++) {
        for (i = 0; i < bases[b]->nresults; i++) {
            const pg_result *r = &bases[b]->results[i];
            pg_case_verdict *v;
            if (pg_run_find(head, r->key))
                continue;
            if ((err = push(c, &v)) != 0)
                goto fail;
            v->key = pg__strdup(r->key);
            v->suite = pg__strdup(r->suite);
            v->name = pg__strdup(r->name);
            v->base = r;
            v->base_n = r->nsamples;
            v->base_median = r->summary.median;
            v->ratio = v->ci_lo = v->ci_hi = v->p = v->p_adj = NAN;
            v->verdict = PG_VERDICT_MISSING;
            v->reason = pg__strdup("in the baseline but not in this run");
            c->counts[v->verdict]++;
        }
    }
    c->checks_total = head->nchecks;
    for (i = 0; i < head->nchecks; i++)
        c->checks_failed += !head->checks[i].passed;
    c->exit_code = (c->counts[PG_VERDICT_REGRESSED] > 0 || c->checks_failed > 0 ||
                    (opts->fail_on_missing && c->counts[PG_VERDICT_MISSING] > 0))
                       ? 1
                       : 0;
    *out = c;
    return 0;
fail:
    pg_comparison_free(c);
    return err;
}

void pg_comparison_free(pg_comparison *c)
{
    size_t i;

    if (!c)
        return;
    for (i = 0; i < c->ncases; i++) {
        free(c->cases[i].key);
        free(c->cases[i].suite);
        free(c->cases[i].name);
        free(c->cases[i].reason);
    }
    free(c->cases);
    free(c->method);
    free(c);
}
