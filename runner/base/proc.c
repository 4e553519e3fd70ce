/*
 * proc.c - process groups of measured processes (proc.h).
 *
 * The groups alive at any moment are few (a case, or the two sides of a
 * lockstep pair), so they sit in a small fixed table that a signal handler
 * can read without locks. The guard is a fork of perfgate, made when the
 * first group is tracked: perfgate sends it each group it starts or ends
 * over a pipe; when the pipe reads end-of-file, or its parent changes,
 * perfgate is gone however it ended (SIGKILL included) and the guard kills
 * every group still listed. It holds no descriptor but its pipe, so it
 * never keeps a caller's stdout open.
 */
#include "base/proc.h"

#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_GROUPS 64

static volatile sig_atomic_t groups[MAX_GROUPS];
static int started;
static int guard_fd = -1;
static pid_t guard_pid = -1;
static sigset_t held_old;   /* the mask before pg__proc_begin(), for a forked child */
static struct sigaction old_int, old_term, old_hup;

static int tracked(pid_t pgid)
{
    size_t i;

    for (i = 0; i < MAX_GROUPS; i++)
        if (groups[i] == pgid)
            return 1;
    return 0;
}

/*
 * The pids in /proc/self/task/TID/children, read with system calls alone
 * (a signal handler calls this): at most `max`. @return how many, or -1
 * when the kernel offers no such file.
 */
static int task_children(pid_t *out, int max, pid_t tid)
{
    char path[64], buf[4096];
    ssize_t n;
    int fd, count = 0;
    long v = 0;
    int in = 0, i;

    snprintf(path, sizeof(path), "/proc/self/task/%ld/children", (long)tid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    while ((n = read(fd, buf, sizeof(buf))) > 0)
        for (i = 0; i < n; i++) {
            if (buf[i] >= '0' && buf[i] <= '9') {
                v = v * 10 + (buf[i] - '0');
                in = 1;
            } else if (in) {
                if (count < max)
                    out[count++] = (pid_t)v;
                v = 0;
                in = 0;
            }
        }
    if (in && count < max)
        out[count++] = (pid_t)v;
    close(fd);
    return count;
}

int pg__proc_children_of(pid_t *out, int max, pid_t parent)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int count = 0;

    while (d && (e = readdir(d)) != NULL && count < max) {
        char path[300], buf[512], *rp;
        long ppid = 0;
        FILE *f;
        size_t n;
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
        if (!(f = fopen(path, "r")))
            continue;
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        /* "pid (comm) state ppid ...": the name may hold spaces and parentheses. */
        if ((rp = strrchr(buf, ')')) != NULL && sscanf(rp + 1, " %*c %ld", &ppid) == 1 && ppid == (long)parent)
            out[count++] = (pid_t)atol(e->d_name);
    }
    if (d)
        closedir(d);
    return count;
}

/*
 * Processes that left their group: children of this subreaper that perfgate
 * did not start (a daemon's double fork, setsid, setpgid) and that sit in
 * no group it tracks. Its own helpers (the guard, a probe it waits for)
 * stay in perfgate's group or are excluded here.
 */
static int escaped(pid_t pid)
{
    pid_t pgid = getpgid(pid);

    return pgid > 0 && pgid != getpgrp() && pid != guard_pid && !tracked(pgid);
}

/*
 * Kills every escaped child and its group, and again for the children they
 * leave behind (reparented here), until none is left or `deadline_ns`
 * passes. With `from_handler` only system calls are used, one round.
 */
static void sweep(int64_t deadline_ns, int from_handler)
{
    pid_t kids[256];
    int n, i, found;

    do {
        found = 0;
        n = task_children(kids, 256, getpid());
        /* A kernel without CONFIG_PROC_CHILDREN keeps no children files: scan /proc instead. */
        if (n < 0 && !from_handler)
            n = pg__proc_children_of(kids, 256, getpid());
        for (i = 0; i < n; i++) {
            pid_t pgid;
            if (!escaped(kids[i]))
                continue;
            found = 1;
            /*
             * Its group too when it made a session of its own (a daemon's
             * children share the group it made); a group of perfgate's own
             * session may be the user's other job, so there only the process.
             */
            if ((pgid = getpgid(kids[i])) > 0 && pgid != getpgrp() && getsid(kids[i]) != getsid(0))
                kill(-pgid, SIGKILL);
            kill(kids[i], SIGKILL);
            if (!from_handler)
                waitpid(kids[i], NULL, 0);
        }
    } while (found && !from_handler && pg__mono_ns() < deadline_ns);
}

