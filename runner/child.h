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

#include <stdint.h>
#include <sys/types.h>

#include "model.h"

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
 * @param[out] out the child; finish it with pg__child_collect() or pg__child_kill().
 * @return 0, or PG_EIO when no pipe or process could be made.
 */
int pg__child_start(pg_child *out, pg_child_fn fn, void *payload);

/**
 * Reads what the child sends until it closes its pipe or `deadline_ns`
 * (pg__mono_ns() time; a past deadline reads nothing) passes, reaps it
 * (killing it on a timeout), kills what is left of its process group and
 * fills `out`: the child's result, or an ERROR naming `what` ("benchmark
 * 'x' of plugin P") and the crash, the exit status or the timeout
 * `timeout_s`, with the last line the child wrote to stderr.
 * @return 0 (the case's failure is in `out`), or PG_EIO/PG_ENOMEM that must stop the run.
 */
int pg__child_collect(pg_result *out, pg_child *child, const char *what, int64_t deadline_ns, double timeout_s);

/** Kills and reaps a started child and its process group and closes its files (a run that is stopping). NULL-safe. */
void pg__child_kill(pg_child *child);

/**
 * pg__child_start() then pg__child_collect() with a deadline `timeout_s` from now.
 * @return as pg__child_collect(), or the start's error.
 */
int pg__child_run(pg_result *out, const char *what, double timeout_s, pg_child_fn fn, void *payload);

#endif
