/*
 * perfgate/perfgate.h - the umbrella header of perfgate's public API.
 *
 * Include this (or a per-module header) to write a benchmark plugin:
 *   perfgate/plugin.h  the versioned plugin ABI (benchmarks, timing loop,
 *                      parameters, counters, ranges, ops, GEMM, skip/error)
 *   perfgate/errors.h  the error codes perfgate's functions return
 */
#ifndef PERFGATE_PERFGATE_H
#define PERFGATE_PERFGATE_H

#include "perfgate/errors.h"
#include "perfgate/plugin.h"

#endif
