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

#include "child.h"
#include "perfgate/errors.h"
#include "stats.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
} child_gate;

static int write_byte(int fd, char ch)
{
    ssize_t n;

    do
        n = write(fd, &ch, 1);
    while (n < 0 && errno == EINTR);
    return n == 1 ? 0 : -1;
}

static int gate_enter(void *payload)
{
    child_gate *g = payload;
    char ch = 0;
    ssize_t n;

    if (!g->ready_sent) {
        g->ready_sent = 1;
        if (write_byte(g->done, 'R') != 0)
            return -1;
    }
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

    if (job->gate) {
        pg_plugin_gate pg = {gate_enter, gate_leave, job->gate};
        pg__plugin_set_gate(&pg);
    }
    if (pg_plugin_open(&lib, job->path) != 0 ||
        pg_plugin_find(&b, lib, job->c->symbol ? job->c->symbol : job->c->name) != 0)
        pg__result_error(out, pg_error_last());
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
    int err = pg__child_run(out, what, timeout_s, plugin_child, &job);

    free(what);
    return err;
}

/* ---- lockstep pairs ---------------------------------------------------- */

typedef struct pair_side {
    pg_child child;           /* pid and the runner's end of the result pipe */
    int go, done;             /* the runner's ends of the gate pipes */
    int finished;             /* its done pipe reached EOF: no more blocks */
} pair_side;

/* What side `i`'s child needs: the job, its own ends of the gate pipes, and every runner end to close. */
typedef struct side_job {
    plugin_job job;
    child_gate gate;
    int own_go, own_done;     /* the runner's ends of this side's gate pipes */
    pair_side *sides;
    int i;
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
    measure_in_child(out, &sj->job);
    return 0;
}

/* Forks side `i` with its two gate pipes. */
static int start_side(pair_side *sides, int i, const pg_case *c, const char *path, const pg_measure_options *mo)
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
    sj.own_go = go[1];
    sj.own_done = done[0];
    sj.sides = sides;
    sj.i = i;
    err = pg__child_start(&sides[i].child, side_child, &sj);
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

int pg_plugin_run_pair(pg_result out[2], const pg_case *c, const char *const paths[2],
                       const pg_measure_options *mo, double timeout_s, uint64_t seed)
{
    pair_side sides[2] = {{PG_CHILD_INIT, -1, -1, 0}, {PG_CHILD_INIT, -1, -1, 0}};
    int64_t deadline = pg__mono_ns() + (int64_t)(timeout_s * 1e9);
    struct sigaction ign, old;
    pg_rng rng;
    int i, err = 0, timed_out = 0;
    char ch;

    pg_stats_rng_seed(&rng, seed);
    /* A side that dies between blocks closes its go pipe: a write there must not kill the runner. */
    memset(&ign, 0, sizeof(ign));
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old);
    for (i = 0; i < 2 && !err; i++)
        err = start_side(sides, i, c, paths[i], mo);
    /* Both set up (each says 'R' before its first block) before either runs a block. */
    for (i = 0; i < 2 && !err && !timed_out; i++) {
        int rc = sides[i].child.pid > 0 ? read_byte(sides[i].done, &ch, deadline) : 0;
        if (rc < 0)
            timed_out = 1;
        else if (rc == 0)
            sides[i].finished = 1;
    }
    /* One block at a time, the sides alternating in a random order per pair of blocks. */
    while (!err && !timed_out && !(sides[0].finished && sides[1].finished)) {
        int first = (int)(pg_stats_rng_next(&rng) & 1), k;
        for (k = 0; k < 2 && !timed_out; k++) {
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
                timed_out = 1;
            else if (rc == 0)
                sd->finished = 1;
        }
    }
    for (i = 0; i < 2; i++) {
        char *what;
        int rerr;
        close_fd(&sides[i].go);
        close_fd(&sides[i].done);
        if (sides[i].child.pid <= 0)
            continue;
        if (err) {
            pg__child_kill(&sides[i].child);
            continue;
        }
        /* After a timeout nothing more is read: the past deadline reports it. */
        what = what_ran(c, paths[i]);
        rerr = pg__child_collect(&out[i], &sides[i].child, what, timed_out ? 0 : deadline, timeout_s);
        free(what);
        if (!err)
            err = rerr;
    }
    sigaction(SIGPIPE, &old, NULL);
    return err;
}
