/*
 * child.c - measuring in a child process (child.h).
 *
 * User code may crash, hang or call exit(); none of that may take the runner
 * down or leave a run half-written. So the runner forks, the child runs the
 * caller's callback and sends its result back over a pipe in a small binary
 * record. A fatal signal in the child is reported by its handler (then
 * re-raised), so the parent can name it even when a sanitizer turns the
 * signal into a plain exit.
 */
#include "measure/child.h"

#include "perfgate/errors.h"
#include "base/proc.h"
#include "stats/stats.h"
#include "base/util.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WIRE_MAGIC 0x31524750u /* "PGR1" */
#define REQUEST_MAGIC 0x31514750u /* "PGQ1" */

enum { WIRE_RESULT = 1, WIRE_CRASH = 2 };
enum { WIRE_ABSENT = 1 }; /* flags: the ERROR is the build lacking the case (pg_result.absent) */

typedef struct wire_head {
    uint32_t magic;
    int32_t kind;             /* WIRE_RESULT or WIRE_CRASH */
    int32_t status;           /* pg_status */
    int32_t signo;            /* WIRE_CRASH: the signal */
    uint32_t warnings;
    uint32_t msglen;
    uint32_t flags;           /* WIRE_ABSENT */
    uint32_t reserved;        /* 0 */
    int64_t number_per_run;
    uint64_t nsamples;
    double flops, bytes, warmup_s;
    double waited, stolen, transient; /* contention.h; the warm-up's transient */
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

/* A request to a worker: fixed size, every field checked on arrival. */
typedef struct wire_request {
    uint32_t magic;
    uint32_t index;
    uint32_t flags;
    uint32_t reserved;        /* 0 */
    uint64_t cpus[PG_CHILD_CPU_WORDS];
} wire_request;

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

int pg_child_send(int fd, const pg_result *r)
{
    wire_head h;
    const char *msg = r->message ? r->message : "";

    memset(&h, 0, sizeof(h));
    h.magic = WIRE_MAGIC;
    h.kind = WIRE_RESULT;
    h.status = (int32_t)r->status;
    h.warnings = r->warnings;
    h.msglen = (uint32_t)strlen(msg);
    h.flags = r->absent ? WIRE_ABSENT : 0;
    h.number_per_run = r->number_per_run;
    h.nsamples = r->nsamples;
    h.flops = r->flops;
    h.bytes = r->bytes;
    h.warmup_s = r->warmup_s;
    h.waited = r->waited;
    h.stolen = r->stolen;
    h.transient = r->transient;
    if (write_all(fd, &h, sizeof(h)) != 0 ||
        (r->nsamples && write_all(fd, r->samples, r->nsamples * sizeof(double)) != 0) ||
        write_all(fd, msg, h.msglen) != 0)
        return -1;
    return 0;
}

static void child_main(int fd, pg_child_fn fn, void *payload, pid_t parent, int out_fd, int err_fd)
{
    pg_result r;

    pg__proc_child_init(parent);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    close(out_fd);
    close(err_fd);
    memset(&r, 0, sizeof(r));
    r.mfu = -1;
    install_crash_handlers(fd);
    if (fn(&r, payload) != 0)
        pg__result_error(&r, pg_error_last());
    if (pg_child_send(fd, &r) != 0)
        _exit(3);
    /* No atexit handlers, no flushing of stdio buffers inherited from the parent. */
    _exit(0);
}

int pg_child_start(pg_child *out, pg_child_fn fn, void *payload)
{
    int fds[2];
    pid_t pid, self = getpid();
    sigset_t old;

    assert(out && fn);
    out->pid = -1;
    out->fd = -1;
    out->out_fd = pg__proc_capture_fd();
    out->err_fd = pg__proc_capture_fd();
    if (out->out_fd < 0 || out->err_fd < 0 || pipe2(fds, O_CLOEXEC) != 0) {
        int e = errno;
        pg_child_kill(out);
        return pg_error_set(PG_EIO, "cannot create the files of the benchmark process: %s", strerror(e));
    }
    /* Buffered output would otherwise be written twice if the child calls exit(). */
    fflush(stdout);
    fflush(stderr);
    pg__proc_begin(&old);
    pid = fork();
    if (pid < 0) {
        int e = errno;
        pg__proc_end(&old);
        close(fds[0]);
        close(fds[1]);
        pg_child_kill(out);
        return pg_error_set(PG_EIO, "cannot start the benchmark process: %s", strerror(e));
    }
    if (pid == 0) {
        close(fds[0]);
        child_main(fds[1], fn, payload, self, out->out_fd, out->err_fd);
    }
    /* Both sides set the group, so it exists whichever runs first. */
    setpgid(pid, pid);
    pg__proc_track(pid);
    pg__proc_end(&old);
    close(fds[1]);
    out->pid = pid;
    out->fd = fds[0];
    return 0;
}

/* ---- the parent -------------------------------------------------------- */

/* A whole record is in `buf`: what the child sends ends there. */
static int record_complete(const pg_buf *buf)
{
    wire_head h;

    if (buf->len < sizeof(h))
        return 0;
    memcpy(&h, buf->ptr, sizeof(h));
    if (h.magic != WIRE_MAGIC || h.kind == WIRE_CRASH)
        return 1;
    return h.nsamples <= ((uint64_t)1 << 32) && buf->len >= sizeof(h) + h.nsamples * sizeof(double) + h.msglen;
}

/*
 * Reads until the child's record is complete or the pipe closes. Not only
 * end-of-file: a process the user's code forked holds the pipe open too,
 * and must not hold the result back until its group is killed.
 */
static int read_record(pg_buf *buf, int fd, int64_t deadline, int *timed_out)
{
    char chunk[8192];

    *timed_out = 0;
    while (!record_complete(buf)) {
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
    return 0;
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
        else if (h->flags & WIRE_ABSENT)
            pg__result_absent(out, msg && *msg ? msg : "failed");
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
    /* Shares in [0, 1] and a ratio: anything else from the child is not believed. */
    out->waited = h->waited >= 0 && h->waited <= 1 ? h->waited : 0;
    out->stolen = h->stolen >= 0 && h->stolen <= 1 ? h->stolen : 0;
    out->transient = h->transient > 0 && isfinite(h->transient) ? h->transient : 0;
    return pg_stats_summarize(&out->summary, out->samples, out->nsamples);
}

static int report_death(pg_result *out, const char *what, int status, int crash_sig)
{
    int sig = crash_sig ? crash_sig : WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    char *msg;

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
    return 0;
}

/* Reaps the child, then whatever it left in its group (a plugin's own children). */
static void reap(pg_child *child, int *status)
{
    while (waitpid(child->pid, status, 0) < 0 && errno == EINTR)
        ;
    pg__proc_kill_group(child->pid);
    child->pid = -1;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

void pg_child_kill(pg_child *child)
{
    int status = 0;

    if (!child)
        return;
    close_fd(&child->fd);
    if (child->pid > 0) {
        kill(-child->pid, SIGKILL);
        kill(child->pid, SIGKILL);
        reap(child, &status);
    }
    close_fd(&child->out_fd);
    close_fd(&child->err_fd);
}

/* An ERROR result gets the last line the child wrote to stderr: usually the reason. */
static void add_stderr(pg_result *out, int err_fd)
{
    char *tail, *line, *msg;

    if (out->status != PG_STATUS_ERROR || err_fd < 0)
        return;
    tail = pg__proc_output_tail(err_fd, 4096);
    line = tail ? pg__proc_last_line(tail) : NULL;
    if (line && *line && (msg = pg__asprintf("%s (stderr: %s)", out->message ? out->message : "failed", line))) {
        free(out->message);
        out->message = msg;
    }
    free(line);
    free(tail);
}

int pg__child_decode(pg_result *out, const char *what, const char *data, size_t len, int status)
{
    pg_buf buf = PG_BUF_INIT;
    wire_head h;

    buf.ptr = (char *)data;
    buf.len = len;
    if (len >= sizeof(h))
        memcpy(&h, data, sizeof(h));
    if (len >= sizeof(h) && h.magic == WIRE_MAGIC && h.kind == WIRE_CRASH)
        return report_death(out, what, status, h.signo);
    if (len >= sizeof(h) && h.magic == WIRE_MAGIC && h.kind == WIRE_RESULT)
        return take_result(out, &buf, &h);
    return report_death(out, what, status, 0);
}

int pg_child_collect(pg_result *out, pg_child *child, const char *what, int64_t deadline_ns, double timeout_s)
{
    pg_buf buf = PG_BUF_INIT;
    int status = 0, timed_out = 0, err;

    assert(out && child && child->pid > 0);
    if (!what)
        what = "the benchmark process";
    err = read_record(&buf, child->fd, deadline_ns, &timed_out);
    close(child->fd);
    child->fd = -1;
    if (timed_out || err) {
        kill(-child->pid, SIGKILL);
        kill(child->pid, SIGKILL);
    }
    reap(child, &status);
    if (err) {
        /* Nothing to interpret: the run stops with the reading error. */
    } else if (timed_out) {
        char *msg = pg__asprintf("%s did not finish within %.0f s; the process was killed (raise `timeout:` if it "
                                 "needs longer)",
                                 what, timeout_s);
        pg__result_error(out, msg ? msg : "timed out");
        free(msg);
    } else {
        err = pg__child_decode(out, what, buf.ptr, buf.len, status);
    }
    if (!err)
        add_stderr(out, child->err_fd);
    close_fd(&child->out_fd);
    close_fd(&child->err_fd);
    pg__buf_clear(&buf);
    return err;
}

int pg_child_run(pg_result *out, const char *what, double timeout_s, pg_child_fn fn, void *payload)
{
    pg_child child = PG_CHILD_INIT;
    int err;

    if ((err = pg_child_start(&child, fn, payload)) != 0)
        return err;
    return pg_child_collect(out, &child, what, pg__mono_ns() + (int64_t)(timeout_s * 1e9), timeout_s);
}

/* ---- workers: a child that answers requests ------------------------------ */

int pg_child_result_fd(void)
{
    return crash_fd;
}

int pg_child_request_send(int fd, const pg_child_request *rq)
{
    wire_request w;

    memset(&w, 0, sizeof(w));
    w.magic = REQUEST_MAGIC;
    w.index = rq->index;
    w.flags = rq->flags;
    memcpy(w.cpus, rq->cpus, sizeof(w.cpus));
    return write_all(fd, &w, sizeof(w)) == 0 ? 0 : pg_error_set(PG_EIO, "cannot send a request to the worker process");
}

int pg__child_request_decode(pg_child_request *out, const char *data, size_t len, size_t nitems)
{
    wire_request w;
    size_t i;
    int any = 0;

    memset(out, 0, sizeof(*out));
    if (len != sizeof(w))
        return pg_error_set(PG_EINVAL, "worker request of %zu bytes, expected %zu", len, sizeof(w));
    memcpy(&w, data, sizeof(w));
    if (w.magic != REQUEST_MAGIC || w.reserved != 0)
        return pg_error_set(PG_EINVAL, "worker request without its magic number");
    if (w.index >= nitems)
        return pg_error_set(PG_EINVAL, "worker request for item %u of %zu", w.index, nitems);
    if (w.flags & ~(uint32_t)PG_CHILD_REQ_KNOWN)
        return pg_error_set(PG_EINVAL, "worker request with unknown flags 0x%x", w.flags);
    for (i = 0; i < PG_CHILD_CPU_WORDS; i++)
        any |= w.cpus[i] != 0;
    if (!any)
        return pg_error_set(PG_EINVAL, "worker request with no CPU to run on");
    out->index = w.index;
    out->flags = w.flags;
    memcpy(out->cpus, w.cpus, sizeof(out->cpus));
    return 0;
}

int pg_child_request_read(pg_child_request *out, int fd, size_t nitems)
{
    char buf[sizeof(wire_request)];
    size_t got = 0;

    while (got < sizeof(buf)) {
        ssize_t n = read(fd, buf + got, sizeof(buf) - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 && got == 0)
            return 0;
        if (n <= 0)
            return pg_error_set(PG_EIO, "the runner's request ended after %zu bytes", got);
        got += (size_t)n;
    }
    return pg__child_request_decode(out, buf, got, nitems) == 0 ? 1 : PG_EINVAL;
}

/* A whole record's size when `buf` starts with one, else 0. */
static size_t record_size(const pg_buf *buf)
{
    wire_head h;

    if (buf->len < sizeof(h))
        return 0;
    memcpy(&h, buf->ptr, sizeof(h));
    if (h.magic != WIRE_MAGIC || h.kind != WIRE_RESULT || h.nsamples > ((uint64_t)1 << 32))
        return 0;
    return sizeof(h) + h.nsamples * sizeof(double) + h.msglen;
}

int pg_child_read(pg_result *out, pg_child *child, const char *what, int64_t deadline_ns, double timeout_s)
{
    pg_buf buf = PG_BUF_INIT;
    int timed_out = 0, err;
    size_t size;
    char *msg;

    assert(out && child && child->pid > 0);
    if (!what)
        what = "the worker process";
    err = read_record(&buf, child->fd, deadline_ns, &timed_out);
    size = record_size(&buf);
    if (!err && !timed_out && size > 0 && size == buf.len) {
        /* One result, nothing after it: the worker stays for the next request. */
        err = take_result(out, &buf, (const wire_head *)(const void *)buf.ptr);
        pg__buf_clear(&buf);
        return err;
    }
    if (!err && !timed_out && buf.len >= sizeof(wire_head) &&
        !(((const wire_head *)(const void *)buf.ptr)->magic == WIRE_MAGIC &&
          ((const wire_head *)(const void *)buf.ptr)->kind == WIRE_CRASH)) {
        /* Bytes that are no result record, or more than one: the process cannot be trusted on. */
        pg_child_kill(child);
        msg = pg__asprintf("%s broke the result protocol (%zu bytes that are not one result record); "
                           "the process was killed", what, buf.len);
        pg__result_error(out, msg ? msg : "protocol error");
        free(msg);
        pg__buf_clear(&buf);
        return 0;
    }
    pg__buf_clear(&buf);
    if (err) {
        pg_child_kill(child);
        return err;
    }
    /* A crash, an exit or a timeout: what pg_child_collect() reports for a one-shot child. */
    return pg_child_collect(out, child, what, timed_out ? 0 : pg__mono_ns() + 1000000000, timeout_s);
}

const uint64_t *pg_child_cpus_to_words(uint64_t *words, const cpu_set_t *set)
{
    int cpu;

    memset(words, 0, PG_CHILD_CPU_WORDS * sizeof(*words));
    for (cpu = 0; cpu < CPU_SETSIZE && cpu < PG_CHILD_CPU_WORDS * 64; cpu++)
        if (CPU_ISSET(cpu, set))
            words[cpu / 64] |= (uint64_t)1 << (cpu % 64);
    return words;
}

void pg_child_cpus_from_words(cpu_set_t *set, const uint64_t *words)
{
    int cpu;

    CPU_ZERO(set);
    for (cpu = 0; cpu < PG_CHILD_CPU_WORDS * 64 && cpu < CPU_SETSIZE; cpu++)
        if (words[cpu / 64] >> (cpu % 64) & 1)
            CPU_SET(cpu, set);
}
