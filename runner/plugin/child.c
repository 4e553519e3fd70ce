/*
 * child.c - measuring a plugin benchmark in a child process, alone or two
 * builds in lockstep.
 *
 * The fork-and-collect machinery (crash reporting, the result record,
 * timeouts) is child.h's; this file says what a plugin child does (load the
 * library, find the benchmark, measure it) and, for lockstep pairs, hands
 * the two children their turns one block at a time over two more pipes.
 */
#include "plugin/plugin.h"

#include "measure/child.h"
#include "perfgate/errors.h"
#include "stats/stats.h"
#include "base/testhooks.h"
#include "base/util.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How messages name what ran. */
static char *what_ran(const pg_case *c, const char *path)
{
    return pg__asprintf("benchmark '%s' of plugin %s", c->symbol ? c->symbol : c->name, path);
}

/* Lockstep: the child's ends of its two gate pipes. */
typedef struct child_gate {
    int go;                   /* read: 'G' runs one block; anything else or EOF stops */
    int done;                 /* write: 'R' once set up (before the first block), 'D' after each block */
    int ready_sent;
    const uint64_t *cpus;     /* a fresh pair: the round's CPUs, joined on arrival; NULL: stay */
    int threads;
} child_gate;

static int write_byte(int fd, char ch)
{
    ssize_t n;

    do
        n = write(fd, &ch, 1);
    while (n < 0 && errno == EINTR);
    return n == 1 ? 0 : -1;
}

/* Set up and warmed up: to the round's CPUs (every thread of the process), then ready for turns. */
static int gate_arrive(void *payload)
{
    child_gate *g = payload;
    cpu_set_t set;

    g->ready_sent = 1;
    if (g->cpus) {
        pg_child_cpus_from_words(&set, g->cpus);
        if (sched_setaffinity(0, sizeof(set), &set) == 0) {
            pg_measure_reset_cpus();
            pg_measure_set_threads(NULL, g->threads);
        }
    }
    return write_byte(g->done, 'R');
}

static int gate_enter(void *payload)
{
    child_gate *g = payload;
    char ch = 0;
    ssize_t n;

    if (!g->ready_sent && gate_arrive(g) != 0)
        return -1;
    do
        n = read(g->go, &ch, 1);
    while (n < 0 && errno == EINTR);
    return n == 1 && ch == 'G' ? 0 : -1;
}

static void gate_leave(void *payload)
{
    (void)write_byte(((child_gate *)payload)->done, 'D');
}

/* What a plugin child measures; `gate` is NULL outside lockstep pairs. */
typedef struct plugin_job {
    const pg_case *c;
    const char *path;
    const pg_measure_options *mo;
    child_gate *gate;
} plugin_job;

static void measure_in_child(pg_result *out, const plugin_job *job)
{
    pg_plugin_lib *lib = NULL;
    const pg_benchmark *b = NULL;
    int err;

    if (job->gate) {
        pg_plugin_gate pg = {gate_enter, gate_leave, job->gate, gate_arrive};
        pg__plugin_set_gate(&pg);
    }
    /* The case's env: is set before the library loads, so what it reads at load time sees it too. */
    if (pg_case_setenv(job->c, NULL) != 0)
        pg__result_error(out, "cannot set the case's env: variables");
    else if ((err = pg_plugin_open(&lib, job->path)) != 0 ||
             (err = pg_plugin_find(&b, lib, job->c->symbol ? job->c->symbol : job->c->name)) != 0)
        (err == PG_ENOTFOUND ? pg__result_absent : pg__result_error)(out, pg_error_last());
    else
        pg_plugin_measure(out, b, job->c, job->mo);
    /* The runner sees this side finished (EOF) before the result, which may fill the pipe. */
    if (job->gate)
        close(job->gate->done);
}

static int plugin_child(pg_result *out, void *payload)
{
    measure_in_child(out, payload);
    return 0;
}