static void kill_all(void)
{
    size_t i;

    for (i = 0; i < MAX_GROUPS; i++)
        if (groups[i] > 0)
            kill(-(pid_t)groups[i], SIGKILL);
}

static void on_exit_kill(void)
{
    kill_all();
    sweep(pg__mono_ns() + 1000000000, 0);
}

/* SIGINT, SIGTERM, SIGHUP: the groups die first, then the signal does what it did before. */
static void on_signal(int sig)
{
    int saved = errno;

    kill_all();
    sweep(0, 1);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    errno = saved;
    raise(sig);
}

/* A signal the caller ignores (nohup, a background job's SIGINT) stays ignored. */
static void catch_unless_ignored(int sig, const struct sigaction *sa, struct sigaction *old)
{
    sigaction(sig, NULL, old);
    if (old->sa_handler != SIG_IGN)
        sigaction(sig, sa, NULL);
}

static void close_other_fds(int keep)
{
    int fd;

#ifdef SYS_close_range
    if (keep > 3)
        syscall(SYS_close_range, 3, (unsigned)keep - 1, 0);
    if (syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0) == 0)
        return;
#endif
    for (fd = 3; fd < 4096; fd++)
        if (fd != keep)
            close(fd);
}

#define MAX_FILES 16
#define FILE_PATH_MAX 4000 /* a record stays under PIPE_BUF: one write() is never interleaved */

/* What the guard holds: the groups to kill and the files to remove when perfgate is gone. */
typedef struct guard_state {
    pid_t groups[MAX_GROUPS];
    char files[MAX_FILES][FILE_PATH_MAX + 1];
    int used[MAX_FILES];
} guard_state;

static void guard_file(guard_state *g, const char *path, size_t len, int add)
{
    int i;

    for (i = 0; i < MAX_FILES; i++)
        if (g->used[i] && strlen(g->files[i]) == len && memcmp(g->files[i], path, len) == 0)
            g->used[i] = 0;
    for (i = 0; add && i < MAX_FILES; i++)
        if (!g->used[i]) {
            memcpy(g->files[i], path, len);
            g->files[i][len] = '\0';
            g->used[i] = 1;
            return;
        }
}

static void guard_set(pid_t *list, pid_t g)
{
    size_t i;

    if (g > 0) {
        for (i = 0; i < MAX_GROUPS; i++)
            if (!list[i]) {
                list[i] = g;
                return;
            }
        return;
    }
    for (i = 0; i < MAX_GROUPS; i++)
        if (list[i] == -g)
            list[i] = 0;
}

/*
 * Records on the pipe: int32 G > 0 tracks group G, G < 0 forgets group -G;
 * G == 0 is followed by int32 L and |L| bytes of a path, to remove (L > 0)
 * or forget (L < 0) when perfgate is gone.
 */
static size_t guard_parse(guard_state *g, const char *buf, size_t len)
{
    size_t at = 0;

    while (len - at >= sizeof(int32_t)) {
        int32_t code, plen;
        memcpy(&code, buf + at, sizeof(code));
        if (code != 0) {
            guard_set(g->groups, (pid_t)code);
            at += sizeof(code);
            continue;
        }
        if (len - at < 2 * sizeof(int32_t))
            break;
        memcpy(&plen, buf + at + sizeof(code), sizeof(plen));
        if ((size_t)(plen < 0 ? -plen : plen) > FILE_PATH_MAX || plen == 0)
            return len; /* not a record perfgate writes: drop the rest */
        if (len - at < 2 * sizeof(int32_t) + (size_t)(plen < 0 ? -plen : plen))
            break;
        guard_file(g, buf + at + 2 * sizeof(int32_t), (size_t)(plen < 0 ? -plen : plen), plen > 0);
        at += 2 * sizeof(int32_t) + (size_t)(plen < 0 ? -plen : plen);
    }
    return at;
}

