/*
 * plugin.c - benchmarks inside user plugins (shared libraries).
 *
 * The case names the library (`plugin:`, with `{build}` and `{suite_dir}`
 * expanded; relative to the suite file) and the benchmark (`symbol:`, else
 * the case's name). The benchmark runs in a child process (plugin/child.c,
 * over child.h) under the CPU timing engine's usual settings; for A/B runs,
 * two builds of it run in lockstep, one block at a time
 * (pg__backend_plugin_pair).
 */
#include "backend/backend.h"

#include "perfgate/errors.h"
#include "plugin/plugin.h"

#include <stdlib.h>

/* Sizing and sampling are each capped by max_run_time; `timeout` covers setup on top. */
static double time_limit(const pg_measure_options *mo, const pg_case *c)
{
    return mo->warmup + 2 * mo->max_run_time + (c->timeout > 0 ? c->timeout : 60.0);
}

int pg_backend_plugin_case(pg_result *out, const pg_case *c, const pg_backend_options *opts)
{
    pg_measure_options mo;
    char *path = NULL;
    int err;

    if ((err = pg_plugin_path(&path, c, NULL)) != 0)
        return err;
    pg_backend_measure_options(&mo, c, opts);
    err = pg_plugin_run_case(out, c, path, &mo, time_limit(&mo, c));
    free(path);
    return err;
}

int pg_backend_plugin_pair_start(pg_plugin_pair **out, const pg_case *const c[2], const pg_backend_options *opts,
                                  uint64_t seed, const pg_plugin_pair_cpus *cpus, int64_t start_number,
                                  const pg_plugin_pair *busy)
{
    pg_measure_options mo;
    char *paths[2] = {NULL, NULL};
    int err;

    *out = NULL;
    if ((err = pg_plugin_path(&paths[0], c[0], NULL)) == 0 && (err = pg_plugin_path(&paths[1], c[1], NULL)) == 0) {
        pg_backend_measure_options(&mo, c[0], opts);
        mo.start_number = start_number;
        /* The sides take turns: each waits while the other runs. */
        err = pg_plugin_pair_start(out, c, (const char *const *)paths, &mo, 2 * time_limit(&mo, c[0]), seed, cpus,
                                   busy);
    }
    free(paths[0]);
    free(paths[1]);
    return err;
}
