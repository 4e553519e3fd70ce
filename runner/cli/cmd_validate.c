/*
 * cmd_validate.c - `perfgate validate` and `perfgate list`.
 *
 * Both load suites with every error collected; validate prints them all as
 * FILE:LINE:COL: message lines (exit 2), list prints the expanded cases
 * with their stable keys as text or JSON.
 */
#include "cli/cli.h"

#include "perfgate/errors.h"
#include "suite/suite.h"
#include "base/util.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Loads the suites, printing every diagnostic and a count; returns the error.
 * With `keep` set the diagnostics go there instead of being printed.
 */
static int load(pg_suite_set *set, char **paths, int n, long max_cases, pg_diags *keep)
{
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_diags diags = {0};
    size_t i;
    int err;

    if (max_cases > 0)
        so.max_cases = (size_t)max_cases;
    err = pg_suite_set_load(set, (const char *const *)paths, (size_t)n, &so, &diags);
    if (err && keep) {
        if (!diags.count)
            fprintf(stderr, "perfgate: %s\n", pg_error_last());
        *keep = diags;
        return err;
    }
    if (err) {
        for (i = 0; i < diags.count; i++)
            fprintf(stderr, "%s\n", diags.lines[i]);
        if (!diags.count)
            fprintf(stderr, "perfgate: %s\n", pg_error_last());
        fprintf(stderr, "%zu error%s\n", diags.count ? diags.count : 1, diags.count == 1 ? "" : "s");
    }
    pg_diags_clear(&diags);
    return err;
}

static int check_max_cases(const char *cmd, long max_cases)
{
    if (max_cases < 0) {
        fprintf(stderr, "perfgate %s: --max-cases must be positive\n", cmd);
        return 2;
    }
    return 0;
}

/* "FILE:LINE:COL: message" as an object with those fields (the text alone when it has no position). */
static json_t *diag_json(const char *line)
{
    json_t *o = json_object();
    const char *p;

    json_object_set_new(o, "text", json_string(line));
    for (p = strchr(line, ':'); p; p = strchr(p + 1, ':')) {
        int l, c, used = 0;
        if (sscanf(p, ":%d:%d: %n", &l, &c, &used) == 2 && used > 0) {
            json_object_set_new(o, "file", json_stringn(line, (size_t)(p - line)));
            json_object_set_new(o, "line", json_integer(l));
            json_object_set_new(o, "col", json_integer(c));
            json_object_set_new(o, "message", json_string(p + used));
            break;
        }
    }
    return o;
}

/* {"schema_version": 1, "valid": BOOL, "suites": [{path, suite, cases, checks}], "errors": [{file, line, col, message, text}]} */
static int validate_json(char **paths, int n, long max_cases)
{
    pg_suite_set set = {0};
    pg_diags diags = {0};
    json_t *root = json_object(), *suites = json_array(), *errors = json_array();
    size_t i;
    int err = load(&set, paths, n, max_cases, &diags), rc;

    for (i = 0; i < diags.count; i++)
        json_array_append_new(errors, diag_json(diags.lines[i]));
    if (err && !diags.count)
        json_array_append_new(errors, diag_json(pg_error_last()));
    for (i = 0; !err && i < set.count; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "path", json_string(set.suites[i]->path));
        json_object_set_new(o, "suite", json_string(set.suites[i]->name));
        json_object_set_new(o, "cases", json_integer((json_int_t)set.suites[i]->ncases));
        json_object_set_new(o, "checks", json_integer((json_int_t)set.suites[i]->nchecks));
        json_array_append_new(suites, o);
    }
    json_object_set_new(root, "schema_version", json_integer(1));
    json_object_set_new(root, "valid", json_boolean(!err));
    json_object_set_new(root, "suites", suites);
    json_object_set_new(root, "errors", errors);
    rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(root);
    pg_diags_clear(&diags);
    pg_suite_set_clear(&set);
    if (rc != 0 || fflush(stdout) != 0)
        return 3;
    return err ? pg_error_exit_code(err) : 0;
}

