/*
 * trace.h - recordings of ops and ranges: the model shared by perfgate's own
 * op recorder and the reader of Chrome/Perfetto trace files.
 *
 * A pg_trace is a flat array of events (name, category, track, start,
 * duration, shapes, correlation ids) whose `parent` links give the nesting:
 * on one track (pid/tid) an event's parent is the innermost event that
 * contains it in time; a GPU event's parent is the CPU call that launched it
 * (matched through args.correlation, else args["External id"]). Strings are
 * interned, so an event costs a fixed ~64 bytes whatever its name: that is
 * what lets a 200 MB trace load in bounded memory.
 *
 * Who frees what: pg_trace_free() releases a trace and everything in it;
 * string pointers from pg_trace_str() live as long as the trace.
 */
#ifndef PG_TRACE_H
#define PG_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/instrument.h"

typedef struct pg_trace_event {
    int64_t ts;           /* start, ns from the trace's origin */
    int64_t dur;          /* ns; 0 for instants */
    int64_t correlation;  /* args.correlation, -1 when absent */
    int64_t external_id;  /* args["External id"], -1 when absent */
    uint32_t name;        /* string ids (pg_trace_str); 0 is "" */
    uint32_t cat;
    uint32_t shape;       /* input shapes as text, 0 when unknown */
    uint32_t pid, tid;
    uint32_t seq;         /* order of appearance in the source */
    int32_t parent;       /* enclosing event or launching CPU call; -1 at the top */
    uint8_t device;       /* runs on a GPU (kernel, gpu_memcpy, gpu_memset...) */
    uint8_t pad[3];
} pg_trace_event;

/* An event's FLOPs as its trace gives them (Kineto's args.flops), by the event's `seq`. */
typedef struct pg_trace_flops {
    uint32_t seq;
    int64_t flops;
} pg_trace_flops;

typedef struct pg_trace {
    pg_trace_event *events;
    size_t nevents, cap;
    char **strs;          /* interned strings; strs[0] = "" */
    size_t nstrs, scap;
    uint32_t *shash;      /* open addressing: string id + 1, 0 = empty */
    size_t shcap;
    size_t nread;         /* events seen in the source, kept or not */
    size_t bytes_read;    /* size of the source */
    int64_t origin;       /* earliest ts in the source (kept or not): messages show times from here */
    pg_trace_flops *flops; /* the few events that carry FLOPs, by ascending seq (events stay 64 bytes) */
    size_t nflops, fcap;
} pg_trace;

/** An empty trace. @param[out] out free with pg_trace_free(). */
int pg_trace_new(pg_trace **out);
void pg_trace_free(pg_trace *t);

/** Interns `len` bytes of `s`. @param[out] out the string's id. */
int pg_trace_intern(uint32_t *out, pg_trace *t, const char *s, size_t len);
/** The string with id `id` ("" when out of range). Lives as long as `t`. */
const char *pg_trace_str(const pg_trace *t, uint32_t id);

/** Appends a copy of `ev` (its `seq` is set to its position). @param[out] out its index, may be NULL. */
int pg__trace_add(size_t *out, pg_trace *t, const pg_trace_event *ev);

/**
 * Sorts the events by start (longer first on ties, then source order) and
 * links each to its parent: time containment on its own pid/tid, or for GPU
 * events the CPU call with the same correlation (else External id).
 */
int pg_trace_nest(pg_trace *t);

/** Records `flops` for the event whose seq is `seq` (appended in ascending seq order). */
int pg__trace_set_flops(pg_trace *t, uint32_t seq, int64_t flops);

/** The FLOPs the trace gives event `ev` (args.flops), or -1 when it gives none. */
int64_t pg_trace_event_flops(const pg_trace *t, size_t ev);

/**
 * The FLOPs of op `ev`: the trace's own count (args.flops), else 2·m·n·k
 * from args["Input Dims"] for aten::mm, addmm, bmm, baddbmm, mv and addmv;
 * -1 when neither. `derived` (may be NULL) is set to 1 when the shapes gave it.
 */
int64_t pg_trace_op_flops(const pg_trace *t, size_t ev, int *derived);

/** True when `ev` lies inside event `anc` (follows parent links). */
int pg_trace_inside(const pg_trace *t, size_t ev, size_t anc);

/* ---- reading Chrome / Perfetto trace files ------------------------------ */

/** Which events to keep; the rest are parsed, checked and dropped. */
typedef int (*pg_trace_keep_fn)(const char *name, const char *cat, void *payload);

