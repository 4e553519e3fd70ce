/* exec.c - drives the cases and checks of loaded suites into a run. */
#include "exec/exec.h"

#include "backend/backend.h"
#include "verdict/canary.h"
#include "checks/checks.h"
#include "measure/child.h"
#include "measure/measure.h"
#include "perfgate/errors.h"
#include "plugin/plugin.h"
#include "machine/roofline.h"
#include "base/util.h"

#include <assert.h>
#include <jansson.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* What the backends need of the run's options. */
static void backend_options(pg_backend_options *out, const pg_exec_options *opts)
{
    pg_backend_options dflt = PG_BACKEND_OPTIONS_INIT;

    *out = dflt;
    out->time_scale = opts->time_scale;
    out->precision = opts->precision;
    out->cpu_clock = opts->cpu_clock;
    out->peak_gflops = opts->peak_gflops;
    out->peak_tflops = opts->peak_tflops;
}

int pg_exec_case(pg_result *out, const pg_case *c, const pg_exec_options *opts)
{
    pg_exec_options dflt = PG_EXEC_OPTIONS_INIT;
    pg_backend_options bo;

    assert(out && c);
    if (!opts)
        opts = &dflt;
    backend_options(&bo, opts);
    pg_measure_stable_layout();
    fill_identity(out, c);
    if (c->trace)
        return pg_backend_trace_case(out, NULL, c, &bo);
    if (c->plugin)
        return pg_backend_plugin_case(out, c, &bo);
    if (c->command)
        return pg_backend_command_case(out, c, &bo);
    if (strcmp(c->device, "cuda") == 0)
        return pg_backend_cuda_case(out, c, &bo);
    return pg_backend_cpu_case(out, c, &bo);
}

struct pg_exec_pair {
    pg_plugin_pair *pp;
    pg_result out[2];         /* the identity of each side, filled at the start */
};

int pg_exec_pair_start(pg_exec_pair **out, const pg_case *const c[2], const pg_exec_options *opts,
                       const pg_exec_pair_round *round, const pg_exec_pair *busy)
{
    pg_exec_options dflt = PG_EXEC_OPTIONS_INIT;
    pg_backend_options bo;
    pg_plugin_pair_cpus cpus = {round->cpus, round->setup_cpus};
    pg_exec_pair *p;
    int err, i;

    assert(out && c && c[0] && c[1]);
    /* Callers pair only plugin cases (ab.c measures the others side by side). */
    assert(c[0]->plugin && c[1]->plugin);
    *out = NULL;
    if (!opts)
        opts = &dflt;
    if (!(p = calloc(1, sizeof(*p))))
        return pg_error_set(PG_ENOMEM, "out of memory");
    backend_options(&bo, opts);
    pg_measure_stable_layout();
    for (i = 0; i < 2; i++) {
        p->out[i].mfu = -1;
        fill_identity(&p->out[i], c[i]);
    }
    if ((err = pg_backend_plugin_pair_start(&p->pp, c, &bo, round->seed, &cpus, round->start_number,
                                             busy ? busy->pp : NULL)) != 0) {
        pg_exec_pair_cancel(p);
        return err;
    }
    *out = p;
    return 0;
}

int pg_exec_pair_finish(pg_result out[2], pg_exec_pair *p)
{
    int err = pg_plugin_pair_finish(p->out, p->pp);

    p->pp = NULL;
    out[0] = p->out[0];
    out[1] = p->out[1];
    free(p);
    return err;
}

void pg_exec_pair_cancel(pg_exec_pair *p)
{
    if (!p)
        return;
    pg_plugin_pair_cancel(p->pp);
    pg__result_clear(&p->out[0]);
    pg__result_clear(&p->out[1]);
    free(p);
}

int pg_exec_case_pair(pg_result out[2], const pg_case *const c[2], const pg_exec_options *opts,
                      const pg_exec_pair_round *round)
{
    pg_exec_pair *p;
    int err = pg_exec_pair_start(&p, c, opts, round, NULL);

    return err ? err : pg_exec_pair_finish(out, p);
}

struct pg_exec_workers {
    const pg_case *const *cases[2];
    pg_measure_options *mos[2];
    size_t n;
    pg_plugin_worker *w[2];
    unsigned started;
};

