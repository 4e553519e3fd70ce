/*
 * child.c - measuring a plugin benchmark in a child process.
 *
 * User code may crash, hang or call exit(); none of that may take the runner
 * down or leave a run half-written. So the runner forks, the child loads the
 * plugin and measures the benchmark, and sends its result back over a pipe
 * in a small binary record. A fatal signal in the child is reported by its
 * handler (then re-raised), so the parent can name it even when a sanitizer
 * turns the signal into a plain exit.
 */
#include "plugin/plugin.h"

#include "backend/backend.h"
#include "perfgate/errors.h"
#include "stats.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WIRE_MAGIC 0x31524750u /* "PGR1" */

enum { WIRE_RESULT = 1, WIRE_CRASH = 2 };

typedef struct wire_head {
    uint32_t magic;
    int32_t kind;             /* WIRE_RESULT or WIRE_CRASH */
    int32_t status;           /* pg_status */
    int32_t signo;            /* WIRE_CRASH: the signal */
    uint32_t warnings;
    uint32_t msglen;
    int64_t number_per_run;
    uint64_t nsamples;
    double flops, bytes, warmup_s;
} wire_head;

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;

    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* ---- the child --------------------------------------------------------- */

static int crash_fd = -1;

static void on_fatal_signal(int sig)
{
    wire_head h;

    /* Async-signal-safe only: fill a record, write it, die by the signal. */
    memset(&h, 0, sizeof(h));
    h.magic = WIRE_MAGIC;
    h.kind = WIRE_CRASH;
    h.signo = sig;
    if (crash_fd >= 0)
        (void)!write(crash_fd, &h, sizeof(h));
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_crash_handlers(int fd)
{
    static char altstack[64 * 1024];
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS};
    struct sigaction sa;
    stack_t ss;
    size_t i;

    crash_fd = fd;
    /* A stack overflow must still be reported: handle it on its own stack. */
    ss.ss_sp = altstack;
    ss.ss_size = sizeof(altstack);
    ss.ss_flags = 0;
    sigaltstack(&ss, NULL);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_fatal_signal;
    sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaction(sigs[i], &sa, NULL);
}

static void send_result(int fd, const pg_result *r)
{
    wire_head h;
    const char *msg = r->message ? r->message : "";

    memset(&h, 0, sizeof(h));
    h.magic = WIRE_MAGIC;
    h.kind = WIRE_RESULT;
    h.status = (int32_t)r->status;
    h.warnings = r->warnings;
    h.msglen = (uint32_t)strlen(msg);
    h.number_per_run = r->number_per_run;
    h.nsamples = r->nsamples;
    h.flops = r->flops;
    h.bytes = r->bytes;
    h.warmup_s = r->warmup_s;
    if (write_all(fd, &h, sizeof(h)) != 0 ||
        (r->nsamples && write_all(fd, r->samples, r->nsamples * sizeof(double)) != 0) ||
        write_all(fd, msg, h.msglen) != 0)
        _exit(3);
}

/* Lockstep: the child's ends of its two gate pipes. */
typedef struct child_gate {
    int go;                   /* read: 'G' runs one block; anything else or EOF stops */
    int done;                 /* write: 'R' once set up (before the first block), 'D' after each block */
    int ready_sent;
} child_gate;

static int gate_enter(void *payload)
{
    child_gate *g = payload;
    char ch = 0;
    ssize_t n;

    if (!g->ready_sent) {
        g->ready_sent = 1;
        if (write_all(g->done, "R", 1) != 0)
            return -1;
    }
    do
        n = read(g->go, &ch, 1);
    while (n < 0 && errno == EINTR);
    return n == 1 && ch == 'G' ? 0 : -1;
}

static void gate_leave(void *payload)
{
    (void)write_all(((child_gate *)payload)->done, "D", 1);
}

