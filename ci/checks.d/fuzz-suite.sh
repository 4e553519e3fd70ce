#!/usr/bin/env bash
# Fuzzes the suite loader (fuzz/fuzz_suite.c) for a short fixed time with
# libFuzzer under ASan and UBSan, starting from the committed corpus
# fuzz/corpus/suite. A crash, leak or sanitizer report fails the check.
# The build directory argument ($1) is unused: the fuzzer needs its own clang
# build. PG_FUZZ_SECONDS overrides the time (default 20 s).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${PG_FUZZ_SECONDS:-20}
build=build-fuzz
mkdir -p "$build"
cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPG_FUZZ=ON \
  -DPG_ASAN=ON -DPG_UBSAN=ON -DPG_BUILD_TESTS=OFF -DPG_USE_CUDA=OFF > "$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
cmake --build "$build" --target fuzz_suite -j 2 > "$build/build.log" 2>&1 || { cat "$build/build.log"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus"
# New inputs go to the scratch corpus; the committed one is only read.
if ! "$build/fuzz/fuzz_suite" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -dict=fuzz/suite.dict -artifact_prefix="$build/" -print_final_stats=1 \
  "$work/corpus" fuzz/corpus/suite > "$work/fuzz.log" 2>&1; then
  tail -n 80 "$work/fuzz.log"
  echo "fuzz-suite: the fuzzer found a problem; the input is saved under $build/" >&2
  exit 1
fi
runs=$(grep -oE 'Done [0-9]+ runs' "$work/fuzz.log" | awk '{print $2}')
echo "fuzz-suite: ${runs:-?} executions in ${seconds} s over $(ls fuzz/corpus/suite | wc -l) seed inputs:" \
  "no crash, no leak, no sanitizer report"
