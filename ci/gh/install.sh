#!/usr/bin/env bash
# Installs perfgate into PREFIX from its source tarball, as perfgate's
# reusable workflows do: the source tarball of the perfgate checkout that
# holds this script (ci/release/tarball.sh), or that unpacked tarball itself,
# configured in Release, built and `cmake --install`ed. When PREFIX already
# holds a perfgate of the same commit (restored from the cache, keyed by
# `--key`), nothing is built.
# usage: ci/gh/install.sh PREFIX
#        ci/gh/install.sh --key   prints key=KEY, the installed tree's cache
#                                 key: perfgate's version and commit and this
#                                 runner's image (OS, architecture, ImageOS and
#                                 ImageVersion of hosted runners, the CUDA
#                                 compiler when there is one)
# env: PERFGATE_TARBALL     build this source tarball instead
#      PERFGATE_CMAKE_ARGS  extra configure flags
# On GitHub Actions (GITHUB_PATH, GITHUB_ENV set), PREFIX/bin goes on the PATH
# of the later steps, PERFGATE names PREFIX/bin/perfgate, and PKG_CONFIG_PATH
# and CMAKE_PREFIX_PATH name PREFIX, so your build command finds perfgate.pc
# (pkg-config --cflags perfgate) and find_package(perfgate).
# exit: 0 installed or already there, 2 usage, 3 the build failed.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)

# The commit of this perfgate: an unpacked tarball's cmake/commit.txt, else git.
commit() {
  local c=""
  if [[ -f "$src/cmake/commit.txt" ]]; then
    c=$(tr -d '[:space:]' <"$src/cmake/commit.txt")
  fi
  if [[ ! "$c" =~ ^[0-9a-f]+(-dirty)?$ ]]; then
    c=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)
  fi
  echo "$c"
}

version() {
  sed -n 's/^project(perfgate VERSION \([0-9][0-9.]*\).*/\1/p' "$src/CMakeLists.txt"
}

if [[ "${1:-}" == --key ]]; then
  os=unknown
  if [[ -r /etc/os-release ]]; then
    # shellcheck source=/dev/null
    os=$(. /etc/os-release && echo "${ID:-linux}${VERSION_ID:-}")
  fi
  key="perfgate-install-$(version)-$(commit)-$os-$(uname -m)"
  if [[ -n "${ImageOS:-}" ]]; then
    key+="-${ImageOS}-${ImageVersion:-}"
  fi
  if command -v nvcc >/dev/null 2>&1; then
    key+="-cuda$(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
  fi
  echo "key=$key"
  exit 0
fi
if [[ $# -ne 1 || "$1" == -* ]]; then
  echo "usage: ci/gh/install.sh PREFIX | --key" >&2
  exit 2
fi
mkdir -p "$1"
prefix=$(cd "$1" && pwd)
want=$(commit)

export_for_later_steps() {
  if [[ -n "${GITHUB_PATH:-}" ]]; then
    echo "$prefix/bin" >>"$GITHUB_PATH"
  fi
  if [[ -n "${GITHUB_ENV:-}" ]]; then
    local pc
    pc=$(dirname "$(find "$prefix" -name perfgate.pc -print -quit)")
    {
      echo "PERFGATE=$prefix/bin/perfgate"
      echo "PKG_CONFIG_PATH=$pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
      echo "CMAKE_PREFIX_PATH=$prefix${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
    } >>"$GITHUB_ENV"
  fi
}

have=$("$prefix/bin/perfgate" --version 2>/dev/null | sed -n 's/^commit: //p' || true)
if [[ -n "$have" && "$have" == "$want" && -z "${PERFGATE_TARBALL:-}" ]]; then
  echo "install.sh: $prefix already holds perfgate $(version) at $want (restored from the cache); not rebuilding"
  export_for_later_steps
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
filled=$(tr -d '[:space:]' <"$src/cmake/commit.txt" 2>/dev/null || true)
if [[ -n "${PERFGATE_TARBALL:-}" ]]; then
  tarball=$PERFGATE_TARBALL
elif [[ "$filled" =~ ^[0-9a-f]+(-dirty)?$ ]]; then
  # An unpacked source tarball (git archive filled commit.txt in): built as it is.
  tarball=""
elif [[ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" == "$src" ]]; then
  tarball=$(bash "$src/ci/release/tarball.sh" --out "$work" HEAD)
else
  echo "install.sh: $src is neither a git checkout of perfgate nor an unpacked source tarball" >&2
  exit 2
fi
if [[ -n "$tarball" ]]; then
  tar -xzf "$tarball" -C "$work"
  tree=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'perfgate-*' -print -quit)
  if [[ -z "$tree" ]]; then
    echo "install.sh: $tarball holds no perfgate-VERSION/ directory" >&2
    exit 2
  fi
else
  tree=$src
fi
read -ra extra <<<"${PERFGATE_CMAKE_ARGS:-}"
echo "install.sh: building perfgate $(version) from ${tarball:-$tree} into $prefix"
if ! cmake -S "$tree" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DPG_BUILD_TESTS=OFF \
  -DPG_BUILD_EXAMPLES=OFF -DPG_BUILD_BENCH=OFF "${extra[@]}" >"$work/build.log" 2>&1 ||
  ! cmake --build "$work/build" -j "$(nproc)" >>"$work/build.log" 2>&1; then
  cat "$work/build.log" >&2
  echo "install.sh: building perfgate failed" >&2
  exit 3
fi
cmake --install "$work/build" --prefix "$prefix" >/dev/null
"$prefix/bin/perfgate" --version
export_for_later_steps
