/*
 * plugin.h - running benchmarks from user plugins (include/perfgate/plugin.h).
 *
 * Three layers: loading a library (dlopen, ABI version check, finding a
 * benchmark by name), measuring one benchmark in this process through the
 * CPU timing engine (measure.h) with a clock that only runs while the
 * benchmark's timed region runs, and doing that in a child process (child.h)
 * so a plugin that crashes, hangs or calls exit() becomes an ERROR for its
 * case while the runner goes on.
 */
#ifndef PG_PLUGIN_RUNNER_H
#define PG_PLUGIN_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "measure/measure.h"
#include "base/model.h"
#include "perfgate/plugin.h"
#include "base/case.h"

typedef struct pg_plugin_lib pg_plugin_lib;

/**
 * Loads the plugin at `path` and checks its ABI version.
 * @param[out] out the library; close with pg_plugin_close().
 * @return 0; PG_ENOTFOUND when the file is missing; PG_EPLUGIN when it is not
 *         a loadable library, has no entry point, or was built against another
 *         ABI version (the message names both versions).
 */
int pg_plugin_open(pg_plugin_lib **out, const char *path);
void pg_plugin_close(pg_plugin_lib *lib);

/** The plugin's table (owned by the library). */
const pg_plugin *pg_plugin_table(const pg_plugin_lib *lib);

/**
 * Finds benchmark `name`.
 * @return 0, or PG_ENOTFOUND with a message listing the names it has.
 */
int pg_plugin_find(const pg_benchmark **out, const pg_plugin_lib *lib, const char *name);

/**
 * Measures `b` for case `c` in this process: threads fixed, warm-up, block
 * sizing and sampling by pg_measure() with `mo` (its clock is replaced by the
 * benchmark's own timed-region clock). Fills samples, summary, FLOPs and bytes
 * per iteration and the status; pg_skip()/pg_error() become SKIPPED/ERROR.
 * @return 0 (the case's own failure is in `out`), or PG_ENOMEM.
 */
int pg_plugin_measure(pg_result *out, const pg_benchmark *b, const pg_case *c, const pg_measure_options *mo);

/**
 * Runs `iters` iterations of `b` once in this process, untimed, with whatever
 * instrument the caller installed (instrument.h): for exact checks on plugins.
 * @return 0, PG_ESKIP (message: the reason) or PG_EKERNEL (message: the error).
 */
int pg_plugin_run_iterations(const pg_benchmark *b, const pg_case *c, int64_t iters);

/**
 * Measures benchmark `c->symbol` of the plugin at `path` in a child process.
 * A crash (signal), an exit without a result, a wrong ABI version or a
 * timeout (`timeout_s`) becomes an ERROR result naming the cause.
 * @return 0, or an error that must stop the run (PG_ENOMEM, fork failure).
 */
int pg_plugin_run_case(pg_result *out, const pg_case *c, const char *path, const pg_measure_options *mo,
                       double timeout_s);

/** Where the processes of a lockstep pair run (bitmaps of PG_CHILD_CPU_WORDS words, child.h). */
typedef struct pg_plugin_pair_cpus {
    const uint64_t *turns;    /* the round's CPUs, joined once set up and warmed up; NULL: stay */
    const uint64_t *setup;    /* where they set up and warm up; NULL: where they start */
} pg_plugin_pair_cpus;

/**
 * Measures the same case of two builds in lockstep: two child processes
 * (c[0] from paths[0], c[1] from paths[1]: one case, which may differ only
 * in its library and an injected change, case.h) each load their library, set the benchmark up and
 * warm it up, each on its own (on `cpus->setup`, in parallel where two CPUs
 * are free), then move to the round's CPUs (`cpus->turns`; NULL: stay) and
 * run a brief re-warm, the sizing and the sampling there, every block
 * waiting for its turn: the runner lets one block of one side run at a
 * time, alternating the sides in an order drawn from `seed` per pair of
 * blocks. Both sides thus sample the same stretch of machine time, block by
 * block; a machine phase hits both alike. Either side's failure is an ERROR
 * in its own out[i]; the other side finishes alone.
 *
 * In two steps, so that one pair can set up while another takes its turns:
 * start forks both sides (they set up, warm up and wait for their first
 * turn; `busy` is a pair started earlier and not yet finished, whose runner
 * ends the new processes must not hold; the timeout counts from here);
 * finish runs the turns, collects both results and frees the pair; cancel
 * kills a pair never finished.
 * @return 0, or an error that must stop the run (PG_ENOMEM, fork failure).
 */
