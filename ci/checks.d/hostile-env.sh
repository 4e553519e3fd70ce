#!/usr/bin/env bash
# Runs the whole ctest set once more in the environment of a hostile CI
# machine: an OpenBLAS core type and cache size preset, CI and GitHub Actions
# variables of a push event, a PERFGATE_DB that cannot be opened, a time zone
# with a 45-minute offset, the C locale and a temporary folder whose name
# holds a space. No test may pass or fail because of what the machine's
# environment holds: the test support starts every test from a known
# environment, and a test that needs a variable sets it and restores it.
# $1 is the build directory with the tests built (ci/test.sh's build-test).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-test}
[[ -d "$build/tests" ]] || { echo "hostile-env: no tests built under $build" >&2; exit 1; }
tmp="$(cd "$build" && pwd)/hostile tmp"
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
hostile=(OPENBLAS_CORETYPE=Haswell OPENBLAS_L2_SIZE=512 OMP_NUM_THREADS=7
  CI=true GITHUB_ACTIONS=true GITHUB_EVENT_NAME=push GITHUB_SHA=0123456789abcdef0123456789abcdef01234567
  GITHUB_REF_NAME=hostile GITHUB_REPOSITORY=hostile/env GITHUB_STEP_SUMMARY="$tmp/summary.md"
  PERFGATE_DB=/nonexistent/x.db TZ=Pacific/Chatham LANG=C LC_ALL=C TMPDIR="$tmp")
# As ci/test.sh runs them: the tests labelled serial (gates that need the
# machine to themselves) after the others, one at a time.
env "${hostile[@]}" ctest --test-dir "$build" --output-on-failure -j 2 -LE serial "$@"
env "${hostile[@]}" ctest --test-dir "$build" --output-on-failure -L serial "$@"
echo "hostile-env: every test passed in a hostile environment"
