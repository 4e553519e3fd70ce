/*
 * json_read.c - reading a JSON report back (pg_report_doc_load()), as
 * `perfgate post --from` does in a trusted job with a report a fork may
 * have written.
 *
 * The report goes through the bounded reader (base/json_walk.h): its small
 * members are parsed one at a time and its results, checks and verdicts one
 * element at a time, so memory follows the model read, not the file, and
 * time is linear in the file; past PG_REPORT_MAX_ITEMS results (or checks,
 * or verdicts) it is refused as it is read.
 */
#include "report/report.h"

#include "perfgate/errors.h"
#include "base/json_walk.h"
#include "verdict/canary.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *get_str(const json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);

    return json_is_string(v) ? pg__strdup(json_string_value(v)) : NULL;
}

static double get_num(const json_t *o, const char *k, double dflt)
{
    json_t *v = json_object_get(o, k);

    return json_is_number(v) ? json_number_value(v) : dflt;
}

static int64_t get_int(const json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);

    return json_is_integer(v) ? (int64_t)json_integer_value(v) : (json_is_real(v) ? (int64_t)json_real_value(v) : 0);
}

static char *get_embedded(const json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);

    if (!v || json_is_null(v))
        return NULL;
    if (json_is_string(v))
        return pg__strdup(json_string_value(v));
    return json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(17));
}

static int load_result(pg_run *run, const json_t *o)
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

static int load_check(pg_run *run, const json_t *o)
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

/* Reads "estimators" back (the claim intervals are not written: they become the intervals shown). */
static void load_estimators(pg_case_verdict *v, const json_t *o)
{
    json_t *e = json_object_get(o, "estimators"), *by = json_object_get(e, "decided_by");
    pg_estimator_bounds *b[2] = {&v->dual.median, &v->dual.low};
    json_t *src[2] = {json_object_get(e, "median"), json_object_get(e, "fastest_tenth")};
    unsigned i;

    v->regime = get_str(o, "regime");
    if (!json_is_object(e))
        return;
    v->dual.on = 1;
    for (i = 0; pg__decided_by_name(i); i++)
        if (json_is_string(by) && strcmp(json_string_value(by), pg__decided_by_name(i)) == 0)
            v->dual.by = (pg_decided_by)i;
    for (i = 0; i < 2; i++) {
        b[i]->ratio = get_num(src[i], "ratio", NAN);
        b[i]->lo = b[i]->claim_lo = get_num(src[i], "ci_lo", NAN);
        b[i]->hi = b[i]->claim_hi = get_num(src[i], "ci_hi", NAN);
    }
    v->rounds.contended = (size_t)get_int(o, "rounds_left_out");
}

/* One verdict; its head result is bound once the whole report is read. */
static int load_verdict(pg_case_verdict *v, const json_t *o)
{
    char *name;
    int i;

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
    return 0;
}

/* A run's "mode"; plain when absent (a report from before modes were recorded) or unknown. */
static void read_mode(pg_run_mode *out, const json_t *o)
{
    const char *m = json_string_value(json_object_get(o, "mode"));

    if (!m || pg_run_mode_parse(out, m) != 0)
        *out = PG_MODE_PLAIN;
}

/*
 * The canaries' figures; their line is made again from them (canary.h),
 * never taken from the report, where a fork could put any text.
 */
static int read_canaries(pg_comparison *c, const json_t *cy)
{
    c->canary.compute = c->canary.memory = NAN;
    if (!json_is_object(cy))
        return 0;
    c->canary.compute = get_num(cy, "compute", NAN);
    c->canary.memory = get_num(cy, "memory", NAN);
    c->canary.drift = (json_is_true(json_object_get(cy, "compute_drift")) ? PG_CANARY_DRIFT_COMPUTE : 0) |
                      (json_is_true(json_object_get(cy, "memory_drift")) ? PG_CANARY_DRIFT_MEMORY : 0);
    return pg_canary_summary(&c->canary.summary, &c->canary);
}

