/*
 * json.c - the JSON report (schema_version 1) and reading it back.
 *
 * The report is complete: run metadata, the machine fingerprint, every
 * result with its raw samples, every exact check, every verdict with its
 * interval, and where the run sits on GitHub. `perfgate post --from` posts
 * from it in a later, trusted workflow (the fork-safe pattern), and other
 * tools can import it. Non-finite numbers are written as null.
 */
#include "report/report.h"

#include "perfgate/errors.h"
#include "machine/roofline.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* json_object_set_new that keeps NULL values out (jansson would fail the set). */
static void set(json_t *o, const char *k, json_t *v)
{
    json_object_set_new(o, k, v ? v : json_null());
}

static json_t *str(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* An embedded JSON object (params, fingerprint, extra); a string when it does not parse. */
static json_t *embedded(const char *text)
{
    json_t *v;

    if (!text)
        return json_null();
    v = json_loads(text, JSON_DECODE_ANY, NULL);
    return v ? v : json_string(text);
}

static json_t *result_json(const pg_result *r)
{
    json_t *o = json_object(), *samples = json_array(), *warn = json_array(), *sum = json_object();
    size_t i;
    unsigned bit;

    set(o, "key", str(r->key));
    set(o, "suite", str(r->suite));
    set(o, "name", str(r->name));
    set(o, "params", embedded(r->params_json ? r->params_json : "{}"));
    set(o, "threads", json_integer(r->threads));
    set(o, "device", str(r->device));
    set(o, "metric", str(r->metric));
    set(o, "unit", str(r->unit));
    set(o, "status", str(pg_status_name(r->status)));
    set(o, "message", str(r->message));
    set(o, "number_per_run", json_integer(r->number_per_run));
    set(sum, "n", json_integer((json_int_t)r->summary.n));
    set(sum, "median", num(r->summary.median));
    set(sum, "q1", num(r->summary.q1));
    set(sum, "q3", num(r->summary.q3));
    set(sum, "iqr", num(r->summary.iqr));
    set(sum, "mean", num(r->summary.mean));
    set(sum, "stddev", num(r->summary.stddev));
    set(sum, "min", num(r->summary.min));
    set(sum, "max", num(r->summary.max));
    set(o, "summary", sum);
    for (i = 0; i < r->nsamples; i++)
        json_array_append_new(samples, num(r->samples[i]));
    set(o, "samples", samples);
    set(o, "flops", num(r->flops));
    set(o, "bytes", num(r->bytes));
    set(o, "mfu", r->mfu >= 0 ? num(r->mfu) : json_null());
    set(o, "warmup_s", num(r->warmup_s));
    set(o, "threshold", num(r->threshold));
    set(o, "alpha", num(r->alpha));
    for (bit = 1; bit && bit <= PG_WARN__LAST; bit <<= 1)
        if ((r->warnings & bit) && pg__warning_name(bit))
            json_array_append_new(warn, json_string(pg__warning_name(bit)));
    set(o, "warnings", warn);
    set(o, "extra", embedded(r->extra_json));
    if (r->status != PG_STATUS_OK && r->absent) /* the build measured has no such case */
        set(o, "absent", json_true());
    return o;
}

/* Adds "roofline" (where the case sits under the run's roofs) to a result object when it can be placed. */
static json_t *roof_json(json_t *o, const pg_result *r, const char *machine_json)
{
    pg_roof_point p;

    pg_roofline_classify(&p, r, machine_json);
    if (!o || p.bound == PG_ROOF_UNKNOWN)
        return o;
    set(o, "roofline",
        json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:s, s:s}", "bound", pg_roof_bound_name(p.bound), "intensity",
                  p.intensity >= 0 ? json_real(p.intensity) : json_null(), "attainable", num(p.attainable),
                  "achieved", num(p.achieved), "fraction", p.attainable > 0 ? json_real(p.fraction) : json_null(),
                  "ridge", num(p.ridge), "unit", r->flops > 0 ? "FLOP/s" : "B/s", "why", p.why));
    return o;
}

static json_t *check_json(const pg_check_result *c)
{
    json_t *o = json_object();

    set(o, "suite", str(c->suite));
    set(o, "name", str(c->name));
    set(o, "kind", str(c->kind));
    set(o, "expected", str(c->expected));
    set(o, "actual", str(c->actual));
    set(o, "passed", json_boolean(c->passed));
    set(o, "skipped", json_boolean(c->skipped));
    set(o, "message", str(c->message));
    return o;
}

