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

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
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
static sigset_t held_old;   /* the mask before pg__proc_begin(), for a forked child */
static struct sigaction old_int, old_term, old_hup;

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
}

/* SIGINT, SIGTERM, SIGHUP: the groups die first, then the signal does what it did before. */
static void on_signal(int sig)
{
    int saved = errno;

    kill_all();
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

static void guard_main(int rfd, pid_t parent)
{
    pid_t list[MAX_GROUPS];
    int devnull = open("/dev/null", O_RDWR), i;

    memset(list, 0, sizeof(list));
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
        int32_t msg[64];
        ssize_t n;

        if (getppid() != parent)
            break;
        if (poll(&p, 1, 200) <= 0)
            continue;
        n = read(rfd, msg, sizeof(msg));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        for (i = 0; i < (int)(n / (ssize_t)sizeof(msg[0])); i++)
            guard_set(list, (pid_t)msg[i]);
    }
    for (i = 0; i < MAX_GROUPS; i++)
        if (list[i] > 0)
            kill(-list[i], SIGKILL);
    _exit(0);
}

static void guard_send(pid_t g)
{
    int32_t msg = (int32_t)g;

    if (guard_fd >= 0)
        while (write(guard_fd, &msg, sizeof(msg)) < 0 && errno == EINTR)
            ;
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
