#!/usr/bin/env bash
# Benchmark (not a test): the time and peak memory `perfgate validate` takes
# to refuse hostile suites, which must stay bounded:
#   deep   100,000 levels of flow nesting ([[[...]]]): refused at level 65
#   big    a 50 MB suite of 1.2 M one-line benchmarks: refused by its size
#   cap    a 4 MiB suite (just under the size cap) of one-line benchmarks:
#          the worst a suite within the cap costs before the case cap stops it
#   zero   /dev/zero as a suite: refused without reading
#
#   bash bench/bad_inputs.sh [PERFGATE_BINARY] [REPEATS]
#
# Prints the median wall time, the median CPU time (user + system: trust it
# more on a loaded machine) and the largest peak RSS (GNU time's %M) over
# REPEATS runs (default 5), and the same for `perfgate --version`: the
# start-up every figure includes (a CUDA build maps cuBLAS, ~220 MiB).
# Build with optimisation, not the sanitizer build (ASan reserves shadow
# memory that dwarfs the figures).
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
with open(f"{work}/deep.yaml", "w") as f:
    f.write("suite: s\nbenchmarks: " + "[" * 100000 + "]" * 100000 + "\n")
def lines(path, limit):
    with open(path, "w") as f:
        f.write("suite: big\nbenchmarks:\n")
        i = 0
        while f.tell() < limit:
            f.write(f"  - {{name: b{i}, kernel: add}}\n")
            i += 1
lines(f"{work}/big.yaml", 50_000_000)
lines(f"{work}/cap.yaml", 4 * 1024 * 1024 - 64)
PY

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

measure() {
  local name=$1 walls=() cpus=() rss=0 i w u s m rc msg
  shift
  for ((i = 0; i < repeats; i++)); do
    /usr/bin/time -f "%e %U %S %M" "$bin" "$@" >/dev/null 2>"$work/err" || true
    read -r w u s m <<< "$(tail -n 1 "$work/err")"
    walls+=("$w")
    cpus+=("$(echo "$u + $s" | bc -l)")
    ((m > rss)) && rss=$m
  done
  rc=0
  "$bin" "$@" >/dev/null 2>"$work/err" || rc=$?
  msg=$(head -n 1 "$work/err" | sed "s|$work/||" | cut -c1-80)
  printf '%-7s exit %d  wall %6.3f s  cpu %6.3f s  peak RSS %6.1f MiB  %s\n' "$name" "$rc" \
    "$(printf '%s\n' "${walls[@]}" | median)" "$(printf '%s\n' "${cpus[@]}" | median)" \
    "$(echo "$rss / 1024" | bc -l)" "$msg"
}
echo "perfgate validate on hostile suites ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)); binary: $bin"
measure startup --version
measure deep validate "$work/deep.yaml"
measure big validate "$work/big.yaml"
measure cap validate "$work/cap.yaml"
measure zero validate /dev/zero
