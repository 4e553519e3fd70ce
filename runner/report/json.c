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

/* Reading it back. */

static char *get_str(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);

    return json_is_string(v) ? pg__strdup(json_string_value(v)) : NULL;
}

static double get_num(json_t *o, const char *k, double dflt)
{
    json_t *v = json_object_get(o, k);

    return json_is_number(v) ? json_number_value(v) : dflt;
}

static int64_t get_int(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);

    return json_is_integer(v) ? (int64_t)json_integer_value(v) : (json_is_real(v) ? (int64_t)json_real_value(v) : 0);
}

/* Reads "estimators" back (the claim intervals are not written: they become the intervals shown). */
static void load_estimators(pg_case_verdict *v, json_t *o)
{
    json_t *e = json_object_get(o, "estimators"), *m = json_object_get(e, "median"),
           *l = json_object_get(e, "fastest_tenth"), *by = json_object_get(e, "decided_by");
    pg_estimator_bounds *b[2] = {&v->dual.median, &v->dual.low};
    json_t *src[2] = {m, l};
    size_t i;

    if (!json_is_object(e)) {
        v->regime = get_str(o, "regime");
        return;
    }
    v->dual.on = 1;
    for (i = 0; i < 4; i++)
        if (json_is_string(by) && strcmp(json_string_value(by), decided_by_names[i]) == 0)
            v->dual.by = (pg_decided_by)i;
    for (i = 0; i < 2; i++) {
        b[i]->ratio = get_num(src[i], "ratio", NAN);
        b[i]->lo = b[i]->claim_lo = get_num(src[i], "ci_lo", NAN);
        b[i]->hi = b[i]->claim_hi = get_num(src[i], "ci_hi", NAN);
    }
    v->regime = get_str(o, "regime");
    v->rounds.contended = (size_t)get_int(o, "rounds_left_out");
}


static char *get_embedded(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);

    if (!v || json_is_null(v))
        return NULL;
    if (json_is_string(v))
        return pg__strdup(json_string_value(v));
    return json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(17));
}

static int load_result(pg_run *run, json_t *o)
{
    pg_result *r;
    json_t *sum = json_object_get(o, "summary"), *samples = json_object_get(o, "samples"), *w, *warn;
    size_t i;
    int err = pg_run_add_result(&r, run);
    char *status;
    unsigned bit;

    if (err)
        return err;
    r->key = get_str(o, "key");
    r->suite = get_str(o, "suite");
    r->name = get_str(o, "name");
    r->params_json = get_embedded(o, "params");
    r->threads = (int)get_int(o, "threads");
    r->device = get_str(o, "device");
    r->metric = get_str(o, "metric");
    r->unit = get_str(o, "unit");
    status = get_str(o, "status");
    if (status && pg_status_parse(&r->status, status) != 0)
        r->status = PG_STATUS_ERROR;
    free(status);
    r->message = get_str(o, "message");
    r->number_per_run = get_int(o, "number_per_run");
    r->summary.n = (size_t)get_int(sum, "n");
    r->summary.median = get_num(sum, "median", NAN);
    r->summary.q1 = get_num(sum, "q1", NAN);
    r->summary.q3 = get_num(sum, "q3", NAN);
    r->summary.iqr = get_num(sum, "iqr", NAN);
    r->summary.mean = get_num(sum, "mean", NAN);
    r->summary.stddev = get_num(sum, "stddev", NAN);
    r->summary.min = get_num(sum, "min", NAN);
    r->summary.max = get_num(sum, "max", NAN);
    if (json_is_array(samples) && json_array_size(samples)) {
        r->samples = malloc(json_array_size(samples) * sizeof(double));
        if (!r->samples)
            return pg_error_set(PG_ENOMEM, "out of memory reading samples");
        json_array_foreach(samples, i, w) r->samples[i] = json_is_number(w) ? json_number_value(w) : NAN;
        r->nsamples = json_array_size(samples);
    }
    r->flops = get_num(o, "flops", 0);
    r->bytes = get_num(o, "bytes", 0);
    r->mfu = get_num(o, "mfu", -1);
    r->warmup_s = get_num(o, "warmup_s", 0);
    r->threshold = get_num(o, "threshold", 0);
    r->alpha = get_num(o, "alpha", 0);
    warn = json_object_get(o, "warnings");
    json_array_foreach(warn, i, w)
    {
        for (bit = 1; bit <= PG_WARN__LAST; bit <<= 1)
            if (json_is_string(w) && strcmp(json_string_value(w), pg__warning_name(bit)) == 0)
                r->warnings |= bit;
    }
    r->extra_json = get_embedded(o, "extra");
    r->absent = r->status != PG_STATUS_OK && json_is_true(json_object_get(o, "absent"));
    return r->key ? 0 : pg_error_set(PG_EFORMAT, "a result without a key");
}

