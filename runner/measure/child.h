/*
 * child.h - measuring in a child process, so user code cannot take the
 * runner down.
 *
 * The runner forks; the child runs a callback that fills a pg_result and
 * sends it back over a pipe in a small binary record; the runner collects
 * the result, or turns a crash (fatal signal, reported by the child's own
 * handler so a sanitizer's plain exit still names it), an exit without a
 * result or a timeout into an ERROR result that names the cause. What runs
 * in the child is the caller's business (a plugin benchmark, any case in a
 * fresh process): this module knows nothing above the result model.
 */
#ifndef PG_CHILD_H
#define PG_CHILD_H

#include <sched.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/model.h"

/**
 * What the child runs: fill `out` (status, samples, FLOPs, bytes, message).
 * A nonzero return makes the result an ERROR with pg_error_last().
 * `payload` is the caller's.
 */
typedef int (*pg_child_fn)(pg_result *out, void *payload);

/**
 * A started child: its pid (also its process group), the runner's end of
 * its result pipe, and the files its stdout and stderr go to, so whatever
 * user code prints never reaches perfgate's own output.
 */
typedef struct pg_child {
    pid_t pid;
    int fd;
    int out_fd, err_fd;
} pg_child;

#define PG_CHILD_INIT {-1, -1, -1, -1}

/**
 * Forks a child that runs `fn(&result, payload)` with crash reporting
 * installed, sends the result back and exits without running atexit
 * handlers. `fn` may close descriptors the child must not hold (another
 * child's pipes) before it measures.
 * @param[out] out the child; finish it with pg_child_collect() or pg_child_kill().
 * @return 0, or PG_EIO when no pipe or process could be made.
 */
int pg_child_start(pg_child *out, pg_child_fn fn, void *payload);

/**
 * Reads what the child sends until it closes its pipe or `deadline_ns`
 * (pg__mono_ns() time; a past deadline reads nothing) passes, reaps it
 * (killing it on a timeout), kills what is left of its process group and
 * fills `out`: the child's result, or an ERROR naming `what` ("benchmark
 * 'x' of plugin P") and the crash, the exit status or the timeout
 * `timeout_s`, with the last line the child wrote to stderr.
 * @return 0 (the case's failure is in `out`), or PG_EIO/PG_ENOMEM that must stop the run.
 */
int pg_child_collect(pg_result *out, pg_child *child, const char *what, int64_t deadline_ns, double timeout_s);

/**
 * Interprets what a child sent (`len` bytes, the whole record) and its wait
 * `status` as pg_child_collect() does once the pipe is closed: the result,
 * or an ERROR naming `what` and the crash or exit. Untrusted bytes: any
 * input gives a result or an error, never a read outside `data`.
 * @return as pg_child_collect().
 */
int pg__child_decode(pg_result *out, const char *what, const char *data, size_t len, int status);
/** Kills and reaps a started child and its process group and closes its files (a run that is stopping). NULL-safe. */
void pg_child_kill(pg_child *child);

/**
 * pg_child_start() then pg_child_collect() with a deadline `timeout_s` from now.
 * @return as pg_child_collect(), or the start's error.
 */
int pg_child_run(pg_result *out, const char *what, double timeout_s, pg_child_fn fn, void *payload);

/*
 * Workers: a child whose callback loops, reading requests from a pipe of its
 * own and answering each with one result record (pg_child_send()); the
 * runner reads each answer with pg_child_read(), which keeps the child alive
 * only while it keeps to that protocol.
 */

#define PG_CHILD_CPU_WORDS 16     /* CPUs 0..1023, one bit each */
#define PG_CHILD_REQ_NEW 1u       /* the worker has not measured this item before: full warm-up */
#define PG_CHILD_REQ_KNOWN 1u     /* every flag a request may carry */

/** What a worker is asked: measure item `index` (of the caller's table) on `cpus`. */
typedef struct pg_child_request {
    uint32_t index;
    uint32_t flags;           /* PG_CHILD_REQ_* */
    uint64_t cpus[PG_CHILD_CPU_WORDS];
} pg_child_request;

/** CPU set <-> bitmap of PG_CHILD_CPU_WORDS words (CPUs past 1023 are left out). Returns `words`. */
const uint64_t *pg_child_cpus_to_words(uint64_t *words, const cpu_set_t *set);
void pg_child_cpus_from_words(cpu_set_t *set, const uint64_t *words);

/** Sends a result record on `fd` (a child's end). @return 0, or -1 when the pipe is gone. */
int pg_child_send(int fd, const pg_result *r);

/** In a child started by pg_child_start(): the descriptor its result records go to (-1 elsewhere). */
int pg_child_result_fd(void);

/** The runner: sends `rq` to a worker's request pipe. @return 0 or PG_EIO. */
int pg_child_request_send(int fd, const pg_child_request *rq);

/**
 * The worker: reads one request from `fd` (blocking) and checks it, its
 * index below `nitems`. @return 1 for a request; 0 at end of file (the runner
 * is done with this worker); PG_EIO or PG_EINVAL (message set) for a short
 * or malformed one.
 */
int pg_child_request_read(pg_child_request *out, int fd, size_t nitems);

/**
 * Checks `len` bytes as one request: its size, magic number, index below
 * `nitems`, known flags, at least one CPU. Untrusted bytes: never reads
 * outside `data`. @return 0 or PG_EINVAL (message set).
 */
int pg__child_request_decode(pg_child_request *out, const char *data, size_t len, size_t nitems);

/**
 * Reads a worker's answer to one request before `deadline_ns`. Exactly one
 * result record: `out` is that result and the worker stays (child->pid > 0).
 * Anything else ends the worker (killed, reaped; child->pid is -1) and `out`
 * is an ERROR naming `what` and why: a crash, an exit, the timeout, or bytes
 * that break the protocol.
 * @return as pg_child_collect().
 */
int pg_child_read(pg_result *out, pg_child *child, const char *what, int64_t deadline_ns, double timeout_s);

#endif
