#!/usr/bin/env bash
# gate10.sh - time to verdict of an interleaved gate on a 10-case plugin suite
# (bench/gate10.yaml) with identical builds (libng_base.so vs libng_same.so),
# as CI runs it (CI=true: confirmation on). TRIALS sequential gates (the
# default), then FIXED gates with --fixed-rounds (every case all 20 rounds) for
# the ratio. Prints wall seconds per gate, verdict counts and the rounds each
# case took (median / max, from the JSON report), with the load average.
#
# usage: bash bench/gate10.sh [TRIALS=5] [FIXED=1]
#        PERFGATE_NOISE_BUILD=DIR (default build-bench) is built as Release if needed.
set -euo pipefail
cd "$(dirname "$0")/.."
trials=${1:-5}
fixed=${2:-1}
build=${PERFGATE_NOISE_BUILD:-build-bench}
if [[ ! -x "$build/perfgate" || ! -f "$build/bench/libng_same.so" ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPG_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j2 >/dev/null
fi
lib=$build/bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# gate10: $trials sequential + $fixed fixed-round A/A gates of 10 plugin cases on $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
run() { # NAME EXTRA...
  local name=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  CI=true "$build/perfgate" gate --style none --db "$tmp/g.db" --branch head --commit "$name" \
    --base-build "$lib/libng_base.so" --head-build "$lib/libng_same.so" --json "$tmp/$name.json" "$@" \
    bench/gate10.yaml >/dev/null 2>&1 || true
  t1=$(date +%s.%N)
  python3 - "$tmp/$name.json" "$name" "$t0" "$t1" "$(cut -d' ' -f1 /proc/loadavg)" <<'PY'
import collections, json, statistics, sys
path, name, t0, t1, load = sys.argv[1:]
wall = float(t1) - float(t0)
try:
    doc = json.load(open(path))
except Exception as e:
    print("  %-8s %6.1f s  (no report: %s)" % (name, float(wall), e)); sys.exit()
vs = doc["verdicts"]
counts = collections.Counter(v["verdict"] for v in vs)
rounds = sorted(v.get("rounds", 0) for v in vs)
print("  %-8s %6.1f s  load %s  %s  rounds per case median %s max %s" % (
    name, float(wall), load, " ".join("%s %d" % kv for kv in sorted(counts.items())),
    statistics.median(rounds) if rounds else "-", rounds[-1] if rounds else "-"))
PY
}
for i in $(seq 1 "$trials"); do run "seq$i"; done
for i in $(seq 1 "$fixed"); do run "fixed$i" --fixed-rounds; done
