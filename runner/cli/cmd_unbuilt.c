/* cmd_unbuilt.c - subcommands that this build does not provide yet. */
#include "cli.h"

#include <stdio.h>

static int unbuilt(const char *name)
{
    fprintf(stderr, "perfgate %s: this command is not available in this version of perfgate\n", name);
    return 2;
}

int pg_cmd_ab(int argc, char **argv)
{
    (void)argc;
    return unbuilt(argv[0]);
}

int pg_cmd_history(int argc, char **argv)
{
    (void)argc;
    return unbuilt(argv[0]);
}

int pg_cmd_report(int argc, char **argv)
{
    (void)argc;
    return unbuilt(argv[0]);
}

int pg_cmd_post(int argc, char **argv)
{
    (void)argc;
    return unbuilt(argv[0]);
}

int pg_cmd_import(int argc, char **argv)
{
    (void)argc;
    return unbuilt(argv[0]);
}

int pg_cmd_db(int argc, char **argv)
{
    (void)argc;
    return unbuilt(argv[0]);
}

int pg_cmd_baseline(int argc, char **argv)
{
    (void)argc;
    return unbuilt(argv[0]);
}
