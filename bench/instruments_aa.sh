#!/usr/bin/env bash
# instruments_aa.sh - are instruction counts exact between processes?
#
# N separate `perfgate run --instrument instructions` of the shipped one-thread
# CPU cases (suites/cpu.yaml) and the example plugin (suites/plugin.yaml), each
# run measuring every case in its own 2 Valgrind processes (one warm-up and
# one measured iteration each): 2N processes per case. Prints per result key the distinct per-iteration counts seen and
# whether they were identical everywhere; a case that differs is listed as
# nondeterministic with its spread ((max-min)/min).
#
# usage: bench/instruments_aa.sh [N=10] [GLOB...]
#   GLOBs select cases (each a --filter, one perfgate process each); the
#   default is every shipped one-thread case but the three heaviest under
#   Valgrind (sgemm n=1024 and n=512, the two mlp_step cases: minutes of CPU
#   per process each); give their globs to include them.
#   PERFGATE_AA_BUILD (default build-rel; configured and built when missing)
#   PERFGATE_AA_KEEP=DIR keeps each run's JSON in DIR
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10}
shift || true
globs=("$@")
if [[ ${#globs[@]} -eq 0 ]]; then
  globs=('cpu/[!ms]*' 'cpu/masked_select*' 'cpu/mul*' 'cpu/s[!g]*' 'cpu/sgemm[[]n=1[0-9][0-9]]*'
         'cpu/sgemm[[]n=2[0-9][0-9]]*' 'cpu/sgemm_tiny*' 'plugin/*')
fi
build=${PERFGATE_AA_BUILD:-build-rel}
if [[ ! -x "$build/perfgate" || ! -x "$build/perfgate-meter" ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPG_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j2 >/dev/null
fi
if [[ -n ${PERFGATE_AA_KEEP:-} ]]; then
  tmp=$PERFGATE_AA_KEEP # the runs' JSON stay there (a long A/A can be read while it runs)
  mkdir -p "$tmp"
else
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
fi
unset CI GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_SHA GITHUB_REF_NAME GITHUB_BASE_REF GITHUB_STEP_SUMMARY
export PERFGATE_BUILD=$build
echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg); $(valgrind --version)"
t0=$(date +%s)
for i in $(seq 1 "$n"); do
  g=0
  for glob in "${globs[@]}"; do
    g=$((g + 1))
    "$build/perfgate" run --no-store --style none --instrument instructions --filter "$glob" \
      --json "$tmp/run$i.$g.json" suites/cpu.yaml suites/plugin.yaml >/dev/null 2>"$tmp/err$i" || {
      rc=$?
      # 1 is a failed exact check of the suite, not the instrument's business.
      [[ $rc -eq 1 ]] || { cat "$tmp/err$i" >&2; exit "$rc"; }
    }
  done
  echo "run $i done ($(($(date +%s) - t0))s)"
done
python3 - "$tmp" "$n" <<'PY'
import json, sys, glob, collections
tmp, n = sys.argv[1], int(sys.argv[2])
seen = collections.OrderedDict()
status = {}
for path in sorted(glob.glob(f"{tmp}/run*.json")):
    doc = json.load(open(path))
    for r in doc["results"]:
        if "#" not in r["key"]:
            continue
        if r["status"] != "ok":
            status[r["key"]] = f'{r["status"]}: {r.get("message")}'
            continue
        seen.setdefault(r["key"], []).extend(r.get("samples") or [])
exact = nondet = 0
for key, vals in seen.items():
    lo, hi = min(vals), max(vals)
    if lo == hi:
        exact += 1
        print(f"identical  {key}: {lo:,.1f} per iteration in {len(vals)} processes")
    else:
        nondet += 1
        print(f"NONDETERMINISTIC {key}: {lo:,.1f}..{hi:,.1f} spread {100*(hi-lo)/lo:.4f}% "
              f"({len(set(vals))} distinct values in {len(vals)} processes)")
for key, s in status.items():
    print(f"refused    {key}: {s}")
print(f"total: {exact} identical, {nondet} nondeterministic, {len(status)} not measured")
PY
echo "# wall $(($(date +%s) - t0))s; load after: $(cut -d' ' -f1-3 /proc/loadavg)"
