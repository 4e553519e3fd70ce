/*
 * steps.h - a trace split into training steps, with per-step metrics.
 *
 * A step is one occurrence of a range whose name matches a glob
 * ("ProfilerStep#*" by default, or a range the suite names). Per step:
 *
 * - step time: the duration of the step range;
 * - per op (CPU op or range, CUDA runtime call, GPU kernel, memcpy, memset)
 *   the count, the total time and the self time: the duration minus its
 *   children on the same thread, as key_averages() has it. Microsecond
 *   rounding can make a child outlast its parent by a microsecond; such a
 *   negative self time is clamped to 0 and the op is marked `clamped`;
 * - on GPU traces, per CUDA stream (pid/tid of the device events), summed
 *   over streams, the definitions of Holistic Trace Analysis: busy time is
 *   the union of the device events of the step on the stream; idle time is
 *   each gap between one device event's end and the next one's start
 *   (overlaps leave no gap); a gap is *host wait* when the CPU call that
 *   launched the next event started after the previous one ended (the CPU
 *   was not enqueueing), else *kernel wait* when it is shorter than the
 *   kernel-wait bound (30 µs, HTA's consecutive_kernel_delay: launch
 *   overhead that CUDA graphs remove), else *other wait* (cross-stream
 *   events, unknown causes). Also the number of kernels, how many ran
 *   under the small-kernel bound (5 µs), the device-to-host copies and the
 *   cudaStreamSynchronize/cudaDeviceSynchronize calls inside the step.
 *
 * An event belongs to the step whose range contains its start; a GPU event
 * to the step of the CPU call that launched it. Events outside every step
 * (set-up, the profiler's own start) are left out.
 *
 * Who frees what: pg_trace_steps_free() releases everything; names point
 * into the object.
 */
#ifndef PG_TRACE_STEPS_H
#define PG_TRACE_STEPS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/trace.h"

typedef enum pg_trace_op_kind {
    PG_TRACE_OP_CPU = 0,     /* aten op, range, anything on a CPU thread */
    PG_TRACE_OP_RUNTIME,     /* CUDA runtime/driver call (cat cuda_runtime, cuda_driver) */
    PG_TRACE_OP_KERNEL,
    PG_TRACE_OP_MEMCPY,
    PG_TRACE_OP_MEMSET
} pg_trace_op_kind;

const char *pg_trace_op_kind_name(pg_trace_op_kind k);

typedef struct pg_trace_cell {
    int64_t count, self_ns, total_ns;
} pg_trace_cell;

typedef struct pg_trace_gpu {
    int64_t busy_ns, idle_ns;
    int64_t host_wait_ns, kernel_wait_ns, other_wait_ns;
    int64_t kernels, small_kernels;   /* small: under the small-kernel bound */
    int64_t dtoh, syncs;              /* DtoH copies; stream/device synchronize calls */
} pg_trace_gpu;

typedef struct pg_trace_step {
    char *name;                       /* "ProfilerStep#3" */
    char *source;                     /* the file it came from */
    size_t round;                     /* which file: 0 for the first one added */
    int64_t ts, dur;                  /* ns; ts from the source's origin */
    pg_trace_gpu gpu;
} pg_trace_step;

typedef struct pg_trace_op {
    char *name;
    char *path;                       /* first occurrence below its step: "train_step > aten::index > aten::nonzero" */
    pg_trace_op_kind kind;
    int64_t clamped;                  /* events whose negative self time was clamped to 0 */
} pg_trace_op;

typedef struct pg_trace_steps {
    pg_trace_step *steps;
    size_t nsteps;
    pg_trace_op *ops;                 /* in order of first appearance */
    size_t nops;
    pg_trace_cell *cells;             /* cells[op * nsteps + step] */
    int gpu;                          /* some step holds device events */
    int64_t clamped;                  /* events clamped, over all ops */
    size_t sources;                   /* trace files read */
    uint32_t *hash;                   /* op index + 1 by name; private */
    size_t hcap;
} pg_trace_steps;

typedef struct pg_trace_steps_options {
    unsigned version;
    const char *step;                 /* glob naming the step range; NULL: "ProfilerStep#*" */
    int64_t small_kernel_ns;          /* 0: 5 µs */
    int64_t kernel_wait_ns;           /* 0: 30 µs */
    size_t max_events;                /* per file, passed to the reader; 0: no limit */
} pg_trace_steps_options;

#define PG_TRACE_STEPS_OPTIONS_VERSION 1
#define PG_TRACE_STEPS_OPTIONS_INIT {PG_TRACE_STEPS_OPTIONS_VERSION, NULL, 0, 0, 0}
#define PG_TRACE_SMALL_KERNEL_NS 5000
#define PG_TRACE_KERNEL_WAIT_NS 30000

/** An empty set of steps. @param[out] out free with pg_trace_steps_free(). */
int pg_trace_steps_new(pg_trace_steps **out);
void pg_trace_steps_free(pg_trace_steps *s);

/**
 * Appends the steps of `t` (read from `source`) to `s`; ops are matched by
 * name across sources, so several files of one run pool their steps.
 * @return 0; PG_ENOMEM.
 */
int pg_trace_steps_add(pg_trace_steps *s, const pg_trace *t, const char *source, const pg_trace_steps_options *opts);

/**
 * Reads a trace file, or every `*.json` file of a directory in name order,
 * and splits them into steps.
 * @param[out] out free with pg_trace_steps_free().
 * @return 0; PG_EIO (unreadable), PG_EFORMAT (malformed), or PG_EINVAL
 *         when no step range matches (the message names the glob and the
 *         ranges the trace does hold).
 */
int pg_trace_steps_load(pg_trace_steps **out, const char *path, const pg_trace_steps_options *opts);

/** The op named `name`, or -1. */
long pg_trace_steps_find(const pg_trace_steps *s, const char *name);

/** The per-step series of `op` (self or total ns, or count) as doubles. @param[out] out caller frees. */
typedef enum pg_trace_series { PG_TRACE_SELF, PG_TRACE_TOTAL, PG_TRACE_COUNT } pg_trace_series;
int pg_trace_steps_series(double **out, const pg_trace_steps *s, size_t op, pg_trace_series what);

/** Prints the per-step table: step time, GPU figures when any, and the `limit` ops of largest median self time. */
void pg_trace_steps_print(FILE *f, const pg_trace_steps *s, size_t limit);

/** Writes the steps as one JSON object (schema_version 1). @return 0 or PG_ENOMEM. */
int pg_trace_steps_json(FILE *f, const pg_trace_steps *s);

/** Copies `name` into `out` (size `len`), ending in "..." when it is longer than `width` characters. */
void pg_trace_ellipsize(char *out, size_t len, const char *name, size_t width);

#endif
