#!/usr/bin/env bash
# Lists every test that skipped in the last ctest run, with its reason, and
# fails when one is not allowed to: a test that cannot run says why, and a
# test that must run in CI cannot quietly stop running. The allowed skips
# (shell globs on suite::test) are in tests/allowed-skips.txt. Reads the TAP
# files the tests wrote ($1/tests/tap/*.tap; ctest asks for them).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-test}
shopt -s nullglob
taps=("$build"/tests/tap/*.tap)
if (( ${#taps[@]} == 0 )); then
  echo "skips: no TAP files under $build/tests/tap: did ctest run?" >&2
  exit 1
fi
patterns=()
while read -r pattern _; do
  [[ -z "$pattern" || "$pattern" == \#* ]] || patterns+=("$pattern")
done < tests/allowed-skips.txt
bad=0 total=0
# Criterion writes a skipped test as "ok - suite::test # SKIP reason".
while IFS= read -r line; do
  name=$(sed -E 's/^ok( [0-9]+)? - ([^ ]+).*/\2/' <<< "$line")
  reason=$(sed -E 's/.*# SKIP ?//' <<< "$line")
  total=$((total + 1))
  allowed=0
  for pattern in "${patterns[@]}"; do
    # shellcheck disable=SC2053 # the pattern is a glob on purpose
    [[ "$name" == $pattern ]] && allowed=1
  done
  if (( allowed )); then
    echo "skipped (allowed): $name: $reason"
  else
    echo "skipped (NOT ALLOWED in CI): $name: $reason" >&2
    bad=$((bad + 1))
  fi
done < <(grep -hE '^ok .*# SKIP' "${taps[@]}" || true)
if (( bad )); then
  echo "skips: $bad test(s) skipped that must run; fix the cause or, if it cannot run on CI machines, list it" \
    "in tests/allowed-skips.txt with why" >&2
  exit 1
fi
echo "skips: $total skipped test(s), all in tests/allowed-skips.txt"
