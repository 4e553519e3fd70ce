/* confirm.c - what a confirmation re-run of a REGRESSED or IMPROVED case means (see confirm.h). */
#include "verdict/confirm.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>

int pg_confirm_settle(pg_case_verdict *v, const pg_case_verdict *again)
{
    pg_confirmation *c = &v->confirm;
    char *reason;

    c->state = PG_CONFIRM_NOT_RUN;
    c->ratio = c->lo = c->hi = NAN;
    if (again && isfinite(again->est.ratio)) {
        c->state = again->verdict == v->verdict ? PG_CONFIRM_CONFIRMED : PG_CONFIRM_REFUTED;
        c->ratio = again->est.ratio;
        c->lo = again->est.ci_lo;
        c->hi = again->est.ci_hi;
    }
    /* Both measurements go into the reason, so every report shows them. */
    if (c->state == PG_CONFIRM_NOT_RUN)
        reason = pg__asprintf("%s; not confirmed: %s",
                              v->reason ? v->reason : v->verdict == PG_VERDICT_IMPROVED ? "faster" : "slower",
                              again ? "the re-run produced no samples" : "no re-run within --confirm-budget");
    else
        reason = pg__asprintf("%s: first run %+.1f%% [%+.1f, %+.1f], re-run %+.1f%% [%+.1f, %+.1f]",
                              c->state == PG_CONFIRM_CONFIRMED ? "confirmed by a re-run"
                                                               : "not confirmed by a re-run (noise or a "
                                                                 "machine phase)",
                              100 * (v->est.ratio - 1), 100 * (v->est.ci_lo - 1), 100 * (v->est.ci_hi - 1),
                              100 * (c->ratio - 1), 100 * (c->lo - 1), 100 * (c->hi - 1));
    if (!reason)
        return pg_error_set(PG_ENOMEM, "out of memory confirming %s", v->key);
    free(v->reason);
    v->reason = reason;
    if (c->state == PG_CONFIRM_REFUTED)
        v->verdict = PG_VERDICT_UNSURE;
    return 0;
}
