/*
 * sink.h - the one bounded reader: every byte stream perfgate takes from
 * outside and does not read as a file through pg__read_input() (an HTTP
 * body, a download, an archive's entry as it inflates) is kept through a
 * sink with a cap. The cap is checked before the bytes are kept, so a
 * stream that runs past it costs at most one chunk beyond it in memory or
 * on disk, whatever it declared and however long it would go on.
 */
#ifndef PG_SINK_H
#define PG_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

typedef struct pg_sink {
    pg_buf buf;       /* the bytes, when fd < 0 */
    int fd;           /* else they are written here */
    uint64_t max;     /* the cap, in bytes */
    uint64_t total;   /* bytes kept so far */
    int over;         /* 1 once a put would have passed the cap */
    int failed;       /* 1 once keeping bytes failed (memory, a write error) */
} pg_sink;

/** A sink into memory (fd -1) or onto `fd`, capped at `max` bytes. */
#define PG_SINK_INIT(fd, max) {PG_BUF_INIT, (fd), (max), 0, 0, 0}

/**
 * Keeps `n` more bytes, or none of them when that would pass the cap.
 * @return 0; PG_EIO past the cap (s->over set; the message names `what`
 *   and the cap), PG_ENOMEM or PG_EIO (s->failed set) when the bytes cannot
 *   be kept.
 */
int pg__sink_put(pg_sink *s, const void *data, size_t n, const char *what);

/** Frees what a memory sink holds. */
void pg__sink_clear(pg_sink *s);

#endif
