#!/usr/bin/env bash
# overhead.sh - the harness's own cost: the `empty` kernel's median time per iteration, and the
# clock overhead per block the engine measured at start (from the stored result details).
#   usage: bash bench/overhead.sh [RUNS]     (default 5)
source "$(dirname "$0")/common.sh"
RUNS=${1:-5}
for i in $(seq "$RUNS"); do
  "$PERFGATE" run --db "$TMP/pg.db" --commit bench --branch bench "$ROOT/bench/overhead.yaml" >/dev/null
done
sqlite3 -separator ' ' "$TMP/pg.db" "SELECT median*1e9, number_per_run, extra FROM results ORDER BY run_id;" |
python3 -c '
import json, sys
for line in sys.stdin:
    med, npr, extra = line.split(" ", 2)
    e = json.loads(extra)
    oh = e["clock_overhead_ns"]
    print("empty kernel: %.3f ns/iteration, %s iterations per block, clock overhead %.1f ns per read "
          "(%.6f ns/iteration amortised), resolution %.0f ns" % (float(med), npr, oh, oh / int(npr),
          e["clock_resolution_ns"]))
'