static void child_main(int fd, const pg_case *c, const char *path, const pg_measure_options *mo, child_gate *gate)
{
    pg_plugin_lib *lib = NULL;
    const pg_benchmark *b = NULL;
    pg_result r;

    memset(&r, 0, sizeof(r));
    install_crash_handlers(fd);
    if (gate) {
        pg_plugin_gate pg = {gate_enter, gate_leave, gate};
        pg__plugin_set_gate(&pg);
    }
    if (pg_plugin_open(&lib, path) != 0 || pg_plugin_find(&b, lib, c->symbol ? c->symbol : c->name) != 0)
        pg__result_error(&r, pg_error_last());
    else
        pg_plugin_measure(&r, b, c, mo);
    /* The runner sees this side finished (EOF) before the result, which may fill the pipe. */
    if (gate)
        close(gate->done);
    send_result(fd, &r);
    /* No atexit handlers, no flushing of stdio buffers inherited from the parent. */
    _exit(0);
}

/* ---- the parent -------------------------------------------------------- */

static int read_until_eof(pg_buf *buf, int fd, double timeout_s, int *timed_out)
{
    int64_t deadline = pg__mono_ns() + (int64_t)(timeout_s * 1e9);
    char chunk[8192];

    *timed_out = 0;
    for (;;) {
        struct pollfd pfd = {fd, POLLIN, 0};
        int64_t left_ms = (deadline - pg__mono_ns()) / 1000000;
        int rc;
        ssize_t n;

        if (left_ms <= 0) {
            *timed_out = 1;
            return 0;
        }
        rc = poll(&pfd, 1, left_ms > 60000 ? 60000 : (int)left_ms);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc < 0)
            return pg_error_set(PG_EIO, "waiting for the benchmark process: %s", strerror(errno));
        if (rc == 0)
            continue;
        n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        if (pg__buf_put(buf, chunk, (size_t)n) != 0)
            return pg_error_set(PG_ENOMEM, "out of memory reading a benchmark's result");
    }
}

static int take_result(pg_result *out, const pg_buf *buf, const wire_head *h)
{
    size_t need = sizeof(*h) + h->nsamples * sizeof(double) + h->msglen;
    char *msg;

    if (h->nsamples > ((uint64_t)1 << 32) || buf->len < need)
        return pg__result_error(out, "the benchmark process sent a truncated result");
    msg = pg__asprintf("%.*s", (int)h->msglen, buf->ptr + sizeof(*h) + h->nsamples * sizeof(double));
    if (h->status != PG_STATUS_OK) {
        if (h->status == PG_STATUS_SKIPPED)
            pg__result_skip(out, msg && *msg ? msg : "skipped");
        else
            pg__result_error(out, msg && *msg ? msg : "failed");
        free(msg);
        return 0;
    }
    free(msg);
    if (h->nsamples == 0)
        return pg__result_error(out, "the benchmark process sent no samples");
    out->samples = malloc(h->nsamples * sizeof(double));
    if (!out->samples)
        return pg_error_set(PG_ENOMEM, "out of memory storing samples");
    memcpy(out->samples, buf->ptr + sizeof(*h), h->nsamples * sizeof(double));
    out->nsamples = h->nsamples;
    out->status = PG_STATUS_OK;
    out->number_per_run = h->number_per_run;
    out->warnings = h->warnings;
    out->flops = h->flops;
    out->bytes = h->bytes;
    out->warmup_s = h->warmup_s;
    return pg_stats_summarize(&out->summary, out->samples, out->nsamples);
}

/* How messages name what ran: a plugin's benchmark, or a case re-measured in a fresh process (path NULL). */
static char *what_ran(const pg_case *c, const char *path)
{
    if (!path)
        return pg__asprintf("case %s (in a fresh process)", c->key);
    return pg__asprintf("benchmark '%s' of plugin %s", c->symbol ? c->symbol : c->name, path);
}

