/*
 * plugin.c - benchmarks inside user plugins (shared libraries).
 *
 * The case names the library (`plugin:`, with `{build}` and `{suite_dir}`
 * expanded; relative to the suite file) and the benchmark (`symbol:`, else
 * the case's name). The benchmark runs in a child process (plugin/child.c)
 * under the CPU timing engine's usual settings.
 */
#include "backend/backend.h"

#include "perfgate/errors.h"
#include "plugin/plugin.h"

#include <stdlib.h>

int pg__backend_plugin_case(pg_result *out, const pg_case *c, const pg_exec_options *opts)
{
    pg_measure_options mo;
    char *path = NULL;
    double limit;
    int err;

    if ((err = pg__plugin_path(&path, c, NULL)) != 0)
        return err;
    pg__backend_measure_options(&mo, c, opts);
    /* Sizing and sampling are each capped by max_run_time; `timeout` covers setup on top. */
    limit = mo.warmup + 2 * mo.max_run_time + (c->timeout > 0 ? c->timeout : 60.0);
    err = pg_plugin_run_case(out, c, path, &mo, limit);
    free(path);
    return err;
}