int pg_exec_workers_new(pg_exec_workers **out, const pg_case *const *const cases[2], size_t n,
                        const pg_exec_options *opts)
{
    pg_exec_options dflt = PG_EXEC_OPTIONS_INIT;
    pg_backend_options bo;
    pg_exec_workers *w = calloc(1, sizeof(*w));
    size_t i;
    int s;

    *out = NULL;
    if (!opts)
        opts = &dflt;
    backend_options(&bo, opts);
    if (!w)
        return pg_error_set(PG_ENOMEM, "out of memory");
    w->n = n;
    for (s = 0; s < 2; s++) {
        w->cases[s] = cases[s];
        if (!(w->mos[s] = calloc(n ? n : 1, sizeof(*w->mos[s])))) {
            pg_exec_workers_free(w);
            return pg_error_set(PG_ENOMEM, "out of memory");
        }
        for (i = 0; i < n; i++)
            if (cases[s][i])
                pg_backend_measure_options(&w->mos[s][i], cases[s][i], &bo);
    }
    *out = w;
    return 0;
}

void pg_exec_workers_recycle(pg_exec_workers *w)
{
    if (!w)
        return;
    pg_plugin_worker_stop(w->w[0]);
    pg_plugin_worker_stop(w->w[1]);
    w->w[0] = w->w[1] = NULL;
}

unsigned pg_exec_workers_started(const pg_exec_workers *w)
{
    return w ? w->started : 0;
}

void pg_exec_workers_free(pg_exec_workers *w)
{
    if (!w)
        return;
    pg_exec_workers_recycle(w);
    free(w->mos[0]);
    free(w->mos[1]);
    free(w);
}

int pg_exec_workers_pair(pg_result out[2], pg_exec_workers *w, size_t i, uint64_t seed, char **replaced)
{
    const pg_case *c[2];
    const pg_measure_options *mo;
    uint64_t cpus[PG_CHILD_CPU_WORDS];
    cpu_set_t set;
    double timeout;
    int err, k;

    assert(w && i < w->n && w->cases[0][i] && w->cases[1][i]);
    *replaced = NULL;
    c[0] = w->cases[0][i];
    c[1] = w->cases[1][i];
    if (!w->w[0] || !w->w[1]) {
        pg_exec_workers_recycle(w);
        pg_measure_stable_layout();
        if ((err = pg_plugin_worker_start(&w->w[0], w->cases[0], w->mos[0], w->n, NULL)) != 0 ||
            (err = pg_plugin_worker_start(&w->w[1], w->cases[1], w->mos[1], w->n, w->w[0])) != 0) {
            pg_exec_workers_recycle(w);
            return err;
        }
        w->started += 2;
    }
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return pg_error_set(PG_EIO, "cannot read the CPUs this process may use");
    pg_child_cpus_to_words(cpus, &set);
    fill_identity(&out[0], c[0]);
    fill_identity(&out[1], c[1]);
    /* As for fresh processes: sizing and sampling each capped, plus setup, doubled for the two sides. */
    mo = &w->mos[0][i];
    timeout = 2 * (mo->warmup + 2 * mo->max_run_time + (c[0]->timeout > 0 ? c[0]->timeout : 60.0));
    err = pg_plugin_worker_pair(out, w->w, i, cpus, timeout, seed);
    if (err || (pg_plugin_worker_alive(w->w[0]) && pg_plugin_worker_alive(w->w[1])))
        return err;
    for (k = 0; k < 2; k++)
        if (!pg_plugin_worker_alive(w->w[k]) && !pg_plugin_worker_timed_out(w->w[k]) && !*replaced)
            *replaced = pg__asprintf("%s build: %s", k ? "head" : "base",
                                     out[k].message ? out[k].message : "the worker process ended");
    pg_exec_workers_recycle(w);
    if (*replaced) {
        for (k = 0; k < 2; k++) {
            pg__result_clear(&out[k]);
            memset(&out[k], 0, sizeof(out[k]));
            out[k].mfu = -1;
        }
    }
    return 0;
}

/* A case re-measured in a fresh child process, on CPUs moved on from this process's. */
typedef struct fresh_job {
    const pg_case *c;
    const pg_exec_options *opts;
    int cpu_shift;
} fresh_job;

static int fresh_child(pg_result *out, void *payload)
{
    const fresh_job *f = payload;

    pg_measure_shift_cpus(f->cpu_shift);
    return pg_exec_case(out, f->c, f->opts);
}

