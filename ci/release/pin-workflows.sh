#!/usr/bin/env bash
# Pins perfgate's caller workflows to a release: every call of perfgate's
# reusable workflows (uses: .../.github/workflows/{gate,post,record,nightly}.yml@REF)
# or composite action (uses: .../ci/github@REF) and every `perfgate-ref:` get
# the commit the release's tag names, and the
# version comment its tag. It fills in the placeholder PERFGATE_SHA (what
# docs/ci.md shows, written before that commit existed) and moves files
# already pinned to another release. `perfgate init` pins to the commit it
# was built from by itself.
# usage: pin-workflows.sh TAG [FILE...]   (default: .github/workflows/perfgate-*.yml)
# env: PERFGATE_REMOTE  the repository that holds the tag
#                       (default https://github.com/perfgate/perfgate)
# exit: 0 pinned, 2 usage or no such tag, 3 the remote could not be read.
set -euo pipefail
if [[ $# -lt 1 || "$1" == -* ]]; then
  echo "usage: pin-workflows.sh TAG [FILE...]   (e.g. pin-workflows.sh v0.1.0)" >&2
  exit 2
fi
tag=$1
shift
remote=${PERFGATE_REMOTE:-https://github.com/perfgate/perfgate}
files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
  shopt -s nullglob
  files=(.github/workflows/perfgate-*.yml)
  shopt -u nullglob
  if [[ ${#files[@]} -eq 0 ]]; then
    echo "pin-workflows.sh: no .github/workflows/perfgate-*.yml here; name the files" >&2
    exit 2
  fi
fi
if ! refs=$(git ls-remote "$remote" "refs/tags/$tag" "refs/tags/$tag^{}"); then
  echo "pin-workflows.sh: cannot read the tags of $remote" >&2
  exit 3
fi
# An annotated tag's commit is on its peeled line (^{}); a lightweight tag has only one line.
sha=$(awk '$2 ~ /\^\{\}$/ {print $1}' <<<"$refs")
[[ -n "$sha" ]] || sha=$(awk 'NR == 1 {print $1}' <<<"$refs")
if [[ ! "$sha" =~ ^[0-9a-f]{40}$ ]]; then
  echo "pin-workflows.sh: $remote has no tag '$tag'" >&2
  exit 2
fi
for f in "${files[@]}"; do
  if [[ ! -f "$f" ]]; then
    echo "pin-workflows.sh: '$f' does not exist" >&2
    exit 2
  fi
  sed -E -i \
    -e "s#(/(\.github/workflows/(gate|post|record|nightly)\.yml|ci/github)@)(PERFGATE_SHA|[0-9a-f]{40})( *\# *[^ ]*)?#\1$sha \# $tag#" \
    -e "s#(perfgate-ref: *)(PERFGATE_SHA|[0-9a-f]{40})#\1$sha#" "$f"
  echo "pin-workflows.sh: $f -> $tag ($sha)"
done
