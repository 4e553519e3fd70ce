#!/usr/bin/env bash
# run_cost.sh - what a plain `perfgate run` of one small case costs, whole process (/usr/bin/time: wall
# seconds and peak RSS), each the median of RUNS runs:
#   first     the first run on a machine: a fresh database, so the roofs are measured and stored
#   later     a later run: the roofs are read from the database (the run's usual cost)
#   no-roof   --no-roofline: no roofs at all
#   overhead  a later run of the same case sampled for 1 ms: the run's fixed overhead
#   usage: bash bench/run_cost.sh [RUNS]     (default 7)
source "$(dirname "$0")/common.sh"
RUNS=${1:-7}
one() { # LABEL, then the command; prints the median wall seconds and peak RSS over RUNS runs
  local label=$1
  shift
  for _ in $(seq "$RUNS"); do
    [[ $label == first ]] && rm -f "$TMP"/first.db*
    /usr/bin/time -f '%e %M' -o "$TMP/t" "$@" >/dev/null 2>&1
    cat "$TMP/t"
  done | python3 -c '
import statistics, sys
rows = [line.split() for line in sys.stdin]
wall = statistics.median(float(r[0]) for r in rows)
rss = statistics.median(float(r[1]) for r in rows) / 1024
print("%-9s wall %.3f s  peak RSS %.1f MiB  (median of %d)" % (sys.argv[1], wall, rss, len(rows)))
' "$label"
}
echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"
"$PERFGATE" run --db "$TMP/later.db" "$ROOT/bench/run_cost.yaml" >/dev/null 2>&1
one first "$PERFGATE" run --db "$TMP/first.db" "$ROOT/bench/run_cost.yaml"
one later "$PERFGATE" run --db "$TMP/later.db" "$ROOT/bench/run_cost.yaml"
one no-roof "$PERFGATE" run --no-roofline --db "$TMP/later.db" "$ROOT/bench/run_cost.yaml"
one overhead "$PERFGATE" run --db "$TMP/later.db" "$ROOT/bench/run_cost_zero.yaml"
echo "# load: $(cut -d' ' -f1-3 /proc/loadavg)"
