#!/usr/bin/env bash
# Builds perfgate with -Werror, AddressSanitizer and UBSan, and runs every
# test through ctest, then the extra checks in ci/checks.d/ (fuzzers, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
ci/install-deps.sh --test
# lld links the ~60 sanitized programs and libraries in a fifth of the CPU
# time of the default linker (ci/packages-test.txt lists it).
link=()
if command -v ld.lld >/dev/null; then
  link=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld
    -DCMAKE_MODULE_LINKER_FLAGS=-fuse-ld=lld)
fi
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Debug -DPG_WERROR=ON -DPG_ASAN=ON -DPG_UBSAN=ON \
  -DPG_BUILD_TESTS=ON -DPG_TEST_HOOKS=ON "${link[@]}"
cmake --build build-test -j "$(nproc)"
# A sanitizer report exits 86 everywhere (ctest sets the same for every test),
# never 1, which would read as a regression.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}:exitcode=86
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}:exitcode=86
rm -f build-test/tests/tap/*.tap
# The fuzzers' clang build (ci/checks.d/fuzz.sh) takes only the CPU the tests
# leave idle (waits on child processes, servers, retries), not theirs; the
# tests labelled serial (gates that must have the machine to themselves) run
# after it has finished.
PG_FUZZ_BUILD_ONLY=1 nice -n 19 bash ci/checks.d/fuzz.sh > build-test/fuzz-build.log 2>&1 &
fuzz_build=$!
ctest --test-dir build-test --output-on-failure -j 2 -LE serial
wait "$fuzz_build" || { cat build-test/fuzz-build.log; echo "test.sh: the fuzzers did not build" >&2; exit 1; }
ctest --test-dir build-test --output-on-failure -L serial
for check in ci/checks.d/*.sh; do
  [[ -e "$check" ]] || continue
  echo "== $check"
  bash "$check" build-test
done
echo "test.sh: all tests passed in $(( $(date +%s) - start )) s"
