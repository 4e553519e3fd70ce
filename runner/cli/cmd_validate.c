/*
 * cmd_validate.c - `perfgate validate` and `perfgate list`.
 *
 * Both load suites with every error collected; validate prints them all as
 * FILE:LINE:COL: message lines (exit 2), list prints the expanded cases
 * with their stable keys as text or JSON.
 */
#include "cli.h"

#include "perfgate/errors.h"
#include "suite.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

/* Loads the suites, printing every diagnostic and a count; returns the error. */
static int load(pg_suite_set *set, char **paths, int n, long max_cases)
{
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_diags diags = {0};
    size_t i;
    int err;

    if (max_cases > 0)
        so.max_cases = (size_t)max_cases;
    err = pg_suite_set_load(set, (const char *const *)paths, (size_t)n, &so, &diags);
    if (err) {
        for (i = 0; i < diags.count; i++)
            fprintf(stderr, "%s\n", diags.lines[i]);
        if (!diags.count)
            fprintf(stderr, "perfgate: %s\n", pg_error_last());
        fprintf(stderr, "%zu error%s\n", diags.count ? diags.count : 1, diags.count == 1 ? "" : "s");
    }
    pg_diags_free(&diags);
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

int pg_cmd_validate(int argc, char **argv)
{
    pg_suite_set set = {0};
    long max_cases = 0;
    int nargs, rc, err;
    size_t i, cases = 0, checks = 0;
    const pg_opt opts[] = {
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
    if ((err = load(&set, argv + 1, nargs, max_cases)) != 0)
        return pg_error_exit_code(err);
    for (i = 0; i < set.count; i++) {
        cases += set.suites[i]->ncases;
        checks += set.suites[i]->nchecks;
        printf("%s: ok (suite '%s': %zu case%s, %zu check%s)\n", set.suites[i]->path, set.suites[i]->name,
               set.suites[i]->ncases, set.suites[i]->ncases == 1 ? "" : "s", set.suites[i]->nchecks,
               set.suites[i]->nchecks == 1 ? "" : "s");
    }
    printf("%zu suite%s valid: %zu cases, %zu checks\n", set.count, set.count == 1 ? "" : "s", cases, checks);
    pg_suite_set_free(&set);
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
    if ((err = load(&set, argv + 1, nargs, max_cases)) != 0)
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
    pg_suite_set_free(&set);
    return rc;
}
