/*
 * pids.c - a test plugin that says which process measured it. Before its
 * loop, "work" appends its process id as one fixed-width line to the file
 * named by $PG_TEST_PID_FILE, so a test counts the processes that measured
 * (a fresh one per round, or workers kept across rounds). With
 * $PG_TEST_KILL_AT=N the process that writes line N kills itself (SIGKILL:
 * no handler, no record), as if the machine killed it mid-run. Each
 * iteration spins `n` steps, PIDS_SLOW (a -D, default 1) times as many: a
 * slowdown whatever the machine does.
 *
 * "turns" (callback form: one iterate call per block) does the same and
 * holds an exclusive lock on $PG_TEST_LOCK_FILE while it spins; finding it
 * held (the other build running a block at the same time: lockstep broken)
 * appends a line to $PG_TEST_LOCK_FILE.overlap.
 */
#define _POSIX_C_SOURCE 200809L
#include <perfgate/perfgate.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#ifndef PIDS_SLOW
#define PIDS_SLOW 1
#endif

#define LINE 11 /* "%010d\n" */

static volatile unsigned sink;

static void note_pid(void)
{
    const char *path = getenv("PG_TEST_PID_FILE"), *kill_at = getenv("PG_TEST_KILL_AT");
    char line[LINE + 1];
    off_t end;
    int fd;

    if (!path || (fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644)) < 0)
        return;
    snprintf(line, sizeof(line), "%010d\n", (int)getpid());
    if (write(fd, line, LINE) == LINE && kill_at && (end = lseek(fd, 0, SEEK_CUR)) > 0 &&
        end / LINE == atol(kill_at)) {
        close(fd);
        raise(SIGKILL);
    }
    close(fd);
}

static void work(pg_state *st)
{
    int64_t n = pg_param_int(st, "n", 2000) * PIDS_SLOW, i;

    note_pid();
    while (pg_keep_running(st))
        for (i = 0; i < n; i++)
            sink += (unsigned)i;
}

typedef struct turns {
    int64_t n;
    int lock;
} turns;

static void *turns_setup(pg_state *st)
{
    const char *path = getenv("PG_TEST_LOCK_FILE");
    turns *t = calloc(1, sizeof(*t));

    note_pid();
    if (!t) {
        pg_error(st, "out of memory");
        return NULL;
    }
    t->n = pg_param_int(st, "n", 2000) * PIDS_SLOW;
    t->lock = path ? open(path, O_RDWR | O_CREAT, 0644) : -1;
    return t;
}

static void turns_iterate(void *ctx, pg_state *st, int64_t iters)
{
    turns *t = ctx;
    int64_t k, i;
    int held = t->lock >= 0 && flock(t->lock, LOCK_EX | LOCK_NB) == 0;

    (void)st;
    if (t->lock >= 0 && !held) {
        char path[4096];
        int fd;
        snprintf(path, sizeof(path), "%s.overlap", getenv("PG_TEST_LOCK_FILE"));
        if ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644)) >= 0) {
            (void)!write(fd, "overlap\n", 8);
            close(fd);
        }
    }
    for (k = 0; k < iters; k++)
        for (i = 0; i < t->n; i++)
            sink += (unsigned)i;
    if (held)
        flock(t->lock, LOCK_UN);
}

static void turns_teardown(void *ctx)
{
    turns *t = ctx;

    if (t && t->lock >= 0)
        close(t->lock);
    free(t);
}

static const pg_benchmark benchmarks[] = {
    {"work", "spins n steps per iteration", work, NULL, NULL, NULL},
    {"turns", "spins n steps per iteration, holding a lock the other build must never find held", NULL, turns_setup,
     turns_iterate, turns_teardown},
};

PG_PLUGIN_DEFINE("pids", benchmarks)
