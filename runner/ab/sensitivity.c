/* sensitivity.c - a suite gated against itself with a known change of real work (sensitivity.h). */
#include "ab/sensitivity.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

int pg_sensitivity_injectable(const pg_case *c)
{
    /* A plugin's or a kernel's iterations run in perfgate's process; a command's, a trace's or a GPU's do not. */
    return (c->plugin || c->kernel) && !c->command && !c->trace && (!c->device || strcmp(c->device, "cpu") == 0);
}

static pg_sensitivity_outcome outcome_of(const pg_case_verdict *v)
{
    switch (v->verdict) {
    case PG_VERDICT_REGRESSED:
        return PG_SENS_CAUGHT;
    case PG_VERDICT_SAME:
    case PG_VERDICT_IMPROVED:
        return PG_SENS_MISSED;
    case PG_VERDICT_UNSURE:
        return PG_SENS_UNSURE;
    default:
        return PG_SENS_FAILED;
    }
}

/* The keys opts would select, split into the ones that can take the change (`keys`) and the others. */
static int select_cases(pg_sensitivity *out, const char **keys, size_t *nkeys, const pg_suite_set *set,
                  const pg_ab_options *o)
{
    size_t i, j, n = 0;

    for (i = 0; i < set->count; i++)
        n += set->suites[i]->ncases;
    if (!(out->cases = calloc(n ? n : 1, sizeof(*out->cases))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    *nkeys = 0;
    for (i = 0; i < set->count; i++)
        for (j = 0; j < set->suites[i]->ncases; j++) {
            const pg_case *c = &set->suites[i]->cases[j];
            pg_sensitivity_case *sc = &out->cases[out->ncases];
            if (o->filter && !pg__glob(o->filter, c->key))
                continue;
            sc->key = c->key;
            sc->outcome = PG_SENS_NOT_INJECTED;
            out->ncases++;
            if (pg_sensitivity_injectable(c))
                keys[(*nkeys)++] = c->key;
        }
    return 0;
}

int pg_sensitivity_run(pg_sensitivity *out, const pg_suite_set *set, const pg_ab_options *opts)
{
    pg_ab_options o = *opts;
    const char **keys = NULL;
    size_t nkeys = 0, i, j, n = 0;
    int err;

    memset(out, 0, sizeof(*out));
    if (!(o.extra_work > 0 && o.extra_work <= 1))
        return pg_error_set(PG_EUSAGE, "the injected change must be more than 0%% and at most 100%%");
    out->unit = pg_ab_extra_unit(o.extra_work, &out->whole);
    out->change = (double)out->whole / (double)out->unit;
    for (i = 0; i < set->count; i++)
        n += set->suites[i]->ncases;
    if (!(keys = calloc(n ? n : 1, sizeof(*keys))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    if ((err = select_cases(out, keys, &nkeys, set, &o)) != 0)
        goto done;
    if (nkeys == 0) {
        err = pg_error_set(PG_EUSAGE, "no case%s%s can take an injected change: commands, traces and GPU cases run "
                           "their work outside perfgate's process; the check needs CPU plugin or kernel cases",
                           o.filter ? " matching " : "", o.filter ? o.filter : "");
        goto done;
    }
    o.keys = keys;
    o.nkeys = nkeys;
    o.filter = NULL;
    if ((err = pg_ab_run(&out->ab, set, &o)) != 0)
        goto done;
    for (i = 0; i < out->ncases; i++)
        for (j = 0; j < out->ab.cmp->ncases; j++)
            if (strcmp(out->ab.cmp->cases[j].key, out->cases[i].key) == 0) {
                out->cases[i].v = &out->ab.cmp->cases[j];
                out->cases[i].outcome = outcome_of(out->cases[i].v);
            }
    for (i = 0; i < out->ncases; i++)
        out->counts[out->cases[i].outcome]++;

done:
    free(keys);
    if (err)
        pg_sensitivity_clear(out);
    return err;
}

void pg_sensitivity_clear(pg_sensitivity *s)
{
    if (!s)
        return;
    pg_ab_result_clear(&s->ab);
    free(s->cases);
    memset(s, 0, sizeof(*s));
}