static const char *const decided_by_names[] = {"both", "median", "fastest_tenth", "conflict"};

const char *pg__decided_by_name(unsigned by)
{
    return by < 4 ? decided_by_names[by] : NULL;
}

static json_t *bounds_json(const pg_estimator_bounds *b)
{
    return json_pack("{s:o, s:o, s:o}", "ratio", num(b->ratio), "ci_lo", num(b->lo), "ci_hi", num(b->hi));
}

static void estimators_json(json_t *o, const pg_case_verdict *v)
{
    set(o, "estimators", json_pack("{s:s, s:o, s:o}", "decided_by", decided_by_names[v->dual.by % 4], "median",
                                   bounds_json(&v->dual.median), "fastest_tenth", bounds_json(&v->dual.low)));
    set(o, "regime", str(v->regime));
    set(o, "rounds_left_out", json_integer((json_int_t)v->rounds.contended));
}

static json_t *verdict_json(const pg_case_verdict *v)
{
    json_t *o = json_object();

    set(o, "key", str(v->key));
    set(o, "suite", str(v->suite));
    set(o, "name", str(v->name));
    set(o, "verdict", str(pg_verdict_name(v->verdict)));
    set(o, "reason", str(v->reason));
    set(o, "base_median", v->est.base_median > 0 ? num(v->est.base_median) : json_null());
    set(o, "head_median", v->est.head_median > 0 ? num(v->est.head_median) : json_null());
    set(o, "base_n", json_integer((json_int_t)v->est.base_n));
    set(o, "head_n", json_integer((json_int_t)v->est.head_n));
    set(o, "ratio", num(v->est.ratio));
    set(o, "ci_lo", num(v->est.ci_lo));
    set(o, "ci_hi", num(v->est.ci_hi));
    set(o, "p", num(v->est.p));
    set(o, "p_adj", num(v->est.p_adj));
    set(o, "threshold", num(v->threshold));
    set(o, "alpha", num(v->alpha));
    set(o, "resolution", num(v->est.resolution));
    if (v->paired) { /* interleaved: the rounds this case took, and whether it stopped once settled */
        set(o, "rounds", json_integer((json_int_t)v->est.head_n));
        set(o, "settled_at", v->est.settled_at ? json_integer((json_int_t)v->est.settled_at) : json_null());
    }
    if (v->dual.on) /* two estimators per round: what each saw, which decided, and the rounds' regimes */
        estimators_json(o, v);
    else if (v->regime) /* history mode: the head's samples held two regimes */
        set(o, "regime", str(v->regime));
    if (v->confirm.state != PG_CONFIRM_NONE) { /* only when there was a re-run to make */
        static const char *const names[] = {"none", "confirmed", "refuted", "not_run"};
        set(o, "confirm", str(names[v->confirm.state]));
        set(o, "confirm_ratio", num(v->confirm.ratio));
        set(o, "confirm_ci_lo", num(v->confirm.lo));
        set(o, "confirm_ci_hi", num(v->confirm.hi));
    }
    return o;
}

