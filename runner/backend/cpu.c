/* cpu.c - built-in CPU kernels timed by the CPU engine at fixed threads. */
#include "backend/backend.h"

#include "kernels/kernels.h"
#include "measure.h"
#include "perfgate/errors.h"
#include "stats.h"
#include "util.h"

#include <stdlib.h>

typedef struct kernel_body {
    const pg_kernel *k;
    void *state;
} kernel_body;

static int run_kernel(void *payload, int64_t iters)
{
    kernel_body *kb = payload;

    return kb->k->run(kb->state, iters);
}

int pg__backend_cpu_case(pg_result *out, const pg_case *c, const pg_exec_options *opts)
{
    pg_measure_options mo = PG_MEASURE_OPTIONS_INIT;
    pg_measurement m = {0};
    kernel_body kb = {0};
    int err;

    kb.k = pg_kernel_find_for(c->kernel, "cpu");
    if (!kb.k)
        return pg__result_error(out, "unknown kernel");
    if ((err = pg_measure_set_threads(c->threads)) != 0 || (err = kb.k->setup(&kb.state, c)) != 0)
        return pg__result_error(out, pg_error_last());
    mo.min_run_time = c->min_run_time * opts->time_scale;
    mo.max_run_time = c->max_run_time * (opts->time_scale < 1 ? opts->time_scale : 1.0);
    if (mo.max_run_time < mo.min_run_time)
        mo.max_run_time = mo.min_run_time;
    mo.warmup = c->warmup * opts->time_scale;
    mo.min_samples = c->min_samples;
    err = pg_measure(&m, run_kernel, &kb, &mo);
    kb.k->teardown(kb.state);
    if (err) {
        free(m.samples);
        return pg__result_error(out, pg_error_last());
    }
    out->status = PG_STATUS_OK;
    out->samples = m.samples;
    out->nsamples = m.nsamples;
    out->number_per_run = m.number_per_run;
    out->warmup_s = m.warmup_s;
    out->warnings = m.warnings;
    out->flops = kb.k->flops ? kb.k->flops(c) : 0;
    out->bytes = kb.k->bytes ? kb.k->bytes(c) : 0;
    return pg_stats_summarize(&out->summary, out->samples, out->nsamples);
}
