/*
 * decision.c - a gate's comparison as the decision the store keeps, and the
 * comparison back from it (gate.h).
 *
 * What every report shows is in columns (outcome, verdicts, intervals,
 * p-values, rounds, confirmation); the rest of what a verdict holds goes in
 * a JSON `detail` of its row, written and read through the field tables
 * below, so a field added to the model is one line here and no migration.
 * Numbers keep every bit: %.17g in the JSON, doubles in the columns.
 */
#include "gate/gate.h"

#include "base/util.h"
#include "perfgate/errors.h"
#include "verdict/exact.h"

#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* A number of a struct, by name: 'd' double, 'z' size_t, 'i' int. */
typedef struct field {
    const char *name;
    size_t off;
    char type;
} field;

#define F(type_, s, f) {#f, offsetof(s, f), type_}

/* The estimate beyond the columns (ratio, interval, p, p_adj). */
static const field estimate_fields[] = {
    F('z', pg_estimate, base_n),      F('z', pg_estimate, head_n),     F('z', pg_estimate, base_runs),
    F('z', pg_estimate, head_runs),   F('d', pg_estimate, base_median), F('d', pg_estimate, head_median),
    F('d', pg_estimate, center),      F('d', pg_estimate, shift_lo),   F('d', pg_estimate, shift_hi),
    F('d', pg_estimate, resolution),  F('d', pg_estimate, run_noise),  F('i', pg_estimate, very_noisy),
    F('z', pg_estimate, dropped),     F('z', pg_estimate, settled_at), F('d', pg_estimate, busy),
};

/* A paired case's two estimators (model.h, "Two estimators"). */
static const field bounds_fields[] = {
    F('d', pg_estimator_bounds, ratio),    F('d', pg_estimator_bounds, lo),       F('d', pg_estimator_bounds, hi),
    F('d', pg_estimator_bounds, claim_lo), F('d', pg_estimator_bounds, claim_hi),
};

/* What a paired case's rounds looked like. */
static const field notes_fields[] = {
    F('z', pg_round_notes, measured),   F('z', pg_round_notes, contended), F('d', pg_round_notes, busiest),
    F('d', pg_round_notes, busy_mean),  F('d', pg_round_notes, stolen),    F('z', pg_round_notes, sides),
    F('z', pg_round_notes, bimodal),    F('d', pg_round_notes, fast),      F('d', pg_round_notes, slow),
    F('d', pg_round_notes, slow_share), F('z', pg_round_notes, drifting),  F('d', pg_round_notes, drift),
    F('d', pg_round_notes, transient),  F('z', pg_round_notes, not_steady),
};

static const field drift_fields[] = {
    F('d', pg_drift, sd), F('d', pg_drift, df), F('d', pg_drift, hw), F('i', pg_drift, measured),
};

static const field confirm_fields[] = {
    F('d', pg_confirmation, ratio), F('d', pg_confirmation, lo), F('d', pg_confirmation, hi),
};

static const field canary_fields[] = {
    F('d', pg_canary_reading, compute), F('d', pg_canary_reading, memory),
};

#define NFIELDS(a) (sizeof(a) / sizeof((a)[0]))

static const char *const confirm_names[] = {NULL, "confirmed", "refuted", "not_run"};

static json_t *real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *fields_json(const void *s, const field *f, size_t n)
{
    json_t *o = json_object();
    size_t i;

    for (i = 0; o && i < n; i++) {
        const char *p = (const char *)s + f[i].off;
        json_t *v = f[i].type == 'd'   ? real_or_null(*(const double *)p)
                    : f[i].type == 'z' ? json_integer((json_int_t) * (const size_t *)p)
                                       : json_integer(*(const int *)p);
        json_object_set_new(o, f[i].name, v ? v : json_null());
    }
    return o;
}

/* Reads what the table names from `o`; a field it lacks (an older decision) is NAN or 0. */
static void fields_read(void *s, const field *f, size_t n, json_t *o)
{
    size_t i;

    for (i = 0; i < n; i++) {
        char *p = (char *)s + f[i].off;
        json_t *v = json_object_get(o, f[i].name);
        if (f[i].type == 'd')
            *(double *)p = json_is_number(v) ? json_number_value(v) : NAN;
        else if (f[i].type == 'z')
            *(size_t *)p = json_is_integer(v) ? (size_t)json_integer_value(v) : 0;
        else
            *(int *)p = json_is_integer(v) ? (int)json_integer_value(v) : 0;
    }
}

