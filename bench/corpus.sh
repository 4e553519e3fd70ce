#!/usr/bin/env bash
# corpus.sh - the verdict campaign on a user's library (bench/corpus/): every
# build, every change, alone and beside a neighbour, GATES interleaved gates
# per cell, as CI would run them (CI=true: confirmation on). Resumable: a gate
# whose report exists is not run again, so stop it any time and run the same
# command to go on; it runs for hours.
#
# A cell is SUITE:FLAGS:CHANGE:NEIGHBOUR
#   SUITE      corpus (bench/corpus/corpus.yaml, 9 cases) or jacobi (the user's
#              5-point stencil, 10 sweeps: bench/corpus/jacobi.yaml)
#   FLAGS      o2 (-O2), v3 (-O2 -march=x86-64-v3), native (-O2 -march=native)
#   CHANGE     same (an identical second build: A/A), slow5 (+5 % of real work),
#              slow10 (+10 %: more sweeps, elements or calls of the same code)
#   NEIGHBOUR  alone; memhog (a memory-bandwidth hog on the other core);
#              cpuhog (a CPU hog on the other core); nice19 (the gate at nice 19
#              with a CPU hog on its own core)
# The gate runs on CPU 0 (taskset), the neighbour on CPU 1 (nice19: CPU 0).
#
# Every gate's JSON report goes to OUT/raw/CELL/gate-N.json (its terminal
# output beside it as .log) and a line per case to OUT/verdicts.tsv;
# bench/corpus_table.py OUT prints the tables. The builds go to OUT/builds.
#
# usage: bash bench/corpus.sh [--cells LIST] [--gates N] [--out DIR] [--list]
#   --cells  comma-separated cell patterns, '*' matching any part (default: every
#            corpus cell, and jacobi:native:{same,slow10}:{alone,memhog})
#   --gates  gates per cell (default 10)
#   --out    results directory (default bench/data/corpus-runs)
#   --list   print the cells selected and exit
# PERFGATE=BINARY gates with another perfgate (e.g. a build of an older commit,
# for a before/after table); otherwise a Release build in build-bench/.
# The gates run with --no-diagnose: the "what changed" step (both builds
# counted under Callgrind for every REGRESSED case) comes after the verdicts,
# changes none of them, and would more than double a +10 % gate's time.
# PERFGATE_DIAGNOSE=1 keeps it (a perfgate older than it has no such flag).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cells_arg="" gates=10 out="$ROOT/bench/data/corpus-runs" list=0
while (($#)); do
  case "$1" in
    --cells) cells_arg=$2; shift 2 ;;
    --gates) gates=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --list) list=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "corpus.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$gates" =~ ^[0-9]+$ && "$gates" -ge 1 ]] || { echo "corpus.sh: --gates must be a positive count" >&2; exit 2; }

all_cells=()
for flags in o2 v3 native; do
  for change in same slow5 slow10; do
    for nb in alone memhog cpuhog nice19; do all_cells+=("corpus:$flags:$change:$nb"); done
  done
done
for change in same slow10; do
  for nb in alone memhog; do all_cells+=("jacobi:native:$change:$nb"); done
done
selected=()
for cell in "${all_cells[@]}"; do
  if [[ -z "$cells_arg" ]]; then selected+=("$cell"); continue; fi
  IFS=, read -ra pats <<<"$cells_arg"
  for pat in "${pats[@]}"; do
    # shellcheck disable=SC2053
    if [[ "$cell" == $pat ]]; then selected+=("$cell"); break; fi
  done
