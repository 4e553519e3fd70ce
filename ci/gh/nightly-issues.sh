#!/usr/bin/env bash
# Posts the nightly's regression issues (`perfgate issues`) from the
# database and bisections the nightly job uploaded. Runs in a job of its own
# with issues: write that checks out and builds nothing of the repository:
# the artifact is read as data, and `perfgate issues` finds the issues it
# writes itself (by label, marker and the token's login).
# usage: ci/gh/nightly-issues.sh DB BISECT_DIR
# env: GITHUB_TOKEN, GITHUB_REPOSITORY (set by Actions), PERFGATE_BRANCH
#      (default nightly), PERFGATE_MAX_ISSUES (default 5), PERFGATE_LABEL
#      (default perfgate-regression), PERFGATE (default perfgate on the PATH)
# exit: perfgate issues' code; 0 with a warning when the nightly left no database.
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: ci/gh/nightly-issues.sh DB BISECT_DIR" >&2
  exit 2
fi
if [[ ! -f "$1" ]]; then
  echo "::warning title=perfgate: no issues posted::the nightly left no database ($1)"
  exit 0
fi
args=(--db "$1" --branch "${PERFGATE_BRANCH:-nightly}" --max-issues "${PERFGATE_MAX_ISSUES:-5}")
if [[ -d "$2" ]]; then
  args+=(--bisect "$2")
fi
if [[ -n "${PERFGATE_LABEL:-}" ]]; then
  args+=(--label "$PERFGATE_LABEL")
fi
exec "${PERFGATE:-perfgate}" issues "${args[@]}"
