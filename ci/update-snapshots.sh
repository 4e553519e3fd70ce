#!/usr/bin/env bash
# Regenerates the committed snapshots (tests/data/snapshots/, tests/data/replay/)
# after an intended change of a report or a verdict. A test run never writes
# a snapshot: here the tests that compare with one (test_report, test_replay)
# run with PG_SNAPSHOT_DIR set, write what they produced there, and only the
# files that differ are copied over tests/data/. Then the tests run again and
# must pass. Review `git diff tests/data/` like code.
#   ci/update-snapshots.sh [BUILD_DIR]   (default build-test, configured with tests)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-test}
cmake --build "$build" -j "$(nproc)" --target test_report test_replay > /dev/null
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
for t in report replay; do
  # Expected to fail where a snapshot changed: that is what is being regenerated.
  PG_SNAPSHOT_DIR=$fresh "$build/tests/test_$t" --jobs 1 > "$fresh/$t.log" 2>&1 || true
done
changed=0
while IFS= read -r -d '' f; do
  rel=${f#"$fresh"/}
  if ! cmp -s "$f" "tests/data/$rel"; then
    cp "$f" "tests/data/$rel"
    echo "updated tests/data/$rel"
    changed=$((changed + 1))
  fi
done < <(find "$fresh" -mindepth 2 -type f -print0)
for t in report replay; do
  "$build/tests/test_$t" --jobs 1 > "$fresh/$t.again.log" 2>&1 ||
    { tail -n 40 "$fresh/$t.again.log"; echo "update-snapshots: test_$t still fails after the update" >&2; exit 1; }
done
echo "update-snapshots: $changed file(s) updated; review them with git diff tests/data/"