static int load_check(pg_run *run, json_t *o)
{
    pg_check_result *c;
    int err = pg_run_add_check(&c, run);

    if (err)
        return err;
    c->suite = get_str(o, "suite");
    c->name = get_str(o, "name");
    c->kind = get_str(o, "kind");
    c->expected = get_str(o, "expected");
    c->actual = get_str(o, "actual");
    c->passed = json_is_true(json_object_get(o, "passed"));
    c->skipped = json_is_true(json_object_get(o, "skipped"));
    c->message = get_str(o, "message");
    return 0;
}

static int load_verdict(pg_comparison *cmp, const pg_run *run, json_t *o)
{
    pg_case_verdict *p = realloc(cmp->cases, (cmp->ncases + 1) * sizeof(*p)), *v;
    char *name;
    int i;

    if (!p)
        return pg_error_set(PG_ENOMEM, "out of memory reading verdicts");
    cmp->cases = p;
    v = &p[cmp->ncases++];
    memset(v, 0, sizeof(*v));
    v->key = get_str(o, "key");
    v->suite = get_str(o, "suite");
    v->name = get_str(o, "name");
    v->reason = get_str(o, "reason");
    name = get_str(o, "verdict");
    v->verdict = PG_VERDICT__COUNT;
    for (i = 0; name && i < PG_VERDICT__COUNT; i++)
        if (strcmp(name, pg_verdict_name((pg_verdict)i)) == 0)
            v->verdict = (pg_verdict)i;
    free(name);
    if (!v->key || v->verdict == PG_VERDICT__COUNT)
        return pg_error_set(PG_EFORMAT, "a verdict without a key or with an unknown verdict");
    v->head = pg_run_find(run, v->key);
    v->est.base_median = get_num(o, "base_median", NAN);
    v->est.head_median = get_num(o, "head_median", NAN);
    v->est.base_n = (size_t)get_int(o, "base_n");
    v->est.head_n = (size_t)get_int(o, "head_n");
    v->est.ratio = get_num(o, "ratio", NAN);
    v->est.ci_lo = get_num(o, "ci_lo", NAN);
    v->est.ci_hi = get_num(o, "ci_hi", NAN);
    v->est.p = get_num(o, "p", NAN);
    v->est.p_adj = get_num(o, "p_adj", NAN);
    v->threshold = get_num(o, "threshold", NAN);
    v->alpha = get_num(o, "alpha", NAN);
    v->est.resolution = get_num(o, "resolution", NAN);
    /* Interleaved cases carry their rounds: read back, they are written again alike. */
    if (json_object_get(o, "rounds")) {
        v->paired = 1;
        v->est.settled_at = (size_t)get_int(o, "settled_at");
    }
    load_estimators(v, o);
    v->confirm.ratio = get_num(o, "confirm_ratio", NAN);
    v->confirm.lo = get_num(o, "confirm_ci_lo", NAN);
    v->confirm.hi = get_num(o, "confirm_ci_hi", NAN);
    name = get_str(o, "confirm");
    v->confirm.state = !name                               ? PG_CONFIRM_NONE
                       : strcmp(name, "confirmed") == 0    ? PG_CONFIRM_CONFIRMED
                       : strcmp(name, "refuted") == 0      ? PG_CONFIRM_REFUTED
                       : strcmp(name, "not_run") == 0      ? PG_CONFIRM_NOT_RUN
                                                           : PG_CONFIRM_NONE;
    free(name);
    cmp->counts[v->verdict]++;
    return 0;
}

