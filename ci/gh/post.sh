#!/usr/bin/env bash
# Posts the sticky PR comment and the commit status from a report that the
# pull_request workflow uploaded. Runs in the workflow_run workflow with a
# write token. The report is untrusted data (the PR's code wrote it): the PR
# number and head SHA are taken by `perfgate post` from the trusted event
# payload (GITHUB_EVENT_PATH), never from the artifact, and a report whose
# claim does not match is refused. No --pr or --sha is passed here.
# usage: ci/gh/post.sh REPORT
# env: GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_EVENT_NAME=workflow_run,
#      GITHUB_EVENT_PATH (set by Actions), PERFGATE (default perfgate on PATH),
#      PERFGATE_COMMENT (always, on-change or off; default always),
#      PERFGATE_ACCEPT_LABEL (the pull request label that accepts its
#      regressions, read from the API; default perf-accepted, empty: none)
# exit: perfgate post's code; 0 with a warning when the run left no report
# (it failed before the gate ran; its own check already shows that); 2 usage.
set -euo pipefail
if [[ $# -ne 1 ]]; then
  echo "usage: ci/gh/post.sh REPORT" >&2
  exit 2
fi
report=$1
if [[ "${GITHUB_EVENT_NAME:-}" != "workflow_run" || -z "${GITHUB_EVENT_PATH:-}" ]]; then
  echo "post.sh: runs only in a workflow_run job (the PR and SHA come from its event)" >&2
  exit 2
fi
if [[ ! -f "$report" ]]; then
  echo "::warning title=perfgate: nothing to post::the pull request run left no report ($report); it failed before the gate ran"
  exit 0
fi
exec "${PERFGATE:-perfgate}" post --from "$report" --comment "${PERFGATE_COMMENT:-always}" \
  --accept-label "${PERFGATE_ACCEPT_LABEL-perf-accepted}"