static char *dump(json_t *o)
{
    char *text = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17)) : NULL;

    json_decref(o);
    return text;
}

/* How a case was tested, NULL when it was not (NEW, MISSING, ERROR, SKIPPED, nothing to test). */
static const char *case_method(const pg_case_verdict *v)
{
    if (v->verdict == PG_VERDICT_NEW || v->verdict == PG_VERDICT_MISSING || v->verdict == PG_VERDICT_ERROR ||
        v->verdict == PG_VERDICT_SKIPPED)
        return NULL;
    if (pg_verdict_is_exact(v) && isfinite(v->est.ratio))
        return "exact";
    if (isnan(v->est.p))
        return NULL;
    return v->paired ? "paired" : "unpaired";
}

static int case_from(pg_decision_case *out, const pg_case_verdict *v)
{
    json_t *o = json_object();
    const char *method = case_method(v);

    json_object_set_new(o, "suite", str_or_null(v->suite));
    json_object_set_new(o, "name", str_or_null(v->name));
    json_object_set_new(o, "threshold", real_or_null(v->threshold));
    json_object_set_new(o, "alpha", real_or_null(v->alpha));
    json_object_set_new(o, "paired", json_boolean(v->paired));
    json_object_set_new(o, "estimate", fields_json(&v->est, estimate_fields, NFIELDS(estimate_fields)));
    json_object_set_new(o, "drift", fields_json(&v->drift, drift_fields, NFIELDS(drift_fields)));
    if (v->confirm.state != PG_CONFIRM_NONE)
        json_object_set_new(o, "confirm", fields_json(&v->confirm, confirm_fields, NFIELDS(confirm_fields)));
    if (v->dual.on)
        json_object_set_new(o, "dual",
                            json_pack("{s:i, s:o, s:o}", "by", (int)v->dual.by, "median",
                                      fields_json(&v->dual.median, bounds_fields, NFIELDS(bounds_fields)), "low",
                                      fields_json(&v->dual.low, bounds_fields, NFIELDS(bounds_fields))));
    if (v->paired)
        json_object_set_new(o, "rounds", fields_json(&v->rounds, notes_fields, NFIELDS(notes_fields)));
    if (v->regime)
        json_object_set_new(o, "regime", json_string(v->regime));
    out->key = pg__strdup(v->key);
    out->verdict = pg__strdup(pg_verdict_name(v->verdict));
    out->reason = v->reason ? pg__strdup(v->reason) : NULL;
    out->method = method ? pg__strdup(method) : NULL;
    out->ratio = v->est.ratio;
    out->ci_lo = v->est.ci_lo;
    out->ci_hi = v->est.ci_hi;
    out->p = v->est.p;
    out->p_adj = v->est.p_adj;
    out->rounds = v->paired ? (int64_t)v->est.head_n : 0;
    out->confirm = confirm_names[v->confirm.state] ? pg__strdup(confirm_names[v->confirm.state]) : NULL;
    out->detail = dump(o);
    if (!out->key || !out->verdict || !out->detail || (v->reason && !out->reason) || (method && !out->method))
        return pg_error_set(PG_ENOMEM, "out of memory recording a decision");
    return 0;
}

/* The first baseline run as the reports name it, kept whole even if the run is pruned later. */
static json_t *base_json(const pg_run *b)
{
    if (!b)
        return json_null();
    return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:I, s:s}", "id", (json_int_t)b->id, "uuid", str_or_null(b->uuid),
                     "commit", str_or_null(b->commit), "branch", str_or_null(b->branch), "ref", str_or_null(b->ref),
                     "source", str_or_null(b->source), "started_at", (json_int_t)b->started_at, "mode",
                     pg_run_mode_name(b->mode));
}

static json_t *origin_json(const pg_report_origin *og)
{
    if (!og || (!og->repository && !og->pr && !og->head_sha && !og->run_url))
        return json_null();
    return json_pack("{s:o, s:I, s:o, s:o, s:o, s:b, s:o}", "repository", str_or_null(og->repository), "pr",
                     (json_int_t)og->pr, "head_sha", str_or_null(og->head_sha), "base_sha", str_or_null(og->base_sha),
                     "base_ref", str_or_null(og->base_ref), "fork", og->fork, "run_url", str_or_null(og->run_url));
}

