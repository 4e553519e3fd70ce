#!/usr/bin/env bash
# Audits GitHub workflows and actions: zizmor finds no finding of high
# severity (offline: no token, no network; every `# zizmor: ignore[...]`
# carries its reason inline), and every file validates against GitHub's
# schemas bundled with check-jsonschema (workflows and actions apart).
# usage: ci/gh/audit.sh PATH...
#   PATH  a workflow file, an action.yml, or a directory: its action.yml, its
#         workflows/*.yml (as ci/github is laid out) and its own *.yml
#         (as .github/workflows is)
# The files are passed one by one: given a directory, zizmor only collects
# .github/workflows below it and would skip ci/github/workflows silently.
# The tools come from build-tools/venv (ci/install-deps.sh --test), else PATH.
# exit: 0 clean, 1 a finding or a schema error, 2 usage, 3 a tool is missing.
set -euo pipefail
if [[ $# -lt 1 ]]; then
  echo "usage: ci/gh/audit.sh PATH...   (workflow files, action.yml, or directories of them)" >&2
  exit 2
fi
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
workflows=() actions=()
add() {
  case "$(basename "$1")" in
    action.yml | action.yaml) actions+=("$1") ;;
    *) workflows+=("$1") ;;
  esac
}
shopt -s nullglob
for path in "$@"; do
  if [[ -d "$path" ]]; then
    for f in "$path"/action.yml "$path"/workflows/*.yml "$path"/*.yml; do
      [[ -f "$f" ]] && add "$f"
    done
  elif [[ -f "$path" ]]; then
    add "$path"
  else
    echo "audit.sh: '$path' does not exist" >&2
    exit 2
  fi
done
shopt -u nullglob
if [[ ${#workflows[@]} -eq 0 && ${#actions[@]} -eq 0 ]]; then
  echo "audit.sh: no workflow or action in $*" >&2
  exit 2
fi
zizmor=$(tool zizmor)
jsonschema=$(tool check-jsonschema)
status=0
"$zizmor" --offline --no-config --no-progress --strict-collection --min-severity high \
  "${actions[@]}" "${workflows[@]}" || status=1
if [[ ${#workflows[@]} -gt 0 ]]; then
  "$jsonschema" --builtin-schema vendor.github-workflows "${workflows[@]}" || status=1
fi
if [[ ${#actions[@]} -gt 0 ]]; then
  "$jsonschema" --builtin-schema vendor.github-actions "${actions[@]}" || status=1
fi
exit "$status"
