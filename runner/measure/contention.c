/* contention.c - the thread probe and the CPUs' steal time (contention.h). */
#include "measure/contention.h"

#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* schedstat: "RUN_NS WAIT_NS TIMESLICES": the wait is time runnable on a run queue, not running. */
static int read_schedstat(int fd, int64_t *waited)
{
    char buf[128];
    ssize_t n;
    unsigned long long run, wait;

    do
        n = pread(fd, buf, sizeof(buf) - 1, 0);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    if (sscanf(buf, "%llu %llu", &run, &wait) != 2)
        return -1;
    *waited = (int64_t)wait;
    return 0;
}

static int probe_read(void *payload, int64_t *real_ns, int64_t *waited_ns)
{
    pg_thread_probe *p = payload;
    struct timespec ts;

    *real_ns = pg__mono_ns();
    if (p->fd >= 0 && read_schedstat(p->fd, waited_ns) == 0)
        return 0;
    /* Without scheduler statistics: wall time not spent running (sleeping counts too). */
    if (p->have_cpu && clock_gettime(p->cpu, &ts) == 0) {
        *waited_ns = *real_ns - ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
        return 0;
    }
    return -1;
}

static int probe_unknown(void *payload, int64_t *real_ns, int64_t *waited_ns)
{
    (void)payload;
    *real_ns = *waited_ns = 0;
    return -1;
}

const pg_probe pg_probe_none = {probe_unknown, NULL};

int pg_thread_probe_open(pg_thread_probe *p, pid_t tid, const clockid_t *cpu)
{
    char path[64];

    memset(p, 0, sizeof(*p));
    p->probe.read = probe_read;
    p->probe.payload = p;
    if (tid == 0) {
        tid = (pid_t)syscall(SYS_gettid);
        p->cpu = CLOCK_THREAD_CPUTIME_ID;
        p->have_cpu = 1;
    } else if (cpu) {
        p->cpu = *cpu;
        p->have_cpu = 1;
    }
    snprintf(path, sizeof(path), "/proc/self/task/%ld/schedstat", (long)tid);
    p->fd = open(path, O_RDONLY | O_CLOEXEC);
    return p->fd >= 0 || p->have_cpu ? 0 : -1;
}

void pg_thread_probe_close(pg_thread_probe *p)
{
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
    p->have_cpu = 0;
}

double pg_cpu_steal_s(const cpu_set_t *cpus)
{
    static long hz;
    FILE *f = fopen("/proc/stat", "re");
    char line[512];
    double total = 0;
    int seen = 0;

    if (!f)
        return -1;
    if (hz <= 0)
        hz = sysconf(_SC_CLK_TCK);
    /* The per-CPU lines come first: "cpuN user nice system idle iowait irq softirq steal ...". */
    while (fgets(line, sizeof(line), f) && strncmp(line, "cpu", 3) == 0) {
        unsigned long long v[8];
        int cpu;
        if (line[3] == ' ')
            continue;
        if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2], &v[3], &v[4],
                   &v[5], &v[6], &v[7]) != 9)
            continue;
        if (cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, cpus)) {
            total += (double)v[7];
            seen = 1;
        }
    }
    fclose(f);
    return seen && hz > 0 ? total / (double)hz : -1;
}
