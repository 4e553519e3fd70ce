#!/usr/bin/env bash
# Records a default-branch commit as the new baseline: measures the suites,
# stores the run in DB under the branch, and prunes raw samples older than
# PERFGATE_KEEP (summaries stay, so history over years stays small).
# usage: ci/gh/main-record.sh DB SUITE...
# env: PERFGATE (default perfgate on the PATH), PERFGATE_BRANCH (default main),
#      PERFGATE_BUILD (the build directory {build} in the suites names; default ./build),
#      PERFGATE_KEEP (default 90d), PERFGATE_ARGS (extra `perfgate run` flags),
#      PERFGATE_INSTRUMENT (time, instructions, memory, comma-separated; default the suites')
# exit: perfgate run's code (0 recorded, 2 usage, 3 infrastructure, or a case
# that ended in ERROR: --fail-on-error); 2 on a usage error here. A failed run
# fails the job: the commit is visibly not recorded, and the database is not
# saved. A baseline with a case that crashed is no baseline: errors are not green.
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: ci/gh/main-record.sh DB SUITE..." >&2
  exit 2
fi
db=$1
shift
perfgate=${PERFGATE:-perfgate}
read -ra extra <<<"${PERFGATE_ARGS:-}"
mkdir -p "$(dirname "$db")"
if [[ -n "${PERFGATE_INSTRUMENT:-}" ]]; then
  extra+=(--instrument "$PERFGATE_INSTRUMENT")
fi
"$perfgate" run --fail-on-error --db "$db" --branch "${PERFGATE_BRANCH:-main}" "${extra[@]}" "$@"
"$perfgate" db prune --db "$db" --older-than "${PERFGATE_KEEP:-90d}" --keep-summaries
