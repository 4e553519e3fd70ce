#!/usr/bin/env bash
# Trace-reader throughput and peak memory on a generated Kineto-style trace.
# usage: bash bench/trace_bench.sh [SIZE_MB=200] [--jansson]
# Builds a Release tree in build-bench/ (no sanitizers) and runs build-bench/bench/bench_trace_bench.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DPG_BUILD_TESTS=OFF -DPG_USE_CUDA=OFF >/dev/null
cmake --build build-bench -j 2 --target bench_trace_bench >/dev/null
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
build-bench/bench/bench_trace_bench "${@:-200}"