typedef struct pg_plugin_pair pg_plugin_pair;
int pg_plugin_pair_start(pg_plugin_pair **out, const pg_case *const c[2], const char *const paths[2],
                         const pg_measure_options *mo, double timeout_s, uint64_t seed, const pg_plugin_pair_cpus *cpus,
                         const pg_plugin_pair *busy);
int pg_plugin_pair_finish(pg_result out[2], pg_plugin_pair *p);
void pg_plugin_pair_cancel(pg_plugin_pair *p);

/**
 * A worker: a child process that stays across rounds and measures, on
 * request, any case of a table in lockstep with another worker (one per
 * build). It loads each library once, and sizes the blocks and fully
 * warms up a case once; a case it comes back to gets a
 * brief re-warm and starts sizing at the block size found before.
 * `cases[i]` (plugin path resolved) and `mos[i]` must outlive the worker;
 * `other` is the other build's worker if started, whose runner ends this
 * process must not hold.
 * @return 0, or PG_EIO/PG_ENOMEM (no pipe, no process).
 */
typedef struct pg_plugin_worker pg_plugin_worker;
int pg_plugin_worker_start(pg_plugin_worker **out, const pg_case *const *cases, const pg_measure_options *mos,
                           size_t n, const pg_plugin_worker *other);

/**
 * One round of case `index` on both workers in lockstep, as
 * pg_plugin_run_pair() does with fresh processes: both pinned to the CPUs
 * of bitmap `cpus` (PG_CHILD_CPU_WORDS words, child.h) and re-pinned within
 * them. A worker that crashes, exits, times out or breaks the protocol is
 * killed (pg_plugin_worker_alive() is then 0) and its out[i] is an ERROR
 * naming why; stop it and start another.
 * @return 0, or an error that must stop the run.
 */
int pg_plugin_worker_pair(pg_result out[2], pg_plugin_worker *const w[2], size_t index, const uint64_t *cpus,
                          double timeout_s, uint64_t seed);

/** 1 while the worker's process runs and keeps to the protocol. */
int pg_plugin_worker_alive(const pg_plugin_worker *w);

/** 1 when the last pair of this worker ended in the timeout. */
int pg_plugin_worker_timed_out(const pg_plugin_worker *w);

/** Ends the worker's process (end of file on its requests, then a kill) and frees it. NULL-safe. */
void pg_plugin_worker_stop(pg_plugin_worker *w);

/**
 * What a lockstep child calls around each block: enter waits for the turn
 * (nonzero: stop). With `arrive`, the child warms up before its first turn,
 * out of lockstep, then calls arrive (nonzero: stop) and re-warms for at
 * most PG_PLUGIN_REWARM_S in turns; without, the whole warm-up is in turns.
 */
typedef struct pg_plugin_gate {
    int (*enter)(void *payload);
    void (*leave)(void *payload);
    void *payload;
    int (*arrive)(void *payload);
} pg_plugin_gate;

/* Seconds of warm-up in turns after a warm-up out of them (a fresh pair's, or a worker's earlier one). */
#define PG_PLUGIN_REWARM_S 0.003

/** Installs the gate for every block pg_plugin_measure() runs in this process (NULL: none). */
void pg__plugin_set_gate(const pg_plugin_gate *gate);

/**
 * Expands `{build}` (the build directory: `build_dir`, else $PERFGATE_BUILD,
 * else ./build; made absolute) and `{suite_dir}` (the directory of the suite
 * file `c` came from) in `text`.
 * @param[out] out the expanded string; caller frees.
 */
int pg_plugin_subst(char **out, const char *text, const pg_case *c, const char *build_dir);

/**
 * Resolves a case's plugin path: substitutions, then a relative path is taken
 * relative to the suite file's directory. Caller frees `*out`.
 */
int pg_plugin_path(char **out, const pg_case *c, const char *build_dir);

#endif