/* Reads what the pipe holds on into `g`. @return read()'s result. */
static ssize_t guard_read(guard_state *g, int rfd, char *buf, size_t cap, size_t *have)
{
    ssize_t n = read(rfd, buf + *have, cap - *have);
    size_t used;

    if (n > 0) {
        *have += (size_t)n;
        used = guard_parse(g, buf, *have);
        memmove(buf, buf + used, *have - used);
        *have -= used;
    }
    return n;
}

static void guard_main(int rfd, pid_t parent)
{
    static guard_state g;
    static char buf[2 * (FILE_PATH_MAX + 64)];
    size_t have = 0;
    int devnull = open("/dev/null", O_RDWR), i;

    /* Out of the terminal's process group and the caller's pipes: only perfgate's end decides. */
    setpgid(0, 0);
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    if (devnull >= 0) {
        dup2(devnull, 0);
        dup2(devnull, 1);
        dup2(devnull, 2);
    }
    close_other_fds(rfd);
    for (;;) {
        struct pollfd p = {rfd, POLLIN, 0};
        ssize_t n;

        if (getppid() != parent)
            break;
        if (poll(&p, 1, 200) <= 0)
            continue;
        n = guard_read(&g, rfd, buf, sizeof(buf), &have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
    }
    /*
     * perfgate may have died (a new parent) before its last records were
     * read: what it wrote is still in the pipe, and counts.
     */
    fcntl(rfd, F_SETFL, O_NONBLOCK);
    for (;;) {
        ssize_t n = guard_read(&g, rfd, buf, sizeof(buf), &have);
        if (n <= 0 && !(n < 0 && errno == EINTR))
            break;
    }
    for (i = 0; i < MAX_GROUPS; i++)
        if (g.groups[i] > 0)
            kill(-g.groups[i], SIGKILL);
    /* A file perfgate was writing when it died: renamed into place already, or never to be. */
    for (i = 0; i < MAX_FILES; i++)
        if (g.used[i])
            unlink(g.files[i]);
    _exit(0);
}

static void guard_write(const void *msg, size_t len)
{
    if (guard_fd >= 0)
        while (write(guard_fd, msg, len) < 0 && errno == EINTR)
            ;
}

static void guard_send(pid_t g)
{
    int32_t msg = (int32_t)g;

    guard_write(&msg, sizeof(msg));
}

static void start(void)
{
    struct sigaction sa;
    int fds[2];
    pid_t self = getpid(), pid;

    if (started)
        return;
    started = 1;
    /* Orphans of a command (its background processes) become our children, to be reaped here. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    catch_unless_ignored(SIGINT, &sa, &old_int);
    catch_unless_ignored(SIGTERM, &sa, &old_term);
    catch_unless_ignored(SIGHUP, &sa, &old_hup);
    atexit(on_exit_kill);
    if (pipe2(fds, O_CLOEXEC) != 0)
        return;
    pid = fork();
    if (pid == 0) {
        close(fds[1]);
        guard_main(fds[0], self);
    }
    close(fds[0]);
    if (pid < 0) {
        close(fds[1]);
        return;
    }
    guard_fd = fds[1];
    guard_pid = pid;
}

void pg__proc_guard_file(const char *path, int remove)
{
    char rec[2 * sizeof(int32_t) + FILE_PATH_MAX];
    int32_t zero = 0, len = (int32_t)strlen(path);

    if (len == 0 || len > FILE_PATH_MAX)
        return;
    start();
    memcpy(rec, &zero, sizeof(zero));
    len = remove ? len : -len;
    memcpy(rec + sizeof(zero), &len, sizeof(len));
    memcpy(rec + 2 * sizeof(int32_t), path, strlen(path));
    guard_write(rec, 2 * sizeof(int32_t) + strlen(path));
}

void pg__proc_begin(sigset_t *old)
{
    sigset_t hold;

    start();
    sigemptyset(&hold);
    sigaddset(&hold, SIGINT);
    sigaddset(&hold, SIGTERM);
    sigaddset(&hold, SIGHUP);
    sigprocmask(SIG_BLOCK, &hold, old);
    held_old = *old;
}

void pg__proc_end(const sigset_t *old)
{
    sigprocmask(SIG_SETMASK, old, NULL);
}

void pg__proc_child_init(pid_t parent)
{
    sigprocmask(SIG_SETMASK, &held_old, NULL);
    setpgid(0, 0);
    /* The guard must see end-of-file when perfgate goes, whoever else lives on. */
    if (guard_fd >= 0)
        close(guard_fd);
    guard_fd = -1;
    /* The signal comes when the forking *thread* ends: perfgate forks from its main thread only. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
}

void pg__proc_track(pid_t pgid)
{
    size_t i;

    if (pgid <= 0)
        return;
    start();
    for (i = 0; i < MAX_GROUPS; i++)
        if (groups[i] == 0) {
            groups[i] = pgid;
            break;
        }
    guard_send(pgid);
}

void pg__proc_kill_group(pid_t pgid)
{
    int64_t deadline = pg__mono_ns() + 1000000000;
    size_t i;
    int status;

    if (pgid <= 0)
        return;
    while (kill(-pgid, SIGKILL) == 0 && pg__mono_ns() < deadline) {
        /* Members that are our children (reparented to this subreaper) stay zombies until reaped. */
        if (waitpid(-pgid, &status, WNOHANG) <= 0) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
    }
    for (i = 0; i < MAX_GROUPS; i++)
        if (groups[i] == pgid)
            groups[i] = 0;
    guard_send(-pgid);
    /* What left the group (a new session, a double fork) is reparented here by now: it dies with the sample too. */
    sweep(pg__mono_ns() + 1000000000, 0);
}

