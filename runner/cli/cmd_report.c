/* cmd_report.c - `perfgate report`. */
#include "cli.h"

#include <stdio.h>

int pg_cmd_report(int argc, char **argv)
{
    (void)argc;
    fprintf(stderr, "perfgate %s: this command is not available in this version of perfgate\n", argv[0]);
    return 2;
}
