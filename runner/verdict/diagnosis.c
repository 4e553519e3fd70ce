/* diagnosis.c - freeing what a case's diagnosis holds (model.h, "What changed"). */
#include "verdict/verdict.h"

#include <stdlib.h>

static void fn_deltas_free(pg_fn_delta *d, size_t n)
{
    size_t i;

    for (i = 0; d && i < n; i++) {
        free(d[i].name);
        free(d[i].file);
    }
    free(d);
}

void pg_diagnosis_free(pg_diagnosis *d)
{
    size_t i;

    if (!d)
        return;
    free(d->line);
    free(d->source);
    free(d->note);
    fn_deltas_free(d->self, d->nself);
    fn_deltas_free(d->incl, d->nincl);
    for (i = 0; i < d->ncounts; i++) {
        free(d->counts[i].what);
        free(d->counts[i].where);
    }
    free(d->counts);
    free(d->base_profile);
    free(d->head_profile);
    free(d);
}
