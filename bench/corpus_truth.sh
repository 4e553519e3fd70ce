#!/usr/bin/env bash
# corpus_truth.sh - the ground truth of the corpus campaign (bench/corpus.sh):
# what each head build of the user library really changed, by two measures.
#
#  1. Instruction counts (perfgate's --instrument instructions, Callgrind):
#     exact, the same in every process, blind to the machine. Valgrind 3.19
#     cannot execute AVX-512, so the -march=native builds (which use it on an
#     AVX-512 CPU) are counted by their -march=x86-64-v3 twins: the same source
#     and change, the widest ISA Valgrind runs.
#  2. A long quiet measurement: an interleaved gate of ROUNDS fixed rounds
#     (default 60, no confirmation) per build and change; its per-case ratio
#     (Hodges-Lehmann centre of the per-round ratios) and interval. Run it on an
#     idle machine: it is the time the change costs, not a verdict.
#
# Resumable like the campaign: each measurement's JSON report goes to
# OUT/truth/KIND-FLAGS-CHANGE.json and is not taken again. Prints (and writes to
# OUT/truth.tsv) one line per case: flags, change, case, instructions ratio,
# time ratio [interval].
#
# usage: bash bench/corpus_truth.sh [--out DIR] [--rounds ROUNDS] [--flags "o2 v3 native"]
#        (the builds are the campaign's: run bench/corpus.sh --list once, or the campaign, first)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
out="$ROOT/bench/data/corpus-runs" rounds=60 flagset="o2 v3 native"
while (($#)); do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --flags) flagset=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "corpus_truth.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
PERFGATE=${PERFGATE:-$ROOT/build-bench/perfgate}
[[ -x "$PERFGATE" ]] || { echo "corpus_truth.sh: no perfgate at $PERFGATE: run bench/corpus.sh first" >&2; exit 2; }
mkdir -p "$out/truth"
for flags in $flagset; do
  for change in same slow5 slow10; do
    [[ -f "$out/builds/$flags-$change/libuserk_bench.so" ]] ||
      { echo "corpus_truth.sh: no build $out/builds/$flags-$change: run bench/corpus.sh first" >&2; exit 2; }
    counted=$flags; [[ $flags == native ]] && counted=v3
    ic="$out/truth/instructions-$counted-$change.json"
    if [[ ! -s "$ic" ]]; then
      "$PERFGATE" gate --no-store --style none --instrument instructions --base-build "$out/builds/$counted-base" \
        --head-build "$out/builds/$counted-$change" --json "$ic.part" "$ROOT/bench/corpus/corpus.yaml" \
        >"$ic.log" 2>&1 || true
      [[ -s "$ic.part" ]] && mv "$ic.part" "$ic"
    fi
    tm="$out/truth/time-$flags-$change.json"
    if [[ ! -s "$tm" ]]; then
      taskset -c 0 "$PERFGATE" gate --no-store --style none --no-confirm --fixed-rounds -r "$rounds" \
        --base-build "$out/builds/$flags-base" --head-build "$out/builds/$flags-$change" --json "$tm.part" \
        "$ROOT/bench/corpus/corpus.yaml" >"$tm.log" 2>&1 || true
      [[ -s "$tm.part" ]] && mv "$tm.part" "$tm"
    fi
  done
done
python3 - "$out" "$flagset" <<'PY' | tee "$out/truth.tsv"
import json, os, sys
out, flagset = sys.argv[1], sys.argv[2].split()
def load(path):
    try:
        return {v["key"]: v for v in json.load(open(path))["verdicts"]}
    except (OSError, ValueError):
        return {}
print("flags\tchange\tcase\tinstructions\ttime\ttime_ci_lo\ttime_ci_hi")
for flags in flagset:
    for change in ("same", "slow5", "slow10"):
        counted = "v3" if flags == "native" else flags
        ic = load("%s/truth/instructions-%s-%s.json" % (out, counted, change))
        tm = load("%s/truth/time-%s-%s.json" % (out, flags, change))
        for key, v in sorted(tm.items()):
            i = ic.get(key + "#instructions", {})
            print("%s\t%s\t%s\t%s\t%s\t%s\t%s" % (flags, change, key,
                  "%+.2f%%" % (100 * (i["ratio"] - 1)) if i.get("ratio") else "-",
                  "%+.2f%%" % (100 * (v["ratio"] - 1)) if v.get("ratio") else "-",
                  "%+.2f%%" % (100 * (v["ci_lo"] - 1)) if v.get("ci_lo") else "-",
                  "%+.2f%%" % (100 * (v["ci_hi"] - 1)) if v.get("ci_hi") else "-"))
PY
