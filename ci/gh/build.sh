#!/usr/bin/env bash
# Configures and builds a CMake checkout (perfgate, or your project) in Release.
# usage: ci/gh/build.sh SRC BUILD
# A finished build leaves BUILD/.perfgate-build-sha holding the checkout's
# commit. When BUILD already holds a build of the same commit (restored from a
# cache keyed by that SHA), nothing is rebuilt: restored files are older than a
# fresh checkout, so make would otherwise rebuild everything.
# env: PERFGATE_CMAKE_ARGS  extra configure flags (default -DPG_BUILD_TESTS=OFF)
# exit: 0 built or reused, 2 usage, 3 the configure or build failed.
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: ci/gh/build.sh SRC BUILD" >&2
  exit 2
fi
src=$1 build=$2
if [[ ! -f "$src/CMakeLists.txt" ]]; then
  echo "build.sh: '$src' holds no CMakeLists.txt" >&2
  exit 2
fi
sha=$(git -C "$src" rev-parse HEAD 2>/dev/null || true)
stamp="$build/.perfgate-build-sha"
if [[ -n "$sha" && -f "$stamp" && "$(cat "$stamp")" == "$sha" ]]; then
  echo "build.sh: $build already holds a build of $sha (restored from the cache); not rebuilding"
  exit 0
fi
read -ra extra <<<"${PERFGATE_CMAKE_ARGS--DPG_BUILD_TESTS=OFF}"
if ! cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release "${extra[@]}" ||
  ! cmake --build "$build" -j "$(nproc)"; then
  echo "build.sh: building $src${sha:+ at $sha} into $build failed" >&2
  exit 3
fi
if [[ -n "$sha" ]]; then
  echo "$sha" >"$stamp"
fi
echo "build.sh: built $src${sha:+ at $sha} into $build"
