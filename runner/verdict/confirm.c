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

static const char *claimed(const pg_case_verdict *v)
{
    return v->verdict == PG_VERDICT_IMPROVED ? "IMPROVED" : "REGRESSED";
}

/* "+12.1%, +0.3% (not REGRESSED), +11.8%": each re-run's change, marked when it does not give the verdict. */
static void list_reruns(pg_buf *b, const pg_case_verdict *v, const pg_case_verdict *const *alone, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        pg__buf_printf(b, "%s%+.1f%%", i ? ", " : "", 100 * (alone[i]->est.ratio - 1));
        if (alone[i]->verdict != v->verdict)
            pg__buf_printf(b, " (not %s)", claimed(v));
    }
}

int pg_confirm_settle_processes(pg_case_verdict *v, const pg_case_verdict *const *alone, size_t n,
                                const pg_case_verdict *pooled)
{
    pg_confirmation *c = &v->confirm;
    pg_buf b = PG_BUF_INIT;
    size_t i, agree = 0;

    if (n == 0 || !pooled || !isfinite(pooled->est.ratio))
        return pg_confirm_settle(v, n == 0 && !pooled ? NULL : pooled);
    for (i = 0; i < n; i++)
        agree += alone[i]->verdict == v->verdict;
    c->state = agree == n && pooled->verdict == v->verdict ? PG_CONFIRM_CONFIRMED : PG_CONFIRM_REFUTED;
    c->ratio = pooled->est.ratio;
    c->lo = pooled->est.ci_lo;
    c->hi = pooled->est.ci_hi;
    if (c->state == PG_CONFIRM_CONFIRMED)
        pg__buf_printf(&b, "confirmed by %zu re-run%s in fresh processes: first run %+.1f%% [%+.1f, %+.1f], re-run%s ",
                       n, n == 1 ? "" : "s", 100 * (v->est.ratio - 1), 100 * (v->est.ci_lo - 1),
                       100 * (v->est.ci_hi - 1), n == 1 ? "" : "s");
    else
        pg__buf_printf(&b, "not confirmed by %zu re-run%s in fresh processes (a process's mode, noise or a machine "
                           "phase): first run %+.1f%% [%+.1f, %+.1f], re-run%s ",
                       n, n == 1 ? "" : "s", 100 * (v->est.ratio - 1), 100 * (v->est.ci_lo - 1),
                       100 * (v->est.ci_hi - 1), n == 1 ? "" : "s");
    list_reruns(&b, v, alone, n);
    pg__buf_printf(&b, "; all %zu processes pooled %+.1f%% [%+.1f, %+.1f]%s%s", n + 1, 100 * (c->ratio - 1),
                   100 * (c->lo - 1), 100 * (c->hi - 1), pooled->verdict != v->verdict ? ", not " : "",
                   pooled->verdict != v->verdict ? claimed(v) : "");
    if (!b.ptr)
        return pg_error_set(PG_ENOMEM, "out of memory confirming %s", v->key);
    free(v->reason);
    v->reason = pg__buf_detach(&b);
    if (c->state == PG_CONFIRM_REFUTED)
        v->verdict = PG_VERDICT_UNSURE;
    return 0;
}