static char *summary_detail(const pg_comparison *cmp, const pg_report_origin *og)
{
    json_t *o = json_object(), *canary = fields_json(&cmp->canary, canary_fields, NFIELDS(canary_fields));

    json_object_set_new(canary, "drift", json_integer((json_int_t)cmp->canary.drift));
    json_object_set_new(o, "nbases", json_integer((json_int_t)cmp->nbases));
    json_object_set_new(o, "base", base_json(cmp->base));
    json_object_set_new(o, "fail_on_missing", json_boolean(cmp->fail_on_missing));
    json_object_set_new(o, "fail_on_new", json_boolean(cmp->fail_on_new));
    json_object_set_new(o, "checks_total", json_integer((json_int_t)cmp->checks_total));
    json_object_set_new(o, "checks_failed", json_integer((json_int_t)cmp->checks_failed));
    json_object_set_new(o, "canary", canary);
    json_object_set_new(o, "origin", origin_json(og));
    return dump(o);
}

/* "12,11" and "uuid uuid": the baseline runs, as they were compared. */
static int base_lists(pg_decision *d, const pg_run *const *bases, size_t nbases)
{
    pg_buf ids = PG_BUF_INIT, uuids = PG_BUF_INIT;
    size_t i;

    for (i = 0; i < nbases; i++) {
        pg__buf_printf(&ids, "%s%lld", i ? "," : "", (long long)bases[i]->id);
        pg__buf_printf(&uuids, "%s%s", i ? " " : "", bases[i]->uuid ? bases[i]->uuid : "");
    }
    d->base_ids = nbases ? pg__buf_detach(&ids) : NULL;
    d->base_uuids = nbases ? pg__buf_detach(&uuids) : NULL;
    pg__buf_clear(&ids);
    pg__buf_clear(&uuids);
    return nbases && (!d->base_ids || !d->base_uuids) ? pg_error_set(PG_ENOMEM, "out of memory") : 0;
}

static char *dup_or_null(const char *s)
{
    return s ? pg__strdup(s) : NULL;
}

int pg_decision_from(pg_decision *out, const pg_comparison *cmp, int64_t run_id, const pg_decision_context *ctx)
{
    size_t i;
    int err = 0;

    memset(out, 0, sizeof(*out));
    out->run_id = run_id;
    out->made_at = pg__now_unix();
    out->outcome = pg__strdup(pg_outcome_name(cmp->outcome));
    out->exit_code = pg_outcome_exit_code(cmp);
    out->reason = dup_or_null(cmp->outcome_reason);
    out->method = dup_or_null(cmp->method);
    out->baseline = pg__strdup(cmp->build.path ? "build" : cmp->nbases ? "runs" : "none");
    out->base_described = dup_or_null(ctx ? ctx->described : NULL);
    out->base_build = dup_or_null(cmp->build.path);
    out->base_commit = dup_or_null(cmp->build.commit);
    out->base_hash = dup_or_null(cmp->build.sha256);
    out->confirmed = ctx && ctx->confirmed;
    out->suite_shift = cmp->suite.shift;
    out->suite_spread = cmp->suite.spread;
    out->canary = dup_or_null(cmp->canary.summary);
    out->detail = summary_detail(cmp, ctx ? ctx->origin : NULL);
    if (!out->outcome || !out->baseline || !out->detail)
        err = pg_error_set(PG_ENOMEM, "out of memory recording a decision");
    if (!err && ctx)
        err = base_lists(out, ctx->bases, ctx->nbases);
    if (!err && cmp->ncases && !(out->cases = calloc(cmp->ncases, sizeof(*out->cases))))
        err = pg_error_set(PG_ENOMEM, "out of memory recording a decision");
    for (i = 0; !err && i < cmp->ncases; i++) {
        out->ncases++;
        err = case_from(&out->cases[i], &cmp->cases[i]);
    }
    if (err)
        pg_decision_clear(out);
    return err;
}

/* ---- back to a comparison ------------------------------------------------ */