int pg_cmd_validate(int argc, char **argv)
{
    pg_suite_set set = {0};
    const char *format = NULL;
    long max_cases = 0;
    int nargs, rc, err;
    size_t i, cases = 0, checks = 0;
    const pg_opt opts[] = {
        {"format", 0, PG_OPT_STR, &format, "FMT", "text (default) or json: validity, suites and errors as one object"},
        {"max-cases", 0, PG_OPT_INT, &max_cases, "N", "cap on the cases one suite may expand to (default 10000)"},
        {0},
    };
    const pg_cmd_spec spec = {"validate", "[options] SUITE|DIR...",
                              "Check suites and report every error as FILE:LINE:COL: message.",
                              "A directory loads its *.yaml and *.yml files in name order. Exit code 0 when "
                              "every suite is valid, 2 otherwise.",
                              opts, 1, -1};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if ((rc = check_max_cases("validate", max_cases)) != 0)
        return rc;
    if (format && strcmp(format, "text") != 0 && strcmp(format, "json") != 0) {
        fprintf(stderr, "perfgate validate: unknown format '%s' (text or json)\n", format);
        return 2;
    }
    if (format && strcmp(format, "json") == 0)
        return validate_json(argv + 1, nargs, max_cases);
    if ((err = load(&set, argv + 1, nargs, max_cases, NULL)) != 0)
        return pg_error_exit_code(err);
    for (i = 0; i < set.count; i++) {
        cases += set.suites[i]->ncases;
        checks += set.suites[i]->nchecks;
        printf("%s: ok (suite '%s': %zu case%s, %zu check%s)\n", set.suites[i]->path, set.suites[i]->name,
               set.suites[i]->ncases, set.suites[i]->ncases == 1 ? "" : "s", set.suites[i]->nchecks,
               set.suites[i]->nchecks == 1 ? "" : "s");
    }
    printf("%zu suite%s valid: %zu cases, %zu checks\n", set.count, set.count == 1 ? "" : "s", cases, checks);
    pg_suite_set_clear(&set);
    return 0;
}

static json_t *case_json(const pg_case *c)
{
    json_t *o = json_object(), *params = json_object(), *tags = json_array();
    size_t i;

    for (i = 0; i < c->nparams; i++) {
        const pg_param *p = &c->params[i];
        json_t *v;
        if (p->is_number && p->num == floor(p->num) && fabs(p->num) < 9007199254740992.0)
            v = json_integer((json_int_t)p->num);
        else if (p->is_number)
            v = json_real(p->num);
        else
            v = json_string(p->value);
        json_object_set_new(params, p->name, v);
    }
    for (i = 0; i < c->ntags; i++)
        json_array_append_new(tags, json_string(c->tags[i]));
    json_object_set_new(o, "key", json_string(c->key));
    json_object_set_new(o, "suite", json_string(c->suite));
    json_object_set_new(o, "name", json_string(c->name));
    if (c->kernel)
        json_object_set_new(o, "kernel", json_string(c->kernel));
    if (c->plugin) {
        json_object_set_new(o, "plugin", json_string(c->plugin));
        json_object_set_new(o, "symbol", json_string(c->symbol));
    }
    if (c->command) {
        json_t *argv = json_array();
        for (i = 0; c->command[i]; i++)
            json_array_append_new(argv, json_string(c->command[i]));
        json_object_set_new(o, "command", argv);
    }
    if (c->nenv) {
        json_t *env = json_object();
        for (i = 0; i < c->nenv; i++) {
            const char *eq = strchr(c->env[i], '=');
            char *name = pg__asprintf("%.*s", (int)(eq - c->env[i]), c->env[i]);
            if (name)
                json_object_set_new(env, name, json_string(eq + 1));
            free(name);
        }
        json_object_set_new(o, "env", env);
    }
    json_object_set_new(o, "device", json_string(c->device));
    json_object_set_new(o, "threads", json_integer(c->threads));
    json_object_set_new(o, "params", params);
    json_object_set_new(o, "min_run_time", json_real(c->min_run_time));
    json_object_set_new(o, "max_run_time", json_real(c->max_run_time));
    json_object_set_new(o, "warmup", json_real(c->warmup));
    json_object_set_new(o, "min_samples", json_integer(c->min_samples));
    json_object_set_new(o, "threshold", json_real(c->threshold));
    json_object_set_new(o, "alpha", json_real(c->alpha));
    json_object_set_new(o, "tags", tags);
    json_object_set_new(o, "line", json_integer(c->node ? c->node->line : 0));
    return o;
}

/* A YAML node as JSON: plain scalars that read as numbers or booleans become those, merge keys are applied. */
static json_t *node_json(const pg_node *n, int depth)
{
    json_t *o;
    size_t i;

    if (!n || depth > 64)
        return json_null();
    if (n->type == PG_NODE_SCALAR) {
        char *end;
        double d;
        if (n->quoted)
            return json_string(n->scalar);
        if (strcmp(n->scalar, "true") == 0 || strcmp(n->scalar, "false") == 0)
            return json_boolean(n->scalar[0] == 't');
        d = strtod(n->scalar, &end);
        if (*n->scalar && *end == '\0' && isfinite(d))
            return d == floor(d) && fabs(d) < 9007199254740992.0 ? json_integer((json_int_t)d) : json_real(d);
        return json_string(n->scalar);
    }
    if (n->type == PG_NODE_SEQ) {
        o = json_array();
        for (i = 0; i < n->count; i++)
            json_array_append_new(o, node_json(n->items[i], depth + 1));
        return o;
    }
    o = json_object();
    for (i = 0; i < n->count; i++)
        if (!pg_node_is(n->keys[i], "<<"))
            json_object_set_new(o, n->keys[i]->scalar, node_json(n->items[i], depth + 1));
    for (i = 0; i < n->count; i++) {
        /* Merge keys: the entry's own keys win, then the first mapping listed. */
        const pg_node *m = n->items[i];
        size_t k, nm = m->type == PG_NODE_SEQ ? m->count : 1;
        if (!pg_node_is(n->keys[i], "<<"))
            continue;
        for (k = 0; k < nm; k++) {
            json_t *src = node_json(m->type == PG_NODE_SEQ ? m->items[k] : m, depth + 1);
            json_object_update_missing(o, src);
            json_decref(src);
        }
    }
    return o;
}

