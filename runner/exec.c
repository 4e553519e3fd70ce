/* exec.c - drives the cases and checks of loaded suites into a run. */
#include "exec.h"

#include "checks/checks.h"
#include "kernels/kernels.h"
#include "measure.h"
#include "perfgate/config.h"
#include "perfgate/errors.h"
#include "stats.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct kernel_body {
    const pg_kernel *k;
    void *state;
} kernel_body;

static int run_kernel(void *payload, int64_t iters)
{
    kernel_body *kb = payload;

    return kb->k->run(kb->state, iters);
}

static void fill_identity(pg_result *out, const pg_case *c)
{
    out->key = pg__strdup(c->key);
    out->suite = pg__strdup(c->suite);
    out->name = pg__strdup(c->name);
    out->params_json = pg__strdup(c->params_json);
    out->threads = c->threads;
    out->device = pg__strdup(c->device);
    out->metric = pg__strdup("time");
    out->unit = pg__strdup("s");
    out->threshold = c->threshold;
    out->alpha = c->alpha;
}

int pg_exec_case(pg_result *out, const pg_case *c, const pg_exec_options *opts)
{
    pg_measure_options mo = PG_MEASURE_OPTIONS_INIT;
    pg_measurement m = {0};
    kernel_body kb = {0};
    int err;

    fill_identity(out, c);
    if (strcmp(c->device, "cuda") == 0 && !PG_HAS_CUDA) {
        out->status = PG_STATUS_SKIPPED;
        out->message = pg__strdup("built without the CUDA backend");
        return 0;
    }
    if (!c->kernel) {
        out->status = PG_STATUS_ERROR;
        out->message = pg__strdup(c->plugin ? "plugin benchmarks are not available in this build"
                                            : "command benchmarks are not available in this build");
        return 0;
    }
    kb.k = pg_kernel_find(c->kernel);
    if (!kb.k) {
        out->status = PG_STATUS_ERROR;
        out->message = pg__asprintf("unknown kernel '%s'", c->kernel);
        return 0;
    }
    if ((err = pg_measure_set_threads(c->threads)) != 0 || (err = kb.k->setup(&kb.state, c)) != 0) {
        out->status = PG_STATUS_ERROR;
        out->message = pg__strdup(pg_error_last());
        return 0;
    }
    mo.min_run_time = c->min_run_time * opts->time_scale;
    mo.max_run_time = c->max_run_time * (opts->time_scale < 1 ? opts->time_scale : 1.0);
    if (mo.max_run_time < mo.min_run_time)
        mo.max_run_time = mo.min_run_time;
    mo.warmup = c->warmup * opts->time_scale;
    mo.min_samples = c->min_samples;
    err = pg_measure(&m, run_kernel, &kb, &mo);
    kb.k->teardown(kb.state);
    if (err) {
        out->status = PG_STATUS_ERROR;
        out->message = pg__strdup(pg_error_last());
        free(m.samples);
        return 0;
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

static int matches(const pg_exec_options *opts, const char *key)
{
    return !opts->filter || pg__glob(opts->filter, key);
}

int pg_exec_run(pg_run *run, const pg_suite_set *set, const pg_exec_options *opts)
{
    pg_exec_options dflt = PG_EXEC_OPTIONS_INIT;
    size_t i, j, total = 0, done = 0;
    int64_t t0 = pg__mono_ns();
    int err;

    if (!opts)
        opts = &dflt;
    for (i = 0; i < set->count; i++)
        for (j = 0; j < set->suites[i]->ncases; j++)
            total += matches(opts, set->suites[i]->cases[j].key);
    for (i = 0; i < set->count; i++) {
        const pg_suite *s = set->suites[i];
        for (j = 0; j < s->nchecks; j++) {
            pg_check_result *cr;
            if (!matches(opts, s->checks[j].name))
                continue;
            if ((err = pg_run_add_check(&cr, run)) != 0)
                return err;
            cr->suite = pg__strdup(s->name);
            cr->name = pg__strdup(s->checks[j].name);
            cr->kind = pg__strdup(s->checks[j].kind);
            if (pg_check_run(cr, s, &s->checks[j]) != 0) {
                cr->passed = 0;
                free(cr->message);
                cr->message = pg__strdup(pg_error_last());
            }
        }
        for (j = 0; j < s->ncases; j++) {
            pg_result *r;
            const pg_case *c = &s->cases[j];
            if (!matches(opts, c->key))
                continue;
            if (opts->progress && opts->progress_out) {
                double el = (double)(pg__mono_ns() - t0) * 1e-9;
                double eta = done ? el / (double)done * (double)(total - done) : 0;
                fprintf(opts->progress_out, "\r\033[K[%zu/%zu] %s  (%.0fs elapsed, ~%.0fs left)", done + 1,
                        total, c->key, el, eta);
                fflush(opts->progress_out);
            }
            if ((err = pg_run_add_result(&r, run)) != 0)
                return err;
            if ((err = pg_exec_case(r, c, opts)) != 0)
                return err;
            done++;
        }
    }
    if (opts->progress && opts->progress_out) {
        fprintf(opts->progress_out, "\r\033[K");
        fflush(opts->progress_out);
    }
    return 0;
}
