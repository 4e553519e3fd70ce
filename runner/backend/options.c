/* options.c - the timing engine's options for a case (shared by the backends). */
#include "backend/backend.h"

#include <assert.h>

void pg_backend_measure_options(pg_measure_options *out, const pg_case *c, const pg_backend_options *opts)
{
    pg_measure_options dflt = PG_MEASURE_OPTIONS_INIT;
    double scale;

    assert(out && c && opts);
    scale = opts->time_scale;
    *out = dflt;
    out->min_run_time = c->min_run_time * scale;
    out->max_run_time = c->max_run_time * (scale < 1 ? scale : 1.0);
    if (out->max_run_time < out->min_run_time)
        out->max_run_time = out->min_run_time;
    out->warmup = c->warmup * scale;
    out->min_samples = c->min_samples;
    out->precision = opts->precision;
    out->block_unit = c->block_unit;
}