int pg_exec_case_fresh(pg_result *out, const pg_case *c, const pg_exec_options *opts)
{
    pg_exec_options dflt = PG_EXEC_OPTIONS_INIT;
    fresh_job job = {c, NULL, 1};
    double scale;
    char *what;
    int err;

    assert(out && c);
    if (!opts)
        opts = &dflt;
    job.opts = opts;
    fill_identity(out, c);
    /* As the plugin backend: sizing and sampling each capped by max_run_time, plus a minute for setup. */
    scale = opts->time_scale > 0 ? opts->time_scale : 1.0;
    what = pg__asprintf("case %s (in a fresh process)", c->key);
    err = pg_child_run(out, what, c->warmup + 2 * c->max_run_time * scale + 60.0, fresh_child, &job);
    free(what);
    return err;
}

static int matches(const pg_exec_options *opts, const char *key)
{
    return !opts->filter || pg__glob(opts->filter, key);
}

unsigned pg_exec_instruments(const pg_case *c, const pg_exec_options *opts)
{
    if (opts && opts->instruments)
        return opts->instruments;
    return c->instruments ? c->instruments : PG_INSTRUMENT_TIME;
}

int pg_exec_ready(const pg_suite_set *set, const pg_exec_options *opts)
{
    pg_exec_options dflt = PG_EXEC_OPTIONS_INIT;
    unsigned used = 0;
    size_t i, j;

    if (!opts)
        opts = &dflt;
    for (i = 0; i < set->count && !opts->checks_only; i++)
        for (j = 0; j < set->suites[i]->ncases; j++)
            if (matches(opts, set->suites[i]->cases[j].key))
                used |= pg_exec_instruments(&set->suites[i]->cases[j], opts);
    return pg_meter_ready(used, opts->meter);
}

/* The counting instruments of case `c`, each appending its results. */
static int exec_counted(pg_run *run, const pg_case *c, unsigned bits, const pg_exec_options *opts)
{
    static const unsigned counted[] = {PG_INSTRUMENT_INSTRUCTIONS, PG_INSTRUMENT_MEMORY};
    size_t i;
    int err;

    for (i = 0; i < sizeof(counted) / sizeof(counted[0]); i++)
        if ((bits & counted[i]) && (err = pg_meter_case(run, c, counted[i], opts->meter)) != 0)
            return err;
    return 0;
}

/*
 * One round of every canary case. The first round appends the canary
 * results to the run (their index is remembered: results may move when the
 * array grows); later rounds pool their samples into them.
 */
static int canary_round(pg_run *run, size_t *first, const pg_suite *canary, const pg_exec_options *opts)
{
    size_t j;
    int err;

    if (*first == (size_t)-1) {
        *first = run->nresults;
        for (j = 0; j < canary->ncases; j++) {
            pg_result *r;
            if ((err = pg_run_add_result(&r, run)) != 0)
                return err;
            if ((err = pg_exec_case(r, &canary->cases[j], opts)) != 0)
                return err;
        }
        return 0;
    }
    for (j = 0; j < canary->ncases; j++) {
        pg_result tmp = {0};
        err = pg_exec_case(&tmp, &canary->cases[j], opts);
        if (!err)
            err = pg_canary_merge(&run->results[*first + j], &tmp);
        pg__result_clear(&tmp);
        if (err)
            return err;
    }
    return 0;
}

/*
 * A trace case: its step times fill the result just added (the last one),
 * then the per-op series follow it in the run.
 */
static int trace_case(pg_run *run, const pg_case *c, const pg_exec_options *opts)
{
    pg_backend_options bo;
    pg_run *extra = NULL;
    size_t i;
    int err;

    backend_options(&bo, opts);
    fill_identity(&run->results[run->nresults - 1], c);
    if ((err = pg_run_new(&extra)) != 0)
        return err;
    err = pg_backend_trace_case(&run->results[run->nresults - 1], extra, c, &bo);
    for (i = 0; !err && i < extra->nresults; i++) {
        pg_result *r;
        if ((err = pg_run_add_result(&r, run)) == 0) {
            *r = extra->results[i];
            memset(&extra->results[i], 0, sizeof(extra->results[i]));
        }
    }
    pg_run_free(extra);
    return err;
}

