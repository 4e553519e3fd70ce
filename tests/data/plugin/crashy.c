/*
 * crashy.c - a test plugin whose benchmarks misbehave in every way a user's
 * code can: a crash, an abort, exit(), a hang, a skip, an error, no loop, a
 * loop left early. One benchmark ("ok") is fine (built with
 * -DCRASHY_OK_CRASHES it dies mid-measurement), and "setup_heavy" spends
 * 20 ms before its loop (which must never reach a sample).
 */
#include <perfgate/perfgate.h>

#include <signal.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;

    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile int sink;

static void ok(pg_state *st)
{
    int64_t n = pg_param_int(st, "n", 64), i, iters = 0;

    while (pg_keep_running(st)) {
        for (i = 0; i < n; i++)
            sink += (int)i;
#ifdef CRASHY_OK_CRASHES
        /* Built with this define, "ok" dies in the middle of its measurement (lockstep tests). */
        if (++iters == 20000)
            raise(SIGSEGV);
#else
        (void)iters;
#endif
    }
}

static void segv(pg_state *st)
{
    while (pg_keep_running(st)) {
        volatile int *p = NULL;
        *p = 1;
    }
}

static void aborts(pg_state *st)
{
    while (pg_keep_running(st))
        abort();
}

static void exits(pg_state *st)
{
    while (pg_keep_running(st))
        exit(7);
}

static void hang(pg_state *st)
{
    while (pg_keep_running(st))
        for (;;)
            sink++;
}

static void skips(pg_state *st)
{
    pg_skip(st, "needs a feature this machine lacks");
}

static void fails(pg_state *st)
{
    pg_error(st, "input file missing");
}

static void no_loop(pg_state *st)
{
    (void)st;
}

static void breaks(pg_state *st)
{
    while (pg_keep_running(st))
        break;
}

static void setup_heavy(pg_state *st)
{
    double t0 = now_s();

    while (now_s() - t0 < 0.02)
        sink++;
    while (pg_keep_running(st))
        sink++;
}

static const pg_benchmark benchmarks[] = {
    {"ok", NULL, ok, NULL, NULL, NULL},
    {"segv", NULL, segv, NULL, NULL, NULL},
    {"abort", NULL, aborts, NULL, NULL, NULL},
    {"exit", NULL, exits, NULL, NULL, NULL},
    {"hang", NULL, hang, NULL, NULL, NULL},
    {"skip", NULL, skips, NULL, NULL, NULL},
    {"error", NULL, fails, NULL, NULL, NULL},
    {"no_loop", NULL, no_loop, NULL, NULL, NULL},
    {"break", NULL, breaks, NULL, NULL, NULL},
    {"setup_heavy", NULL, setup_heavy, NULL, NULL, NULL},
};

PG_PLUGIN_DEFINE("crashy", benchmarks)