/* The base build of an interleaved gate; the base run then names it as the gate's own did. */
static int read_build(pg_comparison *c, pg_run *base, const json_t *b)
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


/* What the walk keeps: the small members whole, the verdicts as they come. */
typedef struct reader {
    pg_report_doc *doc;
    const char *name;
    json_t *schema, *run, *machine, *github, *summary, *baseline;
    size_t room;          /* of doc->cmp->cases */
} reader;

static int on_member(void *ctx, const char *key, const json_t *value, const char *where)
{
    static const char *const names[] = {"schema_version", "run", "machine", "github", "summary", "baseline"};
    reader *rd = ctx;
    json_t **slots[] = {&rd->schema, &rd->run, &rd->machine, &rd->github, &rd->summary, &rd->baseline};
    size_t i;

    (void)where;
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(key, names[i]) == 0 && !*slots[i])
            *slots[i] = json_incref((json_t *)value);
    return 0;
}

static int too_many(const char *where, const char *what)
{
    return pg_error_set(PG_EFORMAT, "%s: more than %d %s; perfgate reads reports of at most that many", where,
                        PG_REPORT_MAX_ITEMS, what);
}

static int add_verdict(reader *rd, const json_t *e)
{
    pg_comparison *c = rd->doc->cmp;

    /* Doubling: 100,000 verdicts cost no quadratic copying. */
    if (c->ncases == rd->room) {
        size_t room = rd->room ? 2 * rd->room : 16;
        pg_case_verdict *p = realloc(c->cases, room * sizeof(*p));
        if (!p)
            return pg_error_set(PG_ENOMEM, "out of memory reading verdicts");
        c->cases = p;
        rd->room = room;
    }
    memset(&c->cases[c->ncases], 0, sizeof(c->cases[0]));
    c->ncases++;
    return load_verdict(&c->cases[c->ncases - 1], e);
}

static int on_element(void *ctx, const char *key, const json_t *e, size_t index, const char *where)
{
    reader *rd = ctx;
    pg_run *r = rd->doc->run;
    int err = 0;

    if (index >= PG_REPORT_MAX_ITEMS)
        return too_many(where, key);
    if (strcmp(key, "results") == 0)
        err = load_result(r, e);
    else if (strcmp(key, "checks") == 0)
        err = load_check(r, e);
    else
        err = add_verdict(rd, e);
    if (err) {
        /* The message is copied first: pg_error_set() writes the buffer pg_error_last() returns. */
        char msg[512];
        snprintf(msg, sizeof(msg), "%s", pg_error_last());
        return pg_error_set(err, "%s: %s", where, msg);
    }
    return 0;
}

static void fill_run(pg_report_doc *doc, const reader *rd)
{
    pg_run *r = doc->run;
    const json_t *run = rd->run, *machine = rd->machine, *gh = rd->github;

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
}

static int fill_comparison(pg_report_doc *doc, reader *rd)
{
    pg_comparison *c = doc->cmp;
    const json_t *sum = rd->summary, *base = rd->baseline;
    pg_keymap keys = PG_KEYMAP_INIT;
    char *outcome;
    size_t i, at;
    int err;

    c->head = doc->run;
    c->method = get_str(sum, "method");
    c->exit_code = (int)get_int(sum, "exit_code");
    /* Reports from before outcomes existed carry only the exit code. */
    outcome = get_str(sum, "outcome");
    c->outcome = outcome && strcmp(outcome, "NOTHING_COMPARED") == 0 ? PG_OUTCOME_NOTHING_COMPARED
                 : outcome && strcmp(outcome, "ERROR") == 0          ? PG_OUTCOME_ERROR
                 : c->exit_code == 1                                 ? PG_OUTCOME_FAIL
                                                                     : PG_OUTCOME_PASS;
    free(outcome);
    /* The comparison's exit rule (1: a regression or a failed check); the outcome says the rest. */
    c->exit_code = c->outcome == PG_OUTCOME_FAIL;
    c->outcome_reason = get_str(sum, "outcome_reason");
    c->checks_total = (size_t)get_int(sum, "checks_total");
    c->checks_failed = (size_t)get_int(sum, "checks_failed");
    if ((err = read_canaries(c, json_object_get(sum, "canaries"))) != 0)
        return err;
    /* Each verdict's head by an index of the results, not a scan per verdict: linear in the report. */
    for (i = 0; i < doc->run->nresults; i++)
        if ((err = pg__keymap_put(&keys, doc->run->results[i].key, i)) != 0) {
            pg__keymap_clear(&keys);
            return err;
        }
    for (i = 0; i < c->ncases; i++) {
        pg_case_verdict *v = &c->cases[i];
        v->head = pg__keymap_get(&keys, v->key, &at) ? &doc->run->results[at] : NULL;
        c->counts[v->verdict]++;
    }
    pg__keymap_clear(&keys);
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
        if ((err = read_build(c, doc->base, json_object_get(base, "build"))) != 0)
            return err;
        c->base = doc->base;
        c->nbases = (size_t)get_int(base, "runs");
        if (!c->nbases)
            c->nbases = 1;
    }
    return 0;
}