int pg_plugin_run_case(pg_result *out, const pg_case *c, const char *path, const pg_measure_options *mo,
                       double timeout_s)
{
    plugin_job job = {c, path, mo, NULL};
    char *what = what_ran(c, path);
    int err = pg_child_run(out, what, timeout_s, plugin_child, &job);

    free(what);
    return err;
}

/* ---- lockstep pairs ---------------------------------------------------- */

typedef struct pair_side {
    pg_child child;           /* pid and the runner's end of the result pipe */
    int go, done;             /* the runner's ends of the gate pipes */
    int finished;             /* its done pipe reached EOF (or 'E', a worker): no more blocks */
    int broken;               /* it sent a byte the protocol has no place for */
} pair_side;

/* A pair started: its sides, until they have taken their turns and been collected. */
struct pg_plugin_pair {
    pair_side sides[2];
    char *what[2];            /* how messages name each side */
    int64_t deadline;
    double timeout_s;
    uint64_t seed;
};

/* What side `i`'s child needs: the job, its own ends of the gate pipes, and every runner end to close. */
typedef struct side_job {
    plugin_job job;
    child_gate gate;
    int own_go, own_done;     /* the runner's ends of this side's gate pipes */
    pair_side *sides;
    int i;
    const pg_plugin_pair *busy; /* a pair taking its turns meanwhile, whose runner ends this child must not hold */
    const uint64_t *setup_cpus; /* where to set up and warm up; NULL: where it starts */
} side_job;

/* Reads one byte from `fd` before `deadline`: 1 read, 0 EOF, -1 timed out or failed. */
static int read_byte(int fd, char *ch, int64_t deadline)
{
    for (;;) {
        struct pollfd pfd = {fd, POLLIN, 0};
        int64_t left_ms = (deadline - pg__mono_ns()) / 1000000;
        ssize_t n;
        int rc;

        if (left_ms <= 0)
            return -1;
        rc = poll(&pfd, 1, left_ms > 60000 ? 60000 : (int)left_ms);
        if (rc < 0 && errno != EINTR)
            return -1;
        if (rc <= 0)
            continue;
        n = read(fd, ch, 1);
        if (n < 0 && errno == EINTR)
            continue;
        return n == 1 ? 1 : n == 0 ? 0 : -1;
    }
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static int side_child(pg_result *out, void *payload)
{
    side_job *sj = payload;
    int j;

    /* A runner end held here would keep the other side's gate open after the runner closes it. */
    for (j = 0; j < 2; j++)
        if (j != sj->i) {
            close_fd(&sj->sides[j].child.fd);
            close_fd(&sj->sides[j].go);
            close_fd(&sj->sides[j].done);
        }
    close(sj->own_go);
    close(sj->own_done);
    for (j = 0; sj->busy && j < 2; j++) {
        close(sj->busy->sides[j].child.fd);
        close(sj->busy->sides[j].go);
        close(sj->busy->sides[j].done);
    }
    if (sj->setup_cpus) {
        cpu_set_t set;
        pg_child_cpus_from_words(&set, sj->setup_cpus);
        sched_setaffinity(0, sizeof(set), &set);
    }
    measure_in_child(out, &sj->job);
    return 0;
}

/* Forks side `i` with its two gate pipes. */
static int start_side(pair_side *sides, int i, const pg_case *c, const char *path, const pg_measure_options *mo,
                      const pg_plugin_pair_cpus *cpus, const pg_plugin_pair *busy)
{
    int go[2], done[2], err;
    side_job sj;

    if (pipe2(go, O_CLOEXEC) != 0)
        return pg_error_set(PG_EIO, "cannot create a pipe for the benchmark process: %s", strerror(errno));
    if (pipe2(done, O_CLOEXEC) != 0) {
        close(go[0]);
        close(go[1]);
        return pg_error_set(PG_EIO, "cannot create a pipe for the benchmark process: %s", strerror(errno));
    }
    memset(&sj, 0, sizeof(sj));
    sj.job.c = c;
    sj.job.path = path;
    sj.job.mo = mo;
    sj.job.gate = &sj.gate;
    sj.gate.go = go[0];
    sj.gate.done = done[1];
    sj.gate.cpus = cpus ? cpus->turns : NULL;
    sj.gate.threads = c->threads;
    sj.busy = busy;
    sj.setup_cpus = cpus ? cpus->setup : NULL;
    sj.own_go = go[1];
    sj.own_done = done[0];
    sj.sides = sides;
    sj.i = i;
    err = pg_child_start(&sides[i].child, side_child, &sj);
    close(go[0]);
    close(done[1]);
    if (err) {
        close(go[1]);
        close(done[0]);
        return err;
    }
    sides[i].go = go[1];
    sides[i].done = done[0];
    return 0;
}

/*
 * Lockstep: both sides set up (each says 'R' before its first block) before
 * either runs a block, then one block at a time, the sides alternating in a
 * random order per pair of blocks. A side is finished at end of file (a
 * one-shot child) or 'E' (a worker, which stays); any other byte breaks the
 * protocol and finishes it too (`broken`).
 */
static void take_turns(pair_side sides[2], int64_t deadline, uint64_t seed, int *timed_out)
{
    pg_rng rng;
    int i;
    char ch;

    pg_stats_rng_seed(&rng, seed);
    for (i = 0; i < 2 && !*timed_out; i++) {
        int rc = sides[i].child.pid > 0 && !sides[i].finished ? read_byte(sides[i].done, &ch, deadline) : 0;
        if (rc < 0)
            *timed_out = 1;
        else if (rc == 0 || ch != 'R')
            sides[i].finished = 1;
        if (rc > 0 && ch != 'R' && ch != 'E')
            sides[i].broken = 1;
    }
    while (!*timed_out && !(sides[0].finished && sides[1].finished)) {
        int first = (int)(pg_stats_rng_next(&rng) & 1), k;
        for (k = 0; k < 2 && !*timed_out; k++) {
            pair_side *sd = &sides[k ? 1 - first : first];
            int rc;
            if (sd->finished)
                continue;
            if (write(sd->go, "G", 1) != 1) {
                sd->finished = 1;
                continue;
            }
            rc = read_byte(sd->done, &ch, deadline);
            if (rc < 0)
                *timed_out = 1;
            else if (rc == 0 || ch != 'D')
                sd->finished = 1;
            if (rc > 0 && ch != 'D' && ch != 'E')
                sd->broken = 1;
        }
    }
}

/* SIGPIPE ignored while the runner writes turns: a side that dies between blocks closes its go pipe. */
static void ignore_sigpipe(struct sigaction *old)
{
    struct sigaction ign;

    memset(&ign, 0, sizeof(ign));
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, old);
}

