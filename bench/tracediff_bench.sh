#!/usr/bin/env bash
# Time and peak memory of `perfgate trace diff` on two generated Kineto-style
# traces of SIZE_MB each (CPU ops, ranges, runtime calls, kernels with
# correlation ids, as bench/trace_bench.c writes them); the head trace has
# aten::gelu renamed aten::silu, so the diff has an op that appeared and one
# that left.
# usage: bash bench/tracediff_bench.sh [SIZE_MB=100]
# Builds a Release tree in build-bench/ (no sanitizers).
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-100}
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DPG_BUILD_TESTS=OFF -DPG_USE_CUDA=OFF >/dev/null
cmake --build build-bench -j 2 --target bench_trace_bench perfgate >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build-bench/bench/bench_trace_bench "$mb" --keep "$tmp/base.json" >/dev/null
sed "s/\"aten::gelu\"/\"aten::silu\"/" \
    "$tmp/base.json" >"$tmp/head.json"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
ls -l "$tmp/base.json" "$tmp/head.json" | awk '{printf "%s %.1f MB\n", $NF, $5 / 1e6}'
for what in "trace --steps -n 5 $tmp/base.json" "trace diff -n 5 $tmp/base.json $tmp/head.json"; do
    echo "== perfgate $what"
    # shellcheck disable=SC2086
    /usr/bin/time -f "wall %e s, user %U s, peak RSS %M KiB" build-bench/perfgate $what | tail -12 || true
done
