#!/usr/bin/env bash
# bisect_runs.sh - `perfgate bisect` on the sharp 32-commit repository of
# tests/data/bisect/make_repo.sh (commit 19: +10 % in kern_a; commit 7: +2 %
# in kern_b), RUNS times from scratch (--restart; the builds stay cached),
# one line per run: the result, the commit it names, its interval, the
# steps, the wall time and the load average before and after.
# usage: bash bench/bisect_runs.sh [RUNS=10] [PERFGATE=build/perfgate] [DIR=/tmp/perfgate-bisect-runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
pg=$(realpath "${2:-build/perfgate}")
dir=${3:-/tmp/perfgate-bisect-runs}
src=$(pwd)
rm -rf "$dir"
mkdir -p "$dir"
bash tests/data/bisect/make_repo.sh "$dir/repo" sharp
cat >"$dir/kern.yaml" <<'YAML'
suite: kern
defaults:
  threads: 1
  min_run_time: 0.4s
benchmarks:
  - name: a
    plugin: "{build}/libkern.so"
    symbol: kern_a
  - name: b
    plugin: "{build}/libkern.so"
    symbol: kern_b
YAML
sha19=$(git -C "$dir/repo" rev-parse main~13)
echo "# bisect_runs: $runs runs, $(nproc) cores, $("$pg" --version); commit 19 is ${sha19:0:7}"
found=0
for i in $(seq 1 "$runs"); do
  before=$(cut -d' ' -f1-3 /proc/loadavg)
  t0=$(date +%s.%N)
  rc=0
  (cd "$dir/repo" && "$pg" bisect main~31 main --build "make PERFGATE_INCLUDE='$src/include'" --restart \
    --json "$dir/run$i.json" "$dir/kern.yaml" >"$dir/run$i.out" 2>&1) || rc=$?
  t1=$(date +%s.%N)
  line=$(python3 - "$dir/run$i.json" "$sha19" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["result"]
steps = len(d["steps"])
kind = r.get("kind")
ok = 0
what = kind
if kind == "found":
    sha = d["commits"][r["culprit"]]["sha"]
    st = d["steps"][r["step"]]
    what = "found %s (commit %d) %+.1f%% [%+.1f, %+.1f]" % (sha[:7], r["culprit"] + 1, (st["ratio"] - 1) * 100,
                                                        (st["ci_lo"] - 1) * 100, (st["ci_hi"] - 1) * 100)
    ok = int(sha == sys.argv[2] and steps <= 7)
print("%d %s, %d steps" % (ok, what, steps))
PY
) || line="0 no JSON (exit $rc)"
  found=$((found + ${line%% *}))
  printf 'run %2d: %s, exit %d, %.0f s; load %s -> %s\n' "$i" "${line#* }" "$rc" "$(echo "$t1 - $t0" | bc -l)" \
    "$before" "$(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "# commit 19 named in <= 7 steps: $found of $runs"