void pg_plugin_pair_cancel(pg_plugin_pair *p)
{
    int i;

    if (!p)
        return;
    for (i = 0; i < 2; i++) {
        close_fd(&p->sides[i].go);
        close_fd(&p->sides[i].done);
        if (p->sides[i].child.pid > 0)
            pg_child_kill(&p->sides[i].child);
        free(p->what[i]);
    }
    free(p);
}

int pg_plugin_pair_start(pg_plugin_pair **out, const pg_case *const c[2], const char *const paths[2],
                         const pg_measure_options *mo, double timeout_s, uint64_t seed, const pg_plugin_pair_cpus *cpus,
                         const pg_plugin_pair *busy)
{
    pg_plugin_pair *p = calloc(1, sizeof(*p));
    pair_side init = {PG_CHILD_INIT, -1, -1, 0, 0};
    int i, err = 0;

    *out = NULL;
    if (!p)
        return pg_error_set(PG_ENOMEM, "out of memory");
    p->sides[0] = p->sides[1] = init;
    p->deadline = pg__mono_ns() + (int64_t)(timeout_s * 1e9);
    p->timeout_s = timeout_s;
    p->seed = seed;
    for (i = 0; i < 2 && !err; i++)
        if (!(p->what[i] = what_ran(c[i], paths[i])))
            err = pg_error_set(PG_ENOMEM, "out of memory");
    for (i = 0; i < 2 && !err; i++)
        err = start_side(p->sides, i, c[i], paths[i], mo, cpus, busy);
    if (err) {
        pg_plugin_pair_cancel(p);
        return err;
    }
    *out = p;
    return 0;
}

