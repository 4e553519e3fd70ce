/*
 * state.c - a bisection as JSON: the state file it resumes from, and what
 * `--json` writes and the nightly's issues read.
 *
 * {"perfgate_bisect": 1, "identity": HEX, "inputs": {...}, "commits":
 * [{"sha", "subject"}], "case", "also", "steps": [...], "unbuilt": [...],
 * "planned_steps", "result": {"kind", "culprit", "span", "step", "text"},
 * "seconds"}. Numbers that are not finite are null. A file is read with
 * its sizes checked against each other (indices inside the chain), since
 * a state or an artifact may have been edited or cut.
 */
#include "bisect/bisect.h"

#include "bisect/internal.h"
#include "base/outfile.h"

#include "perfgate/errors.h"
#include "verdict/verdict.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FORMAT_VERSION 1

/* A state file is small: steps of one bisection; anything larger is not one. */
#define MAX_STATE_BYTES ((uint64_t)64 << 20)

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *strings(char *const *v, size_t n)
{
    json_t *a = json_array();
    size_t i;

    for (i = 0; a && i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

static json_t *step_json(const pg_bisect_step *s)
{
    return json_pack("{s:s, s:I, s:I, s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:o}", "purpose",
                     pg_bisect_purpose_name(s->purpose), "base", (json_int_t)s->base, "head", (json_int_t)s->head, "case",
                     str(s->key), "verdict", pg_verdict_name(s->verdict), "ratio", num(s->ratio), "ci_lo",
                     num(s->ci_lo), "ci_hi", num(s->ci_hi), "p", num(s->p), "alpha", num(s->alpha), "threshold",
                     num(s->threshold), "rounds", s->rounds, "seconds", num(s->seconds), "reason", str(s->reason));
}

static json_t *result_json(const pg_bisect_result *r)
{
    json_t *o = json_object(), *steps = json_array(), *commits = json_array(), *unbuilt = json_array();
    size_t i;

    for (i = 0; i < r->ncommits; i++)
        json_array_append_new(commits,
                              json_pack("{s:s, s:o}", "sha", r->commits[i].sha, "subject", str(r->commits[i].subject)));
    for (i = 0; i < r->nsteps; i++)
        json_array_append_new(steps, step_json(&r->steps[i]));
    for (i = 0; i < r->nunbuilt; i++)
        json_array_append_new(unbuilt, json_pack("{s:I, s:o}", "commit", (json_int_t)r->unbuilt[i].commit, "why",
                                                 str(r->unbuilt[i].why)));
    json_object_set_new(o, "perfgate_bisect", json_integer(FORMAT_VERSION));
    json_object_set_new(o, "identity", str(r->identity));
    json_object_set_new(o, "inputs",
                        json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "good", str(r->good_rev), "bad",
                                  str(r->bad_rev), "build", str(r->build), "build_dir", str(r->build_dir), "filter",
                                  str(r->filter), "threshold", r->threshold < 0 ? json_null() : num(r->threshold),
                                  "alpha", num(r->alpha), "cases", strings(r->cases, r->ncases)));
    json_object_set_new(o, "commits", commits);
    json_object_set_new(o, "case", str(r->key));
    json_object_set_new(o, "also", strings(r->also, r->nalso));
    json_object_set_new(o, "planned_steps", json_integer((json_int_t)r->planned));
    json_object_set_new(o, "steps", steps);
    json_object_set_new(o, "unbuilt", unbuilt);
    json_object_set_new(o, "result",
                        json_pack("{s:s, s:o, s:[I, I], s:o, s:o}", "kind", pg_bisect_kind_name(r->kind), "culprit",
                                  r->kind == PG_BISECT_FOUND ? json_integer((json_int_t)r->culprit) : json_null(),
                                  "span", (json_int_t)r->span_lo, (json_int_t)r->span_hi, "step",
                                  r->result_step == PG_BISECT_NONE ? json_null()
                                                                   : json_integer((json_int_t)r->result_step),
                                  "text", str(r->text)));
    json_object_set_new(o, "seconds", num(r->seconds));
    return o;
}

int pg_bisect_to_json(pg_buf *out, const pg_bisect_result *r)
{
    json_t *o = result_json(r);
    char *text = o ? json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) : NULL;
    int err = text ? pg__buf_puts(out, text) : pg_error_set(PG_ENOMEM, "out of memory writing the bisection");

    if (!err)
        err = pg__buf_puts(out, "\n");
    free(text);
    json_decref(o);
    return err;
}

