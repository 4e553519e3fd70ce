#!/usr/bin/env bash
# diagnose_cost.sh - what "what changed" costs an interleaved gate, and what
# it says, on a plugin of real work (tests/data/plugin/stencil.c) and on
# OpenBLAS's kernels (examples/plugin: matmul_chain, one GEMM in ten more).
#
# Cost: for each case, the case's Valgrind cost (one `perfgate run
# --instrument instructions` of it: its two Callgrind processes, wall and
# CPU seconds of perfgate and its children) against the diagnosis of a
# timed regression of it (the `seconds` the gate's JSON reports for counting
# both builds), and the whole gate's wall time with and without
# --no-diagnose. Then gates without a regression (the same code on both
# sides), each RUNS times with the diagnosis on and off, alternated: their
# wall times and whether anything was counted at all.
# Quality: counted gates (--instrument instructions) of the same code (A/A)
# and of each change (A/B), and the line each timed regression got.
#
# usage: bash bench/diagnose_cost.sh [RUNS]     (default 3)
source "$(dirname "$0")/common.sh"
RUNS=${1:-3}
DATA="$ROOT/tests/data/plugin/stencil.c"
mk() { # NAME SOURCE FLAGS...: a build directory holding the plugin
  local name=$1 src=$2 lib
  shift 2
  mkdir -p "$TMP/$name"
  lib=$([[ $src == *stencil.c ]] && echo libstencil.so || echo libpg_example.so)
  cc -std=c11 -O2 -g -shared -fPIC -I"$ROOT/include" "$@" -o "$TMP/$name/$lib" "$src" -lm
}
mk base "$DATA"
mk same "$DATA"
mk sweeps11 "$DATA" -DSWEEPS=11
mk sweeps30 "$DATA" -DSWEEPS=30
mk alias "$DATA" -DPITCH=8192
mk ex "$ROOT/examples/plugin/example.c"
mk ex_same "$ROOT/examples/plugin/example.c"
mk ex_slow "$ROOT/examples/plugin/example.c" -DPG_EXAMPLE_SLOWDOWN=1
cat >"$TMP/st.yaml" <<'EOF'
suite: st
defaults: {threads: 1, min_run_time: 0.2s, warmup: 20ms, min_samples: 10}
benchmarks:
  - {name: relax, plugin: "{build}/libstencil.so", symbol: relax, params: {n: 64}}
  - {name: layout, plugin: "{build}/libstencil.so", symbol: layout, params: {n: 2048}}
EOF
cat >"$TMP/ex.yaml" <<'EOF'
suite: plugin
defaults: {threads: 1, min_run_time: 0.3s, warmup: 50ms, min_samples: 20}
benchmarks:
  - {name: matmul_chain, plugin: "{build}/libpg_example.so", symbol: matmul_chain, params: {n: 64, layers: 10}}
EOF

timed() { # OUT ARGS...: runs perfgate, /usr/bin/time's "wall cpu" into OUT
  local out=$1
  shift
  /usr/bin/time -f '%e %U %S' -o "$TMP/t" "$PERFGATE" "$@" >"$TMP/log" 2>&1 || true
  # A non-zero exit puts a line of its own first: the figures are the last line.
  tail -n 1 "$TMP/t" | awk '{printf "%s %.2f\n", $1, $2 + $3}' >"$out"
}
json_field() { # FILE CODE: a Python expression over `d`, the first diagnosed verdict's diagnosis
  python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
d = next((v["diagnosis"] for v in r["verdicts"] if v.get("diagnosis")), None)
print(eval(sys.argv[2]))' "$1" "$2"
}

echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $(valgrind --version)"
echo
echo "## cost of the diagnosis of a timed regression"
printf '%-22s %10s %10s %10s %8s %12s %12s\n' case vg_wall_s vg_cpu_s diag_s x_vg gate_wall_s no_diag_s
for spec in "st/relax*:st:base:sweeps30" "st/layout*:st:base:alias" "plugin/matmul*:ex:ex:ex_slow"; do
  IFS=: read -r glob suite base head <<<"$spec"
  PERFGATE_BUILD="$TMP/$base" timed "$TMP/vg" run --no-store --style none --instrument instructions \
    --filter "$glob" --json "$TMP/vg.json" "$TMP/$suite.yaml"
  # A case that failed to run would cost less than counting it: not a figure.
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["results"]
sys.exit(0 if r and all(x["status"] == "ok" for x in r) else 1)' "$TMP/vg.json" || { cat "$TMP/log" >&2; exit 3; }
  read -r vg_wall vg_cpu <"$TMP/vg"
  timed "$TMP/g" gate --no-store --style none --filter "$glob" --base-build "$TMP/$base" --head-build "$TMP/$head" \
    --json "$TMP/g.json" "$TMP/$suite.yaml"
  read -r g_wall _ <"$TMP/g"
  diag=$(json_field "$TMP/g.json" 'round(d["seconds"], 2) if d else "-"')
  timed "$TMP/n" gate --no-store --style none --no-diagnose --filter "$glob" --base-build "$TMP/$base" \
    --head-build "$TMP/$head" "$TMP/$suite.yaml"
  read -r n_wall _ <"$TMP/n"
  ratio=$(python3 -c "print('-' if '$diag' == '-' else round($diag / $vg_wall, 2))")
  printf '%-22s %10s %10s %10s %8s %12s %12s\n' "$glob" "$vg_wall" "$vg_cpu" "$diag" "$ratio" "$g_wall" "$n_wall"
done

echo
echo "## gates without a regression (the same code on both sides), $RUNS each, alternated"
printf '%-22s %-10s %10s %10s\n' case diagnosis wall_s counted
for spec in "st/relax*:st:base:same" "plugin/matmul*:ex:ex:ex_same"; do
  IFS=: read -r glob suite base head <<<"$spec"
  for i in $(seq "$RUNS"); do
    for flag in on off; do
      extra=()
      [[ $flag == off ]] && extra=(--no-diagnose)
      timed "$TMP/s" gate --no-store --filter "$glob" --base-build "$TMP/$base" --head-build "$TMP/$head" \
        "${extra[@]}" "$TMP/$suite.yaml"
      read -r s_wall _ <"$TMP/s"
      printf '%-22s %-10s %10s %10s\n' "$glob" "$flag" "$s_wall" "$(grep -c 'diagnosing' "$TMP/log" || true)"
    done
  done
done

echo
echo "## what it says"
for spec in "A/A relax:st/relax*:st:base:same:instructions" "A/B +10% sweeps:st/relax*:st:base:sweeps11:instructions" \
  "A/A layout:st/layout*:st:base:same:instructions" "A/B aliasing rows:st/layout*:st:base:alias:instructions" \
  "A/B one GEMM in ten:plugin/matmul*:ex:ex:ex_slow:instructions" "timed A/B aliasing rows:st/layout*:st:base:alias:time" \
  "timed A/B 3x sweeps:st/relax*:st:base:sweeps30:time" "timed A/B one GEMM in ten:plugin/matmul*:ex:ex:ex_slow:time"; do
  IFS=: read -r what glob suite base head inst <<<"$spec"
  "$PERFGATE" gate --no-store --style none --instrument "$inst" --filter "$glob" --base-build "$TMP/$base" \
    --head-build "$TMP/$head" --json "$TMP/q.json" "$TMP/$suite.yaml" >/dev/null 2>&1 || true
  python3 - "$TMP/q.json" "$what" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
for v in r["verdicts"]:
    d = v.get("diagnosis") or {}
    ex = (d.get("functions") or {}).get("exclusive") or []
    top = ("%s %.1f%%" % (ex[0]["name"], 100 * ex[0]["share"])) if ex and ex[0].get("share") is not None else "-"
    print("%-26s %-45s %-9s %-24s %s" % (sys.argv[2], v["key"], v["verdict"], top, d.get("what_changed") or "-"))
EOF
done
