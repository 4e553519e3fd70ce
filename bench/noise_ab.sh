#!/usr/bin/env bash
# noise_ab.sh - the A/B measurement: interleaved gates on a noisy machine.
#
# `perfgate gate --base-build B --head-build H` on bench/noise_ab.yaml (the 20
# cases of bench/noise_gate.yaml as the plugin bench/plugin/ng.c), base build
# libng_base.so against:
#   same    libng_same.so, an identical build (A/A): runs with any REGRESSED;
#   slow10  libng_slow10.so, +10% injected into sgemm n=128 only;
#   slow5   libng_slow5.so, +5% injected there;
# TRIALS gates each, with confirmation as in CI (CI=true: a REGRESSED case is
# re-measured in fresh interleaved rounds and fails only if confirmed).
# Counts, per series: the first verdict REGRESSED (before confirmation) and
# the final one, for the injected case and for any other case.
#
# Also, per series: wall seconds per gate (median), CPU seconds per gate
# (user + sys of perfgate and every process it started, median: what the
# machine's load moves least) and the rounds each case took (median and max
# over every case of every gate; at most ROUNDS, fewer once the sequential
# rule settled a case). PERFGATE_NOISE_FIXED=1 adds --fixed-rounds (every case
# all rounds: the fixed-count rule, for the ratio); PERFGATE_FRESH_PROCESSES=1
# (passed through to perfgate) measures every round in fresh processes
# instead of worker processes, for the ratio of what a round costs;
# PERFGATE_ROUND_TIME=SEC (passed through too) sets the sampling per side per
# round (default for these cases: 0.0375, min_run_time/4).
#
# usage: bash bench/noise_ab.sh [TRIALS=10] [THRESHOLD=5%] [ROUNDS=perfgate's default] [HEADS="same slow10 slow5"]
#        PERFGATE_NOISE_BUILD=DIR (default build-bench) is built as Release if needed.
#        CPU seconds need GNU time (/usr/bin/time, Debian package `time`); without it the column is "-".
#        PERFGATE_NOISE_HOG=1 runs `bench_hog mem` (a memory-bandwidth hog on the other
#        core) during every other gate, from its start to its end.
set -euo pipefail
cd "$(dirname "$0")/.."
trials=${1:-10}
threshold=${2:-5%}
rounds=${3:-}
heads=${4:-same slow10 slow5}
build=${PERFGATE_NOISE_BUILD:-build-bench}
if [[ ! -x "$build/perfgate" || ! -f "$build/bench/libng_slow5.so" ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPG_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j2 >/dev/null
fi
pg=$build/perfgate
lib=$build/bench
# PERFGATE_NOISE_KEEP=DIR keeps every gate's JSON there (rounds and interval per case).
tmp=${PERFGATE_NOISE_KEEP:-$(mktemp -d)}
mkdir -p "$tmp"
hogpid=
trap '[[ -n "$hogpid" ]] && kill "$hogpid" 2>/dev/null; [[ -n ${PERFGATE_NOISE_KEEP:-} ]] || rm -rf "$tmp"' EXIT
start=$(date +%s)
echo "# noise_ab: $trials interleaved gates per head build, threshold $threshold, ${rounds:-default} rounds${PERFGATE_NOISE_FIXED:+, --fixed-rounds}${PERFGATE_FRESH_PROCESSES:+, fresh processes every round}${PERFGATE_ROUND_TIME:+, rounds of ${PERFGATE_ROUND_TIME} s}${PERFGATE_NOISE_HOG:+, bandwidth hog in every other gate}; load $(cut -d' ' -f1-3 /proc/loadavg)"
for head in $heads; do
  for i in $(seq 1 "$trials"); do
    t0=$(date +%s.%N)
    if [[ -n "${PERFGATE_NOISE_HOG:-}" ]] && (( i % 2 == 1 )); then "$build/bench/bench_hog" mem 600 >/dev/null 2>&1 & hogpid=$!; fi
    # GNU time: user and sys of perfgate and of every process it waited for (its workers and children).
    timer=()
    [[ -x /usr/bin/time ]] && timer=(/usr/bin/time -f "%U %S" -o "$tmp/$head$i.cpu")
    CI=true "${timer[@]}" "$pg" gate --style none --db "$tmp/ab.db" --branch head --commit "$head$i" --threshold "$threshold" \
      --base-build "$lib/libng_base.so" --head-build "$lib/libng_$head.so" ${rounds:+-r "$rounds"} \
      ${PERFGATE_NOISE_FIXED:+--fixed-rounds} \
      --json "$tmp/$head$i.json" bench/noise_ab.yaml >/dev/null 2>&1 || true
    if [[ -n "$hogpid" ]]; then kill "$hogpid" 2>/dev/null || true; wait "$hogpid" 2>/dev/null || true; hogpid=; fi
    wall=$(python3 -c "import sys; print('%.1f' % (float(sys.argv[1]) - float(sys.argv[2])))" "$(date +%s.%N)" "$t0")
    echo "$wall" > "$tmp/$head$i.wall"
    echo "  $head $i: $wall s, CPU $(tail -n1 "$tmp/$head$i.cpu" 2>/dev/null | awk '{printf "%.1f", $1 + $2}') s, load $(cut -d' ' -f1 /proc/loadavg)${PERFGATE_NOISE_HOG:+$( (( i % 2 == 1 )) && echo ' (hog)')}"
  done
done
echo "noise_ab: $(wc -w <<< "$heads") x $trials gates in $(( $(date +%s) - start )) s on $(nproc) cores, $(date -u +%FT%TZ)"
python3 - "$tmp" "$trials" "${PERFGATE_NOISE_HOG:+, hog}${PERFGATE_NOISE_FIXED:+, fixed}${PERFGATE_FRESH_PROCESSES:+, fresh}${PERFGATE_ROUND_TIME:+, ${PERFGATE_ROUND_TIME} s}" $heads <<'PY'
import json, sys
tmp, trials, tag, heads = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
target = "ngp/sgemm[n=128]@1:cpu"
def first(c):  # REGRESSED before confirmation: confirmation ran (or was due) on it
    return c["verdict"] == "REGRESSED" or c.get("confirm", "none") != "none"
print("\n| head build | gates | injected case REGRESSED first / final | another case REGRESSED first / final | gates with any REGRESSED (final) | failed gates | s per gate (median) | CPU s per gate (median) | rounds per case median / max |")
print("|---|---|---|---|---|---|---|---|---|")
for head in heads:
    hit1 = hit = oth1 = oth = anyr = failed = 0
    walls, cpus, rounds = [], [], []
    for i in range(1, trials + 1):
        try:
            doc = json.load(open("%s/%s%d.json" % (tmp, head, i)))
        except Exception:
            failed += 1
            continue
        cs = doc["verdicts"]
        walls.append(float(open("%s/%s%d.wall" % (tmp, head, i)).read()))
        try:
            cpus.append(sum(float(x) for x in open("%s/%s%d.cpu" % (tmp, head, i)).read().split()[-2:]))
        except Exception:
            pass
        rounds += [c["rounds"] for c in cs if "rounds" in c]
        t = [c for c in cs if c["key"] == target]
        others = [c for c in cs if c["key"] != target]
        hit1 += bool(t) and first(t[0])
        hit += bool(t) and t[0]["verdict"] == "REGRESSED"
        oth1 += any(first(c) for c in others)
        oth += any(c["verdict"] == "REGRESSED" for c in others)
        anyr += any(c["verdict"] == "REGRESSED" for c in cs)
    walls.sort()
    cpus.sort()
    rounds.sort()
    print("| %s%s | %d | %d / %d | %d / %d | %d | %d | %s | %s | %s |" % (head, tag, trials, hit1, hit, oth1, oth, anyr, failed,
          "%.1f" % walls[len(walls) // 2] if walls else "-", "%.1f" % cpus[len(cpus) // 2] if cpus else "-",
          "%d / %d" % (rounds[len(rounds) // 2], rounds[-1]) if rounds else "-"))
PY
