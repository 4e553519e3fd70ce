/* sink.c - the one bounded reader (sink.h). */
#include "base/sink.h"

#include "perfgate/errors.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int pg__sink_put(pg_sink *s, const void *data, size_t n, const char *what)
{
    const unsigned char *p = data;
    int err;

    if (s->over || s->failed)
        return PG_EIO;
    if (n > s->max - s->total) {
        s->over = 1;
        if (s->max >= (1u << 20) && s->max % (1u << 20) == 0)
            return pg_error_set(PG_EIO, "%s: larger than %llu MiB; refusing", what,
                                (unsigned long long)(s->max >> 20));
        return pg_error_set(PG_EIO, "%s: larger than %llu bytes; refusing", what, (unsigned long long)s->max);
    }
    if (s->fd < 0) {
        if ((err = pg__buf_put(&s->buf, data, n)) != 0) {
            s->failed = 1;
            return err;
        }
    } else {
        while (n) {
            ssize_t w = write(s->fd, p, n);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                s->failed = 1;
                return pg_error_set(PG_EIO, "%s: cannot write: %s", what, strerror(w < 0 ? errno : ENOSPC));
            }
            p += w;
            n -= (size_t)w;
            s->total += (uint64_t)w;
        }
        return 0;
    }
    s->total += n;
    return 0;
}

void pg__sink_clear(pg_sink *s)
{
    pg__buf_clear(&s->buf);
}
