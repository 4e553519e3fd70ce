/*
 * decode.h - the state of one trace read, shared by the walk over the
 * document (reader.c) and the decoding of each event object into the trace
 * model (decode.c). Private to runner/trace/.
 */
#ifndef PG_TRACE_DECODE_H
#define PG_TRACE_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/json_stream.h"
#include "trace/trace.h"
#include "base/util.h"

typedef struct pg__trace_track pg__trace_track;

/* One read: zero it, then set `js` (see json_stream.h), `opts` and `t` before the first event. */
typedef struct pg__trace_reader {
    pg__json js;
    pg_trace *t;
    const pg_trace_read_options *opts;
    pg_buf name_b, cat_b, ph_b, pid_b, tid_b, shape_b; /* the current event's fields */
    pg__trace_track *tracks;     /* one per pid/tid that had 'B' events */
    size_t ntracks, last_track;
    int64_t max_ts, min_ts;      /* over every timed event, kept or not */
    int any_ts;
} pg__trace_reader;

/**
 * Reads one event object (whitespace may come first) into r->t: complete
 * events and instants are kept, 'B' opens and 'E' closes an event on its
 * thread, other phases are checked and dropped. Counts it in r->t->nread.
 */
int pg__trace_read_event(pg__trace_reader *r);

/** Ends every 'B' still open at the end of the trace (r->max_ts). */
void pg__trace_close_open(pg__trace_reader *r);

/** Frees what the read holds apart from r->t and the input (tracks, buffers, scratch). */
void pg__trace_reader_clear(pg__trace_reader *r);

#endif