typedef struct pg_trace_read_options {
    unsigned version;
    pg_trace_keep_fn keep;  /* NULL keeps every event */
    void *payload;
    size_t max_events;      /* 0: no limit; more is an error (bounded memory) */
} pg_trace_read_options;

#define PG_TRACE_READ_OPTIONS_VERSION 1
#define PG_TRACE_READ_OPTIONS_INIT {PG_TRACE_READ_OPTIONS_VERSION, NULL, NULL, 0}

/**
 * Reads a Chrome trace: the legacy JSON array of events or the object form
 * {"traceEvents": [...]} that Kineto writes. Complete events (ph X), B/E
 * pairs and instants are kept; metadata, flows and counters are skipped.
 * `ts` and `dur` are microseconds, integers or decimals. The file is read
 * in 64 KiB chunks, never whole. Events whose keep() says no are dropped,
 * except GPU events and CPU calls carrying a correlation id (needed to
 * attribute the GPU work).
 * @param[out] out the nested trace (pg_trace_nest() done); free with pg_trace_free().
 * @return 0; PG_EIO when unreadable; PG_EFORMAT with "PATH: ... at byte N: ..." when malformed.
 */
int pg_trace_read_file(pg_trace **out, const char *path, const pg_trace_read_options *opts);

/** Same from memory; `name` names the source in messages. */
int pg_trace_read_buffer(pg_trace **out, const char *name, const char *data, size_t len,
                         const pg_trace_read_options *opts);

/* ---- writing ----------------------------------------------------------- */

/**
 * Writes `t` as a Chrome trace in the object form (loads in Perfetto and
 * chrome://tracing): complete events with ts/dur in microseconds, shapes,
 * correlation ids and perfgate's category, plus process/thread names.
 * `label` goes to otherData.label (may be NULL).
 */
int pg_trace_write_chrome(FILE *f, const pg_trace *t, const char *label);

/** Writes the trace to `path` (created or replaced). */
int pg_trace_export_file(const char *path, const pg_trace *t, const char *label);

/* ---- key_averages() ----------------------------------------------------- */

typedef struct pg_trace_stat {
    const char *name;     /* points into the trace */
    const char *shape;    /* NULL unless grouped by shape */
    int64_t count;
    int64_t total_ns;     /* sum of durations */
    int64_t self_ns;      /* total minus the time of children on the same track */
} pg_trace_stat;

typedef enum pg_trace_sort {
    PG_TRACE_SORT_SELF = 0,
    PG_TRACE_SORT_TOTAL,
    PG_TRACE_SORT_COUNT,
    PG_TRACE_SORT_NAME
} pg_trace_sort;

/**
 * Aggregates events by name (and shape when `by_shape`): count, total and
 * self time, like torch.profiler's key_averages().
 * @param[out] out rows sorted by `sort` (descending, names ascending); caller frees the array.
 */
int pg_trace_aggregate(pg_trace_stat **out, size_t *out_n, const pg_trace *t, int by_shape, pg_trace_sort sort);

/** Prints rows as a table (at most `limit` rows; 0 = all). */
void pg_trace_print_table(FILE *f, const pg_trace_stat *rows, size_t n, size_t limit);

/* ---- the op recorder ----------------------------------------------------- */

typedef struct pg_recorder pg_recorder;

/** A recorder with an empty trace. @param[out] out free with pg_recorder_free(). */
int pg_recorder_new(pg_recorder **out);
void pg_recorder_free(pg_recorder *r);

/**
 * The instrument to install with pg__instrument_set() while a workload runs:
 * every op and range becomes an event (name, start, end, thread, parent,
 * shapes); modules become events of category "module" ("module_backward").
 * `next`, when not NULL, also receives every hook (to chain a FLOP counter).
 */
const pg_instrument *pg_recorder_instrument(pg_recorder *r, const pg_instrument *next);

/** The trace recorded so far (owned by the recorder). */
pg_trace *pg_recorder_trace(pg_recorder *r);

/** Moves the recording out and starts an empty one. @param[out] out caller frees. */
int pg_recorder_take(pg_trace **out, pg_recorder *r);

/**
 * 0 when every hook paired up; else an error (PG_EKERNEL) naming the first
 * mismatch, e.g. an op ended that was not the innermost open one, or
 * ranges left open. Call after the workload.
 */
int pg_recorder_status(pg_recorder *r);

#endif