static int report_death(pg_result *out, const pg_case *c, const char *path, int status, int crash_sig)
{
    int sig = crash_sig ? crash_sig : WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    char *what = what_ran(c, path), *msg;

    if (sig)
        msg = pg__asprintf("%s crashed with signal %d (%s); its samples are discarded", what, sig, strsignal(sig));
    else if (WIFEXITED(status))
        msg = pg__asprintf("%s exited with status %d before reporting a result "
                           "(exit() or a sanitizer abort inside the plugin?)",
                           what, WEXITSTATUS(status));
    else
        msg = pg__asprintf("%s ended without a result", what);
    pg__result_error(out, msg ? msg : "the benchmark process died");
    free(msg);
    free(what);
    return 0;
}

/* Reaps the child `pid` and turns what it sent (`buf`) into `out`: a result, a crash or a timeout. */
static int collect(pg_result *out, const pg_case *c, const char *path, pid_t pid, const pg_buf *buf, int err,
                   int timed_out, double timeout_s)
{
    wire_head h;
    int status = 0;

    if (timed_out || err)
        kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (err)
        return err;
    if (timed_out) {
        char *what = what_ran(c, path);
        char *msg = pg__asprintf("%s did not finish within %.0f s; the process was killed (raise `timeout:` if it "
                                 "needs longer)",
                                 what, timeout_s);
        pg__result_error(out, msg ? msg : "timed out");
        free(msg);
        free(what);
        return 0;
    }
    if (buf->len >= sizeof(h))
        memcpy(&h, buf->ptr, sizeof(h));
    if (buf->len >= sizeof(h) && h.magic == WIRE_MAGIC && h.kind == WIRE_CRASH)
        return report_death(out, c, path, status, h.signo);
    if (buf->len >= sizeof(h) && h.magic == WIRE_MAGIC && h.kind == WIRE_RESULT)
        return take_result(out, buf, &h);
    return report_death(out, c, path, status, 0);
}

/*
 * Forks a child that runs `body` (which sends its result on `fd` and never
 * returns), then collects that result, crash or timeout into `out`. `path`
 * names the plugin in messages (NULL: a case in a fresh process).
 */
typedef void (*child_body)(int fd, const pg_case *c, const void *ctx);

static int run_child(pg_result *out, const pg_case *c, const char *path, double timeout_s, child_body body,
                     const void *ctx)
{
    pg_buf buf = PG_BUF_INIT;
    int fds[2], timed_out = 0, err = 0;
    pid_t pid;

    if (pipe2(fds, O_CLOEXEC) != 0)
        return pg_error_set(PG_EIO, "cannot create a pipe for the benchmark process: %s", strerror(errno));
    /* Buffered output would otherwise be written twice if the child calls exit(). */
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return pg_error_set(PG_EIO, "cannot start the benchmark process: %s", strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        body(fds[1], c, ctx);
        _exit(0);
    }
    close(fds[1]);
    err = read_until_eof(&buf, fds[0], timeout_s, &timed_out);
    close(fds[0]);
    err = collect(out, c, path, pid, &buf, err, timed_out, timeout_s);
    pg__buf_free(&buf);
    return err;
}

typedef struct plugin_ctx {
    const char *path;
    const pg_measure_options *mo;
} plugin_ctx;

static void plugin_body(int fd, const pg_case *c, const void *ctx)
{
    const plugin_ctx *p = ctx;

    child_main(fd, c, p->path, p->mo, NULL);
}

int pg_plugin_run_case(pg_result *out, const pg_case *c, const char *path, const pg_measure_options *mo,
                       double timeout_s)
{
    plugin_ctx p = {path, mo};

    return run_child(out, c, path, timeout_s, plugin_body, &p);
}

/* ---- any case in a fresh process -------------------------------------- */

typedef struct fresh_ctx {
    const pg_exec_options *opts;
    int cpu_shift;
} fresh_ctx;

