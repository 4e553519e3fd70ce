/* testhooks.c - test-only slowdown injection (see testhooks.h). */
#include "testhooks.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

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
