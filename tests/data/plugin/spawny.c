/*
 * spawny.c - a test plugin that leaves processes behind and floods its
 * output, to show perfgate cleans up after a benchmark: "hang" records its
 * pid and a forked child's pid in $PG_MARK_DIR and then never finishes;
 * "bg" forks a sleeping child on every call and lists its pid; "chatty"
 * writes $PG_CHATTY_MB megabytes to stdout and to stderr, then measures;
 * "dies" says why on stderr and aborts; "daemon" starts, on every call, a
 * daemon the way daemons start (fork, setsid, fork again) that forks a
 * child of its own, and lists both pids.
 */
#define _GNU_SOURCE
#include <perfgate/perfgate.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

/* Writes `pid` to $PG_MARK_DIR/name (appending when `append`), atomically for whole files. */
static void mark(const char *name, long pid, int append)
{
    const char *dir = getenv("PG_MARK_DIR");
    char path[4096], tmp[4200];
    FILE *f;

    if (!dir)
        return;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid());
    f = fopen(append ? path : tmp, append ? "a" : "w");
    if (!f)
        return;
    fprintf(f, "%ld\n", pid);
    fclose(f);
    if (!append)
        rename(tmp, path);
}

static long sleeper(void)
{
    pid_t pid = fork();

    if (pid == 0) {
        sleep(300);
        _exit(0);
    }
    return (long)pid;
}

static void hang(pg_state *st)
{
    long child = sleeper();

    mark("grandchild.pid", child, 0);
    mark("child.pid", (long)getpid(), 0);
    while (pg_keep_running(st))
        for (;;)
            sleep(1);
}

static void bg(pg_state *st)
{
    mark("bg.list", sleeper(), 1);
    while (pg_keep_running(st))
        sink++;
}

static void chatty(pg_state *st)
{
    const char *mb = getenv("PG_CHATTY_MB");
    long n = mb ? atol(mb) : 1, i;
    static char block[1 << 20];
    static int done;

    memset(block, 'A', sizeof(block));
    /* Once per process: the flood is the point, not its repetition per block. */
    for (i = 0; i < n && !done; i++) {
        fwrite(block, 1, sizeof(block), stdout);
        fwrite(block, 1, sizeof(block), stderr);
    }
    fflush(stdout);
    done = 1;
    while (pg_keep_running(st))
        sink++;
}

/* Says why on stderr, then dies: the error must show the reason. */
static void dies(pg_state *st)
{
    fprintf(stderr, "spawny: lost the device\n");
    fflush(stderr);
    while (pg_keep_running(st))
        abort();
}

/* A new session, out of every process group perfgate knows: only a sweep of its children finds it. */
static void daemonize(void)
{
    pid_t mid = fork();

    if (mid == 0) {
        setsid();
        if (fork() == 0) {
            mark("daemon.list", (long)getpid(), 1);
            mark("daemon.list", sleeper(), 1);
            sleep(300);
            _exit(0);
        }
        _exit(0);
    }
    if (mid > 0)
        waitpid(mid, NULL, 0);
}

static void daemon_bench(pg_state *st)
{
    daemonize();
    while (pg_keep_running(st))
        sink++;
}

static const pg_benchmark benchmarks[] = {
    {"hang", NULL, hang, NULL, NULL, NULL},
    {"bg", NULL, bg, NULL, NULL, NULL},
    {"chatty", NULL, chatty, NULL, NULL, NULL},
    {"dies", NULL, dies, NULL, NULL, NULL},
    {"daemon", NULL, daemon_bench, NULL, NULL, NULL},
};

PG_PLUGIN_DEFINE("spawny", benchmarks)
