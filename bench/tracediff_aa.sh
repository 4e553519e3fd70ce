#!/usr/bin/env bash
# A/A and A/B of `perfgate trace diff` on real torch.profiler CPU traces
# (tests/tracediff/torch_steps.py, Debian's python3-torch): per generation,
# base vs same (A/A: any REGRESSED or IMPROVED is a false claim) and base vs
# wide (A/B: the first Linear twice as wide; only aten::addmm and aten::mm do
# more work), paired and unpaired, with the load average before/after.
# usage: bash bench/tracediff_aa.sh [GENERATIONS=5] [PERFGATE=build-test/perfgate]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-5}
pg=${2:-build-test/perfgate}
for i in $(seq 1 "$n"); do
  d=$(mktemp -d)
  l0=$(cut -d' ' -f1 /proc/loadavg)
  PG_TORCH_ROUNDS=12 PG_TORCH_STEPS=3 /usr/bin/python3 tests/tracediff/torch_steps.py "$d"
  l1=$(cut -d' ' -f1 /proc/loadavg)
  for mode in --paired ""; do
    for v in same wide; do
      "$pg" trace diff $mode -f json "$d/base" "$d/$v" >"$d/out.json" || true
      python3 - "$d/out.json" "$i" "$v" "${mode:-unpaired}" "$l0/$l1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
kept = [o for o in d["ops"] if o["change"] == "kept"]
reg = [o["name"] for o in kept if o["verdict"] == "REGRESSED"]
imp = [o["name"] for o in kept if o["verdict"] == "IMPROVED"]
same = sum(o["verdict"] == "SAME" for o in kept)
uns = sum(o["verdict"] == "UNSURE" for o in kept)
print(f"gen {sys.argv[2]} load {sys.argv[5]} {sys.argv[4]:9} {sys.argv[3]:5} step {d['step']['verdict']:9} "
      f"ops: {len(reg)} REGRESSED {reg} {len(imp)} IMPROVED {imp} {same} SAME {uns} UNSURE")
PY
    done
  done
  rm -rf "$d"
done
