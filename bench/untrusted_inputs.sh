#!/usr/bin/env bash
# Benchmark (not a test): what untrusted input costs the trusted side.
#   report   `post --dry-run --from` a JSON report of N results and N verdicts
#            (each result with 30 raw samples, as a gate writes them): wall
#            time and peak RSS for N = 10k, 20k, 40k (linear: the ratios) and
#            400k (past the 100,000-item limit: refused as it is read)
#   bomb     the db fetch zip reader on a 3.4 MB deflate entry of 3.5 GiB of
#            zeros declaring 100 bytes (bench_zip_bomb)
#
#   bash bench/untrusted_inputs.sh [BUILD_DIR]     (default build; a Release build)
#
# Figures on a shared machine move with its load: read the ratios, and the
# load average printed first.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bin=$build/perfgate
[[ -x "$bin" ]] || { echo "no perfgate binary at $bin" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "GNU time (/usr/bin/time) is needed for peak memory" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "untrusted inputs ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)); binary: $bin"

report() {
  python3 - "$1" "$2" <<'PY'
import json, sys
n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.write('{"schema_version": 1, "run": {"suite_set": "cpu", "commit": "c0ffee"}, '
            '"summary": {"exit_code": 1, "outcome": "FAIL"}, "checks": [], "results": [')
    samples = json.dumps([0.04 + i * 1e-5 for i in range(30)])
    for i in range(n):
        f.write(('' if i == 0 else ',') + '{"key": "cpu/k%d[n=1]@1:cpu", "suite": "cpu", "name": "k%d", '
                '"params": {"n": 1}, "threads": 1, "device": "cpu", "metric": "time", "unit": "s", "status": "ok", '
                '"number_per_run": 100, "summary": {"n": 30, "median": 0.04, "q1": 0.0399, "q3": 0.0401}, '
                '"samples": %s, "flops": 2.0e9, "warmup_s": 0.05, "threshold": 0.05, "alpha": 0.05}' % (i, i, samples))
    f.write('], "verdicts": [')
    for i in range(n):
        f.write(('' if i == 0 else ',') + '{"key": "cpu/k%d[n=1]@1:cpu", "verdict": "REGRESSED", "reason": '
                '"slower beyond 5%%", "base_median": 0.035, "head_median": 0.04, "ratio": 1.14, "ci_lo": 1.1, '
                '"ci_hi": 1.2, "p": 0.001, "p_adj": 0.002}' % i)
    f.write(']}\n')
PY
}

for n in 10000 20000 40000 400000; do
  report "$n" "$work/r.json"
  size=$(stat -c %s "$work/r.json")
  rc=0
  /usr/bin/time -f "%e %M" "$bin" post --dry-run --from "$work/r.json" >/dev/null 2>"$work/err" || rc=$?
  read -r wall rss <<< "$(tail -n 1 "$work/err")"
  msg=$(grep -m1 perfgate "$work/err" | sed "s|$work/||" | cut -c1-90 || true)
  printf 'report %6d results (%5.0f MB): exit %d  wall %7.2f s  peak RSS %6.1f MiB  %s\n' "$n" \
    "$(echo "$size / 1000000" | bc -l)" "$rc" "$wall" "$(echo "$rss / 1024" | bc -l)" "$msg"
  rm -f "$work/r.json"
done
if [[ -x "$build/bench/bench_zip_bomb" ]]; then
  /usr/bin/time -f "zip bomb: wall %e s, peak RSS %M KiB" "$build/bench/bench_zip_bomb" 3.5 100
else
  echo "zip bomb: build bench_zip_bomb first (cmake --build $build --target bench_zip_bomb)"
fi
