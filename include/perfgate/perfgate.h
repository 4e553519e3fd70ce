/*
 * perfgate/perfgate.h - the umbrella header of perfgate's plugin API.
 *
 * Include this (or perfgate/plugin.h) to write a benchmark plugin:
 *   perfgate/plugin.h  the versioned plugin ABI (benchmarks, timing loop,
 *                      parameters, counters, ranges, ops, GEMM, skip/error)
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

#endif