static int parse_verdict(pg_verdict *out, const char *name)
{
    int i;

    for (i = 0; name && i < PG_VERDICT__COUNT; i++)
        if (strcmp(name, pg_verdict_name((pg_verdict)i)) == 0) {
            *out = (pg_verdict)i;
            return 0;
        }
    return pg_error_set(PG_EFORMAT, "a stored decision holds an unknown verdict '%s'", name ? name : "(null)");
}

static int parse_outcome(pg_outcome *out, const char *name)
{
    static const pg_outcome all[] = {PG_OUTCOME_PASS, PG_OUTCOME_FAIL, PG_OUTCOME_NOTHING_COMPARED, PG_OUTCOME_ERROR};
    size_t i;

    for (i = 0; name && i < NFIELDS(all); i++)
        if (strcmp(name, pg_outcome_name(all[i])) == 0) {
            *out = all[i];
            return 0;
        }
    return pg_error_set(PG_EFORMAT, "a stored decision holds an unknown outcome '%s'", name ? name : "(null)");
}

static char *json_str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));

    return s ? pg__strdup(s) : NULL;
}

static const pg_result *find_in(const pg_run *const *runs, size_t n, const char *key)
{
    const pg_result *r = NULL;
    size_t i;

    for (i = 0; i < n && !r; i++)
        r = pg_run_find(runs[i], key);
    return r;
}

/* A paired case's estimators, rounds and regime line, where the decision has them (older ones do not). */
static void dual_to(pg_case_verdict *v, json_t *o)
{
    json_t *d = json_object_get(o, "dual"), *by = json_object_get(d, "by");

    if (json_is_object(d)) {
        v->dual.on = 1;
        v->dual.by = json_is_integer(by) && json_integer_value(by) >= PG_BY_BOTH &&
                             json_integer_value(by) <= PG_BY_CONFLICT
                         ? (pg_decided_by)json_integer_value(by)
                         : PG_BY_BOTH;
        fields_read(&v->dual.median, bounds_fields, NFIELDS(bounds_fields), json_object_get(d, "median"));
        fields_read(&v->dual.low, bounds_fields, NFIELDS(bounds_fields), json_object_get(d, "low"));
    }
    if (json_is_object(json_object_get(o, "rounds")))
        fields_read(&v->rounds, notes_fields, NFIELDS(notes_fields), json_object_get(o, "rounds"));
    v->regime = json_str(o, "regime");
}

static int case_to(pg_case_verdict *v, const pg_decision_case *c, const pg_run *head, const pg_run *const *bases,
                   size_t nbases)
{
    json_t *o = json_loads(c->detail ? c->detail : "{}", 0, NULL);
    int err = parse_verdict(&v->verdict, c->verdict);

    if (err) {
        json_decref(o);
        return err;
    }
    v->key = pg__strdup(c->key);
    v->suite = json_str(o, "suite");
    v->name = json_str(o, "name");
    v->reason = c->reason ? pg__strdup(c->reason) : NULL;
    v->head = v->verdict == PG_VERDICT_MISSING ? NULL : pg_run_find(head, c->key);
    v->base = find_in(bases, nbases, c->key);
    v->threshold = json_is_number(json_object_get(o, "threshold")) ? json_number_value(json_object_get(o, "threshold"))
                                                                   : NAN;
    v->alpha = json_is_number(json_object_get(o, "alpha")) ? json_number_value(json_object_get(o, "alpha")) : NAN;
    v->paired = json_is_true(json_object_get(o, "paired"));
    fields_read(&v->est, estimate_fields, NFIELDS(estimate_fields), json_object_get(o, "estimate"));
    fields_read(&v->drift, drift_fields, NFIELDS(drift_fields), json_object_get(o, "drift"));
    dual_to(v, o);
    v->est.ratio = c->ratio;
    v->est.ci_lo = c->ci_lo;
    v->est.ci_hi = c->ci_hi;
    v->est.p = c->p;
    v->est.p_adj = c->p_adj;
    v->confirm.state = PG_CONFIRM_NONE;
    v->confirm.ratio = v->confirm.lo = v->confirm.hi = NAN;
    if (c->confirm) {
        int k;
        for (k = 1; k < 4; k++)
            if (strcmp(c->confirm, confirm_names[k]) == 0)
                v->confirm.state = (pg_confirm_state)k;
        fields_read(&v->confirm, confirm_fields, NFIELDS(confirm_fields), json_object_get(o, "confirm"));
    }
    v->source = head->source;
    json_decref(o);
    return v->key && (!c->reason || v->reason) ? 0 : pg_error_set(PG_ENOMEM, "out of memory reading a decision");
}