done
((${#selected[@]})) || { echo "corpus.sh: no cell matches '$cells_arg' (see --list)" >&2; exit 2; }
if ((list)); then printf '%s\n' "${selected[@]}"; exit 0; fi

# perfgate (Release) and the hog.
if [[ -z "${PERFGATE:-}" ]]; then
  build="$ROOT/build-bench"
  if [[ ! -x "$build/perfgate" || ! -x "$build/bench/bench_hog" ]]; then
    cmake -S "$ROOT" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPG_BUILD_TESTS=OFF -DPG_USE_CUDA=OFF >/dev/null
    cmake --build "$build" -j2 >/dev/null
  fi
  PERFGATE="$build/perfgate"
  hog="$build/bench/bench_hog"
else
  hog="${PERFGATE_HOG:-$ROOT/build-bench/bench/bench_hog}"
  [[ -x "$hog" ]] || { echo "corpus.sh: no bench_hog at $hog (PERFGATE_HOG=PATH)" >&2; exit 2; }
fi

# The builds: a directory per flags and work, each the library and its plugin (bench/corpus/Makefile).
mkdir -p "$out/raw" "$out/builds"
declare -A arch=([o2]="" [v3]="-march=x86-64-v3" [native]="-march=native")
declare -A work=([base]=1000 [same]=1000 [slow5]=1050 [slow10]=1100)
for flags in o2 v3 native; do
  for w in base same slow5 slow10; do
    d="$out/builds/$flags-$w"
    [[ -f "$d/libuserk_bench.so" ]] && continue
    make -s -f "$ROOT/bench/corpus/Makefile" OUT="$d" ARCH="${arch[$flags]}" WORK="${work[$w]}" \
      PERFGATE_INCLUDE="$ROOT/include" >/dev/null
  done
done
[[ -f "$out/verdicts.tsv" ]] ||
  printf 'cell\tgate\tcase\tverdict\tratio\tci_lo\tci_hi\trounds\tdecided_by\twall_s\tload1\texit\tperfgate\n' >"$out/verdicts.tsv"
{ echo "# $(date -u +%FT%TZ) corpus.sh ${selected[*]} gates=$gates perfgate=$PERFGATE"
  echo "# machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), load $(cut -d' ' -f1-3 /proc/loadavg)"
} >>"$out/campaign.log"

nodiag=(--no-diagnose)
[[ "${PERFGATE_DIAGNOSE:-}" == 1 ]] && nodiag=()
hogpid=
stop_hog() {
  if [[ -n "$hogpid" ]]; then
    kill "$hogpid" 2>/dev/null || true
    wait "$hogpid" 2>/dev/null || true
  fi
  hogpid=
}
trap stop_hog EXIT

for cell in "${selected[@]}"; do
  IFS=: read -r suite flags change nb <<<"$cell"
  dir="$out/raw/$cell"
  mkdir -p "$dir"
  for i in $(seq 1 "$gates"); do
    report="$dir/gate-$i.json"
    [[ -s "$report" ]] && continue
    case "$nb" in
      memhog) taskset -c 1 "$hog" mem 3600 >/dev/null 2>&1 & hogpid=$! ;;
      cpuhog) taskset -c 1 "$hog" cpu 3600 >/dev/null 2>&1 & hogpid=$! ;;
      nice19) taskset -c 0 "$hog" cpu 3600 >/dev/null 2>&1 & hogpid=$! ;;
    esac
    prio=(); [[ "$nb" == nice19 ]] && prio=(nice -n 19)
    load=$(cut -d' ' -f1 /proc/loadavg)
    t0=$(date +%s.%N)
    rc=0
    CI=true "${prio[@]}" taskset -c 0 "$PERFGATE" gate --no-store --style none "${nodiag[@]}" \
      --base-build "$out/builds/$flags-base" --head-build "$out/builds/$flags-$change" \
      --json "$report.part" "$ROOT/bench/corpus/$suite.yaml" >"$dir/gate-$i.log" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    stop_hog
    if [[ ! -s "$report.part" ]]; then
      echo "$cell gate $i: no report (exit $rc); see $dir/gate-$i.log" >&2
      rm -f "$report.part"
      continue
    fi
    mv "$report.part" "$report"
    python3 - "$report" "$cell" "$i" "$t0" "$t1" "$load" "$rc" "$PERFGATE" >>"$out/verdicts.tsv" <<'PY'
import json, sys
path, cell, gate, t0, t1, load, rc, pg = sys.argv[1:]
doc = json.load(open(path))
for v in doc.get("verdicts", []):
    e = v.get("estimators") or {}
    print("\t".join(str(x) for x in (cell, gate, v["key"], v["verdict"], v.get("ratio"), v.get("ci_lo"), v.get("ci_hi"),
                                     v.get("rounds", ""), e.get("decided_by", ""), "%.1f" % (float(t1) - float(t0)),
                                     load, rc, pg)))
PY
    echo "$(date -u +%T) $cell gate $i: exit $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s, load $load" \
      >>"$out/campaign.log"
  done
done
echo "done: $(wc -l <"$out/verdicts.tsv") lines in $out/verdicts.tsv; python3 bench/corpus_table.py $out"
