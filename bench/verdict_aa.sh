#!/usr/bin/env bash
# verdict_aa.sh - real A/A runs of the verdict rule on this machine.
#
# Runs the unchanged 20-case suite bench/verdict_aa.yaml RUNS times as
# separate processes into a fresh database, then judges every run against
# its predecessors with `perfgate compare --base last:K` for K = 1, 3, 5 and
# counts false verdicts. Nothing changed between runs, so every REGRESSED is
# a false alarm. Also reports what a plain two-sided Mann-Whitney at 0.05
# (Google Benchmark's compare.py rule) would have flagged on the same data.
#
# usage: bench/verdict_aa.sh [RUNS=16] [BUILD_DIR=build-rel]
# Re-run it on a quiet machine to compare; it prints a markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-16}
build=${2:-build-rel}
if [[ ! -x "$build/perfgate" ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPG_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j2 --target perfgate >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/aa.db
start=$(date +%s)
for i in $(seq 1 "$runs"); do
  "$build/perfgate" run --db "$db" --branch aa --commit "aa$i" bench/verdict_aa.yaml >/dev/null
done
measured=$(( $(date +%s) - start ))
for k in 1 3 5; do
  for h in $(seq $((k + 1)) "$runs"); do
    # Exit code 1 is a (false) regression: keep going and count it.
    "$build/perfgate" compare --db "$db" --head "$h" --base "last:$k" --format json >"$tmp/k${k}_h${h}.json" || true
  done
done
echo "A/A: $runs runs of bench/verdict_aa.yaml (20 cases) in ${measured} s on $(nproc) cores, $(date -u +%FT%TZ)"
/usr/bin/env python3 - "$tmp" <<'EOF'
import glob, json, os, sys
tmp = sys.argv[1]
print("\n| K | comparisons | runs with a false REGRESSED | cases REGRESSED | IMPROVED | SAME | UNSURE | compare.py rule (2-sided MWU p<0.05): cases / runs with any |")
print("|---|---|---|---|---|---|---|---|")
for k in (1, 3, 5):
    files = sorted(glob.glob(os.path.join(tmp, "k%d_h*.json" % k)))
    runs_any = cases = 0
    n = {"REGRESSED": 0, "IMPROVED": 0, "SAME": 0, "UNSURE": 0}
    naive_cases = naive_runs = 0
    drifts = []
    for f in files:
        doc = json.load(open(f))
        any_reg = False
        any_naive = False
        for c in doc["cases"]:
            cases += 1
            v = c["verdict"]
            if v in n:
                n[v] += 1
            any_reg |= v == "REGRESSED"
            if c["p"] is not None and 2 * c["p"] < 0.05:
                naive_cases += 1
                any_naive = True
            if c.get("drift") is not None:
                drifts.append(c["drift"])
        runs_any += any_reg
        naive_runs += any_naive
    if not files:
        continue
    pct = lambda a, b: "%.1f%%" % (100.0 * a / b) if b else "-"
    print("| %d | %d | %d (%s) | %s | %s | %s | %s | %s / %s |" % (
        k, len(files), runs_any, pct(runs_any, len(files)), pct(n["REGRESSED"], cases), pct(n["IMPROVED"], cases),
        pct(n["SAME"], cases), pct(n["UNSURE"], cases), pct(naive_cases, cases), pct(naive_runs, len(files))))
    if drifts:
        drifts.sort()
        print("|   | drift sd used: median %.1f%%, max %.1f%% | | | | | | |" % (100 * drifts[len(drifts) // 2], 100 * drifts[-1]))
EOF