/* What a check will do: its workload or trace, schedule, steps and expectations, as the suite sets them. */
static void check_settings(json_t *o, const pg_check *c)
{
    if (c->workload)
        json_object_set_new(o, "workload", node_json(c->workload, 0));
    if (c->trace)
        json_object_set_new(o, "trace", node_json(c->trace, 0));
    if (c->schedule) {
        json_t *s = json_object();
        json_object_set_new(s, "skip_first", json_integer(c->skip_first));
        json_object_set_new(s, "wait", json_integer(c->wait));
        json_object_set_new(s, "warmup", json_integer(c->warmup));
        json_object_set_new(s, "active", json_integer(c->active));
        json_object_set_new(s, "repeat", json_integer(c->repeat));
        json_object_set_new(o, "schedule", s);
    }
    if (c->steps)
        json_object_set_new(o, "steps", json_integer(c->steps));
    if (c->expect)
        json_object_set_new(o, "expect", node_json(c->expect, 0));
}

/* {"schema_version": 1, "suites": [{suite, path, description, checks: [...], cases: [...]}]} */
static int print_json(const pg_suite_set *set)
{
    json_t *root = json_object(), *suites = json_array();
    size_t i, j;
    int rc;

    json_object_set_new(root, "schema_version", json_integer(1));
    for (i = 0; i < set->count; i++) {
        const pg_suite *s = set->suites[i];
        json_t *o = json_object(), *checks = json_array(), *cases = json_array();
        json_object_set_new(o, "suite", json_string(s->name));
        json_object_set_new(o, "path", json_string(s->path));
        if (s->description)
            json_object_set_new(o, "description", json_string(s->description));
        for (j = 0; j < s->nchecks; j++) {
            json_t *c = json_object();
            json_object_set_new(c, "name", json_string(s->checks[j].name));
            json_object_set_new(c, "kind", json_string(s->checks[j].kind));
            check_settings(c, &s->checks[j]);
            json_object_set_new(c, "line", json_integer(s->checks[j].node->line));
            json_array_append_new(checks, c);
        }
        for (j = 0; j < s->ncases; j++)
            json_array_append_new(cases, case_json(&s->cases[j]));
        json_object_set_new(o, "checks", checks);
        json_object_set_new(o, "cases", cases);
        json_array_append_new(suites, o);
    }
    json_object_set_new(root, "suites", suites);
    rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    fputc('\n', stdout);
    json_decref(root);
    return rc == 0 ? 0 : 3;
}

int pg_cmd_list(int argc, char **argv)
{
    pg_suite_set set = {0};
    const char *format = NULL;
    long max_cases = 0;
    int nargs, rc, err;
    size_t i, j;
    const pg_opt opts[] = {
        {"format", 0, PG_OPT_STR, &format, "FMT", "text (default) or json"},
        {"max-cases", 0, PG_OPT_INT, &max_cases, "N", "cap on the cases one suite may expand to (default 10000)"},
        {0},
    };
    const pg_cmd_spec spec = {"list", "[options] SUITE|DIR...",
                              "List the checks and expanded cases of suites with their keys.",
                              "Case keys are SUITE/NAME[PARAMS]@THREADS:DEVICE, params sorted by name.", opts, 1,
                              -1};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if (format && strcmp(format, "text") != 0 && strcmp(format, "json") != 0) {
        fprintf(stderr, "perfgate list: unknown format '%s' (text or json)\n", format);
        return 2;
    }
    if ((rc = check_max_cases("list", max_cases)) != 0)
        return rc;
    if ((err = load(&set, argv + 1, nargs, max_cases, NULL)) != 0)
        return pg_error_exit_code(err);
    if (format && strcmp(format, "json") == 0) {
        rc = print_json(&set);
    } else {
        for (i = 0; i < set.count; i++) {
            const pg_suite *s = set.suites[i];
            for (j = 0; j < s->nchecks; j++)
                printf("check  %s/%s (%s)\n", s->name, s->checks[j].name, s->checks[j].kind);
            for (j = 0; j < s->ncases; j++)
                printf("case   %s\n", s->cases[j].key);
        }
    }
    pg_suite_set_clear(&set);
    return rc;
}
