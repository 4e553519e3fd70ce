/*
 * perfgate/perfgate.h - the umbrella header of perfgate's plugin API.
 *
 * Include this (or perfgate/plugin.h) to write a benchmark plugin:
 *   perfgate/plugin.h  the versioned plugin ABI (benchmarks, timing loop,
 *                      parameters, counters, ranges, ops, GEMM, skip/error)
 *   PG_UNMEASURED()    below: a block left out of the measured region
 * A program run by a `command:` case marks its regions with
 * perfgate/region.h instead (it needs no plugin API).
 *
 * The API is header-only: every call is an inline function that goes
 * through the table of functions the runner hands in, so a plugin links
 * nothing from perfgate, and the perfgate binary exports no symbols for it.
 * perfgate/errors.h (the runner's PG_E* codes and pg_strerror()) is not part
 * of this API: its functions live only inside the runner.
 */
#ifndef PERFGATE_PERFGATE_H
#define PERFGATE_PERFGATE_H

#include "perfgate/plugin.h"

/**
 * PG_UNMEASURED(st) { ... } runs the block outside the measured region:
 * the clock stops, and the counting instruments (Callgrind's collection
 * under `instructions`, the allocation counter under `memory`) do not see
 * it. It narrows the region inside an iterate function or a
 * pg_keep_running() loop to the work that matters, e.g.
 *
 *     while (pg_keep_running(st)) {
 *         PG_UNMEASURED(st) { shuffle(buf, n); }   // not timed, not counted
 *         sort(buf, n);                            // timed and counted
 *     }
 *
 * It is pg_pause_timing() before the block and pg_resume_timing() after
 * it; leaving the block by break, return or goto skips the resume.
 */
#define PG_UNMEASURED(st)                                                                          \
    for (int pg__unmeasured = (pg_pause_timing(st), 1); pg__unmeasured;                            \
         pg__unmeasured = (pg_resume_timing(st), 0))

#endif
