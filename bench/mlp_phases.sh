#!/usr/bin/env bash
# mlp_phases.sh - mlp_train_step AdamW forloop vs fused: the step ratio from `perfgate run`, and
# the per-phase and per-op split from bench_mlp_phases.
#   usage: bash bench/mlp_phases.sh [STEPS [THREADS [wall|cpu]]]   (default 200 steps, 1 thread, cpu)
source "$(dirname "$0")/common.sh"
CLOCK=${3:-cpu}
"$PERFGATE" run --no-store --clock "$CLOCK" --filter 'cpu/mlp_step*' "$ROOT/suites/cpu.yaml"
"$BUILD/bench/bench_mlp_phases" "${1:-200}" "${2:-1}" "$CLOCK"