/* What a check's progress line says: how it ended, and why when it did not pass. */
static void check_line(pg_progress *p, size_t k, size_t n, const pg_check_result *cr)
{
    const char *how = cr->error ? "ERROR" : cr->skipped ? "skipped" : cr->passed ? "passed" : "FAILED";
    const char *why = cr->message && !(cr->passed && !cr->skipped) ? cr->message : NULL;

    /* One line per check: a multi-line message keeps its first line, the report has the rest. */
    pg_progress_line(p, "[%zu/%zu] check %s/%s %s%s%.*s", k, n, cr->suite, cr->name, how, why ? ": " : "",
                     why ? (int)strcspn(why, "\n") : 0, why ? why : "");
}

/* The group's title on GitHub Actions: what this run is about to do. */
static char *group_title(size_t ncases, size_t nchecks)
{
    if (ncases)
        return pg__asprintf("perfgate: measuring %zu case%s", ncases, ncases == 1 ? "" : "s");
    return nchecks ? pg__asprintf("perfgate: running %zu exact check%s", nchecks, nchecks == 1 ? "" : "s") : NULL;
}

/* The machine's stored peaks become this process's MFU ceilings: no sgemm of its own to measure. */
static void use_stored_roofs(const pg_run *run, const pg_exec_options *opts)
{
    char blas[64];
    size_t i;

    if (!opts->roofs)
        return;
    pg_roofline_blas(blas, sizeof(blas), run->machine_json);
    for (i = 0; i < opts->roofs->n; i++) {
        const pg_roof_entry *e = &opts->roofs->items[i];
        if (strcmp(e->device, "cpu") == 0 && strcmp(e->blas, blas) == 0)
            pg_backend_cpu_stored_peak(e->threads, e->peak_gflops);
    }
}

/* The ceiling MFU divided by, in the result's details as the CPU backend writes it. */
static void note_ceiling(pg_result *r, double peak, const char *source)
{
    json_t *o = r->extra_json ? json_loads(r->extra_json, 0, NULL) : json_object();
    char *text;

    if (!json_is_object(o)) {
        json_decref(o);
        return;
    }
    json_object_set_new(o, "mfu_ceiling_gflops", json_real(peak));
    json_object_set_new(o, "mfu_ceiling_source", json_string(source));
    if ((text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS)) != NULL) {
        free(r->extra_json);
        r->extra_json = text;
    }
    json_decref(o);
}

/*
 * MFU for the CPU results that count FLOPs but have none yet (plugin cases calling pg_flops(), commands
 * reporting "flops"), where a peak is known without measuring one: --peak-gflops, the run's roofs, or the
 * ceiling this process already uses. Against the run's roofs the peak is never below a case's fastest sample.
 */
static void fill_mfu(pg_run *run, const pg_exec_options *opts)
{
    pg_backend_options bo;
    size_t i;

    backend_options(&bo, opts);
    for (i = 0; i < run->nresults; i++) {
        pg_result *r = &run->results[i];
        pg_roofs roofs;
        double peak;
        const char *source;
        if (r->status != PG_STATUS_OK || !(r->flops > 0) || !(r->summary.median > 0) || r->mfu >= 0 || !r->device ||
            strcmp(r->device, "cpu") != 0)
            continue;
        if (opts->peak_gflops <= 0 && pg_roofline_roofs(&roofs, run->machine_json, "cpu", r->threads) == 0) {
            peak = roofs.peak_flops * 1e-9;
            source = roofs.peak_reliable ? "the run's roofline: sgemm 1024^3 at the same threads"
                                         : "the run's roofline, raised to a case's fastest sample (unreliable)";
        } else {
            peak = pg_backend_cpu_known_peak(r->threads, &bo);
            source = pg_backend_cpu_peak_source(r->threads, &bo);
        }
        if (!(peak > 0))
            continue;
        r->mfu = r->flops / r->summary.median * 1e-9 / peak;
        note_ceiling(r, peak, source);
    }
}

