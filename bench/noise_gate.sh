#!/usr/bin/env bash
# noise_gate.sh - the noise measurement: gate verdicts on a noisy machine.
#
# With a Release build that has PG_TEST_HOOKS (for PG_TEST_SLOWDOWN):
#  1. BASE=3 baseline runs of bench/noise_gate.yaml (20 CPU cases) with canaries;
#  2. AA A/A gate runs in history mode (--base last:3:base), each on a copy of
#     that database: runs with any REGRESSED (goal 0);
#  3. the same with bench_hog mem running during every other head run: runs with
#     any REGRESSED, and cases UNSURE with a "machine drift" reason;
#  4. TRIALS gate runs with +10% and +5% injected into ng/sgemm[n=128] only:
#     how often that case is REGRESSED, and how often any other case is.
# Every gate run uses --canary and confirms as in CI (CI=true: a REGRESSED case is
# re-measured and fails only if the re-run regresses too); the tables count the
# first verdicts (before confirmation) and the final ones.
# (For interleaved A/B gates of two builds, see bench/noise_ab.sh.)
# usage: bench/noise_gate.sh [AA=20] [TRIALS=10] [BASE=3]   (prints markdown tables; TRIALS=0 skips 4.)
set -euo pipefail
cd "$(dirname "$0")/.."
aa=${1:-20}
trials=${2:-10}
nbase=${3:-3}
build=${PERFGATE_NOISE_BUILD:-build-noise}
if [[ ! -x "$build/perfgate" || ! -x "$build/bench/bench_hog" ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPG_BUILD_TESTS=OFF -DPG_TEST_HOOKS=ON >/dev/null
  cmake --build "$build" -j2 --target perfgate bench_hog >/dev/null
fi
pg=$build/perfgate
hog=$build/bench/bench_hog
tmp=$(mktemp -d)
hogpid=
# PERFGATE_NOISE_KEEP=DIR keeps every gate run's JSON report there.
cleanup() {
  [[ -n "$hogpid" ]] && kill "$hogpid" 2>/dev/null
  [[ -n "${PERFGATE_NOISE_KEEP:-}" ]] && mkdir -p "$PERFGATE_NOISE_KEEP" && cp "$tmp"/*.json "$PERFGATE_NOISE_KEEP"/ 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
suite=bench/noise_gate.yaml
start=$(date +%s)
for i in $(seq 1 "$nbase"); do
  "$pg" run --canary --db "$tmp/base.db" --branch base --commit "base$i" "$suite" >/dev/null 2>&1
done
gate() { # NAME: one head gate run on a copy of the baseline database, JSON into $tmp/NAME.json
  cp "$tmp/base.db" "$tmp/run.db"
  CI=true "$pg" gate --canary --style none --db "$tmp/run.db" --branch head --commit "$1" \
    --base "last:$nbase:base" --json "$tmp/$1.json" "$suite" >/dev/null 2>&1 || true
}
for i in $(seq 1 "$aa"); do gate "aa$i"; done
for i in $(seq 1 "$aa"); do
  if (( i % 2 == 1 )); then "$hog" mem 60 >/dev/null 2>&1 & hogpid=$!; fi
  gate "hog$i"
  if [[ -n "$hogpid" ]]; then kill "$hogpid" 2>/dev/null || true; wait "$hogpid" 2>/dev/null || true; hogpid=; fi
done
for pct in 10 5; do
  for i in $(seq 1 "$trials"); do
    PG_TEST_SLOWDOWN="ng/sgemm?n=128?@*=1.$(printf %02d "$pct")" gate "ab${pct}_$i"
  done
done
echo "noise_gate: $nbase baseline runs, $aa A/A, $aa with the hog, 2x$trials A/B in $(( $(date +%s) - start )) s on $(nproc) cores, $(date -u +%FT%TZ) (shared machine)"
python3 - "$tmp" "$aa" "$trials" <<'PY'
import json, sys
tmp, aa, trials = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
target = "ng/sgemm[n=128]@1:cpu"
def load(name):
    try:
        return json.load(open("%s/%s.json" % (tmp, name)))
    except Exception:
        return None
def verdicts(doc):
    return [c for c in doc["verdicts"] if not c["key"].startswith("canary/")]
def first(c):  # REGRESSED before confirmation
    return c["verdict"] == "REGRESSED" or c.get("confirm", "none") != "none"
def series(prefix, n, hog=False):
    runs_first = runs_reg = unsure_drift = drifted = missing = 0
    for i in range(1, n + 1):
        doc = load("%s%d" % (prefix, i))
        if doc is None:
            missing += 1
            continue
        cs = verdicts(doc)
        runs_first += any(first(c) for c in cs)
        runs_reg += any(c["verdict"] == "REGRESSED" for c in cs)
        d = sum(c["verdict"] == "UNSURE" and "machine drift:" in (c["reason"] or "") for c in cs)
        unsure_drift += d
        drifted += d > 0
    return runs_first, runs_reg, unsure_drift, drifted, missing
print("\n| series | runs | runs with any REGRESSED: first verdict / after confirmation | runs with drift-UNSURE cases | drift-UNSURE cases | failed runs |")
print("|---|---|---|---|---|---|")
for name, prefix in (("A/A", "aa"), ("A/A, hog in every other head run", "hog")):
    f, r, u, d, m = series(prefix, aa)
    print("| %s | %d | %d / %d | %d | %d | %d |" % (name, aa, f, r, d, u, m))
if trials == 0:
    sys.exit(0)
print("\n| injected into %s | trials | that case REGRESSED: first / final | any other case REGRESSED: first / final | that case UNSURE (drift) |" % target)
print("|---|---|---|---|---|")
for pct in (10, 5):
    hit1 = hit = oth1 = other = drift = 0
    for i in range(1, trials + 1):
        doc = load("ab%d_%d" % (pct, i))
        if doc is None:
            continue
        cs = verdicts(doc)
        t = [c for c in cs if c["key"] == target]
        hit1 += bool(t) and first(t[0])
        hit += bool(t) and t[0]["verdict"] == "REGRESSED"
        drift += bool(t) and t[0]["verdict"] == "UNSURE" and "machine drift:" in (t[0]["reason"] or "")
        oth1 += any(first(c) for c in cs if c["key"] != target)
        other += any(c["verdict"] == "REGRESSED" for c in cs if c["key"] != target)
    print("| +%d%% | %d | %d / %d | %d / %d | %d |" % (pct, trials, hit1, hit, oth1, other, drift))
PY
