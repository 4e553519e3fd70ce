/* opts.c - one option-spec array parses a subcommand and prints its help. */
#include "cli/cli.h"

#include "perfgate/errors.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int pg_cli_fail(int err)
{
    fprintf(stderr, "perfgate: %s\n", pg_error_last());
    return pg_error_exit_code(err);
}

/* The commands that compare, and so can end in 4: nothing compared. */
static int compares(const char *name)
{
    static const char *const comparing[] = {"gate", "compare", "ab", NULL};
    size_t i;

    for (i = 0; comparing[i]; i++)
        if (strcmp(name, comparing[i]) == 0)
            return 1;
    return 0;
}

void pg_cli_help(FILE *f, const pg_cmd_spec *spec)
{
    const pg_opt *o;

    fprintf(f, "usage: perfgate %s %s\n\n%s\n", spec->name, spec->usage, spec->summary);
    if (spec->description)
        fprintf(f, "\n%s\n", spec->description);
    fprintf(f, "\noptions:\n");
    for (o = spec->opts; o && o->name; o++) {
        char left[64];
        if (o->shrt)
            snprintf(left, sizeof(left), "-%c, --%s%s%s", o->shrt, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        else
            snprintf(left, sizeof(left), "    --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(f, "  %-28s %s\n", left, o->help);
    }
    fprintf(f, "  %-28s %s\n", "-h, --help", "show this help");
    fprintf(f, "\nexit codes: 0 pass, 1 regression or failed exact check, 2 usage or invalid input,\n"
               "3 infrastructure error (database, kernel or device)%s\n",
            compares(spec->name) ? ", 4 nothing compared (no baseline on this\nmachine, or no case decided)" : "");
}

/* `what` is printed after `msg`, quoted when non-empty. */
static int usage_error(const pg_cmd_spec *spec, const char *msg, const char *what)
{
    if (what && *what)
        fprintf(stderr, "perfgate %s: %s '%s'; see 'perfgate %s --help'\n", spec->name, msg, what, spec->name);
    else
        fprintf(stderr, "perfgate %s: %s; see 'perfgate %s --help'\n", spec->name, msg, spec->name);
    return 2;
}

static int set_value(const pg_cmd_spec *spec, const pg_opt *o, const char *v)
{
    char *end;

    switch (o->type) {
    case PG_OPT_STR:
        *(const char **)o->dest = v;
        return 0;
    case PG_OPT_LIST: {
        pg_opt_list *l = o->dest;
        if (l->count >= 64)
            return usage_error(spec, "too many uses of option", o->name);
        l->items[l->count++] = v;
        return 0;
    }
    case PG_OPT_INT:
        errno = 0;
        *(long *)o->dest = strtol(v, &end, 10);
        if (end == v || *end || errno)
            return usage_error(spec, "not an integer:", v);
        return 0;
    case PG_OPT_DOUBLE:
        errno = 0;
        *(double *)o->dest = strtod(v, &end);
        if (end == v || errno)
            return usage_error(spec, "not a number:", v);
        if (*end == '%' && end[1] == '\0')
            *(double *)o->dest /= 100.0;
        else if (*end)
            return usage_error(spec, "not a number:", v);
        return 0;
    default:
        return 0;
    }
}

int pg_cli_parse(const pg_cmd_spec *spec, int argc, char **argv, int *out_nargs)
{
    int i, nargs = 0, only_args = 0, err;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const pg_opt *o = NULL, *p;
        const char *value = NULL;

        if (only_args || a[0] != '-' || strcmp(a, "-") == 0) {
            argv[1 + nargs++] = argv[i];
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_args = 1;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            pg_cli_help(stdout, spec);
            return -1;
        }
        if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            for (p = spec->opts; p && p->name; p++)
                if (strlen(p->name) == len && strncmp(p->name, a + 2, len) == 0)
                    o = p;
            if (!o)
                return usage_error(spec, "unknown option", a);
            if (eq)
                value = eq + 1;
        } else {
            for (p = spec->opts; p && p->name; p++)
                if (p->shrt && p->shrt == a[1] && a[2] == '\0')
                    o = p;
            if (!o)
                return usage_error(spec, "unknown option", a);
        }
        if (o->type == PG_OPT_FLAG) {
            if (value)
                return usage_error(spec, "no value allowed for option", a);
            *(int *)o->dest = 1;
            continue;
        }
        if (!value) {
            if (i + 1 >= argc)
                return usage_error(spec, "missing value for option", a);
            value = argv[++i];
        }
        if ((err = set_value(spec, o, value)) != 0)
            return err;
    }
    if (nargs < spec->min_args)
        return usage_error(spec, spec->min_args == 1 ? "missing argument" : "missing arguments", NULL);
    if (spec->max_args >= 0 && nargs > spec->max_args)
        return usage_error(spec, "unexpected argument", argv[1 + spec->max_args]);
    *out_nargs = nargs;
    return 0;
}
