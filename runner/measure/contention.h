/*
 * contention.h - did the measured process get its CPU?
 *
 * On a shared runner a sample's wall time holds the time the benchmark ran
 * and the time it waited for a CPU that another task (a neighbour's build, a
 * process at a higher priority) held, or that the hypervisor took (steal).
 * The timing engine reads a probe around every sampled block (measure.h,
 * pg_probe) and the CPUs' steal around the sampling, so each result says
 * which share of its wall time was not its own: a gate never calls such a
 * measurement SAME (docs/statistics.md, "Contention").
 *
 * The thread probe reads the kernel's scheduler statistics of one thread
 * (/proc/self/task/TID/schedstat: time on a CPU, time waiting runnable);
 * where the kernel has none, the thread's CPU-time clock, so that waiting
 * is the wall time it did not run (which then also counts sleeping).
 */
#ifndef PG_CONTENTION_H
#define PG_CONTENTION_H

#include <sched.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>


/**
 * Whether the thread that runs the body had its CPU: read before and after
 * every sampled block, it gives the real (monotonic) time and the time the
 * thread waited, runnable, for a CPU another task held, both cumulative in
 * nanoseconds. A block's wall time then splits into running and waiting,
 * which a sample's time alone cannot tell apart (contention.c).
 * `read` returns 0, or nonzero when it cannot tell (the share stays unknown).
 */
typedef struct pg_probe {
    int (*read)(void *payload, int64_t *real_ns, int64_t *waited_ns);
    void *payload;
} pg_probe;

/** A probe that never knows: for bodies that run elsewhere (a command's own processes). */
extern const pg_probe pg_probe_none;

/* A result is contended when it waited (or lost to steal) at least this share of its wall time. */
#define PG_CONTENDED_SHARE 0.10

typedef struct pg_thread_probe {
    int fd;                   /* its schedstat file, or -1 */
    clockid_t cpu;            /* its CPU-time clock, the fallback */
    int have_cpu;
    pg_probe probe;           /* reads this probe: pass &p->probe as pg_measure_options.probe */
} pg_thread_probe;

/**
 * Opens the probe of thread `tid` of this process (0: the calling thread),
 * whose CPU-time clock is `cpu` (e.g. from pthread_getcpuclockid(); ignored
 * for the calling thread, which uses CLOCK_THREAD_CPUTIME_ID).
 * @return 0; a probe that can read nothing still reads "unknown" (nonzero).
 */
int pg_thread_probe_open(pg_thread_probe *p, pid_t tid, const clockid_t *cpu);
void pg_thread_probe_close(pg_thread_probe *p);

/**
 * The steal time of the CPUs in `cpus` so far, in seconds (/proc/stat's
 * steal column, in clock ticks); a negative value when the kernel does not
 * say (no /proc/stat, or no steal column).
 */
double pg_cpu_steal_s(const cpu_set_t *cpus);

#endif