int pg_plugin_pair_finish(pg_result out[2], pg_plugin_pair *p)
{
    struct sigaction old;
    int i, err = 0, timed_out = 0;

    ignore_sigpipe(&old);
    take_turns(p->sides, p->deadline, p->seed, &timed_out);
    for (i = 0; i < 2; i++) {
        int rerr;
        close_fd(&p->sides[i].go);
        close_fd(&p->sides[i].done);
        if (p->sides[i].child.pid <= 0)
            continue;
        /* After a timeout nothing more is read: the past deadline reports it. */
        rerr = pg_child_collect(&out[i], &p->sides[i].child, p->what[i], timed_out ? 0 : p->deadline, p->timeout_s);
        p->sides[i].child.pid = -1;
        if (!err)
            err = rerr;
    }
    sigaction(SIGPIPE, &old, NULL);
    pg_plugin_pair_cancel(p);
    return err;
}

/* ---- workers: lockstep children kept across rounds ----------------------- */

struct pg_plugin_worker {
    pair_side side;
    int req;                  /* the runner's end of the request pipe */
    const pg_case *const *cases;
    const pg_measure_options *mos;
    size_t n;
    unsigned char *seen;      /* cases this process measured before */
    int timed_out;            /* the last pair ended in a timeout */
};

/* What the worker process needs: the tables, its pipe ends, and the runner ends it must not hold. */
typedef struct worker_job {
    const pg_plugin_worker *self, *other;
    int req, go, done;        /* the worker's ends */
} worker_job;

/* The worker's libraries, opened once each (a build directory may give cases different files). */
typedef struct worker_libs {
    const char **paths;
    pg_plugin_lib **libs;
    size_t n;
} worker_libs;

static int worker_lib(pg_plugin_lib **out, worker_libs *wl, const char *path)
{
    size_t i;
    int err;

    for (i = 0; i < wl->n; i++)
        if (strcmp(wl->paths[i], path) == 0) {
            *out = wl->libs[i];
            return 0;
        }
    if ((err = pg_plugin_open(out, path)) != 0)
        return err;
    wl->paths[wl->n] = path;
    wl->libs[wl->n++] = *out;
    return 0;
}


/* One request: pinned to its CPUs, the case measured between 'R' and 'E' on the gate pipes. */
static void worker_measure(pg_result *r, const pg_plugin_worker *w, const pg_child_request *rq, worker_libs *wl,
                           int64_t *numbers)
{
    const pg_case *c = w->cases[rq->index];
    pg_measure_options mo = w->mos[rq->index];
    pg_plugin_lib *lib = NULL;
    const pg_benchmark *b = NULL;
    cpu_set_t set;
    int err;

    pg_child_cpus_from_words(&set, rq->cpus);
    /* Re-pinned per round as a fresh process would be: the round's CPUs, chosen anew from them. */
    sched_setaffinity(0, sizeof(set), &set);
    pg_measure_reset_cpus();
    if (!(rq->flags & PG_CHILD_REQ_NEW)) {
        /* Clock, block size and warm-up were paid for this case already: a brief re-warm, and
           sizing starts from the block size found then (one block when it still fits). */
        mo.warmup = mo.warmup < PG_PLUGIN_REWARM_S ? mo.warmup : PG_PLUGIN_REWARM_S;
        mo.start_number = numbers[rq->index];
    }
    /* A worker measures several cases: each gets its own env:, none keeps the last one's. A library the
       worker loaded for an earlier case read its load-time variables then (docs/suites.md). */
    static const pg_case *env_of;

    if (c && pg_case_setenv(c, env_of) == 0)
        env_of = c;
    if (!c || !c->plugin)
        pg__result_error(r, "the worker was asked for a case without a plugin");
    else if (env_of != c)
        pg__result_error(r, "cannot set the case's env: variables");
    else if ((err = worker_lib(&lib, wl, c->plugin)) != 0 ||
             (err = pg_plugin_find(&b, lib, c->symbol ? c->symbol : c->name)) != 0)
        (err == PG_ENOTFOUND ? pg__result_absent : pg__result_error)(r, pg_error_last());
    else if (pg_plugin_measure(r, b, c, &mo) == 0 && r->status == PG_STATUS_OK)
        numbers[rq->index] = r->number_per_run;
}

