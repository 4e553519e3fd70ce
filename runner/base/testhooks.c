/* testhooks.c - test-only slowdown injection (see testhooks.h). */
#include "base/testhooks.h"

#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

double pg__test_slowdown(const char *key)
{
#ifdef PG_TEST_HOOKS
    const char *spec = getenv("PG_TEST_SLOWDOWN"), *p;
    char buf[512];

    if (!spec || !key)
        return 1.0;
    for (p = spec; *p;) {
        size_t len = strcspn(p, ",");
        char *eq, *end;
        double f;
        if (len < sizeof(buf)) {
            memcpy(buf, p, len);
            buf[len] = '\0';
            if ((eq = strrchr(buf, '=')) != NULL) {
                *eq = '\0';
                f = strtod(eq + 1, &end);
                if (end != eq + 1 && *end == '\0' && f >= 1.0 && pg__glob(buf, key))
                    return f;
            }
        }
        p += len;
        if (*p == ',')
            p++;
    }
#else
    (void)key;
#endif
    return 1.0;
}

void pg__test_spin(double seconds)
{
    int64_t end = pg__mono_ns() + (int64_t)(seconds * 1e9);
    volatile unsigned x = 0;

    while (pg__mono_ns() < end)
        x++;
}

int pg__test_worker_garbage(unsigned request)
{
#ifdef PG_TEST_HOOKS
    const char *v = getenv("PG_TEST_WORKER_GARBAGE");
    char *end;
    unsigned long n;

    if (!v || !*v)
        return 0;
    n = strtoul(v, &end, 10);
    return *end == '\0' && n > 0 && n == request;
#else
    (void)request;
    return 0;
#endif
}

int pg__test_turn_begin(void)
{
#ifdef PG_TEST_HOOKS
    const char *path = getenv("PG_TEST_TURN_LOCK");
    char *over;
    int fd, log;

    if (!path || !*path || (fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0)
        return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
        return fd;
    if ((over = pg__asprintf("%s.overlap", path)) != NULL &&
        (log = open(over, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) >= 0) {
        (void)!write(log, "overlap\n", 8);
        close(log);
    }
    free(over);
    close(fd);
    return -1;
#else
    return -1;
#endif
}

void pg__test_turn_end(int fd)
{
    if (fd >= 0)
        close(fd); /* releases the lock */
}

int pg__test_no_random(void)
{
#ifdef PG_TEST_HOOKS
    const char *v = getenv("PG_TEST_NO_RANDOM");
    return v && strcmp(v, "1") == 0;
#else
    return 0;
#endif
}
