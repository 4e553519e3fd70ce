#!/usr/bin/env bash
# aa_defaults.sh - do the gate's defaults cry wolf outside CI?
#
# N sequential `perfgate gate` of the shipped suites on one Release build, with
# default flags (history mode, the default baseline, confirmation on), CI and
# the GitHub variables unset, into a fresh temporary database. Prints per gate
# the exit code and the counts of REGRESSED/IMPROVED/UNSURE/SAME (from --json),
# then a total line. Goal: no exit 1, no REGRESSED, no IMPROVED.
#
# With SLOWDOWN (a PG_TEST_SLOWDOWN spec, e.g. 'cpu/sgemm*=1.10'; needs a build
# with PG_TEST_HOOKS) an A/B series follows: TRIALS more gates with the
# slowdown injected, each on a copy of the A/A database (so its baseline is the
# last A/A run, as an A/A gate's would be, and slowed runs never become
# baselines), counting how often the slowed cases end REGRESSED / UNSURE / SAME.
#
# usage: bench/aa_defaults.sh [N=10] [SLOWDOWN] [TRIALS=5]
#   PERFGATE_AA_BUILD (default build-rel; configured and built when missing)
#   PERFGATE_AA_KEEP=DIR keeps every gate's JSON report there.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10}
slowdown=${2:-}
trials=${3:-5}
build=${PERFGATE_AA_BUILD:-build-rel}
if [[ ! -x "$build/perfgate" ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPG_BUILD_TESTS=OFF -DPG_TEST_HOOKS=ON >/dev/null
  cmake --build "$build" -j2 >/dev/null
fi
pg=$build/perfgate
suites=(suites/cpu.yaml suites/plugin.yaml suites/fences.yaml)
tmp=$(mktemp -d)
cleanup() {
  [[ -n "${PERFGATE_AA_KEEP:-}" ]] && mkdir -p "$PERFGATE_AA_KEEP" && cp "$tmp"/*.json "$tmp"/*.db "$PERFGATE_AA_KEEP"/ 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
# Outside CI: nothing that would make perfgate think it runs on GitHub Actions.
unset CI GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_SHA GITHUB_REF_NAME GITHUB_BASE_REF GITHUB_STEP_SUMMARY
export PERFGATE_BUILD=$build

gate() { # NAME DB: one gate with default flags; JSON into $tmp/NAME.json, exit code into $tmp/NAME.rc
  local rc=0
  "$pg" gate --style none --db "$2" --branch aa --commit "$1" --json "$tmp/$1.json" "${suites[@]}" \
    >"$tmp/$1.log" 2>&1 || rc=$?
  echo "$rc" >"$tmp/$1.rc"
}

start=$(date +%s)
for i in $(seq 1 "$n"); do
  gate "aa$i" "$tmp/aa.db"
done
if [[ -n "$slowdown" ]]; then
  for i in $(seq 1 "$trials"); do
    cp "$tmp/aa.db" "$tmp/ab.db"
    PG_TEST_SLOWDOWN="$slowdown" gate "ab$i" "$tmp/ab.db"
  done
fi
echo "aa_defaults: $n A/A gates${slowdown:+, $trials A/B gates with PG_TEST_SLOWDOWN='$slowdown'} of ${suites[*]}" \
  "in $(( $(date +%s) - start )) s on $(nproc) cores, $(date -u +%FT%TZ)"
python3 - "$tmp" "$n" "$trials" "$slowdown" <<'PY'
import fnmatch, json, os, sys
tmp, n, trials, slowdown = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
KINDS = ("REGRESSED", "IMPROVED", "UNSURE", "SAME")

def gate(name):
    rc = int(open(os.path.join(tmp, name + ".rc")).read())
    try:
        d = json.load(open(os.path.join(tmp, name + ".json")))
    except (OSError, ValueError):
        return rc, None, []
    counts = d.get("summary", {}).get("verdicts", {})
    return rc, counts, d.get("verdicts", [])

def series(prefix, count):
    tot = {k: 0 for k in KINDS}
    exit1 = refuted = 0
    for i in range(1, count + 1):
        rc, counts, verdicts = gate(f"{prefix}{i}")
        if counts is None:
            print(f"{prefix}{i}: exit {rc}, no JSON report")
            continue
        exit1 += rc == 1
        refuted += sum(1 for v in verdicts if v.get("confirm") == "refuted")
        for k in KINDS:
            tot[k] += counts.get(k, 0)
        flagged = [f"{v['key']} {v['verdict']} {100 * (v['ratio'] - 1):+.1f}%" for v in verdicts
                   if v["verdict"] in ("REGRESSED", "IMPROVED")]
        print(f"{prefix}{i}: exit {rc}  " + "  ".join(f"{k} {counts.get(k, 0)}" for k in KINDS)
              + (f"  NEW {counts['NEW']}" if counts.get("NEW") else "")
              + ("  [" + "; ".join(flagged) + "]" if flagged else ""))
    print(f"total {prefix.upper()}: {count} gates, exit 1 in {exit1}, "
          + ", ".join(f"{k} {tot[k]}" for k in KINDS) + f"; confirmation refuted {refuted}")

series("aa", n)
if slowdown:
    series("ab", trials)
    globs = [g.split("=")[0] for g in slowdown.split(",")]
    hit = {}
    for i in range(1, trials + 1):
        for v in gate(f"ab{i}")[2]:
            if any(fnmatch.fnmatchcase(v["key"], g) for g in globs):
                r = hit.setdefault(v["key"], [])
                r.append(f"{v['verdict']} {100 * (v['ratio'] - 1):+.1f}% (resolves {100 * v['resolution']:.0f}%)"
                         if v.get("resolution") is not None else v["verdict"])
    for key, rs in sorted(hit.items()):
        print(f"slowed {key}: " + "; ".join(rs))
PY
