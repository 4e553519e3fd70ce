#!/usr/bin/env bash
# The workflow audit (ci/gh/audit.sh) still catches what it is there for: on a
# copy of ci/github it passes, and fails once a step expands an
# attacker-controlled PR title inside run:, and once a job loses runs-on.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

copy() {
  rm -rf "$work/github"
  cp -r ci/github "$work/github"
}

copy
if ! bash ci/gh/audit.sh "$work/github" >"$work/log" 2>&1; then
  cat "$work/log"
  echo "test_github_checks: the unmodified copy does not pass" >&2
  fail=1
fi

# The PR workflow's last job ends with its steps: append one that injects.
copy
cat >>"$work/github/workflows/perfgate-pr.yml" <<'YAML'
      - name: planted
        run: echo "${{ github.event.pull_request.title }}"
YAML
if bash ci/gh/audit.sh "$work/github" >"$work/log" 2>&1 || ! grep -q 'template-injection' "$work/log"; then
  cat "$work/log"
  echo "test_github_checks: a planted \${{ github.event.pull_request.title }} in run: was not caught" >&2
  fail=1
else
  echo "test_github_checks: planted template injection caught"
fi

copy
sed -i '/runs-on:/d' "$work/github/workflows/perfgate-post.yml"
if bash ci/gh/audit.sh "$work/github" >"$work/log" 2>&1 || ! grep -qi 'runs-on' "$work/log"; then
  cat "$work/log"
  echo "test_github_checks: a job without runs-on passed the schema check" >&2
  fail=1
else
  echo "test_github_checks: planted schema error caught"
fi
exit "$fail"
