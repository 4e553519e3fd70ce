#!/usr/bin/env bash
# Fuzzes the Chrome-trace reader briefly with libFuzzer (clang, ASan+UBSan),
# starting from fuzz/corpus/trace. Override the time with FUZZ_SECONDS.
# A crash leaves its input in build-fuzz/ and fails the test script.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${FUZZ_SECONDS:-20}
if ! command -v clang >/dev/null; then
  echo "fuzz-trace: clang not installed (ci/packages-test.txt lists it)" >&2
  exit 1
fi
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DPG_FUZZ=ON -DPG_ASAN=ON \
  -DPG_UBSAN=ON -DPG_BUILD_TESTS=OFF -DPG_USE_CUDA=OFF >/dev/null
cmake --build build-fuzz -j 2 --target fuzz_trace >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp fuzz/corpus/trace/* "$work/"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  build-fuzz/fuzz/fuzz_trace -max_total_time="$seconds" -max_len=4096 -timeout=10 \
  -artifact_prefix=build-fuzz/ -print_final_stats=1 "$work" 2>&1 | tail -n 25
