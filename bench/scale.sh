#!/usr/bin/env bash
# scale.sh - compare and history on generated databases (bench/scale_db.c):
#   `perfgate compare` of the newest of 6 runs of 10,000 cases against last:5,
#   `perfgate history` of 1,000 cases over 365 nightly runs;
# each timed REPS times (wall seconds, and the peak memory), with the load average.
#
# usage: bash bench/scale.sh [REPS=3] [DIR=/tmp/perfgate-scale]
#        PERFGATE_NOISE_BUILD=DIR (default build-bench) is built as Release if needed;
#        the databases are generated once and kept in DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
dir=${2:-/tmp/perfgate-scale}
build=${PERFGATE_NOISE_BUILD:-build-bench}
if [[ ! -x "$build/perfgate" || ! -x "$build/bench/bench_scale_db" ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPG_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j2 >/dev/null
fi
mkdir -p "$dir"
[[ -f "$dir/compare.db" ]] || "$build/bench/bench_scale_db" compare "$dir/compare.db"
[[ -f "$dir/history.db" ]] || "$build/bench/bench_scale_db" history "$dir/history.db"
echo "# scale: load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
for i in $(seq 1 "$reps"); do
  /usr/bin/time -f "compare 10000 cases vs last:5: %e s wall, %U s user + %S s sys CPU, %M KiB peak" \
    "$build/perfgate" compare --db "$dir/compare.db" --head latest --base last:5 --format json >/dev/null 2>"$dir/err" \
    || true
  tail -1 "$dir/err"
  /usr/bin/time -f "history 1000 cases x 365 runs: %e s wall, %U s user + %S s sys CPU, %M KiB peak" \
    "$build/perfgate" history --db "$dir/history.db" --last 0 --format json >/dev/null 2>"$dir/err" || true
  tail -1 "$dir/err"
done
