#!/usr/bin/env bash
# The README's test command must be exactly what .ci/run runs.
set -euo pipefail
cmd=$(grep -v '^#' .ci/run | grep -E '\S' | tail -n 1 | sed 's/^exec //')
if ! grep -qxF -- "$cmd" <(sed -n '/^```/,/^```/p' README.md); then
  echo "README.md does not show the command .ci/run runs: '$cmd'" >&2
  exit 1
fi
echo "README test command matches .ci/run: $cmd"
