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
log="$work/fuzz.log"
mkdir "$work/corpus"
cp fuzz/corpus/trace/* "$work/corpus/"
if ! ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  build-fuzz/fuzz/fuzz_trace -max_total_time="$seconds" -max_len=4096 -timeout=10 \
  -artifact_prefix=build-fuzz/ -print_final_stats=1 "$work/corpus" >"$log" 2>&1; then
  tail -n 60 "$log"
  echo "fuzz-trace: FAILED; the input is in build-fuzz/ (crash-*, leak-*, timeout-*)" >&2
  exit 1
fi
grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added|stat::peak_rss_mb)' "$log"