/* Bytes are waiting in `fd` (polled, not read). */
static int pending(int fd)
{
    struct pollfd pfd = {fd, POLLIN, 0};

    return poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN);
}

static int worker_child(pg_result *out, void *payload)
{
    const worker_job *job = payload;
    const pg_plugin_worker *w = job->self;
    child_gate gate = {job->go, job->done, 0, NULL, 0};
    pg_plugin_gate pgate = {gate_enter, gate_leave, &gate, NULL};
    worker_libs wl = {NULL, NULL, 0};
    int64_t *numbers = calloc(w->n ? w->n : 1, sizeof(*numbers));
    unsigned nreq;
    int fd = pg_child_result_fd();

    if (job->other) {
        pg_plugin_worker *o = (pg_plugin_worker *)job->other;
        close_fd(&o->side.child.fd);
        close_fd(&o->side.go);
        close_fd(&o->side.done);
        close_fd(&o->req);
    }
    wl.paths = calloc(w->n ? w->n : 1, sizeof(*wl.paths));
    wl.libs = calloc(w->n ? w->n : 1, sizeof(*wl.libs));
    if (!numbers || !wl.paths || !wl.libs)
        return pg_error_set(PG_ENOMEM, "out of memory in the worker process");
    pg__plugin_set_gate(&pgate);
    for (nreq = 1;; nreq++) {
        pg_child_request rq;
        pg_result r;
        int rc = pg_child_request_read(&rq, job->req, w->n);
        if (rc == 0)
            _exit(0); /* the runner is done with this worker */
        if (rc < 0)
            return rc; /* sent as this worker's last result: an ERROR naming the bad request */
        memset(&r, 0, sizeof(r));
        r.mfu = -1;
        gate.ready_sent = 0;
        /* A turn left over from the last request would let this one run out of turn: say so, and go. */
        if (pending(job->go)) {
            (void)write_byte(job->done, 'X');
            _exit(3);
        }
        worker_measure(&r, w, &rq, &wl, numbers);
        /*
         * The runner gives a turn after every block; the one after the last block is answered
         * with 'E' (no block ran: at once). So no turn is left in the pipe for the next request.
         */
        if (gate.ready_sent) {
            char ch = 0;
            ssize_t n;
            do
                n = read(job->go, &ch, 1);
            while (n < 0 && errno == EINTR);
            if (n != 1 || ch != 'G')
                _exit(3);
        }
        if (write_byte(job->done, 'E') != 0)
            _exit(3);
        if (pg__test_worker_garbage(nreq)) {
            static const char junk[256] = "not a result record";
            (void)!write(fd, junk, sizeof(junk));
        } else if (pg_child_send(fd, &r) != 0) {
            _exit(3);
        }
        pg__result_clear(&r);
    }
    (void)out;
}

