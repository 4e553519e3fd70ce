/* options.c - the timing engine's options for a case (shared by the backends). */
#include "backend/backend.h"

#include "measure.h"

void pg__backend_measure_options(pg_measure_options *out, const pg_case *c, const pg_exec_options *opts)
{
    pg_measure_options dflt = PG_MEASURE_OPTIONS_INIT;
    double scale = opts ? opts->time_scale : 1.0;

    *out = dflt;
    out->min_run_time = c->min_run_time * scale;
    out->max_run_time = c->max_run_time * (scale < 1 ? scale : 1.0);
    if (out->max_run_time < out->min_run_time)
        out->max_run_time = out->min_run_time;
    out->warmup = c->warmup * scale;
    out->min_samples = c->min_samples;
    out->precision = opts ? opts->precision : 0;
}

void pg__result_take(pg_result *out, pg_measurement *m)
{
    out->status = PG_STATUS_OK;
    out->samples = m->samples;
    m->samples = NULL;
    out->nsamples = m->nsamples;
    out->number_per_run = m->number_per_run;
    out->warmup_s = m->warmup_s;
    out->warnings = m->warnings;
}
