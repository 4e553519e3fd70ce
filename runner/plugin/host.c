/*
 * host.c - the runner's side of the plugin ABI: the pg_host_api functions a
 * benchmark calls, and measuring a benchmark in this process.
 *
 * The timing engine (pg_measure) times each block with a clock. Here that
 * clock is virtual: it only advances while the benchmark's timed region runs
 * (inside its pg_keep_running() loop or its iterate() call, minus paused
 * stretches), so setup before the loop and paused per-iteration setup never
 * reach a sample, and the engine's warm-up, block sizing and sampling are
 * reused unchanged.
 *
 * The loop form is called once per case, so its setup before the loop runs
 * once: it runs on a driver thread, and each block the engine asks for is
 * handed to it inside pg_keep_running(), which waits at the end of a block
 * for the next one (or for the end, when it returns 0 and the benchmark
 * cleans up). The engine's thread waits meanwhile, so only one thread runs
 * at a time and the instrument hooks keep their single-thread contract.
 */
#include "plugin/plugin.h"

#include "backend/cuda_api.h"
#include "base/instrument.h"
#include "kernels/kernels.h"
#include "base/region.h"
#include "perfgate/config.h"
#include "perfgate/errors.h"
#include "stats/stats.h"
#include "base/testhooks.h"
#include "base/util.h"
#include "measure/contention.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>


typedef struct host_state {
    pg_state pub;             /* first: the plugin sees only this */
    const pg_case *c;
    const pg_benchmark *b;
    void *ctx;                /* callback form: what setup() returned */
    int64_t target;           /* iterations of the current block */
    int loop;                 /* loop form: 0 not entered, 1 inside a block, 2 finished */
    struct driver *drv;       /* loop form under the engine; NULL: one block, this thread */
    int active;               /* inside the timed region */
    int paused;               /* pg_pause_timing() inside the timed region */
    int timing;               /* the virtual clock runs */
    int64_t acc_ns, t0;
    double flops, bytes;
    int flops_set;
    int outcome;              /* 0, PG_ESKIP or PG_EKERNEL */
    char message[512];
    void *stream;             /* cudaStream_t on cuda cases */
    double counted_flops;     /* GEMM FLOPs seen by the counting instrument */
} host_state;

/* The hand-off between the engine's thread and the loop form's thread. */
typedef struct driver {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t cmd;              /* >0: run a block of that many iterations; 0: finish */
    int cmd_pending;          /* posted by the engine, not yet taken */
    int block_done;           /* the block ended, or the benchmark returned */
    int returned;             /* the benchmark function returned */
    pid_t tid;                /* the thread the loop runs on, once it started: the contention probe reads it */
} driver;

static host_state *host_of(pg_state *st)
{
    return (host_state *)st;
}

static void sync_device(host_state *h)
{
#if PG_HAS_CUDA
    /* GPU work is asynchronous: the clock must wait for the stream. */
    if (h->stream)
        pg_cuda_stream_sync(h->stream);
#else
    (void)h;
#endif
}

static void start_clock(host_state *h)
{
    if (!h->timing) {
        sync_device(h);
        pg__region_enter();
        h->t0 = pg__mono_ns();
        h->timing = 1;
    }
}

static void stop_clock(host_state *h)
{
    if (h->timing) {
        sync_device(h);
        h->acc_ns += pg__mono_ns() - h->t0;
        pg__region_leave();
        h->timing = 0;
    }
}

static int64_t virtual_now(void *payload)
{
    host_state *h = payload;

    return h->acc_ns + (h->timing ? pg__mono_ns() - h->t0 : 0);
}

/* ---- pg_host_api ------------------------------------------------------- */

/* Starts a block of `iters` iterations inside the loop. */
static int begin_block(host_state *h, int64_t iters)
{
    h->target = iters;
    if (iters <= 0) {
        h->loop = 2;
        return 0;
    }
    h->loop = 1;
    h->pub.pg__left = iters - 1;
    h->active = 1;
    h->paused = 0;
    start_clock(h);
    return 1;
}