int pg_plugin_worker_start(pg_plugin_worker **out, const pg_case *const *cases, const pg_measure_options *mos,
                           size_t n, const pg_plugin_worker *other)
{
    pg_plugin_worker *w = calloc(1, sizeof(*w));
    int req[2] = {-1, -1}, go[2] = {-1, -1}, done[2] = {-1, -1}, err;
    worker_job job;

    *out = NULL;
    if (!w || !(w->seen = calloc(n ? n : 1, 1))) {
        free(w);
        return pg_error_set(PG_ENOMEM, "out of memory");
    }
    w->side.child.pid = w->side.child.fd = w->side.child.out_fd = w->side.child.err_fd = -1;
    w->cases = cases;
    w->mos = mos;
    w->n = n;
    if (pipe2(req, O_CLOEXEC) != 0 || pipe2(go, O_CLOEXEC) != 0 || pipe2(done, O_CLOEXEC) != 0) {
        err = pg_error_set(PG_EIO, "cannot create a pipe for the worker process: %s", strerror(errno));
        goto fail;
    }
    job.self = w;
    job.other = other;
    job.req = req[0];
    job.go = go[0];
    job.done = done[1];
    w->req = req[1];
    w->side.go = go[1];
    w->side.done = done[0];
    if ((err = pg_child_start(&w->side.child, worker_child, &job)) != 0)
        goto fail;
    close(req[0]);
    close(go[0]);
    close(done[1]);
    *out = w;
    return 0;

fail:
    close_fd(&req[0]);
    close_fd(&req[1]);
    close_fd(&go[0]);
    close_fd(&go[1]);
    close_fd(&done[0]);
    close_fd(&done[1]);
    free(w->seen);
    free(w);
    return err;
}

int pg_plugin_worker_alive(const pg_plugin_worker *w)
{
    return w && w->side.child.pid > 0;
}

int pg_plugin_worker_timed_out(const pg_plugin_worker *w)
{
    return w && w->timed_out;
}

void pg_plugin_worker_stop(pg_plugin_worker *w)
{
    if (!w)
        return;
    /* End of file on its request pipe ends a waiting worker; the kill covers a busy or stuck one. */
    close_fd(&w->req);
    close_fd(&w->side.go);
    close_fd(&w->side.done);
    pg_child_kill(&w->side.child);
    free(w->seen);
    free(w);
}

int pg_plugin_worker_pair(pg_result out[2], pg_plugin_worker *const w[2], size_t index, const uint64_t *cpus,
                          double timeout_s, uint64_t seed)
{
    pair_side sides[2];
    int64_t deadline = pg__mono_ns() + (int64_t)(timeout_s * 1e9);
    struct sigaction old;
    int i, err = 0, timed_out = 0;

    assert(w[0] && w[1] && index < w[0]->n && index < w[1]->n);
    ignore_sigpipe(&old);
    for (i = 0; i < 2; i++) {
        pg_child_request rq;
        memset(&rq, 0, sizeof(rq));
        rq.index = (uint32_t)index;
        rq.flags = w[i]->seen[index] ? 0 : PG_CHILD_REQ_NEW;
        memcpy(rq.cpus, cpus, sizeof(rq.cpus));
        w[i]->timed_out = 0;
        sides[i] = w[i]->side;
        sides[i].finished = sides[i].broken = 0;
        /* A worker gone before the request is read reports it below, as one gone while measuring. */
        if (w[i]->side.child.pid > 0 && pg_child_request_send(w[i]->req, &rq) != 0)
            sides[i].finished = 1;
    }
    take_turns(sides, deadline, seed, &timed_out);
    for (i = 0; i < 2; i++) {
        const pg_case *c = w[i]->cases[index];
        char *what = pg__asprintf("benchmark '%s' of plugin %s (worker process)", c->symbol ? c->symbol : c->name,
                                  c->plugin);
        int rerr;
        w[i]->seen[index] = 1;
        if (w[i]->side.child.pid <= 0) {
            free(what);
            return pg_error_set(PG_EINVAL, "a stopped worker process was asked to measure");
        }
        if (sides[i].broken) {
            char *msg = pg__asprintf("%s broke the lockstep protocol; the process was killed", what);
            pg_child_kill(&w[i]->side.child);
            pg__result_error(&out[i], msg ? msg : "protocol error");
            free(msg);
            rerr = 0;
        } else {
            rerr = pg_child_read(&out[i], &w[i]->side.child, what, timed_out ? 0 : deadline, timeout_s);
            w[i]->timed_out = timed_out;
        }
        free(what);
        if (!err)
            err = rerr;
    }
    sigaction(SIGPIPE, &old, NULL);
    return err;
}