static void reader_clear(reader *rd)
{
    json_decref(rd->schema);
    json_decref(rd->run);
    json_decref(rd->machine);
    json_decref(rd->github);
    json_decref(rd->summary);
    json_decref(rd->baseline);
    memset(rd, 0, sizeof(*rd));
}

/* Walks the report in `f` into a new document. */
static int read_doc(pg_report_doc **out, FILE *f, const char *name)
{
    static const char *const arrays[] = {"results", "checks", "verdicts", NULL};
    reader rd = {0};
    pg__json_walk_spec spec = {name, "perfgate", arrays, on_element, on_member, 0, &rd};
    pg_report_doc *doc = calloc(1, sizeof(*doc));
    int err;

    *out = NULL;
    if (!doc || pg_run_new(&doc->run) != 0 || !(doc->cmp = calloc(1, sizeof(*doc->cmp)))) {
        pg_report_doc_free(doc);
        return pg_error_set(PG_ENOMEM, "out of memory reading %s", name);
    }
    rd.doc = doc;
    rd.name = name;
    if ((err = pg__json_walk(NULL, f, &spec)) != 0)
        goto cleanup;
    if (!json_is_integer(rd.schema)) {
        err = pg_error_set(PG_EFORMAT, "%s: not a perfgate JSON report (no schema_version)", name);
        goto cleanup;
    }
    if (json_integer_value(rd.schema) > PG_REPORT_JSON_SCHEMA || json_integer_value(rd.schema) < 1) {
        err = pg_error_set(PG_EFORMAT, "%s: schema_version %lld is not one this perfgate reads (1..%d)", name,
                           (long long)json_integer_value(rd.schema), PG_REPORT_JSON_SCHEMA);
        goto cleanup;
    }
    fill_run(doc, &rd);
    if ((err = fill_comparison(doc, &rd)) != 0)
        goto cleanup;
    *out = doc;
    doc = NULL;
cleanup:
    reader_clear(&rd);
    pg_report_doc_free(doc);
    return err;
}

int pg_report_doc_parse(pg_report_doc **out, const char *text, size_t len, const char *name)
{
    FILE *f;
    int err;

    *out = NULL;
    if (len == 0)
        return pg_error_set(PG_EFORMAT, "%s: empty, not a perfgate JSON report", name);
    if (!(f = fmemopen((void *)text, len, "r")))
        return pg_error_set(PG_ENOMEM, "out of memory reading %s", name);
    err = read_doc(out, f, name);
    fclose(f);
    return err;
}

int pg_report_doc_load(pg_report_doc **out, const char *path)
{
    FILE *f = NULL;
    int err;

    *out = NULL;
    /* A report may be a fork's: opened as every input file is, read in one bounded pass. */
    if ((err = pg__open_input(&f, NULL, path, "JSON report", PG_REPORT_JSON_MAX_BYTES)) != 0)
        return err;
    err = read_doc(out, f, path);
    fclose(f);
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