/* Loop form under the engine: report the block done, wait for the next command. */
static int64_t next_command(host_state *h)
{
    driver *d = h->drv;
    int64_t cmd;

    pthread_mutex_lock(&d->mu);
    d->block_done = 1;
    pthread_cond_broadcast(&d->cv);
    while (!d->cmd_pending)
        pthread_cond_wait(&d->cv, &d->mu);
    d->cmd_pending = 0;
    cmd = d->cmd;
    pthread_mutex_unlock(&d->mu);
    return cmd;
}

static int api_keep_running(pg_state *st)
{
    host_state *h = host_of(st);

    st->pg__left = 0;
    if (h->outcome || h->loop == 2) {
        stop_clock(h);
        h->active = 0;
        h->loop = 2;
        return 0;
    }
    if (h->loop == 0)
        return begin_block(h, h->target);
    /* The block's iterations are done. */
    stop_clock(h);
    h->active = 0;
    if (!h->drv) {
        h->loop = 2;
        return 0;
    }
    return begin_block(h, next_command(h));
}

static void api_pause(pg_state *st)
{
    host_state *h = host_of(st);

    if (h->active && !h->paused) {
        stop_clock(h);
        h->paused = 1;
    }
}

static void api_resume(pg_state *st)
{
    host_state *h = host_of(st);

    if (h->active && h->paused) {
        h->paused = 0;
        start_clock(h);
    }
}

static int api_has_param(pg_state *st, const char *name)
{
    return pg_case_param(host_of(st)->c, name) != NULL;
}

static int64_t api_param_int(pg_state *st, const char *name, int64_t dflt)
{
    return pg_case_param_int(host_of(st)->c, name, dflt);
}

static double api_param_double(pg_state *st, const char *name, double dflt)
{
    return pg_case_param_double(host_of(st)->c, name, dflt);
}

static const char *api_param_str(pg_state *st, const char *name, const char *dflt)
{
    return pg_case_param_str(host_of(st)->c, name, dflt);
}

static int api_threads(pg_state *st)
{
    return host_of(st)->c->threads;
}

static void api_set_flops(pg_state *st, double flops)
{
    host_of(st)->flops = flops;
    host_of(st)->flops_set = 1;
}

static void api_set_bytes(pg_state *st, double bytes)
{
    host_of(st)->bytes = bytes;
}

static void api_range_push(pg_state *st, const char *name)
{
    (void)st;
    pg__range_push(name);
}

static void api_range_pop(pg_state *st, const char *name)
{
    (void)st;
    pg__range_pop(name);
}

static void api_op_begin(pg_state *st, const char *name, const char *shape)
{
    (void)st;
    pg__op_begin(name, shape);
}

static void api_op_end(pg_state *st, const char *name)
{
    (void)st;
    pg__op_end(name);
}

static void api_op_gemm(pg_state *st, const char *name, int64_t m, int64_t n, int64_t k)
{
    (void)st;
    pg__op_gemm(name, m, n, k);
}

