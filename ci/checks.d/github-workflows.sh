#!/usr/bin/env bash
# The GitHub workflows and the composite action pass zizmor with no high
# finding and GitHub's schemas (ci/gh/audit.sh, offline): the reusable
# workflows users call (.github/workflows), perfgate's own callers and the
# composite action (ci/github); the scripts they call are shellcheck-clean;
# and the audit still fails on a planted template injection
# (ci/test_github_checks.sh). The caller workflows `perfgate init` writes and
# those docs/ci.md shows are audited by the tests (tests/adopt,
# tests/lifecycle).
# The build directory argument ($1) is unused: the check reads files only.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash ci/test_github_checks.sh
bash ci/gh/audit.sh ci/github .github/workflows
shellcheck ci/gh/*.sh ci/release/*.sh ci/install-deps.sh ci/test_github_checks.sh ci/checks.d/github-workflows.sh
echo "github-workflows: zizmor (no high finding), GitHub schemas and shellcheck pass"
