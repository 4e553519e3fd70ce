#!/usr/bin/env bash
# Fuzzes every libFuzzer target (each fuzz/fuzz_<name>.c) for a short fixed
# time under ASan and UBSan, two at a time, each starting from its committed
# corpus fuzz/corpus/<name> (and fuzz/<name>.dict when there is one). A
# crash, leak, timeout or sanitizer report fails the check and leaves the
# input under build-fuzz/. The build directory argument ($1) is unused: the
# fuzzers need their own clang build.
#   PG_FUZZ_SECONDS  seconds per target (default 20)
#   PG_FUZZ_JOBS     targets at a time (default 2)
#   PG_FUZZ_ONLY     space-separated target names (default: all)
#   PG_FUZZ_BUILD_ONLY=1  build the targets and stop (ci/test.sh builds them
#                    at low priority while the tests run)
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${PG_FUZZ_SECONDS:-20}
jobs=${PG_FUZZ_JOBS:-2}
build="build-fuzz"
if ! command -v clang >/dev/null; then
  echo "fuzz: clang not installed (ci/packages-test.txt lists it)" >&2
  exit 1
fi
targets=()
for src in fuzz/fuzz_*.c; do
  name=$(basename "$src" .c)
  name=${name#fuzz_}
  [[ -z "${PG_FUZZ_ONLY:-}" || " $PG_FUZZ_ONLY " == *" $name "* ]] && targets+=("$name")
done
mkdir -p "$build"
link=()
command -v ld.lld >/dev/null && link=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld)
cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPG_FUZZ=ON \
  -DPG_ASAN=ON -DPG_UBSAN=ON -DPG_BUILD_TESTS=OFF -DPG_USE_CUDA=OFF "${link[@]}" > "$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$jobs" --target "${targets[@]/#/fuzz_}" > "$build/build.log" 2>&1 ||
  { cat "$build/build.log"; exit 1; }
[[ "${PG_FUZZ_BUILD_ONLY:-}" == 1 ]] && exit 0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One target: new inputs go to a scratch corpus; the committed one is only read.
fuzz_one() {
  local name=$1 dict=() log="$work/$1.log"
  [[ -d "fuzz/corpus/$name" ]] || { echo "fuzz: no seed corpus fuzz/corpus/$name" > "$log"; return 1; }
  [[ -f "fuzz/$name.dict" ]] && dict=(-dict="fuzz/$name.dict")
  mkdir "$work/$name"
  ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=1 UBSAN_OPTIONS=${UBSAN_OPTIONS:-}:halt_on_error=1:print_stacktrace=1 \
    "$build/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 "${dict[@]}" \
    -artifact_prefix="$build/$name-" -print_final_stats=1 "$work/$name" "fuzz/corpus/$name" > "$log" 2>&1
}

declare -A pid_of
failed=()
for name in "${targets[@]}"; do
  while (( $(jobs -rp | wc -l) >= jobs )); do wait -n || true; done
  fuzz_one "$name" & pid_of[$name]=$!
done
for name in "${targets[@]}"; do
  if ! wait "${pid_of[$name]}"; then
    failed+=("$name")
    tail -n 60 "$work/$name.log"
    echo "fuzz: $name found a problem; the input is saved as $build/$name-*" >&2
  else
    runs=$(grep -oE 'Done [0-9]+ runs' "$work/$name.log" | awk '{print $2}')
    echo "fuzz $name: ${runs:-?} executions in ${seconds} s from $(find "fuzz/corpus/$name" -type f | wc -l) seeds:" \
      "no crash, no leak, no sanitizer report"
  fi
done
(( ${#failed[@]} == 0 )) || { echo "fuzz: FAILED: ${failed[*]}" >&2; exit 1; }
