#!/usr/bin/env bash
# instruments_cost.sh - what each instrument costs per case against native timing.
#
# For each case, one `perfgate run --no-store --instrument I --filter CASE`
# per instrument (time, instructions, memory), timed with /usr/bin/time: wall
# seconds and CPU seconds (user+sys of perfgate and its children: the
# Valgrind processes included; load moves wall time, much less CPU time).
# The factor is against the time instrument, whose wall time is its sampling
# (min_run_time 0.5 s per case) plus warm-up: what a suite costs per case
# today. Also printed: the case's native time per iteration (the time
# instrument's median) and, for instructions, CPU seconds per measured
# iteration against it (Valgrind's slowdown on this code).
#
# usage: bench/instruments_cost.sh [GLOB...]   (default: a few shipped cases)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PERFGATE_COST_BUILD:-build-rel}
if [[ ! -x "$build/perfgate" || ! -x "$build/perfgate-meter" ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPG_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j2 >/dev/null
fi
export PERFGATE_BUILD=$build
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cases=("$@")
if [[ ${#cases[@]} -eq 0 ]]; then
  cases=('cpu/sgemm[[]n=128]*' 'cpu/add*' 'cpu/softmax*' 'cpu/empty*' 'plugin/saxpy*' 'plugin/matmul_chain*')
fi
echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $(valgrind --version)"
printf '%-28s %-13s %8s %8s %8s %8s %12s\n' case instrument wall_s cpu_s x_wall x_cpu per_iter
for c in "${cases[@]}"; do
  native_wall='' native_cpu='' median=''
  for inst in time instructions memory; do
    /usr/bin/time -f '%e %U %S' -o "$tmp/t" "$build/perfgate" run --no-store --style none --instrument "$inst" \
      --filter "$c" --json "$tmp/r.json" suites/cpu.yaml suites/plugin.yaml >/dev/null 2>&1 || true
    read -r wall user sys <"$tmp/t"
    cpu=$(python3 -c "print(round($user + $sys, 2))")
    if [[ $inst == time ]]; then
      native_wall=$wall native_cpu=$cpu
      median=$(python3 -c '
import json, sys
rs = [r for r in json.load(open(sys.argv[1]))["results"] if r["status"] == "ok"]
print(rs[0]["summary"]["median"] if rs else "nan")' "$tmp/r.json")
    fi
    per=$(python3 -c "
m = float('$median')
print('%.3g s' % m if '$inst' == 'time' else ('x%.0f' % ($cpu / 2 / 2 / m) if m == m and m > 0 and '$inst' == 'instructions' else '-'))")
    printf '%-28s %-13s %8s %8s %8s %8s %12s\n' "$c" "$inst" "$wall" "$cpu" \
      "$(python3 -c "print('%.1f' % ($wall / $native_wall))")" "$(python3 -c "print('%.1f' % ($cpu / max($native_cpu, 0.01)))")" "$per"
  done
done
echo "# per_iter: time: native seconds per iteration; instructions: CPU seconds per iteration under Valgrind"
echo "# (2 processes x (1 warm-up + 1 measured) iterations, start-up included) over native: an upper bound"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
