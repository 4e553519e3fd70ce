#!/usr/bin/env bash
# scale.sh - the storage side at scale, on generated databases (bench/scale_db.c)
# and generated 100 MB result files (bench/import_memory.sh):
#   `perfgate compare` of the newest of 6 runs of 10,000 cases against last:5,
#   `perfgate history` of 1,000 cases over 365 nightly runs (--last 0: every run),
#   `perfgate site` of 1,000 cases over 365 gated nightly runs (index and 1,000 case pages),
#   `perfgate import` of a ~100 MB hyperfine and Google Benchmark file (peak RSS),
# for each Release build given, REPS times each, with the load average. CPU is
# user + sys (what load moves least); peak is GNU time's maximum RSS.
#
# usage: bash bench/scale.sh [REPS=3] [DIR=/tmp/perfgate-scale]
#        PERFGATE_SCALE_BUILDS="build-bench build-bench-nocuda" (default: build-bench,
#        plus build-bench-nocuda when it exists); build-bench is configured as
#        Release (CUDA when the toolkit is found) and built if needed.
#        The databases and files are generated once and kept in DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
dir=${2:-/tmp/perfgate-scale}
builds=${PERFGATE_SCALE_BUILDS:-build-bench$([[ -x build-bench-nocuda/perfgate ]] && echo " build-bench-nocuda" || true)}
first=${builds%% *}
if [[ ! -x "$first/perfgate" || ! -x "$first/bench/bench_scale_db" ]]; then
  cmake -S . -B "$first" -DCMAKE_BUILD_TYPE=Release -DPG_BUILD_TESTS=OFF >/dev/null
  cmake --build "$first" -j2 >/dev/null
fi
mkdir -p "$dir"
[[ -f "$dir/compare.db" ]] || "$first/bench/bench_scale_db" compare "$dir/compare.db"
[[ -f "$dir/history.db" ]] || "$first/bench/bench_scale_db" history "$dir/history.db"
[[ -f "$dir/site.db" ]] || "$first/bench/bench_scale_db" site "$dir/site.db"

# NAME CMD...: one line "NAME: CPU s (user+sys), wall s, peak MB".
timed() {
  local name=$1
  shift
  /usr/bin/time -f '%e %U %S %M' -o "$dir/time" "$@" >/dev/null 2>"$dir/err" || { cat "$dir/err" >&2; return 1; }
  read -r wall user sys rss <"$dir/time"
  printf '  %-36s %5.2f s CPU (%s user + %s sys)  %5.2f s wall  %6.1f MB peak\n' "$name" \
    "$(echo "$user + $sys" | bc -l)" "$user" "$sys" "$wall" "$(echo "$rss / 1024" | bc -l)"
}

echo "# scale: load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
for b in $builds; do
  pg=$b/perfgate
  echo "## $b: $("$pg" --version)"
  for i in $(seq 1 "$reps"); do
    timed "compare 10000 cases vs last:5" "$pg" compare --db "$dir/compare.db" --head latest --base last:5 --format json
    timed "history 1000 cases x 365 runs" "$pg" history --db "$dir/history.db" --last 0 --format json
    timed "site 1000 cases x 365 runs" "$pg" site --db "$dir/site.db" -o "$dir/site"
  done
  PERFGATE_IMPORT_DIR=$dir bash bench/import_memory.sh "$pg" 100 | sed 's/^/  /'
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
