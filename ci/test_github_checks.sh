#!/usr/bin/env bash
# The workflow audit (ci/gh/audit.sh) still catches what it is there for: on
# copies of ci/github (the composite action, perfgate's own callers) and of
# .github/workflows (the reusable workflows users call) it passes, and fails
# once a step expands an attacker-controlled PR title inside run: (in the
# reusable gate, and in the composite action), and once a job loses runs-on.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

copy() {
  rm -rf "$work/github" "$work/reusable"
  cp -r ci/github "$work/github"
  cp -r .github/workflows "$work/reusable"
}

audit() {
  bash ci/gh/audit.sh "$work/github" "$work/reusable" >"$work/log" 2>&1
}

copy
if ! audit; then
  cat "$work/log"
  echo "test_github_checks: the unmodified copies do not pass" >&2
  fail=1
fi

# The reusable gate's job ends with its steps: append one that injects.
copy
cat >>"$work/reusable/gate.yml" <<'YAML'
      - name: planted
        run: echo "${{ github.event.pull_request.title }}"
YAML
if audit || ! grep -q 'template-injection' "$work/log"; then
  cat "$work/log"
  echo "test_github_checks: a planted \${{ github.event.pull_request.title }} in run: of gate.yml was not caught" >&2
  fail=1
else
  echo "test_github_checks: planted template injection in the reusable gate caught"
fi

# The composite action's steps end the file too.
copy
cat >>"$work/github/action.yml" <<'YAML'
    - name: planted
      shell: bash
      run: echo "${{ github.event.pull_request.title }}"
YAML
if audit || ! grep -q 'template-injection' "$work/log"; then
  cat "$work/log"
  echo "test_github_checks: a planted \${{ github.event.pull_request.title }} in run: of action.yml was not caught" >&2
  fail=1
else
  echo "test_github_checks: planted template injection in the composite action caught"
fi

copy
sed -i '/^    runs-on:/d' "$work/reusable/post.yml"
if audit || ! grep -qi 'runs-on' "$work/log"; then
  cat "$work/log"
  echo "test_github_checks: a job without runs-on passed the schema check" >&2
  fail=1
else
  echo "test_github_checks: planted schema error caught"
fi
exit "$fail"