int pg__bisect_save(const pg_bisect_result *r, const char *path)
{
    pg_buf b = PG_BUF_INIT;
    int err;

    /* Through the one writer (base/outfile.h): a stopped bisection leaves the old state whole. */
    if ((err = pg_bisect_to_json(&b, r)) == 0)
        err = pg__outfile_write(path, b.ptr, b.len, "bisection's state");
    pg__buf_clear(&b);
    return err;
}

/* ---- reading ------------------------------------------------------------ */

static int bad(const char *path, const char *what)
{
    return pg_error_set(PG_EFORMAT, "%s: not a perfgate bisection (%s)", path, what);
}

static char *get_str(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);

    return json_is_string(v) ? pg__strdup(json_string_value(v)) : NULL;
}

static double get_num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);

    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A value that is an index inside the chain of `ncommits` commits, else NONE. */
static size_t as_index(json_t *v, size_t ncommits)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) >= ncommits)
        return PG_BISECT_NONE;
    return (size_t)json_integer_value(v);
}

static size_t get_index(json_t *o, const char *k, size_t ncommits)
{
    return as_index(json_object_get(o, k), ncommits);
}

static int read_strings(char ***out, size_t *n, json_t *a)
{
    size_t i;

    *out = NULL;
    *n = 0;
    if (!json_is_array(a))
        return 0;
    if (json_array_size(a) && !(*out = calloc(json_array_size(a), sizeof(**out))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (i = 0; i < json_array_size(a); i++)
        if (json_is_string(json_array_get(a, i)) && !((*out)[(*n)++] = pg__strdup(json_string_value(json_array_get(a, i)))))
            return pg_error_set(PG_ENOMEM, "out of memory");
    return 0;
}

static int parse_verdict(pg_verdict *out, const char *name)
{
    int v;

    for (v = 0; v < PG_VERDICT__COUNT; v++)
        if (name && strcmp(name, pg_verdict_name((pg_verdict)v)) == 0) {
            *out = (pg_verdict)v;
            return 0;
        }
    return -1;
}

static int parse_purpose(pg_bisect_purpose *out, const char *name)
{
    int p;

    for (p = 0; p <= PG_BISECT_DONE; p++)
        if (name && strcmp(name, pg_bisect_purpose_name((pg_bisect_purpose)p)) == 0) {
            *out = (pg_bisect_purpose)p;
            return 0;
        }
    return -1;
}

static int read_step(pg_bisect_step *s, json_t *o, size_t ncommits, const char *path)
{
    json_t *v;

    if (!json_is_object(o) || parse_purpose(&s->purpose, json_string_value(json_object_get(o, "purpose"))) != 0 ||
        parse_verdict(&s->verdict, json_string_value(json_object_get(o, "verdict"))) != 0)
        return bad(path, "a step without a purpose or verdict");
    s->base = get_index(o, "base", ncommits);
    s->head = get_index(o, "head", ncommits);
    if (s->base == PG_BISECT_NONE || s->head == PG_BISECT_NONE || s->base >= s->head)
        return bad(path, "a step's commits are outside the chain");
    s->key = get_str(o, "case");
    s->ratio = get_num(o, "ratio");
    s->ci_lo = get_num(o, "ci_lo");
    s->ci_hi = get_num(o, "ci_hi");
    s->p = get_num(o, "p");
    s->alpha = get_num(o, "alpha");
    s->threshold = get_num(o, "threshold");
    s->seconds = get_num(o, "seconds");
    v = json_object_get(o, "rounds");
    s->rounds = json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) < 1000000
                    ? (int)json_integer_value(v) : 0;
    s->reason = get_str(o, "reason");
    return 0;
}

static int read_commits(pg_bisect_result *r, json_t *a, const char *path)
{
    size_t i;

    if (!json_is_array(a) || json_array_size(a) < 2)
        return bad(path, "no chain of commits");
    if (!(r->commits = calloc(json_array_size(a), sizeof(*r->commits))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (i = 0; i < json_array_size(a); i++) {
        json_t *c = json_array_get(a, i);
        r->commits[i].sha = get_str(c, "sha");
        r->commits[i].subject = get_str(c, "subject");
        r->ncommits++;
        if (!r->commits[i].sha || strlen(r->commits[i].sha) != 40)
            return bad(path, "a commit without its sha");
    }
    return 0;
}

static int read_lists(pg_bisect_result *r, json_t *root, const char *path)
{
    json_t *steps = json_object_get(root, "steps"), *unbuilt = json_object_get(root, "unbuilt");
    size_t i;
    int err;

    if (!json_is_array(steps))
        return bad(path, "no steps");
    if (json_array_size(steps) && !(r->steps = calloc(json_array_size(steps), sizeof(*r->steps))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (i = 0; i < json_array_size(steps); i++) {
        r->nsteps++;
        if ((err = read_step(&r->steps[i], json_array_get(steps, i), r->ncommits, path)) != 0)
            return err;
    }
    if (json_array_size(unbuilt) && !(r->unbuilt = calloc(json_array_size(unbuilt), sizeof(*r->unbuilt))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (i = 0; i < json_array_size(unbuilt); i++) {
        json_t *u = json_array_get(unbuilt, i);
        size_t c = get_index(u, "commit", r->ncommits);
        if (c == PG_BISECT_NONE)
            return bad(path, "a commit that did not build is outside the chain");
        r->unbuilt[r->nunbuilt].commit = c;
        r->unbuilt[r->nunbuilt++].why = get_str(u, "why");
    }
    return 0;
}

static int read_root(pg_bisect_result *r, json_t *root, const char *path)
{
    json_t *in = json_object_get(root, "inputs"), *res = json_object_get(root, "result"), *span, *kind;
    int err;
    int k;

    if (!json_is_object(root) || json_integer_value(json_object_get(root, "perfgate_bisect")) != FORMAT_VERSION ||
        !json_is_object(in))
        return bad(path, "no \"perfgate_bisect\": 1 with its inputs");
    if ((err = read_commits(r, json_object_get(root, "commits"), path)) != 0 ||
        (err = read_lists(r, root, path)) != 0 ||
        (err = read_strings(&r->cases, &r->ncases, json_object_get(in, "cases"))) != 0 ||
        (err = read_strings(&r->also, &r->nalso, json_object_get(root, "also"))) != 0)
        return err;
    r->identity = get_str(root, "identity");
    r->good_rev = get_str(in, "good");
    r->bad_rev = get_str(in, "bad");
    r->build = get_str(in, "build");
    r->build_dir = get_str(in, "build_dir");
    r->filter = get_str(in, "filter");
    r->threshold = json_is_number(json_object_get(in, "threshold")) ? get_num(in, "threshold") : -1.0;
    r->alpha = get_num(in, "alpha");
    r->key = get_str(root, "case");
    r->planned = pg_bisect_planned_steps(r->ncommits - 1);
    r->seconds = get_num(root, "seconds");
    kind = json_object_get(res, "kind");
    r->kind = PG_BISECT_OPEN;
    for (k = 0; k <= PG_BISECT_ERROR; k++)
        if (json_is_string(kind) && strcmp(json_string_value(kind), pg_bisect_kind_name((pg_bisect_kind)k)) == 0)
            r->kind = (pg_bisect_kind)k;
    r->culprit = get_index(res, "culprit", r->ncommits);
    span = json_object_get(res, "span");
    r->span_lo = as_index(json_array_get(span, 0), r->ncommits);
    r->span_hi = as_index(json_array_get(span, 1), r->ncommits);
    r->result_step = json_is_integer(json_object_get(res, "step")) &&
                             json_integer_value(json_object_get(res, "step")) >= 0 &&
                             (uint64_t)json_integer_value(json_object_get(res, "step")) < r->nsteps
                         ? (size_t)json_integer_value(json_object_get(res, "step"))
                         : PG_BISECT_NONE;
    r->text = get_str(res, "text");
    if ((r->kind == PG_BISECT_FOUND && r->culprit == PG_BISECT_NONE) || r->span_lo == PG_BISECT_NONE ||
        r->span_hi == PG_BISECT_NONE || r->span_lo > r->span_hi)
        return bad(path, "a result outside the chain");
    return 0;
}

int pg_bisect_read(pg_bisect_result *out, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    json_error_t je;
    json_t *root;
    int err;

    memset(out, 0, sizeof(*out));
    out->result_step = PG_BISECT_NONE;
    if ((err = pg__read_input(&text, &len, path, "bisection", MAX_STATE_BYTES)) != 0)
        return err;
    root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    free(text);
    if (!root)
        return pg_error_set(PG_EFORMAT, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    err = read_root(out, root, path);
    json_decref(root);
    if (err)
        pg_bisect_result_clear(out);
    return err;
}