/* A run's "mode"; plain when absent (a report from before modes were recorded) or unknown. */
static void read_mode(pg_run_mode *out, json_t *o)
{
    const char *m = json_string_value(json_object_get(o, "mode"));

    if (!m || pg_run_mode_parse(out, m) != 0)
        *out = PG_MODE_PLAIN;
}

static void read_canaries(pg_comparison *c, json_t *cy)
{
    c->canary.compute = c->canary.memory = NAN;
    if (!json_is_object(cy))
        return;
    c->canary.compute = get_num(cy, "compute", NAN);
    c->canary.memory = get_num(cy, "memory", NAN);
    c->canary.drift = (json_is_true(json_object_get(cy, "compute_drift")) ? PG_CANARY_DRIFT_COMPUTE : 0) |
                      (json_is_true(json_object_get(cy, "memory_drift")) ? PG_CANARY_DRIFT_MEMORY : 0);
    c->canary.summary = get_str(cy, "summary");
}

/* The base build of an interleaved gate; the base run then names it as the gate's own did. */
static int read_build(pg_comparison *c, pg_run *base, json_t *b)
{
    if (!json_is_object(b))
        return 0;
    c->build.path = get_str(b, "path");
    c->build.commit = get_str(b, "commit");
    c->build.sha256 = get_str(b, "sha256");
    if (!base->ref && c->build.path && !(base->ref = pg__strdup(c->build.path)))
        return pg_error_set(PG_ENOMEM, "out of memory reading a report");
    return 0;
}

static int load_doc(pg_report_doc *doc, json_t *root, const char *name)
{
    json_t *run = json_object_get(root, "run"), *machine = json_object_get(root, "machine");
    json_t *gh = json_object_get(root, "github"), *sum = json_object_get(root, "summary");
    json_t *base = json_object_get(root, "baseline"), *arr, *it;
    char *outcome;
    pg_run *r;
    size_t i;
    int err;

    if ((err = pg_run_new(&doc->run)) != 0)
        return err;
    r = doc->run;
    free(r->uuid);
    free(r->source);
    r->id = get_int(run, "id");
    r->uuid = get_str(run, "uuid");
    r->suite_set = get_str(run, "suite_set");
    r->commit = get_str(run, "commit");
    r->branch = get_str(run, "branch");
    r->ref = get_str(run, "ref");
    r->pr = get_int(run, "pr");
    r->ci_url = get_str(run, "ci_url");
    r->source = get_str(run, "source");
    r->tool_version = get_str(run, "tool_version");
    read_mode(&r->mode, run);
    r->started_at = get_int(run, "started_at");
    r->finished_at = get_int(run, "finished_at");
    r->machine_hash = get_str(machine, "hash");
    r->machine_json = get_embedded(machine, "fingerprint");

    doc->origin.repository = get_str(gh, "repository");
    doc->origin.pr = get_int(gh, "pr");
    doc->origin.head_sha = get_str(gh, "head_sha");
    doc->origin.base_sha = get_str(gh, "base_sha");
    doc->origin.base_ref = get_str(gh, "base_ref");
    doc->origin.fork = json_is_true(json_object_get(gh, "fork"));
    doc->origin.run_url = get_str(gh, "run_url");

    arr = json_object_get(root, "results");
    json_array_foreach(arr, i, it) if ((err = load_result(r, it)) != 0) goto bad;
    arr = json_object_get(root, "checks");
    json_array_foreach(arr, i, it) if ((err = load_check(r, it)) != 0) goto bad;

    doc->cmp = calloc(1, sizeof(*doc->cmp));
    if (!doc->cmp)
        return pg_error_set(PG_ENOMEM, "out of memory reading %s", name);
    doc->cmp->head = r;
    doc->cmp->method = get_str(sum, "method");
    doc->cmp->exit_code = (int)get_int(sum, "exit_code");
    /* Reports from before outcomes existed carry only the exit code. */
    outcome = get_str(sum, "outcome");
    doc->cmp->outcome = outcome && strcmp(outcome, "NOTHING_COMPARED") == 0 ? PG_OUTCOME_NOTHING_COMPARED
                        : outcome && strcmp(outcome, "ERROR") == 0           ? PG_OUTCOME_ERROR
                        : doc->cmp->exit_code == 1                           ? PG_OUTCOME_FAIL
                                                                             : PG_OUTCOME_PASS;
    free(outcome);
    /* The comparison's exit rule (1: a regression or a failed check); the outcome says the rest. */
    doc->cmp->exit_code = doc->cmp->outcome == PG_OUTCOME_FAIL;
    doc->cmp->outcome_reason = get_str(sum, "outcome_reason");
    doc->cmp->checks_total = (size_t)get_int(sum, "checks_total");
    doc->cmp->checks_failed = (size_t)get_int(sum, "checks_failed");
    read_canaries(doc->cmp, json_object_get(sum, "canaries"));
    arr = json_object_get(root, "verdicts");
    json_array_foreach(arr, i, it) if ((err = load_verdict(doc->cmp, r, it)) != 0) goto bad;
    if (json_is_object(base)) {
        if ((err = pg_run_new(&doc->base)) != 0)
            return err;
        free(doc->base->uuid);
        doc->base->uuid = get_str(base, "uuid");
        doc->base->id = get_int(base, "id");
        doc->base->commit = get_str(base, "commit");
        doc->base->branch = get_str(base, "branch");
        doc->base->started_at = get_int(base, "started_at");
        read_mode(&doc->base->mode, base);
        if ((err = read_build(doc->cmp, doc->base, json_object_get(base, "build"))) != 0)
            return err;
        doc->cmp->base = doc->base;
        doc->cmp->nbases = (size_t)get_int(base, "runs");
        if (!doc->cmp->nbases)
            doc->cmp->nbases = 1;
    }
    return 0;
bad: {
    /* The message is copied first: pg_error_set() writes the buffer pg_error_last() returns. */
    char msg[512];
    snprintf(msg, sizeof(msg), "%s", pg_error_last());
    return pg_error_set(err, "%s: %s", name, msg);
}
}