static void api_gemm_f32(pg_state *st, const char *op, int ta, int tb, int m, int n, int k, float alpha,
                         const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc)
{
    (void)st;
    pg_kernels_gemm_f32(op, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

static void api_gemm_f64(pg_state *st, const char *op, int ta, int tb, int m, int n, int k, double alpha,
                         const double *a, int lda, const double *b, int ldb, double beta, double *c, int ldc)
{
    (void)st;
    pg_kernels_gemm_f64(op, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

static void set_outcome(pg_state *st, int outcome, const char *text)
{
    host_state *h = host_of(st);
    size_t i;

    /* The first outcome wins: an error after a skip does not rewrite it. */
    if (h->outcome)
        return;
    h->outcome = outcome;
    snprintf(h->message, sizeof(h->message), "%s", text ? text : "");
    /* Messages are one line. */
    for (i = 0; h->message[i]; i++)
        if (h->message[i] == '\n' || h->message[i] == '\r')
            h->message[i] = ' ';
    st->pg__left = 0;
}

static void api_skip(pg_state *st, const char *reason)
{
    set_outcome(st, PG_ESKIP, reason);
}

static void api_error(pg_state *st, const char *message)
{
    set_outcome(st, PG_EKERNEL, message);
}

static void *api_cuda_stream(pg_state *st)
{
    return host_of(st)->stream;
}

static const char *api_device(pg_state *st)
{
    return host_of(st)->c->device;
}

static const pg_host_api host_api = {
    PG_PLUGIN_ABI_VERSION, (uint32_t)sizeof(pg_host_api),
    api_keep_running, api_pause, api_resume,
    api_has_param, api_param_int, api_param_double, api_param_str, api_threads,
    api_set_flops, api_set_bytes,
    api_range_push, api_range_pop, api_op_begin, api_op_end, api_op_gemm,
    api_gemm_f32, api_gemm_f64,
    api_skip, api_error, api_cuda_stream, api_device,
};

/* ---- running ----------------------------------------------------------- */

static void host_init(host_state *h, const pg_benchmark *b, const pg_case *c)
{
    memset(h, 0, sizeof(*h));
    h->pub.pg__api = &host_api;
    h->b = b;
    h->c = c;
}

/* Why a loop-form benchmark returned, as an outcome (0 when it finished normally). */
static int loop_outcome(host_state *h)
{
    if (h->outcome)
        return h->outcome;
    if (h->loop == 0)
        set_outcome(&h->pub, PG_EKERNEL, "the benchmark returned without entering its pg_keep_running() loop");
    else if (h->loop == 1)
        set_outcome(&h->pub, PG_EKERNEL,
                    "the benchmark left its pg_keep_running() loop early (break or return inside the loop)");
    return h->outcome;
}

static void *driver_main(void *payload)
{
    host_state *h = payload;
    driver *d = h->drv;
    int64_t cmd;

    pthread_mutex_lock(&d->mu);
    d->tid = (pid_t)syscall(SYS_gettid);
    pthread_cond_broadcast(&d->cv);
    while (!d->cmd_pending)
        pthread_cond_wait(&d->cv, &d->mu);
    d->cmd_pending = 0;
    cmd = d->cmd;
    pthread_mutex_unlock(&d->mu);
    if (cmd > 0) {
        h->target = cmd;
        h->loop = 0;
        h->b->run(&h->pub);
        stop_clock(h);
        h->active = 0;
    }
    pthread_mutex_lock(&d->mu);
    d->returned = 1;
    d->block_done = 1;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

/* Posts a command to the loop form's thread and waits until the block ends. */
static void post_command(host_state *h, int64_t cmd)
{
    driver *d = h->drv;

    pthread_mutex_lock(&d->mu);
    if (!d->returned) {
        d->cmd = cmd;
        d->cmd_pending = 1;
        d->block_done = 0;
        pthread_cond_broadcast(&d->cv);
        while (!d->block_done)
            pthread_cond_wait(&d->cv, &d->mu);
    }
    pthread_mutex_unlock(&d->mu);
}

/*
 * One block: `iters` iterations of the benchmark; nonzero stops the engine.
 * A case with extra work (an injected change, `perfgate doctor
 * --sensitivity`) runs iters * (1 + extra_work) iterations and counts iters:
 * the same code, more of it, in the timed region.
 */
static int run_block(void *payload, int64_t iters)
{
    host_state *h = payload;

    if (h->c->extra_work > 0)
        iters += (int64_t)llround((double)iters * h->c->extra_work);
    h->pub.pg__left = 0;
    if (h->b->run && h->drv) {
        post_command(h, iters);
        if (h->drv->returned && !loop_outcome(h))
            set_outcome(&h->pub, PG_EKERNEL, "the benchmark returned while the runner still wanted samples");
        return h->outcome;
    }
    if (h->b->run) {
        h->target = iters;
        h->loop = 0;
        h->b->run(&h->pub);
        stop_clock(h);
        h->active = 0;
        return loop_outcome(h);
    }
    h->active = 1;
    h->paused = 0;
    start_clock(h);
    h->b->iterate(h->ctx, &h->pub, iters);
    stop_clock(h);
    h->active = 0;
    return h->outcome;
}

static void count_gemm(void *payload, const char *name, int64_t m, int64_t n, int64_t k)
{
    (void)name;
    ((host_state *)payload)->counted_flops += 2.0 * (double)m * (double)n * (double)k;
}

/* Lockstep (child.c): the process-wide gate every block passes, or none. */
static pg_plugin_gate block_gate;

void pg__plugin_set_gate(const pg_plugin_gate *gate)
{
    if (gate)
        block_gate = *gate;
    else
        memset(&block_gate, 0, sizeof(block_gate));
}

/* A block, through the gate when there is one: it waits for its turn and says when it is done. */
static int gated_block(host_state *h, int64_t iters)
{
    int err, lock;

    if (block_gate.enter && block_gate.enter(block_gate.payload) != 0) {
        set_outcome(&h->pub, PG_EKERNEL, "the runner stopped the lockstep measurement");
        return h->outcome;
    }
    lock = pg__test_turn_begin();
    err = run_block(h, iters);
    pg__test_turn_end(lock);
    if (block_gate.leave)
        block_gate.leave(block_gate.payload);
    return err;
}

/* The first block also counts the GEMM FLOPs made through pg_gemm_*. */
typedef struct first_block {
    host_state *h;
    int done;
    int64_t iters;
} first_block;

static int run_block_counting(void *payload, int64_t iters)
{
    first_block *fb = payload;
    pg_instrument counter = {0};
    const pg_instrument *prev;
    int err;

    if (fb->done)
        return gated_block(fb->h, iters);
    counter.gemm = count_gemm;
    counter.payload = fb->h;
    prev = pg__instrument_set(&counter);
    err = gated_block(fb->h, iters);
    pg__instrument_set(prev);
    fb->done = 1;
    fb->iters = iters;
    return err;
}

static int check_benchmark(const pg_benchmark *b)
{
    if (!b->run && !b->iterate)
        return pg_error_set(PG_EPLUGIN, "benchmark '%s' has neither a run nor an iterate function",
                            b->name ? b->name : "?");
    return 0;
}

/* Creates the case's CUDA stream; a CPU case needs none. */
static int open_stream(host_state *h)
{
    if (strcmp(h->c->device, "cuda") != 0)
        return 0;
#if PG_HAS_CUDA
    return pg_cuda_stream_create(&h->stream);
#else
    return pg_error_set(PG_ESKIP, "built without the CUDA backend");
#endif
}

static void close_stream(host_state *h)
{
#if PG_HAS_CUDA
    if (h->stream)
        pg_cuda_stream_destroy(h->stream);
#endif
    h->stream = NULL;
}

static int finish_outcome(pg_result *out, const host_state *h)
{
    char *msg;

    if (h->outcome == PG_ESKIP)
        return pg__result_skip(out, h->message[0] ? h->message : "skipped by the benchmark");
    msg = pg__asprintf("benchmark '%s' reported an error: %s", h->b->name, h->message[0] ? h->message : "?");
    pg__result_error(out, msg ? msg : h->message);
    free(msg);
    return 0;
}

/* The contention probe of the loop form's thread, once it has said which thread it is. */
static int start_probe(pg_thread_probe *p, driver *d, pthread_t thread)
{
    clockid_t cpu;
    pid_t tid;

    pthread_mutex_lock(&d->mu);
    while (d->tid == 0)
        pthread_cond_wait(&d->cv, &d->mu);
    tid = d->tid;
    pthread_mutex_unlock(&d->mu);
    return pg_thread_probe_open(p, tid, pthread_getcpuclockid(thread, &cpu) == 0 ? &cpu : NULL);
}

int pg_plugin_measure(pg_result *out, const pg_benchmark *b, const pg_case *c, const pg_measure_options *mo)
{
    pg_measure_options opts = PG_MEASURE_OPTIONS_INIT;
    pg_clock clock = {virtual_now, NULL};
    pg_measurement m = {0};
    host_state h;
    first_block fb = {0};
    driver drv;
    pg_warm prewarm = {0};
    pg_thread_probe probe;
    int have_probe = 0;
    pthread_t thread;
    int err;

    memset(&drv, 0, sizeof(drv));
    if (check_benchmark(b) != 0)
        return pg__result_error(out, pg_error_last());
    host_init(&h, b, c);
    if ((err = pg_measure_set_threads(NULL, c->threads)) != 0)
        return pg__result_error(out, pg_error_last());
    if ((err = open_stream(&h)) != 0)
        return err == PG_ESKIP ? pg__result_skip(out, pg_error_last()) : pg__result_error(out, pg_error_last());
    if (b->setup) {
        h.ctx = b->setup(&h.pub);
        if (h.outcome) {
            close_stream(&h);
            return finish_outcome(out, &h);
        }
    }
    if (mo)
        opts = *mo;
    clock.payload = &h;
    opts.clock = &clock;
    fb.h = &h;
    if (b->run) {
        /* Set before the thread starts: it reads h.drv at once. */
        h.drv = &drv;
        if (pthread_mutex_init(&drv.mu, NULL) != 0 || pthread_cond_init(&drv.cv, NULL) != 0 ||
            pthread_create(&thread, NULL, driver_main, &h) != 0) {
            close_stream(&h);
            return pg__result_error(out, "cannot start the benchmark's thread");
        }
        have_probe = start_probe(&probe, &drv, thread) == 0;
        if (have_probe)
            opts.probe = &probe.probe;
    }
    if (block_gate.arrive) {
        /*
         * A lockstep side with a set-up phase of its own: it warms up before
         * taking turns, while the other side sets up and warms up too (on
         * another CPU when one is free), then joins the round's CPUs and
         * re-warms there briefly, in turns, before sizing and sampling.
         */
        err = pg_measure_warm(&prewarm, run_block, &h, &clock, opts.warmup, 0);
        if (!err && !h.outcome && block_gate.arrive(block_gate.payload) != 0)
            set_outcome(&h.pub, PG_EKERNEL, "the runner stopped the lockstep measurement");
        opts.warmup = opts.warmup < PG_PLUGIN_REWARM_S ? opts.warmup : PG_PLUGIN_REWARM_S;
    }
    if (!err && !h.outcome)
        err = pg_measure(&m, run_block_counting, &fb, &opts);
    if (h.drv) {
        /* Finish: keep_running returns 0, the benchmark cleans up and returns. */
        post_command(&h, 0);
        pthread_join(thread, NULL);
        pthread_cond_destroy(&drv.cv);
        pthread_mutex_destroy(&drv.mu);
        h.drv = NULL;
    }
    if (have_probe)
        pg_thread_probe_close(&probe);
    if (b->teardown)
        b->teardown(h.ctx);
    close_stream(&h);
    if (err || h.outcome) {
        free(m.samples);
        if (h.outcome)
            return finish_outcome(out, &h);
        return pg__result_error(out, pg_error_last());
    }
    pg_result_take(out, &m);
    out->warmup_s += prewarm.spent_s;
    /* The warm-up out of turns was the process's first: its transient, not the brief re-warm's. */
    if (prewarm.calls > 0) {
        out->transient = prewarm.last > 0 ? prewarm.first / prewarm.last : 0;
        out->warnings &= ~(unsigned)PG_WARN_NOT_STEADY;
        if (!prewarm.steady)
            out->warnings |= PG_WARN_NOT_STEADY;
    }
    out->flops = h.flops_set ? h.flops : (fb.iters > 0 ? h.counted_flops / (double)fb.iters : 0);
    out->bytes = h.bytes;
    return pg_stats_summarize(&out->summary, out->samples, out->nsamples);
}

int pg_plugin_run_iterations(const pg_benchmark *b, const pg_case *c, int64_t iters)
{
    host_state h;
    int err;

    if ((err = check_benchmark(b)) != 0)
        return err;
    host_init(&h, b, c);
    if ((err = open_stream(&h)) != 0)
        return err;
    if (b->setup)
        h.ctx = b->setup(&h.pub);
    err = h.outcome ? h.outcome : run_block(&h, iters);
    if (b->teardown)
        b->teardown(h.ctx);
    close_stream(&h);
    if (err)
        return pg_error_set(err, "%s", h.message);
    return 0;
}
