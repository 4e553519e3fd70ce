/* verdict_exact.c - the verdict of counted metrics (verdict_exact.h). */
#include "verdict/exact.h"

#include "base/fmt.h"
#include "meter/meter.h"
#include "perfgate/errors.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pg_verdict_is_exact(const pg_case_verdict *v)
{
    return (v->head && pg_meter_is_exact(v->head->metric)) || (v->base && pg_meter_is_exact(v->base->metric));
}

int pg_comparison_has_exact(const pg_comparison *c)
{
    size_t i;

    for (i = 0; i < c->ncases; i++)
        if (pg_verdict_is_exact(&c->cases[i]))
            return 1;
    return 0;
}

const char *pg_verdict_unit(const pg_case_verdict *v)
{
    const pg_result *r = v->head ? v->head : v->base;

    return r && r->unit ? r->unit : "s";
}

static void range(double *lo, double *hi, const double *x, size_t n)
{
    size_t i;

    *lo = *hi = x[0];
    for (i = 1; i < n; i++) {
        *lo = x[i] < *lo ? x[i] : *lo;
        *hi = x[i] > *hi ? x[i] : *hi;
    }
}

/*
 * Whether `to` exceeds `from` by more than `threshold` (a fraction) of
 * `from`: strictly more, so a change of exactly the threshold is SAME. The
 * slack of a few ulps keeps that edge where the decimal figures put it
 * (1000 -> 1005 at 0.5% is SAME although 0.005 is not exact in binary).
 */
static int beyond(double to, double from, double threshold)
{
    double limit = threshold * from;

    return to - from > limit + 1e-12 * from;
}

int pg_verdict_exact(pg_case_verdict *v, const double *head, size_t nhead, const double *base, size_t nbase)
{
    const char *metric = v->head && v->head->metric ? v->head->metric : "count";
    double hlo, hhi, blo, bhi, ratio;
    char th[32], hb[64], bb[64];
    char *reason;

    range(&hlo, &hhi, head, nhead);
    range(&blo, &bhi, base, nbase);
    v->est.head_n = nhead;
    v->est.base_n = nbase;
    v->est.head_runs = v->est.base_runs = 1;
    v->est.head_median = hlo;
    v->est.base_median = blo;
    v->est.p = v->est.p_adj = NAN;
    snprintf(th, sizeof(th), "%.3g%%", 100 * v->threshold);
    if (hlo != hhi || blo != bhi) {
        int head_side = hlo != hhi;
        double lo = head_side ? hlo : blo, hi = head_side ? hhi : bhi;
        v->verdict = PG_VERDICT_UNSURE;
        reason = pg__asprintf("nondeterministic %s: the %s's %zu measurements differ by %.3g%% (%.0f to %.0f per "
                              "iteration); not gated as exact; use time, or make the case single-threaded and "
                              "free of time- or address-dependent work",
                              metric, head_side ? "head" : "baseline", head_side ? nhead : nbase,
                              lo > 0 ? 100 * (hi - lo) / lo : 0.0, lo, hi);
        goto done;
    }
    pg_fmt_count(hb, sizeof(hb), hlo);
    pg_fmt_count(bb, sizeof(bb), blo);
    if (hlo == blo) {
        v->verdict = PG_VERDICT_SAME;
        v->est.ratio = v->est.ci_lo = v->est.ci_hi = 1;
        reason = pg__asprintf("identical %s: %s per iteration on both sides", metric, hb);
        goto done;
    }
    if (!(blo > 0)) {
        /* From none to some (an allocation in a loop that had none): no ratio, but surely beyond any threshold. */
        v->verdict = hlo > 0 ? PG_VERDICT_REGRESSED : PG_VERDICT_IMPROVED;
        reason = pg__asprintf("%s %s -> %s per iteration; exact counts, no test needed", metric, bb, hb);
        goto done;
    }
    ratio = hlo / blo;
    v->est.ratio = v->est.ci_lo = v->est.ci_hi = v->est.center = v->est.shift_lo = v->est.shift_hi = ratio;
    v->est.resolution = 0;
    if (beyond(hlo, blo, v->threshold)) {
        v->verdict = PG_VERDICT_REGRESSED;
        reason = pg__asprintf("%s %s -> %s per iteration (%+.3g%%), beyond %s; exact counts, no test needed", metric,
                              bb, hb, 100 * (ratio - 1), th);
    } else if (beyond(blo, hlo, v->threshold)) {
        v->verdict = PG_VERDICT_IMPROVED;
        reason = pg__asprintf("%s %s -> %s per iteration (%+.3g%%), beyond %s; exact counts, no test needed", metric,
                              bb, hb, 100 * (ratio - 1), th);
    } else {
        v->verdict = PG_VERDICT_SAME;
        reason = pg__asprintf("%s %s -> %s per iteration (%+.3g%%), within %s", metric, bb, hb, 100 * (ratio - 1),
                              th);
    }

done:
    if (!reason)
        return pg_error_set(PG_ENOMEM, "out of memory");
    free(v->reason);
    v->reason = reason;
    return 0;
}
