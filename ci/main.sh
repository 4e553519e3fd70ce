#!/usr/bin/env bash
# The main job: install what is missing, build perfgate (release), run the
# shipped suites, store the run in baselines/perfgate.db and print verdicts
# against the previous run. Exits with perfgate's exit code.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPG_BUILD_TESTS=OFF > build.log 2>&1 || { cat build.log; exit 3; }
cmake --build build -j "$(nproc)" >> build.log 2>&1 || { cat build.log; exit 3; }
exec ./build/perfgate gate "$@" suites/
