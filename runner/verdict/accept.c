/*
 * accept.c - regressions accepted on purpose (verdict.h): a pull request
 * label a maintainer applied, or an `accept:` entry of the suite. The case
 * stays REGRESSED, so every report still shows the change; it fails the
 * comparison no more, and the outcome says ACCEPTED and by whom.
 */
#include "verdict/verdict.h"
#include "verdict/internal.h"

#include "base/util.h"
#include "perfgate/errors.h"

#include <stdlib.h>
#include <string.h>

const char *pg_accept_source_name(pg_accept_source from)
{
    return from == PG_ACCEPT_LABEL ? "label" : from == PG_ACCEPT_SUITE ? "suite" : NULL;
}

int pg_comparison_accept(pg_comparison *c, const char *glob, pg_accept_source from, const char *by,
                         const char *why)
{
    size_t i;
    int n = 0;

    for (i = 0; i < c->ncases; i++) {
        pg_case_verdict *v = &c->cases[i];
        if (v->verdict != PG_VERDICT_REGRESSED || v->accepted || (glob && !pg__glob(glob, v->key)))
            continue;
        if (!(v->accepted = pg__strdup(why ? why : "accepted")))
            return pg_error_set(PG_ENOMEM, "out of memory accepting a regression");
        v->accepted_from = from;
        n++;
    }
    if (n && by && !c->accepted_by && !(c->accepted_by = pg__strdup(by)))
        return pg_error_set(PG_ENOMEM, "out of memory accepting a regression");
    if (n)
        pg__verdict_recount(c);
    return n;
}

size_t pg_comparison_unaccept(pg_comparison *c, pg_accept_source from)
{
    size_t i, n = 0, left = 0;

    for (i = 0; i < c->ncases; i++) {
        pg_case_verdict *v = &c->cases[i];
        if (!v->accepted)
            continue;
        if (v->accepted_from != from) {
            left += v->accepted_from == PG_ACCEPT_LABEL;
            continue;
        }
        free(v->accepted);
        v->accepted = NULL;
        v->accepted_from = PG_ACCEPT_NONE;
        n++;
    }
    if (n && !left) {
        free(c->accepted_by);
        c->accepted_by = NULL;
    }
    if (n)
        pg__verdict_recount(c);
    return n;
}

char *pg__accept_reason(const pg_comparison *c)
{
    size_t i, label = 0, suite = 0;

    for (i = 0; i < c->ncases; i++) {
        const pg_case_verdict *v = &c->cases[i];
        if (v->verdict != PG_VERDICT_REGRESSED)
            continue;
        if (!v->accepted)
            return NULL;
        label += v->accepted_from == PG_ACCEPT_LABEL;
        suite += v->accepted_from != PG_ACCEPT_LABEL;
    }
    if (label + suite == 0)
        return NULL;
    if (!suite)
        return pg__asprintf("%zu regression%s accepted by label%s%s", label, label == 1 ? "" : "s",
                            c->accepted_by ? ", applied by " : "", c->accepted_by ? c->accepted_by : "");
    if (!label)
        return pg__asprintf("%zu regression%s accepted by the suite's accept: entries", suite, suite == 1 ? "" : "s");
    return pg__asprintf("%zu regressions accepted: %zu by label%s%s%s, %zu by the suite's accept: entries",
                        label + suite, label, c->accepted_by ? " (applied by " : "",
                        c->accepted_by ? c->accepted_by : "", c->accepted_by ? ")" : "", suite);
}
