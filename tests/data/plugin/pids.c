/*
 * pids.c - a test plugin that says which process measured it. Before its
 * loop, "work" appends its process id as one fixed-width line to the file
 * named by $PG_TEST_PID_FILE, so a test counts the processes that measured
 * (a fresh one per round, or workers kept across rounds). With
 * $PG_TEST_KILL_AT=N the process that writes line N kills itself (SIGKILL:
 * no handler, no record), as if the machine killed it mid-run. Each
 * iteration takes `n` steps of a dependent multiply-add chain, PIDS_SLOW (a
 * -D, default 1) times as many: a slowdown whatever the machine does. (An
 * increment of a volatile counter is no such work: CPUs that rename memory
 * operands, AMD's Zen 2 and later, run it in a fraction of a cycle per step,
 * so three times the steps took 1.5 times as long.)
 *
 * "turns" does the same in the callback form (one iterate call per block).
 */
#define _POSIX_C_SOURCE 200809L
#include <perfgate/perfgate.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PIDS_SLOW
#define PIDS_SLOW 1
#endif

#define LINE 11 /* "%010d\n" */

static volatile unsigned sink;

/* n steps of a chain each step of which waits for the last: a multiply and an add per step. */
static unsigned chain(int64_t n)
{
    unsigned x = sink;
    int64_t i;

    for (i = 0; i < n; i++)
        x = x * 1664525u + 1013904223u;
    return x;
}

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
    int64_t n = pg_param_int(st, "n", 2000) * PIDS_SLOW;

    note_pid();
    while (pg_keep_running(st))
        sink = chain(n);
}

typedef struct turns {
    int64_t n;
} turns;

static void *turns_setup(pg_state *st)
{
    turns *t = calloc(1, sizeof(*t));

    note_pid();
    if (!t) {
        pg_error(st, "out of memory");
        return NULL;
    }
    t->n = pg_param_int(st, "n", 2000) * PIDS_SLOW;
    return t;
}

static void turns_iterate(void *ctx, pg_state *st, int64_t iters)
{
    turns *t = ctx;
    int64_t k;

    (void)st;
    for (k = 0; k < iters; k++)
        sink = chain(t->n);
}

static void turns_teardown(void *ctx)
{
    free(ctx);
}

static const pg_benchmark benchmarks[] = {
    {"work", "spins n steps per iteration", work, NULL, NULL, NULL},
    {"turns", "spins n steps per iteration (callback form)", NULL, turns_setup,
     turns_iterate, turns_teardown},
};

PG_PLUGIN_DEFINE("pids", benchmarks)
