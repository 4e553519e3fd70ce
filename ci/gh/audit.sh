#!/usr/bin/env bash
# Audits a directory laid out like ci/github (action.yml, workflows/*.yml):
# zizmor finds no finding of high severity (offline: no token, no network;
# every `# zizmor: ignore[...]` carries its reason inline), and the files
# validate against GitHub's schemas bundled with check-jsonschema.
# usage: ci/gh/audit.sh DIR
# The files are passed one by one: given a directory, zizmor only collects
# .github/workflows below it and would skip DIR/workflows silently.
# The tools come from build-tools/venv (ci/install-deps.sh --test), else PATH.
# exit: 0 clean, 1 a finding or a schema error, 2 usage, 3 a tool is missing.
set -euo pipefail
if [[ $# -ne 1 || ! -f "${1:-}/action.yml" ]]; then
  echo "usage: ci/gh/audit.sh DIR   (DIR holds action.yml and workflows/*.yml)" >&2
  exit 2
fi
dir=$1
venv="$(cd "$(dirname "$0")/../.." && pwd)/build-tools/venv/bin"
tool() {
  if [[ -x "$venv/$1" ]]; then
    echo "$venv/$1"
  elif command -v "$1" >/dev/null 2>&1; then
    command -v "$1"
  else
    echo "audit.sh: $1 not found; run ci/install-deps.sh --test" >&2
    exit 3
  fi
}
zizmor=$(tool zizmor)
jsonschema=$(tool check-jsonschema)
workflows=("$dir"/workflows/*.yml)
if [[ ! -f "${workflows[0]}" ]]; then
  echo "audit.sh: $dir/workflows holds no *.yml" >&2
  exit 2
fi
status=0
"$zizmor" --offline --no-config --no-progress --strict-collection --min-severity high \
  "$dir/action.yml" "${workflows[@]}" || status=1
"$jsonschema" --builtin-schema vendor.github-workflows "${workflows[@]}" || status=1
"$jsonschema" --builtin-schema vendor.github-actions "$dir/action.yml" || status=1
exit "$status"
