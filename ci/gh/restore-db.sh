#!/usr/bin/env bash
# Restores the default branch's database after a cache miss (caches are
# evicted after 7 days without use): downloads the newest `perfgate-db-main`
# artifact of the default branch through the GitHub API. When there is
# nothing to restore, the run starts a new history: a later gate reports
# "nothing compared" (exit 4), never a pass.
# usage: ci/gh/restore-db.sh DB
# env: GITHUB_REPOSITORY, GITHUB_TOKEN (actions: read), PERFGATE (default
#      perfgate on the PATH), PERFGATE_DB_ARTIFACT (default perfgate-db-main),
#      PERFGATE_DB_BRANCH (default main)
# exit: 0 restored, already present or nothing to restore; 2 usage; 3 the
#       fetch failed (network, API, a bad archive or database): a broken
#       restore is not "nothing to restore", which would start a new history.
set -euo pipefail
if [[ $# -ne 1 ]]; then
  echo "usage: ci/gh/restore-db.sh DB" >&2
  exit 2
fi
db=$1
if [[ -f "$db" ]]; then
  echo "restore-db.sh: $db is present (cache hit); nothing to restore"
  exit 0
fi
if [[ -z "${GITHUB_REPOSITORY:-}" ]]; then
  echo "restore-db.sh: GITHUB_REPOSITORY is not set" >&2
  exit 2
fi
perfgate=${PERFGATE:-perfgate}
mkdir -p "$(dirname "$db")"
code=0
"$perfgate" db fetch --repo "$GITHUB_REPOSITORY" --artifact "${PERFGATE_DB_ARTIFACT:-perfgate-db-main}" \
  --branch "${PERFGATE_DB_BRANCH:-main}" --out "$db" || code=$?
case "$code" in
  0) echo "restore-db.sh: restored $db from the newest ${PERFGATE_DB_ARTIFACT:-perfgate-db-main} artifact" ;;
  2) exit 2 ;;
  4)
    rm -f "$db"
    echo "::warning title=perfgate: no baseline restored::cache miss and no artifact to restore; this run starts a new history and compares nothing"
    ;;
  *)
    rm -f "$db"
    echo "::error title=perfgate: restoring the baseline failed::perfgate db fetch exit $code (network, API, archive or database); rerun the job"
    exit 3
    ;;
esac
