/*
 * checks.c - dispatch of exact checks by kind (flops.c, ops.c, schedule.c);
 * what the kinds share is in kinds.c, below the dispatcher.
 */
#include "checks/checks.h"

#include "checks/kinds.h"
#include "perfgate/errors.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

int pg_check_run(pg_check_result *out, const pg_suite *suite, const pg_check *check, const pg_check_options *opts)
{
    pg_check_options dflt = PG_CHECK_OPTIONS_INIT;
    int err;

    if (!opts)
        opts = &dflt;
    out->passed = 0;
    out->skipped = 0;
    if (strcmp(check->kind, "flops") == 0)
        err = pg__check_flops(out, suite, check, opts);
    else if (strcmp(check->kind, "ops") == 0)
        err = pg__check_ops(out, suite, check, opts);
    else if (strcmp(check->kind, "schedule") == 0)
        err = pg__check_schedule(out, suite, check, opts);
    else if (strcmp(check->kind, "memory") == 0)
        err = pg__check_memory(out, suite, check, opts);
    else
        err = pg_error_set(PG_ESUITE, "%s:%d:%d: unknown check kind '%s' (flops, ops, schedule or memory)",
                           check->node->file, check->node->line, check->node->col, check->kind);
    if (err == PG_ESKIP) {
        if (!out->expected)
            out->expected = pg__strdup("");
        if (!out->actual)
            out->actual = pg__strdup("");
        free(out->message);
        out->message = pg__strdup(pg_error_last());
        out->passed = 1;
        out->skipped = 1;
        return 0;
    }
    if (err) {
        out->passed = 0;
        if (!out->expected)
            out->expected = pg__strdup("");
        if (!out->actual)
            out->actual = pg__strdup("");
    }
    return err;
}

