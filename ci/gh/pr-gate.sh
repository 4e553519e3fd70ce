#!/usr/bin/env bash
# Gates a pull request. The default, interleaved, measures the base and the
# head build against each other in paired rounds on this machine (no stored
# baseline needed); history compares with runs stored in a database.
# usage: ci/gh/pr-gate.sh interleaved BASE_BUILD HEAD_BUILD SUITE...
#        ci/gh/pr-gate.sh history DB SUITE...
# env:
#   PERFGATE           the perfgate binary (default: HEAD_BUILD/perfgate when
#                      the head build made one, else perfgate on the PATH)
#   PERFGATE_BASE_SRC  interleaved: build this checkout into BASE_BUILD first
#                      (ci/gh/build.sh; reused when BASE_BUILD already holds a
#                      build of that commit, e.g. from a cache keyed by its SHA)
#   PERFGATE_HEAD_SRC  interleaved: build this checkout into HEAD_BUILD first
#   PERFGATE_REPORT    JSON report (default perfgate-report.json)
#   PERFGATE_BASE      history: baseline selector (default: perfgate's choice)
#   PERFGATE_THRESHOLD the minimum slowdown that can fail (--threshold, e.g. 5%)
#   PERFGATE_ARGS      extra `perfgate gate` flags, split on spaces
#   PERFGATE_INSTRUMENT time, instructions, memory (comma-separated; default the
#                      suites'); instructions compare exact counts, so in history
#                      main's runs from another hosted runner of the same image
#                      are a baseline (main must record the same instrument), and
#                      interleaved counts each build once (not with time)
# exit: perfgate gate's code (0 pass, 1 regression, 2 usage, 3 infrastructure,
# 4 nothing compared); 2 on a usage error here; 3 when a build fails. When
# GITHUB_OUTPUT is set, exit-code=N is written there too.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() {
  echo "usage: ci/gh/pr-gate.sh interleaved BASE_BUILD HEAD_BUILD SUITE..." >&2
  echo "       ci/gh/pr-gate.sh history DB SUITE..." >&2
  exit 2
}
[[ $# -ge 1 ]] || usage
mode=$1
shift
report=${PERFGATE_REPORT:-perfgate-report.json}
read -ra extra <<<"${PERFGATE_ARGS:-}"
if [[ -n "${PERFGATE_THRESHOLD:-}" ]]; then
  extra+=(--threshold "$PERFGATE_THRESHOLD")
fi
perfgate=${PERFGATE:-perfgate}
case "$mode" in
  interleaved)
    [[ $# -ge 3 ]] || usage
    base_build=$1 head_build=$2
    shift 2
    if [[ -z "$base_build" || -z "$head_build" ]]; then
      echo "pr-gate.sh: interleaved needs the base and the head build directories" \
        "(or mode history, which compares with a database)" >&2
      exit 2
    fi
    if [[ -n "${PERFGATE_BASE_SRC:-}" ]]; then
      bash "$here/build.sh" "$PERFGATE_BASE_SRC" "$base_build"
    fi
    if [[ -n "${PERFGATE_HEAD_SRC:-}" ]]; then
      bash "$here/build.sh" "$PERFGATE_HEAD_SRC" "$head_build"
    fi
    for dir in "$base_build" "$head_build"; do
      if [[ ! -d "$dir" ]]; then
        echo "pr-gate.sh: build directory '$dir' does not exist" >&2
        exit 2
      fi
    done
    if [[ -z "${PERFGATE:-}" && -x "$head_build/perfgate" ]]; then
      perfgate=$head_build/perfgate
    fi
    # The two builds are the whole comparison and the job keeps no database:
    # without --no-store the gate would open baselines/perfgate.db, which a
    # PR job's workspace does not have (exit 3, nothing gated).
    cmd=("$perfgate" gate --no-store --base-build "$base_build" --head-build "$head_build")
    # Counts are not interleaved: each build is counted once (time and counts together: exit 2).
    if [[ -n "${PERFGATE_INSTRUMENT:-}" ]]; then
      cmd+=(--instrument "$PERFGATE_INSTRUMENT")
    fi
    ;;
  history)
    [[ $# -ge 2 ]] || usage
    db=$1
    shift
    mkdir -p "$(dirname "$db")"
    cmd=("$perfgate" gate --db "$db")
    if [[ -n "${PERFGATE_BASE:-}" ]]; then
      cmd+=(--base "$PERFGATE_BASE")
    fi
    if [[ -n "${PERFGATE_INSTRUMENT:-}" ]]; then
      cmd+=(--instrument "$PERFGATE_INSTRUMENT")
    fi
    ;;
  *)
    echo "pr-gate.sh: unknown mode '$mode' (interleaved or history)" >&2
    usage
    ;;
esac
mkdir -p "$(dirname "$report")"
cmd+=(--json "$report" "${extra[@]}" "$@")
echo "pr-gate.sh: ${cmd[*]}"
code=0
"${cmd[@]}" || code=$?
if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
  echo "exit-code=$code" >>"$GITHUB_OUTPUT"
fi
exit "$code"