int pg_render_json(pg_buf *out, const pg_report_data *d, const pg_report_options *opts)
{
    const pg_run *run = d->run;
    const pg_comparison *cmp = d->cmp;
    const pg_report_origin *og = d->origin;
    json_t *root = json_object(), *o, *arr;
    char *text = NULL;
    size_t i;
    int v, err = 0;

    (void)opts;
    set(root, "schema_version", json_integer(PG_REPORT_JSON_SCHEMA));
    o = json_object();
    set(o, "name", json_string("perfgate"));
    set(o, "version", str(run->tool_version));
    set(root, "tool", o);

    o = json_object();
    set(o, "id", json_integer(run->id));
    set(o, "uuid", str(run->uuid));
    set(o, "suite_set", str(run->suite_set));
    set(o, "commit", str(run->commit));
    set(o, "branch", str(run->branch));
    set(o, "ref", str(run->ref));
    set(o, "pr", json_integer(run->pr));
    set(o, "ci_url", str(run->ci_url));
    set(o, "source", str(run->source));
    set(o, "mode", str(pg_run_mode_name(run->mode)));
    set(o, "tool_version", str(run->tool_version));
    set(o, "started_at", json_integer(run->started_at));
    set(o, "finished_at", json_integer(run->finished_at));
    set(root, "run", o);

    o = json_object();
    set(o, "hash", str(run->machine_hash));
    set(o, "fingerprint", embedded(run->machine_json));
    set(root, "machine", o);

    o = json_object();
    set(o, "repository", str(og ? og->repository : NULL));
    set(o, "pr", json_integer(og && og->pr ? og->pr : run->pr));
    set(o, "head_sha", str(og && og->head_sha ? og->head_sha : run->commit));
    set(o, "base_sha", str(og ? og->base_sha : NULL));
    set(o, "base_ref", str(og ? og->base_ref : NULL));
    set(o, "fork", json_boolean(og && og->fork));
    set(o, "run_url", str(og && og->run_url ? og->run_url : run->ci_url));
    set(root, "github", o);

    o = json_object();
    set(o, "exit_code", json_integer(pg_outcome_exit_code(cmp)));
    set(o, "outcome", str(pg_outcome_name(cmp->outcome)));
    set(o, "outcome_reason", str(cmp->outcome_reason));
    set(o, "method", str(cmp->method));
    arr = json_object();
    for (v = 0; v < PG_VERDICT__COUNT; v++)
        set(arr, pg_verdict_name((pg_verdict)v), json_integer((json_int_t)cmp->counts[v]));
    set(o, "verdicts", arr);
    set(o, "checks_total", json_integer((json_int_t)cmp->checks_total));
    set(o, "checks_failed", json_integer((json_int_t)cmp->checks_failed));
    /* The canaries' head/base ratios and which drifted; only when the run measured them. */
    if ((cmp->canary.compute > 0 && isfinite(cmp->canary.compute)) ||
        (cmp->canary.memory > 0 && isfinite(cmp->canary.memory))) {
        json_t *cy = json_object();
        set(cy, "compute", cmp->canary.compute > 0 ? num(cmp->canary.compute) : json_null());
        set(cy, "memory", cmp->canary.memory > 0 ? num(cmp->canary.memory) : json_null());
        set(cy, "compute_drift", json_boolean(cmp->canary.drift & PG_CANARY_DRIFT_COMPUTE));
        set(cy, "memory_drift", json_boolean(cmp->canary.drift & PG_CANARY_DRIFT_MEMORY));
        set(cy, "summary", str(cmp->canary.summary));
        set(o, "canaries", cy);
    }
    set(root, "summary", o);

    if (cmp->base) {
        o = json_object();
        set(o, "runs", json_integer((json_int_t)cmp->nbases));
        set(o, "id", json_integer(cmp->base->id));
        set(o, "uuid", str(cmp->base->uuid));
        set(o, "commit", str(cmp->base->commit));
        set(o, "branch", str(cmp->base->branch));
        set(o, "started_at", json_integer(cmp->base->started_at));
        set(o, "mode", str(pg_run_mode_name(cmp->base->mode)));
        if (cmp->build.path) /* an interleaved gate: the base build measured, as its decision names it */
            set(o, "build",
                json_pack("{s:s, s:o, s:o}", "path", cmp->build.path, "commit", str(cmp->build.commit), "sha256",
                          str(cmp->build.sha256)));
        set(root, "baseline", o);
    } else {
        set(root, "baseline", json_null());
    }

    arr = json_array();
    for (i = 0; i < run->nresults; i++)
        json_array_append_new(arr, roof_json(result_json(&run->results[i]), &run->results[i], run->machine_json));
    set(root, "results", arr);
    arr = json_array();
    for (i = 0; i < run->nchecks; i++)
        json_array_append_new(arr, check_json(&run->checks[i]));
    set(root, "checks", arr);
    arr = json_array();
    for (i = 0; i < cmp->ncases; i++)
        json_array_append_new(arr, verdict_json(&cmp->cases[i]));
    set(root, "verdicts", arr);

    text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    if (!text || pg__buf_puts(out, text) || pg__buf_puts(out, "\n"))
        err = pg_error_set(PG_ENOMEM, "out of memory rendering the JSON report");
    free(text);
    json_decref(root);
    return err;
}
