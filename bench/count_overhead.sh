#!/usr/bin/env bash
# count_overhead.sh - nanoseconds libperfgate_count.so adds per forwarded BLAS call: a 1x1 sgemv in a loop,
# through CBLAS and through the Fortran interface, without the library, with it preloaded but not counting,
# and counting (every call recorded).
#   usage: bash bench/count_overhead.sh [CALLS] [ROUNDS]     (default 1000000 calls, 5 rounds)
#   BASE_LIB=/path/to/other/libperfgate_count.so bash bench/count_overhead.sh   # also that build, not counting
# Each round runs the variants back to back and prints their ns/call; the summary gives the median over rounds
# of each variant and of the differences to the run without the library, which load moves less than the
# absolute figures. With BASE_LIB the same rounds also run the other build loaded and not counting, so two
# builds of the library are compared side by side (a base without the Fortran entry points forwards nothing
# there: its Fortran figure is the plain call's). Where Valgrind is installed, the instructions each variant
# executes per call follow (Callgrind's total over 100000 calls less its total over none): exact, whatever
# the load.
source "$(dirname "$0")/common.sh"
CALLS=${1:-1000000}
ROUNDS=${2:-5}
LIB="$BUILD/libperfgate_count.so"
cc -O2 -o "$TMP/prog" "$ROOT/bench/count_overhead.c" -lopenblas
mkdir -p "$TMP/counts"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
for api in cblas fortran; do
  for r in $(seq "$ROUNDS"); do
    plain=$(OPENBLAS_NUM_THREADS=1 "$TMP/prog" "$CALLS" 7 "$api")
    off=$(OPENBLAS_NUM_THREADS=1 LD_PRELOAD="$LIB" "$TMP/prog" "$CALLS" 7 "$api")
    on=$(OPENBLAS_NUM_THREADS=1 LD_PRELOAD="$LIB" PERFGATE_COUNT_DIR="$TMP/counts" "$TMP/prog" "$CALLS" 7 "$api")
    base=-
    if [[ -n "${BASE_LIB:-}" ]]; then
      base=$(OPENBLAS_NUM_THREADS=1 LD_PRELOAD="$BASE_LIB" "$TMP/prog" "$CALLS" 7 "$api")
    fi
    echo "$api $plain $off $on $base"
  done
done | python3 -c '
import statistics, sys
rows = [l.split() for l in sys.stdin]
for api in ("cblas", "fortran"):
    rs = [[float(x) if x != "-" else None for x in r[1:]] for r in rows if r[0] == api]
    for r in rs:
        print("%s round: no library %.2f ns/call, loaded not counting %.2f, counting %.2f%s"
              % (api, r[0], r[1], r[2], "" if r[3] is None else ", base build not counting %.2f" % r[3]))
    med = lambda k: statistics.median(r[k] for r in rs)
    dmed = lambda k: statistics.median(r[k] - r[0] for r in rs)
    line = ("%s median: no library %.2f ns/call; not counting %.2f (+%.2f ns); counting %.2f (+%.2f ns)"
            % (api, med(0), med(1), dmed(1), med(2), dmed(2)))
    if rs and rs[0][3] is not None:
        line += "; base build not counting %.2f (+%.2f ns)" % (med(3), dmed(3))
    print(line)
'
if command -v valgrind >/dev/null; then
  # Instructions per call: the program's total at 100000 calls less its total at none (start-up cancels).
  ir() {
    OPENBLAS_NUM_THREADS=1 "$@" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
  }
  per_call() {
    local a b
    a=$(ir env "${@:2}" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$TMP/prog" 0 1 "$1")
    b=$(ir env "${@:2}" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$TMP/prog" 100000 1 "$1")
    python3 -c "print('%.2f' % (($b - $a) / 100000))"
  }
  for api in cblas fortran; do
    line="$api instructions/call: no library $(per_call "$api")"
    line+=", not counting $(per_call "$api" LD_PRELOAD="$LIB")"
    line+=", counting $(per_call "$api" LD_PRELOAD="$LIB" PERFGATE_COUNT_DIR="$TMP/counts")"
    if [[ -n "${BASE_LIB:-}" ]]; then
      line+=", base build not counting $(per_call "$api" LD_PRELOAD="$BASE_LIB")"
      line+=", base build counting $(per_call "$api" LD_PRELOAD="$BASE_LIB" PERFGATE_COUNT_DIR="$TMP/counts")"
    fi
    echo "$line"
  done
fi
