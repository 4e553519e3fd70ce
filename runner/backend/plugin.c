/* plugin.c - benchmarks inside user plugins (shared libraries). */
#include "backend/backend.h"

int pg__backend_plugin_case(pg_result *out, const pg_case *c, const pg_exec_options *opts)
{
    (void)c;
    (void)opts;
    return pg__result_error(out, "plugin benchmarks are not available in this version of perfgate");
}
