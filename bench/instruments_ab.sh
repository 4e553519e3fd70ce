#!/usr/bin/env bash
# instruments_ab.sh - the instructions instrument in history mode: does a
# known 1% (0.5%) change of one case fail every gate, and nothing else?
#
# bench/plugin/counted.c in four builds with the same machine code (checked:
# .text byte-identical) that differ in one data value: cnt_plus10 makes `mix`
# run 1% more rounds, cnt_plus5 0.5%. Three runs of cnt_base are stored as
# main; then N separate `perfgate gate --instrument instructions` processes
# against them (each on a copy of that database, so no head run becomes a
# baseline), in four series:
#   A/B  cnt_plus10 at the default threshold (0.5%): `mix` REGRESSED in every
#        gate, nothing else
#   A/B  cnt_plus5 at 0.25%: `mix` REGRESSED in every gate, nothing else
#   A/A  cnt_same at the default: no case may be flagged
#   A/B  cnt_plus10 at 1%: a change of 1% more rounds sits on that threshold
#        (a hair under 1% more instructions): what it gives is printed, not
#        assumed
# The threshold is the suites' `regression: {exact_threshold: ...}`; each
# line also gives the change the gates measured for `mix`.
#
# usage: bench/instruments_ab.sh [N=10]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10}
build=${PERFGATE_AB_BUILD:-build-rel}
if [[ ! -x "$build/perfgate" || ! -f "$build/bench/libcnt_plus5.so" ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPG_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j2 --target perfgate cnt_base cnt_same cnt_plus10 cnt_plus5 >/dev/null
fi
pg=$build/perfgate
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset CI GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_SHA GITHUB_REF_NAME GITHUB_BASE_REF GITHUB_STEP_SUMMARY
echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg); $(valgrind --version)"
for v in same plus10 plus5; do
  objcopy -O binary --only-section=.text "$build/bench/libcnt_base.so" "$tmp/t0"
  objcopy -O binary --only-section=.text "$build/bench/libcnt_$v.so" "$tmp/t1"
  if ! cmp -s "$tmp/t0" "$tmp/t1"; then
    echo "cnt_$v: .text differs from cnt_base" >&2
    exit 3
  fi
  echo "cnt_$v: .text identical to cnt_base"
done
suite() { # VARIANT THRESHOLD -> a suite of the three cases on that build
  local reg=''
  [[ $2 == default ]] || reg=", regression: {exact_threshold: $2}"
  cat >"$tmp/$1-$2.yaml" <<YAML
suite: counted
defaults: {threads: 1, instrument: instructions$reg}
benchmarks:
  - {name: mix, symbol: mix, plugin: "$PWD/$build/bench/libcnt_$1.so", params: {n: 20000}}
  - {name: sum, symbol: sum, plugin: "$PWD/$build/bench/libcnt_$1.so", params: {n: 10000}}
  - {name: sort, symbol: sort, plugin: "$PWD/$build/bench/libcnt_$1.so", params: {n: 2000}}
YAML
  echo "$tmp/$1-$2.yaml"
}
for k in 1 2 3; do
  "$pg" run --db "$tmp/base.db" --branch main --commit "base$k" --style none "$(suite base default)" >/dev/null
done
series() { # LABEL VARIANT THRESHOLD
  local label=$1 v=$2 th=$3 i rc s
  local -A tally=()
  for i in $(seq 1 "$n"); do
    cp "$tmp/base.db" "$tmp/g.db"
    rc=0
    "$pg" gate --db "$tmp/g.db" --branch pr --commit "head$i" --base last:3:main --style none \
      --json "$tmp/g.json" "$(suite "$v" "$th")" >/dev/null 2>"$tmp/g.err" || rc=$?
    s=$(python3 - "$tmp/g.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
vs = [c for c in d["verdicts"] if c["key"].endswith("#instructions")]
mix = [c for c in vs if "/mix[" in c["key"]]
print(" ".join(c["key"].split("/")[1].split("[")[0] + ":" + c["verdict"] for c in vs)
      + (" (mix %+.4f%%)" % (100 * (mix[0]["ratio"] - 1)) if mix and mix[0].get("ratio") else ""))
PY
)
    tally["exit=$rc $s"]=$((${tally["exit=$rc $s"]:-0} + 1))
  done
  for s in "${!tally[@]}"; do echo "$label: ${tally[$s]}/$n gates: $s"; done
}
series "A/B cnt_plus10 (+1% mix rounds), default threshold" plus10 default
series "A/B cnt_plus5 (+0.5% mix rounds), threshold 0.25%" plus5 0.25%
series "A/A cnt_same, default threshold" same default
series "A/B cnt_plus10 (+1% mix rounds), threshold 1%" plus10 1%
echo "# $(date -u +%FT%TZ) load after: $(cut -d' ' -f1-3 /proc/loadavg)"
