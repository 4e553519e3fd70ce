#!/usr/bin/env bash
# Benchmark (not a test): time and peak memory of loading, validating and
# expanding generated 10,000-case suites with `perfgate validate`.
#
#   bash bench/suite_load.sh [PERFGATE_BINARY] [REPEATS]
#
# Two shapes, each exactly 10,000 cases (the default cap):
#   wide: 100 benchmarks (sgemm), each params {m: 10 values, n: 10 values}
#   deep: 1 command benchmark with params a, b, c, d of 10 values each
# plus a 1-case suite for the fixed cost of starting the process. Prints the
# median wall time and CPU time (user + system) over REPEATS runs (default 5)
# and the largest peak RSS (GNU time's %M). On a loaded machine trust the CPU
# time more than the wall time. Build with optimisation (the default RelWithDebInfo build
# dir `build`), not the sanitizer build.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/perfgate}
repeats=${2:-5}
[[ -x "$bin" ]] || { echo "no perfgate binary at $bin; build first (cmake -S . -B build && cmake --build build)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "GNU time (/usr/bin/time) is needed for peak memory" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import sys
work = sys.argv[1]
ten = "[" + ", ".join(str(2 ** i) for i in range(10)) + "]"
with open(f"{work}/wide.yaml", "w") as f:
    f.write("suite: wide\ndefaults: {min_run_time: 0.5s, regression: {threshold: 5%}}\nbenchmarks:\n")
    for b in range(100):
        f.write(f"  - name: gemm{b:03d}\n    kernel: sgemm\n    params: {{m: {ten}, n: {ten}, k: {b + 1}}}\n")
with open(f"{work}/deep.yaml", "w") as f:
    f.write("suite: deep\nbenchmarks:\n  - name: cmd\n    command: [./bench]\n    params:\n")
    for p in "abcd":
        f.write(f"      {p}: {ten}\n")
with open(f"{work}/one.yaml", "w") as f:
    f.write("suite: one\nbenchmarks:\n  - {name: g, kernel: sgemm, params: {n: 64}}\n")
PY

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

measure() {
  local name=$1 file=$2 walls=() cpus=() rss=0 i line m cases
  for ((i = 0; i < repeats; i++)); do
    # wall seconds, user + system CPU seconds, peak resident set in KiB
    line=$(/usr/bin/time -f "%e %U %S %M" "$bin" validate "$file" 2>&1 >/dev/null | tail -n 1)
    read -r w u s m <<< "$line"
    walls+=("$w")
    cpus+=("$(echo "$u + $s" | bc -l)")
    ((m > rss)) && rss=$m
  done
  cases=$("$bin" validate "$file" | sed -n 's/.*valid: \([0-9]*\) cases.*/\1/p')
  printf '%-5s %6s cases  wall %6.3f s  cpu %6.3f s  peak RSS %6.1f MiB  (median of %d runs)\n' "$name" "$cases" \
    "$(printf '%s\n' "${walls[@]}" | median)" "$(printf '%s\n' "${cpus[@]}" | median)" \
    "$(echo "$rss / 1024" | bc -l)" "$repeats"
}
echo "perfgate validate on generated suites ($(nproc) cores, $(uname -m)); binary: $bin"
measure one "$work/one.yaml"
measure wide "$work/wide.yaml"
measure deep "$work/deep.yaml"
