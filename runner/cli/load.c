/* load.c - loading suites for a command, printing every diagnostic. */
#include "cli.h"

#include "suite.h"

#include "perfgate/errors.h"

int pg_cli_load_suites(pg_suite_set *set, char **paths, int n)
{
    pg_suite_options so = PG_SUITE_OPTIONS_INIT;
    pg_diags diags = {0};
    size_t i;
    int err = pg_suite_set_load(set, (const char *const *)paths, (size_t)n, &so, &diags);

    if (err) {
        for (i = 0; i < diags.count; i++)
            fprintf(stderr, "%s\n", diags.lines[i]);
        if (diags.count == 0)
            fprintf(stderr, "perfgate: %s\n", pg_error_last());
    }
    pg_diags_free(&diags);
    return err;
}
