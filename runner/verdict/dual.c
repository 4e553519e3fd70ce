/*
 * dual.c - a paired case decided on two estimators of each round: the
 * median block and the fastest tenth (model.h, "Two estimators";
 * docs/statistics.md). SAME is earned only when both lie inside the band,
 * so a change that shows in one regime of the process and not in the other
 * is never called SAME; either estimator can show REGRESSED or IMPROVED,
 * each claimed at its share of alpha, so the family-wise error stays at
 * alpha. The
 * reason and the regime line say which estimator saw what, and what the
 * rounds looked like (regimes, drift, transients, contention).
 */
#include "verdict/verdict.h"
#include "verdict/internal.h"

#include "base/fmt.h"
#include "perfgate/errors.h"
#include "base/util.h"
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A claim (REGRESSED, IMPROVED) on one estimator's claim interval, or UNSURE. */
static pg_verdict claim(const pg_estimator_bounds *b, double p_adj, double threshold, double alpha)
{
    pg_verdict v = pg_verdict_rule(b->claim_lo, b->claim_hi, p_adj, threshold, alpha);

    return v == PG_VERDICT_REGRESSED || v == PG_VERDICT_IMPROVED ? v : PG_VERDICT_UNSURE;
}

static int inside(const pg_estimator_bounds *b, double threshold)
{
    return isfinite(b->lo) && isfinite(b->hi) && b->lo >= 1 / (1 + threshold) && b->hi <= 1 + threshold;
}

double pg_verdict_dual_p(double p_median, double p_low)
{
    return fmin(1, fmin(p_median / PG_MEDIAN_ALPHA_SHARE, p_low / PG_LOW_ALPHA_SHARE));
}

pg_verdict pg_verdict_rule_dual(pg_decided_by *by, const pg_estimator_bounds *median, const pg_estimator_bounds *low,
                                double p_adj, double threshold, double alpha)
{
    pg_verdict m = claim(median, p_adj, threshold, alpha), l = claim(low, p_adj, threshold, alpha);
    int same_m = inside(median, threshold), same_l = inside(low, threshold);

    *by = PG_BY_BOTH;
    if ((m == PG_VERDICT_REGRESSED && l == PG_VERDICT_IMPROVED) ||
        (m == PG_VERDICT_IMPROVED && l == PG_VERDICT_REGRESSED)) {
        *by = PG_BY_CONFLICT;
        return PG_VERDICT_UNSURE;
    }
    if (m == PG_VERDICT_REGRESSED || l == PG_VERDICT_REGRESSED || m == PG_VERDICT_IMPROVED ||
        l == PG_VERDICT_IMPROVED) {
        *by = m == l ? PG_BY_BOTH : m != PG_VERDICT_UNSURE ? PG_BY_MEDIAN : PG_BY_LOW;
        return m != PG_VERDICT_UNSURE ? m : l;
    }
    if (same_m && same_l)
        return PG_VERDICT_SAME;
    /* Open: say which estimator keeps it open when the other would have been SAME. */
    *by = same_m ? PG_BY_LOW : same_l ? PG_BY_MEDIAN : PG_BY_BOTH;
    return PG_VERDICT_UNSURE;
}

/* "+11.2% [+8.0, +14.1]" */
static void change(char *out, size_t len, double r, double lo, double hi)
{
    snprintf(out, len, "%+.1f%% [%+.1f, %+.1f]", 100 * (r - 1), 100 * (lo - 1), 100 * (hi - 1));
}

/* What the rounds looked like, "; "-separated, for reasons and the regime line; nothing when nothing stood out. */
static void describe_rounds(pg_buf *b, const pg_round_notes *n)
{
    char fast[32], slow[32];
    size_t start = b->len;

    if (n->sides > 0 && n->bimodal * 4 >= n->sides) {
        pg_fmt_duration(fast, sizeof(fast), n->fast);
        pg_fmt_duration(slow, sizeof(slow), n->slow);
        pg__buf_printf(b, "the samples of a process move between a fast (~%s) and a slow (~%s) regime (in %zu of %zu "
                          "sides of rounds, %.0f%% of their samples slow)",
                       fast, slow, n->bimodal, n->sides, 100 * n->slow_share);
    }
    if (n->sides > 0 && n->drifting * 4 >= n->sides)
        pg__buf_printf(b, "%sthe samples drift %+.0f%% from the first third of a round to the last (in %zu of %zu "
                          "sides of rounds)",
                       b->len > start ? "; " : "", 100 * n->drift, n->drifting, n->sides);
    /* A first call is always slower (cold caches, lazy binding); a warm-up still speeding up at its end is news. */
    if (n->not_steady)
        pg__buf_printf(b, "%s%zu process%s still got faster at the end of the warm-up (its first call took %.1fx the "
                          "steady time per iteration): the first rounds may hold a transient; raise warmup",
                       b->len > start ? "; " : "", n->not_steady, n->not_steady == 1 ? "" : "es", n->transient);
    if (n->contended > 0 || n->busiest >= 0.10) {
        pg__buf_printf(b, "%sa process ran %.0f%% of its wall time at worst: it waited for a CPU%s", b->len > start ? "; " : "",
                       100 * (1 - n->busiest), n->stolen >= 0.05 ? " or lost it to the hypervisor" : "");
        if (n->contended)
            pg__buf_printf(b, " (%zu of %zu rounds left out: the machine was busy)", n->contended, n->measured);
    }
}

