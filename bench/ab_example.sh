#!/usr/bin/env bash
# A/B measurement of `perfgate ab` on the example plugin:
#   slow: base libpg_example.so vs head libpg_example_slow.so (matmul_chain does
#         10% more GEMMs; saxpy is unchanged) -> expect matmul_chain REGRESSED only
#   same: base libpg_example.so vs head libpg_example_same.so (a second, identical
#         build) -> expect nothing flagged
# each repeated REPS times. Prints one line per run and the counts at the end.
#
# usage: bash bench/ab_example.sh [BUILD_DIR] [REPS] [ROUNDS]
#        (defaults: build 10, and perfgate's default rounds; builds BUILD_DIR as
#        Release if perfgate is missing)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
reps=${2:-10}
rounds=${3:-}
if [[ ! -x "$build/perfgate" || ! -f "$build/examples/plugin/libpg_example_slow.so" ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPG_BUILD_TESTS=OFF > /dev/null
  cmake --build "$build" -j2 > /dev/null
fi
lib="$build/examples/plugin"
log=$(mktemp -d /tmp/perfgate-ab-bench-XXXXXX)
echo "# perfgate ab on the example plugin: $reps runs per pair, ${rounds:-default} rounds each; raw output in $log"
echo "# machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A count
for kind in slow same; do
  for i in $(seq 1 "$reps"); do
    out="$log/$kind-$i.txt"
    start=$(date +%s)
    "$build/perfgate" ab --base "$lib/libpg_example.so" --head "$lib/libpg_example_$kind.so" ${rounds:+-r "$rounds"} \
      suites/plugin.yaml > "$out" 2>&1 || true
    mm=$(awk '$1 ~ /^plugin\/matmul_chain/ {for (f = 1; f <= NF; f++) if ($f ~ /^(SAME|REGRESSED|IMPROVED|UNSURE|ERROR)$/) print $f}' "$out" | head -n1)
    sx=$(awk '$1 ~ /^plugin\/saxpy/ {for (f = 1; f <= NF; f++) if ($f ~ /^(SAME|REGRESSED|IMPROVED|UNSURE|ERROR)$/) print $f}' "$out" | head -n1)
    # the change and its interval: the first field ending in % and the bracketed pair after it
    mmch=$(awk '$1 ~ /^plugin\/matmul_chain/ {for (f = 2; f <= NF; f++) if ($f ~ /%$/) {print $f, $(f+1), $(f+2); exit}}' "$out")
    sxch=$(awk '$1 ~ /^plugin\/saxpy/ {for (f = 2; f <= NF; f++) if ($f ~ /%$/) {print $f, $(f+1), $(f+2); exit}}' "$out")
    echo "$kind run $i: matmul_chain $mm ($mmch)  saxpy $sx ($sxch)  [$(( $(date +%s) - start )) s]"
    count[$kind-mm-$mm]=$(( ${count[$kind-mm-$mm]:-0} + 1 ))
    count[$kind-sx-$sx]=$(( ${count[$kind-sx-$sx]:-0} + 1 ))
  done
done
echo "# counts over $reps runs each"
for kind in slow same; do
  for c in mm sx; do
    name=$([[ $c == mm ]] && echo matmul_chain || echo saxpy)
    line="$kind $name:"
    for v in REGRESSED IMPROVED SAME UNSURE ERROR; do
      line="$line $v=${count[$kind-$c-$v]:-0}"
    done
    echo "$line"
  done
done
