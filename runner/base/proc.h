/*
 * proc.h - process groups of the processes perfgate starts to measure.
 *
 * Every measuring child and every command runs in a process group of its
 * own. perfgate kills a group as a whole when a sample ends, on a timeout
 * and when perfgate itself goes: on exit, on SIGINT/SIGTERM/SIGHUP (the
 * handler kills the groups, then the signal takes its usual course), and
 * when perfgate is killed outright, by a small guard process that sees it
 * die and kills what is left. perfgate is a child subreaper, so background
 * processes a command leaves behind are its children: when a group is
 * killed, every child perfgate did not start and that sits in no tracked
 * group (one that left its group: setsid, setpgid, a daemon's double fork)
 * is killed with its own group, and again for what those leave behind, so
 * no new session outlives its sample; the same sweep runs at exit and on
 * those signals. Forked children also carry PR_SET_PDEATHSIG.
 */
#ifndef PG_PROC_H
#define PG_PROC_H

#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/**
 * In a child just forked by `parent` (getpid() before the fork): a process
 * group of its own, SIGKILL when perfgate dies, and no hold on the guard.
 * Exits at once when perfgate is already gone.
 */
void pg__proc_child_init(pid_t parent);

/**
 * Before starting a process: makes perfgate a subreaper, installs the
 * signal handlers and starts the guard (once), and holds SIGINT, SIGTERM
 * and SIGHUP until pg__proc_end(), so that no handler runs between the
 * start of a process and its tracking. A forked child gets the mask back in
 * pg__proc_child_init(); give `*old` to a spawned one
 * (posix_spawnattr_setsigmask).
 * @param[out] old the signal mask to restore.
 */
void pg__proc_begin(sigset_t *old);

/** Ends the hold of pg__proc_begin(): a signal that came meanwhile is handled now. */
void pg__proc_end(const sigset_t *old);

/**
 * Tracks group `pgid` (its leader's pid) until pg__proc_kill_group(): the
 * group dies with perfgate however perfgate ends. Call it between
 * pg__proc_begin() and pg__proc_end().
 */
void pg__proc_track(pid_t pgid);

/**
 * Kills every process of group `pgid` with SIGKILL, reaps those that are
 * perfgate's children and stops tracking it. Call it once the leader (the
 * process started) has been reaped by whoever waits for it: after a sample,
 * the leader's background children; after a timeout, kill(-pgid, SIGKILL),
 * reap the leader, then this. Waits at most about a second for the group
 * to empty.
 */
void pg__proc_kill_group(pid_t pgid);

/**
 * Starts argv[0] (searched in PATH) with `envp` and the file actions `fa`
 * (may be NULL) in a process group of its own, tracked until
 * pg__proc_kill_group(): what every program perfgate runs gets. posix_spawn
 * (vfork-like) keeps the cost of copying a large perfgate out of a timed
 * start. stdout and stderr are flushed first, so a child writing to them
 * follows what perfgate wrote.
 * @param[out] t0 the monotonic time right before the start (may be NULL).
 * @return 0, or posix_spawn's error number (ENOENT: no such program).
 */
int pg__proc_spawn(pid_t *pid, int64_t *t0, char *const argv[], char *const envp[],
                   const posix_spawn_file_actions_t *fa);

/**
 * Names a file the guard removes if perfgate ends before saying otherwise
 * (`remove` 0), however it ends: a temporary file being written (outfile.h).
 * Starts the guard as pg__proc_begin() does. Paths over 4000 bytes are not
 * guarded.
 */
void pg__proc_guard_file(const char *path, int remove);

/**
 * The processes whose parent is `parent`, by a scan of /proc (at most
 * `max`). Not for a signal handler. @return how many.
 */
int pg__proc_children_of(pid_t *out, int max, pid_t parent);

/**
 * A file for capturing a child's stdout or stderr: unnamed, in $TMPDIR (or
 * /tmp), close-on-exec. @return the descriptor, or -1 with errno set.
 */
int pg__proc_capture_fd(void);

/**
 * The last `max` bytes of a capture file (a child's stdout or stderr
 * redirected to a temporary file), NUL-terminated: output is kept on disk,
 * so however much a process writes, memory holds only this tail. Caller frees.
 */
char *pg__proc_output_tail(int fd, size_t max);

/** The last non-empty line of `text`, at most 300 bytes, for one-line error messages. Caller frees. */
char *pg__proc_last_line(const char *text);

#endif
