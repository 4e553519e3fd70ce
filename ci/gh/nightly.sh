#!/usr/bin/env bash
# The nightly gate on a dedicated (GPU) runner: compares tonight with the
# branch's own previous nights, pooled, from a database that lives on the
# runner; then prints the change points and prunes old raw samples.
# usage: ci/gh/nightly.sh SUITE...
# env:
#   PERFGATE_DB      the database on the runner (default
#                    $HOME/.local/share/perfgate/nightly.db)
#   PERFGATE_DB_COPY copy the database here at the end (for an artifact)
#   PERFGATE         the perfgate binary (default perfgate on the PATH)
#   PERFGATE_BRANCH  the branch the nights are stored under (default nightly)
#   PERFGATE_BASE    baseline selector (default last:5:<branch>: the five
#                    previous nights, pooled)
#   PERFGATE_REPORT  JSON report (default perfgate-report.json)
#   PERFGATE_KEEP    raw samples kept this long (default 90d)
#   PERFGATE_THRESHOLD the minimum slowdown that can fail (--threshold)
#   PERFGATE_ARGS    extra `perfgate gate` flags, split on spaces
#   PERFGATE_INSTRUMENT time, instructions, memory (comma-separated; default
#                    the suites'): instructions gate the nights on exact counts
# exit: perfgate gate's code (0 pass, 1 regression, 3 infrastructure,
# 4 nothing compared: the first night); 2 on a usage error here.
set -euo pipefail
if [[ $# -lt 1 ]]; then
  echo "usage: [PERFGATE_DB=PATH] ci/gh/nightly.sh SUITE..." >&2
  exit 2
fi
if [[ -z "${PERFGATE_DB:-}" ]]; then
  if [[ -z "${HOME:-}" ]]; then
    echo "nightly.sh: set PERFGATE_DB (neither it nor HOME is set)" >&2
    exit 2
  fi
  PERFGATE_DB=$HOME/.local/share/perfgate/nightly.db
fi
echo "nightly.sh: database $PERFGATE_DB"
perfgate=${PERFGATE:-perfgate}
branch=${PERFGATE_BRANCH:-nightly}
report=${PERFGATE_REPORT:-perfgate-report.json}
read -ra extra <<<"${PERFGATE_ARGS:-}"
if [[ -n "${PERFGATE_THRESHOLD:-}" ]]; then
  extra+=(--threshold "$PERFGATE_THRESHOLD")
fi
if [[ -n "${PERFGATE_INSTRUMENT:-}" ]]; then
  extra+=(--instrument "$PERFGATE_INSTRUMENT")
fi
mkdir -p "$(dirname "$PERFGATE_DB")" "$(dirname "$report")"
code=0
"$perfgate" gate --db "$PERFGATE_DB" --branch "$branch" --base "${PERFGATE_BASE:-last:5:$branch}" \
  --json "$report" "${extra[@]}" "$@" || code=$?
# History and pruning run whatever the verdict; they never change it.
"$perfgate" history --db "$PERFGATE_DB" --branch "$branch" --last 100 ||
  echo "nightly.sh: perfgate history failed (exit $?)" >&2
"$perfgate" db prune --db "$PERFGATE_DB" --older-than "${PERFGATE_KEEP:-90d}" --keep-summaries ||
  echo "nightly.sh: perfgate db prune failed (exit $?)" >&2
if [[ -n "${PERFGATE_DB_COPY:-}" && -f "$PERFGATE_DB" ]]; then
  mkdir -p "$(dirname "$PERFGATE_DB_COPY")"
  cp "$PERFGATE_DB" "$PERFGATE_DB_COPY"
fi
exit "$code"
