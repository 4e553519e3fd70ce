#!/usr/bin/env bash
# Folds this run's database into the newest one saved meanwhile, just before
# the save. Main runs are not serialized (every push is measured), so another
# run may have saved a newer database since this one restored its own; runs
# are keyed by uuid, so the merge keeps both runs and is idempotent.
# usage: ci/gh/merge-db.sh MINE DB
#   MINE  this run's database (set aside before DB was restored again)
#   DB    the newest saved database, restored again; absent when none exists
# Afterwards DB holds both. env: PERFGATE (default perfgate on the PATH).
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: ci/gh/merge-db.sh MINE DB" >&2
  exit 2
fi
mine=$1 db=$2
perfgate=${PERFGATE:-perfgate}
if [[ ! -f "$mine" ]]; then
  echo "merge-db.sh: '$mine' does not exist" >&2
  exit 2
fi
mkdir -p "$(dirname "$db")"
if [[ ! -f "$db" ]]; then
  cp "$mine" "$db"
  echo "merge-db.sh: no newer database saved meanwhile; keeping this run's"
  exit 0
fi
"$perfgate" db merge -o "$db" "$mine"
echo "merge-db.sh: merged this run's database into the newest saved one"
