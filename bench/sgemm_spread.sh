#!/usr/bin/env bash
# sgemm_spread.sh - run-to-run spread of sgemm n=256 at 1 thread: 10 separate perfgate runs
# versus 10 separate runs of the same kernel under Google Benchmark (libbenchmark-dev), in one
# session on one machine, each reported as max/min of the per-run medians. Both harnesses are
# shown with wall time and with process CPU time (perfgate --clock cpu; gbench's cpu_time).
#   usage: bash bench/sgemm_spread.sh [RUNS]     (default 10)
source "$(dirname "$0")/common.sh"
RUNS=${1:-10}
g++ -O2 -o "$TMP/gbench_sgemm" "$ROOT/bench/gbench_sgemm.cc" -lbenchmark -lpthread -lopenblas

: > "$TMP/pg.txt"
: > "$TMP/pgcpu.txt"
: > "$TMP/gb.txt"
: > "$TMP/gbcpu.txt"
for i in $(seq "$RUNS"); do
  # Alternate the two harnesses so a drift of the machine hits both alike.
  "$PERFGATE" run --db "$TMP/pg.db" --commit bench --branch bench "$ROOT/bench/sgemm256.yaml" >/dev/null
  pg_median "$TMP/pg.db" >> "$TMP/pg.txt"
  "$PERFGATE" run --clock cpu --db "$TMP/pg.db" --commit bench --branch bench "$ROOT/bench/sgemm256.yaml" >/dev/null
  pg_median "$TMP/pg.db" >> "$TMP/pgcpu.txt"
  OPENBLAS_NUM_THREADS=1 "$TMP/gbench_sgemm" --benchmark_min_time=0.1 --benchmark_repetitions=5 \
    --benchmark_report_aggregates_only=true --benchmark_format=json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin)
m=[b for b in d["benchmarks"] if b.get("aggregate_name")=="median"][0]
print(m["real_time"]*1e-6, m["cpu_time"]*1e-6)' > "$TMP/one.txt"
  cut -d" " -f1 "$TMP/one.txt" >> "$TMP/gb.txt"
  cut -d" " -f2 "$TMP/one.txt" >> "$TMP/gbcpu.txt"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$TMP/pg.txt" "$TMP/pgcpu.txt" "$TMP/gb.txt" "$TMP/gbcpu.txt" <<'PY'
import statistics, sys
for name, path in (("perfgate wall", sys.argv[1]), ("perfgate cpu", sys.argv[2]),
                   ("gbench real time", sys.argv[3]), ("gbench cpu time", sys.argv[4])):
    v = [float(x) for x in open(path)]
    print(f"{name:17s} runs={len(v)} medians(us)=[{', '.join(f'{x*1e6:.1f}' for x in v)}]")
    print(f"{'':17s} median of medians {statistics.median(v)*1e6:.1f} us, max/min {max(v)/min(v):.3f}")
PY
