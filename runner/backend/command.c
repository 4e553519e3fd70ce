/* command.c - external commands timed as whole processes. */
#include "backend/backend.h"

int pg__backend_command_case(pg_result *out, const pg_case *c, const pg_exec_options *opts)
{
    (void)c;
    (void)opts;
    return pg__result_error(out, "command benchmarks are not available in this version of perfgate");
}
