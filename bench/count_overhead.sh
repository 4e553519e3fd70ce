#!/usr/bin/env bash
# count_overhead.sh - nanoseconds libperfgate_count.so adds per forwarded BLAS call: a 1x1 cblas_sgemv in
# a loop without the library, with it preloaded but not counting, and counting (every call recorded).
#   usage: bash bench/count_overhead.sh [CALLS] [ROUNDS]     (default 1000000 calls, 5 rounds)
# Each round runs the three variants back to back and prints their ns/call; the summary gives the median
# over rounds of each variant and of the differences, which load moves less than the absolute figures.
source "$(dirname "$0")/common.sh"
CALLS=${1:-1000000}
ROUNDS=${2:-5}
LIB="$BUILD/libperfgate_count.so"
cc -O2 -o "$TMP/prog" "$ROOT/bench/count_overhead.c" -lopenblas
mkdir -p "$TMP/counts"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$ROUNDS"); do
  plain=$(OPENBLAS_NUM_THREADS=1 "$TMP/prog" "$CALLS")
  off=$(OPENBLAS_NUM_THREADS=1 LD_PRELOAD="$LIB" "$TMP/prog" "$CALLS")
  on=$(OPENBLAS_NUM_THREADS=1 LD_PRELOAD="$LIB" PERFGATE_COUNT_DIR="$TMP/counts" "$TMP/prog" "$CALLS")
  echo "$plain $off $on"
done | python3 -c '
import statistics, sys
rows = [list(map(float, l.split())) for l in sys.stdin]
for r in rows:
    print("round: no library %.2f ns/call, loaded not counting %.2f, counting %.2f" % tuple(r))
med = lambda k: statistics.median(r[k] for r in rows)
dmed = lambda k: statistics.median(r[k] - r[0] for r in rows)
print("median: no library %.2f ns/call; not counting %.2f (+%.2f ns); counting %.2f (+%.2f ns)"
      % (med(0), med(1), dmed(1), med(2), dmed(2)))
'