int pg_report_doc_parse(pg_report_doc **out, const char *text, size_t len, const char *name)
{
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je), *sv;
    pg_report_doc *doc = NULL;
    int err = PG_EFORMAT;

    *out = NULL;
    if (!root) {
        pg_error_set(PG_EFORMAT, "%s:%d:%d: %s", name, je.line, je.column, je.text);
        goto cleanup;
    }
    sv = json_object_get(root, "schema_version");
    if (!json_is_object(root) || !json_is_integer(sv)) {
        pg_error_set(PG_EFORMAT, "%s: not a perfgate JSON report (no schema_version)", name);
        goto cleanup;
    }
    if (json_integer_value(sv) > PG_REPORT_JSON_SCHEMA || json_integer_value(sv) < 1) {
        pg_error_set(PG_EFORMAT, "%s: schema_version %lld is not one this perfgate reads (1..%d)", name,
                     (long long)json_integer_value(sv), PG_REPORT_JSON_SCHEMA);
        goto cleanup;
    }
    doc = calloc(1, sizeof(*doc));
    if (!doc) {
        err = pg_error_set(PG_ENOMEM, "out of memory reading %s", name);
        goto cleanup;
    }
    if ((err = load_doc(doc, root, name)) != 0)
        goto cleanup;
    *out = doc;
    doc = NULL;
cleanup:
    pg_report_doc_free(doc);
    json_decref(root);
    return *out ? 0 : err;
}

int pg_report_doc_load(pg_report_doc **out, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    int err;

    *out = NULL;
    if ((err = pg__read_file(&text, &len, path)) != 0)
        return err;
    err = pg_report_doc_parse(out, text, len, path);
    free(text);
    return err;
}

void pg_report_doc_free(pg_report_doc *doc)
{
    if (!doc)
        return;
    pg_comparison_free(doc->cmp);
    pg_run_free(doc->run);
    pg_run_free(doc->base);
    pg_report_origin_clear(&doc->origin);
    free(doc);
}
