/* canary.c - reference workloads and the machine-drift rule (see canary.h). */
#include "verdict/canary.h"

#include "perfgate/errors.h"
#include "stats/stats.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Each round is short: the canary runs in several rounds per run (before,
 * between and after the cases) and its samples are pooled, so a machine
 * phase anywhere in the run shows in it as it shows in the cases.
 */
static const char canary_yaml[] =
    "suite: " PG_CANARY_SUITE "\n"
    "description: reference workloads measured interleaved with every run\n"
    "defaults:\n"
    "  threads: 1\n"
    "  min_run_time: 0.05s\n"
    "  max_run_time: 1s\n"
    "  warmup: 10ms\n"
    "  min_samples: 5\n"
    "benchmarks:\n"
    "  - name: " PG_CANARY_COMPUTE "\n"
    "    kernel: sgemm\n"
    "    params: {n: 256}\n"
    "  - name: " PG_CANARY_MEMORY "\n"
    "    kernel: copy\n"
    "    params: {n: 8388608}\n";

int pg_canary_suite(pg_suite **out)
{
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;

    return pg_suite_load_buffer(out, "<canary>", canary_yaml, sizeof(canary_yaml) - 1, &so, NULL);
}

int pg_canary_is(const char *suite)
{
    return suite && strcmp(suite, PG_CANARY_SUITE) == 0;
}

pg_bound pg_canary_bound(const pg_result *r)
{
    if (!r || !(r->bytes > 0))
        return r && r->flops > 0 ? PG_BOUND_COMPUTE : PG_BOUND_UNKNOWN;
    return r->flops / r->bytes >= PG_CANARY_RIDGE ? PG_BOUND_COMPUTE : PG_BOUND_MEMORY;
}

int pg_canary_merge(pg_result *acc, const pg_result *more)
{
    double *x;

    if (acc->status != PG_STATUS_OK)
        return 0;
    if (more->status != PG_STATUS_OK) {
        acc->status = more->status;
        free(acc->message);
        acc->message = pg__strdup(more->message ? more->message : "a canary round failed");
        return 0;
    }
    if (more->nsamples == 0)
        return 0;
    x = realloc(acc->samples, (acc->nsamples + more->nsamples) * sizeof(*x));
    if (!x)
        return pg_error_set(PG_ENOMEM, "out of memory pooling canary rounds of %s", acc->key);
    memcpy(x + acc->nsamples, more->samples, more->nsamples * sizeof(*x));
    acc->samples = x;
    acc->nsamples += more->nsamples;
    acc->warmup_s += more->warmup_s;
    acc->warnings |= more->warnings;
    return pg_stats_summarize(&acc->summary, acc->samples, acc->nsamples);
}

/*
 * A canary drifted when the interval of its ratio from its samples alone
 * excludes 1 (the machine moved beyond the canary's own noise) and it moved
 * at least PG_CANARY_MIN_SHIFT (a significant 0.3% says nothing useful). The
 * run-to-run widening is deliberately left out: run-to-run drift is exactly
 * what the canary measures.
 */
static int canary_shift(double *out, const pg_case_verdict *v)
{
    *out = NAN;
    if (!v || isnan(v->est.p) || !(v->est.ratio > 0) || !isfinite(v->est.ratio))
        return 0;
    *out = v->est.ratio;
    if (fabs(log(v->est.ratio)) < log(1 + PG_CANARY_MIN_SHIFT))
        return 0;
    return (isfinite(v->est.shift_lo) && v->est.shift_lo > 1) || (isfinite(v->est.shift_hi) && v->est.shift_hi < 1);
}

/* The canary shift that applies to a case of this kind: its own kind's, else the larger move. */
static double shift_for(const pg_canary_reading *r, pg_bound kind, int up, const char **which)
{
    double sc = (r->drift & PG_CANARY_DRIFT_COMPUTE) ? r->compute : NAN;
    double sm = (r->drift & PG_CANARY_DRIFT_MEMORY) ? r->memory : NAN;

    if (kind == PG_BOUND_COMPUTE) {
        *which = "compute";
        return sc;
    }
    if (kind == PG_BOUND_MEMORY) {
        *which = "memory";
        return sm;
    }
    /* Unknown kind (commands, plugins): either phase could explain it; take the move in the case's direction. */
    if (isnan(sc) || (!isnan(sm) && (up ? sm > sc : sm < sc))) {
        *which = "memory";
        return sm;
    }
    *which = "compute";
    return sc;
}

int pg_canary_explains(double *out, const char **which, const pg_canary_reading *r, const pg_case_verdict *v)
{
    int up = v->verdict == PG_VERDICT_REGRESSED;
    double s = shift_for(r, pg_canary_bound(v->head), up, which);

    *out = s;
    /* Explained: the case's interval, with the canary's shift taken out, no longer clears the threshold. */
    if (up)
        return s > 1 && v->est.ci_lo / s <= 1 + v->threshold;
    return s > 0 && s < 1 && v->est.ci_hi / s >= 1 / (1 + v->threshold);
}

int pg_canary_summary(char **out, const pg_canary_reading *r)
{
    int hc = r->compute > 0 && isfinite(r->compute);
    int hm = r->memory > 0 && isfinite(r->memory);
    pg_buf b = PG_BUF_INIT;

    *out = NULL;
    if (!hc && !hm)
        return 0;
    pg__buf_puts(&b, "canaries:");
    if (hc)
        pg__buf_printf(&b, " compute %+.1f%%", 100 * (r->compute - 1));
    if (hm)
        pg__buf_printf(&b, "%s memory %+.1f%%", hc ? "," : "", 100 * (r->memory - 1));
    if (r->drift)
        pg__buf_printf(&b, " (machine drift: %s%s%s; cases of that kind that moved with it are UNSURE)",
                       (r->drift & PG_CANARY_DRIFT_COMPUTE) ? "compute" : "",
                       r->drift == (PG_CANARY_DRIFT_COMPUTE | PG_CANARY_DRIFT_MEMORY) ? " and " : "",
                       (r->drift & PG_CANARY_DRIFT_MEMORY) ? "memory" : "");
    else
        pg__buf_puts(&b, " (within their noise: no machine drift)");
    if (!b.ptr)
        return pg_error_set(PG_ENOMEM, "out of memory describing the canaries");
    *out = pg__buf_detach(&b);
    return 0;
}

int pg_canary_read(pg_canary_reading *out, const pg_case_verdict *cases, size_t ncases)
{
    const pg_case_verdict *vc = NULL, *vm = NULL;
    size_t i;

    out->drift = 0;
    for (i = 0; i < ncases; i++) {
        const pg_case_verdict *v = &cases[i];
        if (!pg_canary_is(v->suite))
            continue;
        if (strcmp(v->name, PG_CANARY_COMPUTE) == 0)
            vc = v;
        else if (strcmp(v->name, PG_CANARY_MEMORY) == 0)
            vm = v;
    }
    if (canary_shift(&out->compute, vc))
        out->drift |= PG_CANARY_DRIFT_COMPUTE;
    if (canary_shift(&out->memory, vm))
        out->drift |= PG_CANARY_DRIFT_MEMORY;
    return pg_canary_summary(&out->summary, out);
}
