#!/usr/bin/env bash
# The nightly's bisections: for each case with a change point tonight
# (`perfgate issues --plan`: REGRESSED tonight, not the night before), bisects
# the night's commits, the previous night's commit to tonight's, with
# interleaved gates (`perfgate bisect`), for the job that posts the issues
# (ci/gh/nightly-issues.sh). Runs in the job that builds and holds no write
# token. SRC must be a checkout with the history of both nights
# (actions/checkout with fetch-depth: 0).
# usage: ci/gh/nightly-bisect.sh SRC OUT SUITE...
#   SUITE paths are relative to SRC, as the nightly gate takes them.
# env:
#   PERFGATE_DB              the nights' database (as ci/gh/nightly.sh)
#   PERFGATE_BUILD_COMMAND   the build command, run with bash in each commit's
#                            worktree (as ci/gh/build.sh runs it)
#   PERFGATE_BUILD_DIR       where it leaves its output, relative to SRC (default build)
#   PERFGATE_BRANCH          the nights' branch (default nightly)
#   PERFGATE_MAX_ISSUES      new issues a night at most, so bisections too (default 5)
#   PERFGATE_BISECT_MAX_TIME seconds for each bisection (default 1800); one that
#                            stops says where the change lies so far
#   PERFGATE                 the perfgate binary (default perfgate on the PATH)
# writes: OUT/plan.tsv and OUT/bisect/NAME.json, one per case.
# exit: 0 (a bisection that fails is logged and its issue says none ran);
#       2 usage; 3 the plan could not be made.
set -euo pipefail
if [[ $# -lt 3 ]]; then
  echo "usage: ci/gh/nightly-bisect.sh SRC OUT SUITE..." >&2
  exit 2
fi
src=$(cd "$1" && pwd)
out=$2
shift 2
perfgate=${PERFGATE:-perfgate}
if [[ -z "${PERFGATE_BUILD_COMMAND:-}" ]]; then
  echo "nightly-bisect.sh: set PERFGATE_BUILD_COMMAND to the build command" >&2
  exit 2
fi
if [[ -z "${PERFGATE_DB:-}" ]]; then
  PERFGATE_DB=$HOME/.local/share/perfgate/nightly.db
fi
mkdir -p "$out/bisect"
out=$(cd "$out" && pwd)
suites=()
for s in "$@"; do
  suites+=("$src/$s")
done
"$perfgate" issues --db "$PERFGATE_DB" --branch "${PERFGATE_BRANCH:-nightly}" \
  --max-issues "${PERFGATE_MAX_ISSUES:-5}" --plan "$out/plan.tsv" || exit 3
if [[ "$(git -C "$src" rev-parse --is-shallow-repository)" == true ]]; then
  echo "::warning title=perfgate: no bisection::$src is a shallow clone; check it out with fetch-depth: 0"
  exit 0
fi
code=0
{
  IFS=$'\t' read -r good bad
  if [[ "$good" == - ]]; then
    echo "nightly-bisect.sh: the first night: nothing to bisect"
  fi
  while IFS=$'\t' read -r glob name key; do
    [[ "$good" == - || -z "$name" ]] && continue
    echo "nightly-bisect.sh: bisecting $key between $good and $bad"
    (cd "$src" && "$perfgate" bisect "$good" "$bad" --build "$PERFGATE_BUILD_COMMAND" \
      --build-dir "${PERFGATE_BUILD_DIR:-build}" --filter "$glob" \
      --max-time "${PERFGATE_BISECT_MAX_TIME:-1800}" --json "$out/bisect/$name.json" "${suites[@]}") || {
      rc=$?
      # 4: nothing concluded (the JSON says how far it got); others: no usable bisection.
      echo "nightly-bisect.sh: the bisection of $key ended with exit $rc" >&2
      [[ $rc == 4 ]] || code=$rc
    }
  done
} <"$out/plan.tsv"
if [[ $code != 0 ]]; then
  echo "::warning title=perfgate: a bisection failed::see the log above; the issue says no bisection ran"
fi
exit 0
