#!/usr/bin/env bash
# Benchmark (not a test): peak memory and time of `perfgate import` of
# generated ~100 MB files, one per streaming importer.
#
#   bash bench/import_memory.sh [PERFGATE_BINARY] [MEGABYTES]
#
#   hyperfine: 2,000 commands (results[]), each with ~2,000 times and
#              exit codes, ~MEGABYTES in all (default 100)
#   google-benchmark: 10,000 cases x repetitions (iteration rows with
#              counters) plus their mean/median/stddev/cv aggregates
# Each file is imported into a fresh database (--no-store would skip the
# store's transaction, which a real import pays). Prints the file size, the
# cases stored, the wall and CPU time and GNU time's peak RSS (%M). Build
# with optimisation (cmake -S . -B build), not the sanitizer build.
# PERFGATE_IMPORT_DIR=DIR keeps the generated files there for the next call.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/perfgate}
mb=${2:-100}
[[ -x "$bin" ]] || { echo "no perfgate binary at $bin; build first (cmake -S . -B build && cmake --build build)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "GNU time (/usr/bin/time) is needed for peak memory" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
files=${PERFGATE_IMPORT_DIR:-$work}/import-$mb
mkdir -p "$files"

[[ -f "$files/gbench.json" ]] || python3 - "$files" "$mb" <<'PY'
import json, random, sys
work, mb = sys.argv[1], int(sys.argv[2])
rng = random.Random(1)
target = mb * 1000 * 1000

# hyperfine --export-json: times as hyperfine writes them (full double precision)
ncmd = 2000
per = max(1, target // ncmd // 24)
with open(f"{work}/hyperfine.json", "w") as f:
    f.write('{\n  "results": [\n')
    for c in range(ncmd):
        times = [0.05 * (1 + 0.02 * rng.gauss(0, 1)) for _ in range(per)]
        r = {"command": f"./tool --size {c}", "mean": sum(times) / per, "stddev": 0.001, "median": 0.05,
             "user": 0.04, "system": 0.01, "min": min(times), "max": max(times), "times": times,
             "exit_codes": [0] * per, "parameters": {"size": str(c)}}
        f.write(("    " if c == 0 else ",\n    ") + json.dumps(r))
    f.write("\n  ]\n}\n")

# Google Benchmark JSON with repetitions, counters and aggregates
ncase = 10000
row = lambda name, rn, kind, agg, t: {
    "name": name, "family_index": 0, "per_family_instance_index": 0, "run_name": rn, "run_type": kind,
    "repetitions": 0, "repetition_index": 0, "threads": 1, "iterations": 10906, "real_time": t, "cpu_time": t,
    "time_unit": "ns", "bytes_per_second": 1.0e9, "items_per_second": 2.0e8, "FLOPS": 5.0e10,
    **({"aggregate_name": agg, "aggregate_unit": "time"} if agg else {})}
with open(f"{work}/gbench.json", "w") as f:
    f.write('{\n  "context": {"date": "2026-12-01", "num_cpus": 2, "library_build_type": "release"},\n  "benchmarks": [\n')
    first, size, c = True, 0, 0
    reps = max(1, target // ncase // 520)
    for c in range(ncase):
        rn = f"BM_case/{c}/n:{c % 64}"
        for k in range(reps):
            s = json.dumps(row(rn, rn, "iteration", None, 6000 * (1 + 0.01 * rng.gauss(0, 1))))
            f.write(("    " if first else ",\n    ") + s)
            first = False
        for agg in ("mean", "median", "stddev", "cv"):
            f.write(",\n    " + json.dumps(row(rn + "_" + agg, rn, "aggregate", agg, 6000.0)))
    f.write("\n  ]\n}\n")
PY

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for fmt in hyperfine google-benchmark; do
    file=$files/${fmt%%-*}.json
    [[ $fmt == google-benchmark ]] && file=$files/gbench.json
    rm -f "$work/pg.db"
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" \
        "$bin" import --db "$work/pg.db" --branch main --commit bench "$fmt" "$file" > "$work/out" 2> "$work/err" ||
        { cat "$work/err" >&2; exit 1; }
    read -r wall user sys rss < "$work/time"
    cases=$(grep -o 'imported [0-9]* cases' "$work/out" | grep -o '[0-9]*')
    printf '%-17s %6.1f MB  %6s cases  wall %6.2f s  cpu %6.2f s  peak RSS %6.1f MB\n' "$fmt" \
        "$(echo "$(stat -c %s "$file") / 1000000" | bc -l)" "$cases" "$wall" "$(echo "$user + $sys" | bc -l)" \
        "$(echo "$rss / 1024" | bc -l)"
done
