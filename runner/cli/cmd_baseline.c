/* cmd_baseline.c - `perfgate baseline`. */
#include "cli.h"

#include <stdio.h>

int pg_cmd_baseline(int argc, char **argv)
{
    (void)argc;
    fprintf(stderr, "perfgate %s: this command is not available in this version of perfgate\n", argv[0]);
    return 2;
}