/* After the cases: the roofs into the run's fingerprint (reused where known), then the MFU they allow. */
static int finish_roofs(pg_run *run, const pg_exec_options *opts, pg_progress *prog)
{
    int err = 0;

    if (opts->roofline) {
        int known = 1;
        size_t i;
        char blas[64];
        pg_roofline_blas(blas, sizeof(blas), run->machine_json);
        for (i = 0; i < run->nresults && known; i++) {
            const pg_result *r = &run->results[i];
            const pg_roof_entry *e;
            if (r->status == PG_STATUS_OK && r->device && strcmp(r->device, "cpu") == 0)
                known = (e = pg_roof_table_find(opts->roofs, "cpu", r->threads)) != NULL && strcmp(e->blas, blas) == 0;
        }
        if (!known) {
            pg_progress_running(prog, "roofline: measuring this machine's peak FLOP/s and memory bandwidth");
            pg_progress_line(prog, "roofline: measuring this machine's peak FLOP/s and memory bandwidth");
        }
        err = pg_roofline_record(run, opts->peak_gflops, opts->roofs);
    }
    if (!err)
        fill_mfu(run, opts);
    return err;
}

int pg_exec_run(pg_run *run, const pg_suite_set *set, const pg_exec_options *opts)
{
    pg_exec_options dflt = PG_EXEC_OPTIONS_INIT;
    pg_suite *canary = NULL;
    pg_progress prog;
    size_t i, j, total = 0, done = 0, nchecks = 0, kcheck = 0, every, first = (size_t)-1, at;
    char *title;
    int err;

    assert(run && set);
    if (!opts)
        opts = &dflt;
    every = opts->canary_every ? opts->canary_every : 5;
    for (i = 0; i < set->count; i++) {
        for (j = 0; j < set->suites[i]->ncases; j++)
            total += !opts->checks_only && matches(opts, set->suites[i]->cases[j].key) &&
                     (pg_exec_instruments(&set->suites[i]->cases[j], opts) & PG_INSTRUMENT_TIME);
        for (j = 0; j < set->suites[i]->nchecks; j++)
            nchecks += matches(opts, set->suites[i]->checks[j].name);
    }
    use_stored_roofs(run, opts);
    title = group_title(total, nchecks);
    pg_progress_begin(&prog, opts->progress, opts->progress_out, total, title);
    free(title);
    /* Canaries only make sense beside timed cases: a checks-only run gets none. */
    if (opts->canary && total > 0) {
        if ((err = pg_canary_suite(&canary)) != 0)
            goto cleanup;
        if ((err = canary_round(run, &first, canary, opts)) != 0)
            goto cleanup;
    }
    for (i = 0; i < set->count; i++) {
        const pg_suite *s = set->suites[i];
        for (j = 0; j < s->nchecks; j++) {
            pg_check_options copts = PG_CHECK_OPTIONS_INIT;
            pg_check_result *cr;
            if (!matches(opts, s->checks[j].name))
                continue;
            if ((err = pg_run_add_check(&cr, run)) != 0)
                goto cleanup;
            cr->suite = pg__strdup(s->name);
            cr->name = pg__strdup(s->checks[j].name);
            cr->kind = pg__strdup(s->checks[j].kind);
            copts.trace_dir = opts->trace_dir;
            if ((cr->error = pg_check_run(cr, s, &s->checks[j], &copts)) != 0) {
                cr->passed = 0;
                free(cr->message);
                cr->message = pg__strdup(pg_error_last());
            }
            check_line(&prog, ++kcheck, nchecks, cr);
        }
        for (j = 0; j < s->ncases; j++) {
            pg_result *r;
            const pg_case *c = &s->cases[j];
            unsigned bits;
            if (opts->checks_only || !matches(opts, c->key))
                continue;
            bits = pg_exec_instruments(c, opts);
            if ((err = exec_counted(run, c, bits, opts)) != 0)
                goto cleanup;
            if (!(bits & PG_INSTRUMENT_TIME))
                continue;
            pg_progress_running(&prog, c->key);
            if ((err = pg_run_add_result(&r, run)) != 0)
                goto cleanup;
            at = run->nresults - 1; /* a trace case appends its per-op results after it */
            if ((err = c->trace ? trace_case(run, c, opts) : pg_exec_case(r, c, opts)) != 0)
                goto cleanup;
            pg_progress_case(&prog, &run->results[at]);
            done++;
            /* Between cases every `every`, and once after the last: a phase anywhere hits the canaries too. */
            if (canary && (done % every == 0 || done == total) && (err = canary_round(run, &first, canary, opts)))
                goto cleanup;
        }
    }
    err = done > 0 ? finish_roofs(run, opts, &prog) : 0;

cleanup:
    pg_progress_end(&prog);
    pg_suite_free(canary);
    return err;
}