/* The estimators as "the fastest tenth +11.2% [+8.0, +14.1], the median block +0.1% [-2.5, +1.8]". */
static void both(pg_buf *b, const pg_dual_view *d)
{
    char m[64], l[64];

    change(l, sizeof(l), d->low.ratio, d->low.lo, d->low.hi);
    change(m, sizeof(m), d->median.ratio, d->median.lo, d->median.hi);
    pg__buf_printf(b, "the fastest tenth of each round %s, the median block %s", l, m);
}

/* "; " and what the rounds looked like, or `otherwise` when nothing stood out (NULL: nothing). */
static void append_rounds(pg_buf *b, const pg_round_notes *n, const char *otherwise)
{
    size_t mark = b->len;

    pg__buf_puts(b, "; ");
    describe_rounds(b, n);
    if (b->len == mark + 2) {
        b->len = mark;
        b->ptr[mark] = '\0';
        if (otherwise)
            pg__buf_puts(b, otherwise);
    }
}

/* The line every report can show for a paired case: which estimators agreed, and the rounds' regimes. */
static char *regime_line(const pg_case_verdict *v)
{
    pg_buf b = PG_BUF_INIT;

    both(&b, &v->dual);
    append_rounds(&b, &v->rounds, "; one regime");
    return pg__buf_detach(&b);
}

/* Shows `e` as the case's estimate (what every report prints as its change and interval). */
static void show(pg_case_verdict *v, const pg_estimator_bounds *e)
{
    v->est.ratio = v->est.center = e->ratio;
    v->est.ci_lo = v->est.shift_lo = e->lo;
    v->est.ci_hi = v->est.shift_hi = e->hi;
    v->est.resolution = (1 + v->threshold) * exp(0.5 * (log(e->hi) - log(e->lo))) - 1;
}

/* The reason of a case both estimators decided alike (or neither could): the usual one, then the regime line. */
static int agreed(pg_case_verdict *v, size_t ntested)
{
    int err = pg__verdict_explain(v, ntested);
    char *r;

    if (err)
        return err;
    r = v->reason ? pg__asprintf("%s; %s", v->reason, v->regime) : pg__strdup(v->regime);
    if (!r)
        return pg_error_set(PG_ENOMEM, "out of memory writing a reason");
    pg__verdict_set_reason(v, r);
    return 0;
}

int pg__verdict_decide_dual(pg_case_verdict *v, size_t ntested)
{
    pg_dual_view *d = &v->dual;
    pg_buf b = PG_BUF_INIT;
    char th[32];

    snprintf(th, sizeof(th), "%.3g%%", 100 * v->threshold);
    v->verdict = pg_verdict_rule_dual(&d->by, &d->median, &d->low, v->est.p_adj, v->threshold, v->alpha);
    show(v, d->by == PG_BY_LOW ? &d->low : &d->median);
    free(v->regime);
    if (!(v->regime = regime_line(v)))
        return pg_error_set(PG_ENOMEM, "out of memory writing a reason");
    if (v->verdict == PG_VERDICT_SAME || d->by == PG_BY_BOTH)
        return agreed(v, ntested);
    if (v->verdict == PG_VERDICT_REGRESSED || v->verdict == PG_VERDICT_IMPROVED) {
        pg__buf_printf(&b, "%s beyond %s in the %s only (Holm p=%.2g over %zu cases): ",
                       v->verdict == PG_VERDICT_REGRESSED ? "slower" : "faster", th,
                       d->by == PG_BY_LOW ? "fastest tenth of each round" : "median block of each round", v->est.p_adj,
                       ntested);
        both(&b, d);
    } else if (d->by == PG_BY_CONFLICT) {
        pg__buf_printf(&b, "the estimators disagree beyond %s: ", th);
        both(&b, d);
        pg__buf_puts(&b, "; run more rounds (--rounds) or use a quieter machine");
    } else {
        pg__buf_printf(&b, "the %s is within %s but the %s is not, and SAME needs both: ",
                       d->by == PG_BY_LOW ? "median block" : "fastest tenth", th,
                       d->by == PG_BY_LOW ? "fastest tenth" : "median block");
        both(&b, d);
        pg__buf_puts(&b, "; run more rounds (--rounds) or use a quieter machine");
    }
    append_rounds(&b, &v->rounds, NULL);
    if (!b.ptr)
        return pg_error_set(PG_ENOMEM, "out of memory writing a reason");
    pg__verdict_set_reason(v, pg__buf_detach(&b));
    return 0;
}

int pg__verdict_note_regimes(pg_case_verdict *v, const pg_result *head)
{
    pg_sample_shape sh;
    char fast[32], slow[32];

    /* One run of blocks, 40 or more: fewer leave a split of one mode too likely for a note on every report. */
    if (!head->samples || head->nsamples < 2 * PG_REGIME_MIN_N ||
        pg_stats_shape(&sh, head->samples, head->nsamples) != 0 || sh.regimes != 2)
        return 0;
    pg_fmt_duration(fast, sizeof(fast), sh.fast);
    pg_fmt_duration(slow, sizeof(slow), sh.slow);
    free(v->regime);
    v->regime = pg__asprintf("this run's samples move between a fast (~%s) and a slow (~%s) regime (%.0f%% of them "
                             "slow): its median measured the %s one; gate interleaved with --base-build to compare "
                             "both regimes",
                             fast, slow, 100 * sh.slow_share, sh.slow_share > 0.5 ? "slow" : "fast");
    return v->regime ? 0 : pg_error_set(PG_ENOMEM, "out of memory describing %s", v->key);
}