int pg__proc_capture_fd(void)
{
    const char *dir = getenv("TMPDIR");
    char *tmpl;
    int fd;

    if (!dir || !*dir)
        dir = "/tmp";
    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || !(tmpl = pg__asprintf("%s/perfgate-out-XXXXXX", dir)))
        return fd;
    /* No O_TMPFILE on this file system: a named file, unlinked at once. */
    fd = mkostemp(tmpl, O_CLOEXEC);
    if (fd >= 0)
        unlink(tmpl);
    free(tmpl);
    return fd;
}

char *pg__proc_last_line(const char *text)
{
    const char *end = text + strlen(text), *begin;

    while (end > text && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
        end--;
    begin = end;
    while (begin > text && begin[-1] != '\n')
        begin--;
    return pg__asprintf("%.*s", (int)(end - begin > 300 ? 300 : end - begin), begin);
}

char *pg__proc_output_tail(int fd, size_t max)
{
    off_t size = lseek(fd, 0, SEEK_END);
    off_t from = size > (off_t)max ? size - (off_t)max : 0;
    pg_buf b = PG_BUF_INIT;
    char chunk[4096];
    ssize_t n;

    lseek(fd, from, SEEK_SET);
    while ((n = read(fd, chunk, sizeof(chunk))) > 0)
        pg__buf_put(&b, chunk, (size_t)n);
    return pg__buf_detach(&b);
}

int pg__proc_spawn(pid_t *pid, int64_t *t0, char *const argv[], char *const envp[],
                   const posix_spawn_file_actions_t *fa)
{
    posix_spawnattr_t attr;
    sigset_t old;
    int rc;

    if ((rc = posix_spawnattr_init(&attr)) != 0)
        return rc;
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setpgroup(&attr, 0);
    fflush(stdout);
    fflush(stderr);
    pg__proc_begin(&old);
    posix_spawnattr_setsigmask(&attr, &old);
    if (t0)
        *t0 = pg__mono_ns();
    rc = posix_spawnp(pid, argv[0], fa, &attr, argv, envp);
    if (rc == 0)
        pg__proc_track(*pid);
    pg__proc_end(&old);
    posix_spawnattr_destroy(&attr);
    return rc;
}