/* The first baseline run as the decision named it (its id, commit, branch when decided). */
static int base_stub(pg_run **out, json_t *b)
{
    pg_run *run;
    int err;

    *out = NULL;
    if (!json_is_object(b))
        return 0;
    if ((err = pg_run_new(&run)) != 0)
        return err;
    free(run->uuid);
    free(run->source);
    run->id = json_integer_value(json_object_get(b, "id"));
    run->uuid = json_str(b, "uuid");
    run->commit = json_str(b, "commit");
    run->branch = json_str(b, "branch");
    run->ref = json_str(b, "ref");
    run->source = json_str(b, "source");
    run->started_at = json_integer_value(json_object_get(b, "started_at"));
    if (json_string_value(json_object_get(b, "mode")))
        pg_run_mode_parse(&run->mode, json_string_value(json_object_get(b, "mode")));
    *out = run;
    return 0;
}

static void summary_to(pg_comparison *c, json_t *o)
{
    json_t *canary = json_object_get(o, "canary");

    c->nbases = (size_t)json_integer_value(json_object_get(o, "nbases"));
    c->fail_on_missing = json_is_true(json_object_get(o, "fail_on_missing"));
    c->fail_on_new = json_is_true(json_object_get(o, "fail_on_new"));
    c->checks_total = (size_t)json_integer_value(json_object_get(o, "checks_total"));
    c->checks_failed = (size_t)json_integer_value(json_object_get(o, "checks_failed"));
    fields_read(&c->canary, canary_fields, NFIELDS(canary_fields), canary);
    c->canary.drift = (unsigned)json_integer_value(json_object_get(canary, "drift"));
}

int pg_decision_to(pg_comparison **out, pg_run **out_base, const pg_decision *d, const pg_run *head,
                   const pg_run *const *bases, size_t nbases)
{
    pg_comparison *c = calloc(1, sizeof(*c));
    json_t *o = json_loads(d->detail ? d->detail : "{}", 0, NULL);
    size_t i;
    int err = 0;

    *out = NULL;
    *out_base = NULL;
    if (!c || (d->ncases && !(c->cases = calloc(d->ncases, sizeof(*c->cases))))) {
        free(c);
        json_decref(o);
        return pg_error_set(PG_ENOMEM, "out of memory reading a decision");
    }
    c->head = head;
    summary_to(c, o);
    if ((err = base_stub(out_base, json_object_get(o, "base"))) == 0 && (err = parse_outcome(&c->outcome, d->outcome)) == 0) {
        c->base = *out_base;
        c->exit_code = c->outcome == PG_OUTCOME_FAIL;
        c->outcome_reason = dup_or_null(d->reason);
        c->method = dup_or_null(d->method);
        c->suite.shift = d->suite_shift;
        c->suite.spread = d->suite_spread;
        c->canary.summary = dup_or_null(d->canary);
        c->build.path = dup_or_null(d->base_build);
        c->build.commit = dup_or_null(d->base_commit);
        c->build.sha256 = dup_or_null(d->base_hash);
    }
    for (i = 0; !err && i < d->ncases; i++) {
        c->ncases++;
        if ((err = case_to(&c->cases[i], &d->cases[i], head, bases, nbases)) == 0)
            c->counts[c->cases[i].verdict]++;
    }
    json_decref(o);
    if (err) {
        pg_comparison_free(c);
        pg_run_free(*out_base);
        *out_base = NULL;
        return err;
    }
    *out = c;
    return 0;
}

int pg_decision_origin(pg_report_origin *out, const pg_decision *d)
{
    json_t *o = json_loads(d->detail ? d->detail : "{}", 0, NULL), *og = json_object_get(o, "origin");

    memset(out, 0, sizeof(*out));
    if (json_is_object(og)) {
        out->repository = json_str(og, "repository");
        out->pr = json_integer_value(json_object_get(og, "pr"));
        out->head_sha = json_str(og, "head_sha");
        out->base_sha = json_str(og, "base_sha");
        out->base_ref = json_str(og, "base_ref");
        out->fork = json_is_true(json_object_get(og, "fork"));
        out->run_url = json_str(og, "run_url");
    }
    json_decref(o);
    return 0;
}