static void fresh_body(int fd, const pg_case *c, const void *ctx)
{
    const fresh_ctx *f = ctx;
    pg_result r;

    install_crash_handlers(fd);
    memset(&r, 0, sizeof(r));
    r.mfu = -1;
    pg_measure_shift_cpus(f->cpu_shift);
    if (pg_exec_case(&r, c, f->opts) != 0)
        pg__result_error(&r, pg_error_last());
    send_result(fd, &r);
}

int pg__child_exec_case(pg_result *out, const pg_case *c, const pg_exec_options *opts, int cpu_shift,
                        double timeout_s)
{
    fresh_ctx f = {opts, cpu_shift};

    return run_child(out, c, NULL, timeout_s, fresh_body, &f);
}

/* ---- lockstep pairs ---------------------------------------------------- */

typedef struct pair_side {
    pid_t pid;
    int result, go, done;     /* the runner's ends */
    int finished;             /* its done pipe reached EOF: no more blocks */
} pair_side;

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

/* Forks side `i`: three pipes, the child closes every runner end (its own and the other side's). */
static int start_side(pair_side *sides, int i, const pg_case *c, const char *path, const pg_measure_options *mo)
{
    int res[2], go[2], done[2], j;
    pair_side *sd = &sides[i];

    if (pipe2(res, O_CLOEXEC) != 0)
        return pg_error_set(PG_EIO, "cannot create a pipe for the benchmark process: %s", strerror(errno));
    if (pipe2(go, O_CLOEXEC) != 0) {
        close(res[0]);
        close(res[1]);
        return pg_error_set(PG_EIO, "cannot create a pipe for the benchmark process: %s", strerror(errno));
    }
    if (pipe2(done, O_CLOEXEC) != 0) {
        close(res[0]);
        close(res[1]);
        close(go[0]);
        close(go[1]);
        return pg_error_set(PG_EIO, "cannot create a pipe for the benchmark process: %s", strerror(errno));
    }
    fflush(stdout);
    fflush(stderr);
    sd->pid = fork();
    if (sd->pid < 0) {
        close(res[0]);
        close(res[1]);
        close(go[0]);
        close(go[1]);
        close(done[0]);
        close(done[1]);
        return pg_error_set(PG_EIO, "cannot start the benchmark process: %s", strerror(errno));
    }
    if (sd->pid == 0) {
        child_gate g = {go[0], done[1], 0};
        for (j = 0; j < 2; j++)
            if (j != i) {
                close_fd(&sides[j].result);
                close_fd(&sides[j].go);
                close_fd(&sides[j].done);
            }
        close(res[0]);
        close(go[1]);
        close(done[0]);
        child_main(res[1], c, path, mo, &g);
    }
    close(res[1]);
    close(go[0]);
    close(done[1]);
    sd->result = res[0];
    sd->go = go[1];
    sd->done = done[0];
    return 0;
}

int pg_plugin_run_pair(pg_result out[2], const pg_case *c, const char *const paths[2],
                       const pg_measure_options *mo, double timeout_s, uint64_t seed)
{
    pair_side sides[2] = {{-1, -1, -1, -1, 0}, {-1, -1, -1, -1, 0}};
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
        int rc = sides[i].pid > 0 ? read_byte(sides[i].done, &ch, deadline) : 0;
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
        pg_buf buf = PG_BUF_INIT;
        int to = timed_out, rerr = 0;
        close_fd(&sides[i].go);
        close_fd(&sides[i].done);
        if (sides[i].pid <= 0) {
            close_fd(&sides[i].result);
            continue;
        }
        if (!err && !to) {
            double left = (double)(deadline - pg__mono_ns()) * 1e-9;
            rerr = left > 0 ? read_until_eof(&buf, sides[i].result, left, &to) : (to = 1, 0);
        }
        close_fd(&sides[i].result);
        rerr = collect(&out[i], c, paths[i], sides[i].pid, &buf, err ? err : rerr, to, timeout_s);
        if (!err)
            err = rerr;
        pg__buf_free(&buf);
    }
    sigaction(SIGPIPE, &old, NULL);
    return err;
}
