#!/usr/bin/env bash
# mfu_ceiling.sh - does MFU ever pass 100%? Runs the shipped CPU and plugin suites RUNS times (--quick,
# not stored) and reports, per run, the highest MFU of any case, how many cases passed 100%, and whether
# the sgemm ceiling had to be raised by a faster case (flagged unreliable in the run's roofs).
#   usage: bash bench/mfu_ceiling.sh [RUNS]      (default 20; PERFGATE=path compares another binary)
source "$(dirname "$0")/common.sh"
RUNS=${1:-20}
BIN="${PERFGATE_OVERRIDE:-$PERFGATE}"
echo "binary: $BIN"
for i in $(seq "$RUNS"); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  PERFGATE_BUILD="$BUILD" "$BIN" run --no-store --quick --json "$TMP/r$i.json" \
    "$ROOT/suites/cpu.yaml" "$ROOT/suites/plugin.yaml" >/dev/null 2>&1 || true
  python3 - "$TMP/r$i.json" "$i" "$load" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
mfus = [(r.get("mfu") or 0, r["key"]) for r in d["results"] if r.get("mfu") is not None and r["mfu"] >= 0]
roof = ((d.get("machine") or {}).get("fingerprint") or {}).get("roofline", {}).get("cpu", {})
raised = sorted(t for t, o in roof.items() if not o.get("peak_reliable", True))
top = max(mfus) if mfus else (0, "-")
print("run %2s load %5s: max MFU %6.1f%% (%s), cases over 100%%: %d, ceiling raised at threads: %s"
      % (sys.argv[2], sys.argv[3], 100 * top[0], top[1], sum(m > 1 for m, _ in mfus), ",".join(raised) or "none"))
PY
done | tee "$TMP/log"
python3 - "$TMP/log" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
tops = [float(re.search(r"max MFU +([0-9.]+)%", l).group(1)) for l in lines]
over = sum(int(re.search(r"over 100%: (\d+)", l).group(1)) for l in lines)
raised = sum("raised at threads: none" not in l for l in lines)
print("%d runs: highest MFU %.1f%%, cases over 100%%: %d, runs whose ceiling a case raised: %d" % (len(lines), max(tops), over, raised))
PY
