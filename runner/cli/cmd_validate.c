/* cmd_validate.c - `perfgate validate` and `perfgate list`. */
#include "cli.h"

#include "perfgate/errors.h"
#include "suite.h"

#include <string.h>

static int load(pg_suite_set *set, char **paths, int n, int quiet)
{
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_diags diags = {0};
    size_t i;
    int err = pg_suite_set_load(set, (const char *const *)paths, (size_t)n, &so, &diags);

    if (err) {
        for (i = 0; i < diags.count; i++)
            fprintf(stderr, "%s\n", diags.lines[i]);
        if (!diags.count)
            fprintf(stderr, "perfgate: %s\n", pg_error_last());
        if (!quiet)
            fprintf(stderr, "%zu error%s\n", diags.count ? diags.count : 1, diags.count == 1 ? "" : "s");
    }
    pg_diags_free(&diags);
    return err;
}

int pg_cmd_validate(int argc, char **argv)
{
    pg_suite_set set = {0};
    int nargs, rc, err;
    size_t i, cases = 0, checks = 0;
    const pg_opt opts[] = {{0}};
    const pg_cmd_spec spec = {"validate", "SUITE|DIR...", "Check suites and report every error as FILE:LINE:COL: message.",
                              "Exit code 0 when every suite is valid, 2 otherwise.", opts, 1, -1};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if ((err = load(&set, argv + 1, nargs, 0)) != 0)
        return pg_error_exit_code(err);
    for (i = 0; i < set.count; i++) {
        cases += set.suites[i]->ncases;
        checks += set.suites[i]->nchecks;
        printf("%s: ok (suite '%s': %zu cases, %zu checks)\n", set.suites[i]->path, set.suites[i]->name,
               set.suites[i]->ncases, set.suites[i]->nchecks);
    }
    printf("%zu suite%s valid: %zu cases, %zu checks\n", set.count, set.count == 1 ? "" : "s", cases, checks);
    pg_suite_set_free(&set);
    return 0;
}

int pg_cmd_list(int argc, char **argv)
{
    pg_suite_set set = {0};
    const char *format = NULL;
    int nargs, rc, err;
    size_t i, j;
    const pg_opt opts[] = {
        {"format", 0, PG_OPT_STR, &format, "FMT", "text (default) or json"},
        {0},
    };
    const pg_cmd_spec spec = {"list", "[options] SUITE|DIR...", "List the expanded cases and checks of suites with their keys.",
                              NULL, opts, 1, -1};

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if (format && strcmp(format, "text") != 0 && strcmp(format, "json") != 0) {
        fprintf(stderr, "perfgate list: unknown format '%s' (text or json)\n", format);
        return 2;
    }
    if ((err = load(&set, argv + 1, nargs, 1)) != 0)
        return pg_error_exit_code(err);
    if (format && strcmp(format, "json") == 0) {
        printf("[");
        for (i = 0; i < set.count; i++)
            for (j = 0; j < set.suites[i]->ncases; j++) {
                const pg_case *c = &set.suites[i]->cases[j];
                printf("%s\n {\"key\":\"%s\",\"suite\":\"%s\",\"name\":\"%s\",\"params\":%s,\"threads\":%d,"
                       "\"device\":\"%s\"}",
                       (i || j) ? "," : "", c->key, c->suite, c->name, c->params_json, c->threads, c->device);
            }
        printf("\n]\n");
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
    return 0;
}
