/*
 * backend.h - the ways a benchmark case is measured.
 *
 * exec.c picks one per case: a built-in CPU kernel, a built-in CUDA kernel,
 * a benchmark inside a user plugin, or an external command. Each fills the
 * result's samples, summary, status and message; a failure of the case is
 * an ERROR result (return 0), and only a failure that must stop the whole
 * run returns an error code.
 *
 * This header sits below the executor: exec.c fills pg_backend_options from
 * its own options, and no backend calls back up into it.
 */
#ifndef PG_BACKEND_H
#define PG_BACKEND_H

#include <stdint.h>

#include "measure/measure.h"
#include "base/model.h"
#include "base/case.h"
#include "plugin/plugin.h"

/** What the backends take from a run's options. Initialise with PG_BACKEND_OPTIONS_INIT. */
typedef struct pg_backend_options {
    unsigned version;
    double time_scale;     /* multiplies min run time and warm-up; caps max run time when below 1 */
    double precision;      /* adaptive stop: median CI half-width target; 0: off */
    int cpu_clock;         /* CPU cases: time with process CPU time instead of wall time */
    double peak_gflops;    /* CPU MFU denominator; 0: measure a 1024^3 sgemm ceiling */
    double peak_tflops;    /* GPU MFU denominator; 0: a measured GEMM ceiling */
} pg_backend_options;

#define PG_BACKEND_OPTIONS_VERSION 1
#define PG_BACKEND_OPTIONS_INIT {PG_BACKEND_OPTIONS_VERSION, 1.0, 0.0, 0, 0.0, 0.0}

int pg_backend_cpu_case(pg_result *out, const pg_case *c, const pg_backend_options *opts);
int pg_backend_cuda_case(pg_result *out, const pg_case *c, const pg_backend_options *opts);
int pg_backend_plugin_case(pg_result *out, const pg_case *c, const pg_backend_options *opts);
/* Two libraries of one plugin case in lockstep (plugin.h: pg_plugin_run_pair). */
int pg_backend_plugin_pair_start(pg_plugin_pair **out, const pg_case *const c[2], const pg_backend_options *opts,
                                  uint64_t seed, const pg_plugin_pair_cpus *cpus, int64_t start_number,
                                  const pg_plugin_pair *busy);
int pg_backend_command_case(pg_result *out, const pg_case *c, const pg_backend_options *opts);
/**
 * Reads one iteration's stdout `output` as a `metrics: json` command's: the
 * time it reported (*reported_ns, -1 when none) and the metrics the result
 * keeps (*extra, JSON or NULL; caller frees).
 * @return 0; PG_EKERNEL when the last line is no usable JSON object.
 */
int pg__backend_command_metrics(int64_t *reported_ns, char **extra, const char *output);
/** Runs the command of `c` once (no timing), for sources that read what it writes. PG_EKERNEL when it fails. */
int pg__backend_command_once(const pg_case *c);

/**
 * A case whose samples are the steps of a trace (`trace:`): runs its command
 * once when it has one (with {trace_dir} a fresh directory, removed after),
 * splits the trace into steps and fills `out` with the step times. With
 * `extra` not NULL, each op matching one of the case's `trace_ops` globs is
 * appended to it as a result of its own ("NAME/self:OP"), its self time per
 * step as samples. A trace that cannot be read is an ERROR of the case.
 */
int pg_backend_trace_case(pg_result *out, pg_run *extra, const pg_case *c, const pg_backend_options *opts);

/**
 * The CPU peak in GFLOP/s at `threads` that MFU divides by: opts->peak_gflops when given, else the
 * process's sgemm 1024^3 ceiling (measured once per thread count). `*reliable` is 0 once a case's
 * fastest sample beat the measured ceiling and raised it. <= 0 when it could not be measured.
 */
double pg_backend_cpu_peak(int threads, const pg_backend_options *opts, int *reliable);

/** The process's own sgemm 1024^3 ceiling at `threads` (measured on first use), never raised by a case. */
double pg_backend_cpu_ceiling(int threads);

/**
 * Makes `gflops` (the machine's stored roof, roofline.h) the ceiling at `threads` for this process, so
 * MFU needs no sgemm of its own; a ceiling already in use is kept.
 */
void pg_backend_cpu_stored_peak(int threads, double gflops);

/** The peak at `threads` without measuring one: opts->peak_gflops, else the ceiling in use; 0: none yet. */
double pg_backend_cpu_known_peak(int threads, const pg_backend_options *opts);

/** What the peak at `threads` is: "--peak-gflops", the stored roof, the measured sgemm, or raised. */
const char *pg_backend_cpu_peak_source(int threads, const pg_backend_options *opts);

/**
 * Sets out->mfu from out->flops, its samples and median against the peak at `threads`
 * (pg_backend_cpu_peak); a case whose fastest sample beats the measured ceiling raises it, so
 * MFU never passes 100% unless the user gave the peak. `*ceiling` and `*source` say what it used.
 */
void pg__backend_cpu_mfu(pg_result *out, int threads, const pg_backend_options *opts, double *ceiling,
                         const char **source);

/**
 * The timing engine's options for case `c` under `opts` (time_scale applied
 * to min_run_time and warm-up; max_run_time only ever shrinks).
 */
void pg_backend_measure_options(pg_measure_options *out, const pg_case *c, const pg_backend_options *opts);

#endif
