#!/usr/bin/env bash
# Builds a checkout, once per commit.
# usage: ci/gh/build.sh SRC BUILD
#   With PERFGATE_BUILD_COMMAND set: runs that shell command with bash in SRC
#   (your project's build: make, CMake, Meson, any command); it must leave its
#   output in BUILD. The command sees PERFGATE_BUILD_DIR, BUILD relative to
#   SRC, and on Actions finds perfgate through pkg-config and find_package
#   (ci/gh/install.sh set that up).
#   Without it: configures SRC with CMake in Release into BUILD and builds it
#   (PERFGATE_CMAKE_ARGS: extra configure flags, default -DPG_BUILD_TESTS=OFF).
# A finished build leaves BUILD/.perfgate-build-sha holding the checkout's
# commit and the command. When BUILD already holds a build of the same commit
# and command (restored from a cache keyed by that SHA), nothing is rebuilt:
# restored files are older than a fresh checkout, so make would otherwise
# rebuild everything.
# exit: 0 built or reused, 2 usage, 3 the build failed or left no BUILD.
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: ci/gh/build.sh SRC BUILD" >&2
  exit 2
fi
src=$1 build=$2
if [[ ! -d "$src" ]]; then
  echo "build.sh: '$src' is not a directory" >&2
  exit 2
fi
command=${PERFGATE_BUILD_COMMAND:-}
if [[ -z "$command" && ! -f "$src/CMakeLists.txt" ]]; then
  echo "build.sh: '$src' holds no CMakeLists.txt; set PERFGATE_BUILD_COMMAND to your build command" >&2
  exit 2
fi
sha=$(git -C "$src" rev-parse HEAD 2>/dev/null || true)
read -ra extra <<<"${PERFGATE_CMAKE_ARGS--DPG_BUILD_TESTS=OFF}"
recipe=${command:-cmake ${extra[*]}}
stamp="$build/.perfgate-build-sha"
if [[ -n "$sha" && -f "$stamp" && "$(cat "$stamp")" == "$sha"$'\n'"$recipe" ]]; then
  echo "build.sh: $build already holds a build of $sha (restored from the cache); not rebuilding"
  exit 0
fi
if [[ -n "$command" ]]; then
  mkdir -p "$build"
  rel=$(realpath --relative-to="$src" "$build")
  echo "build.sh: in $src: $command"
  if ! (cd "$src" && PERFGATE_BUILD_DIR=$rel bash -eo pipefail -c "$command"); then
    echo "build.sh: the build command failed in $src${sha:+ at $sha}" >&2
    exit 3
  fi
elif ! cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release "${extra[@]}" ||
  ! cmake --build "$build" -j "$(nproc)"; then
  echo "build.sh: building $src${sha:+ at $sha} into $build failed" >&2
  exit 3
fi
if [[ -z "$(ls -A "$build" 2>/dev/null)" ]]; then
  echo "build.sh: the build left nothing in $build: is the build directory right?" >&2
  exit 3
fi
if [[ -n "$sha" ]]; then
  printf '%s\n%s\n' "$sha" "$recipe" >"$stamp"
fi
echo "build.sh: built $src${sha:+ at $sha} into $build"
