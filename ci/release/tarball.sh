#!/usr/bin/env bash
# Makes perfgate's source tarball, perfgate-VERSION.tar.gz: the tracked files
# under perfgate-VERSION/, with cmake/commit.txt naming the commit they come
# from (git archive fills it in: .gitattributes, export-subst), so a build
# from the tarball, which has no .git, still prints its commit in
# `perfgate --version`. Build and install from it:
#   tar -xzf perfgate-0.1.0.tar.gz && cd perfgate-0.1.0
#   cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPG_BUILD_TESTS=OFF
#   cmake --build build -j && cmake --install build --prefix ~/.local
# usage: ci/release/tarball.sh [--out DIR] [REV | --worktree]
#   REV         the commit or tag to archive (default HEAD)
#   --worktree  the tracked files as they are now, uncommitted changes
#               included (local builds, tests); commit.txt then names HEAD,
#               with "-dirty" when the files differ from it
#   --out DIR   where to write the tarball (default .)
# Prints the tarball's path. exit: 0, 2 usage or not a git checkout.
set -euo pipefail
out=. rev=HEAD worktree=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out)
      [[ $# -ge 2 ]] || { echo "tarball.sh: --out needs a directory" >&2; exit 2; }
      out=$2
      shift 2
      ;;
    --worktree) worktree=1; shift ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
      exit 0
      ;;
    -*) echo "tarball.sh: unknown option '$1'; see --help" >&2; exit 2 ;;
    *) rev=$1; shift ;;
  esac
done
src=$(cd "$(dirname "$0")/../.." && pwd)
if [[ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" != "$src" ]]; then
  echo "tarball.sh: $src is not a git checkout (an unpacked tarball builds as it is)" >&2
  exit 2
fi
if ! git -C "$src" rev-parse --verify -q "$rev^{commit}" >/dev/null; then
  echo "tarball.sh: '$rev' is not a commit of the git checkout $src" >&2
  exit 2
fi
version=$(git -C "$src" show "$rev:CMakeLists.txt" | sed -n 's/^project(perfgate VERSION \([0-9][0-9.]*\).*/\1/p')
if [[ -z "$version" ]]; then
  echo "tarball.sh: no 'project(perfgate VERSION ...)' in $rev:CMakeLists.txt" >&2
  exit 2
fi
mkdir -p "$out"
name=perfgate-$version
tarball=$(cd "$out" && pwd)/$name.tar.gz

if [[ $worktree -eq 0 ]]; then
  if [[ "$rev" == HEAD && -n "$(git -C "$src" status --porcelain --untracked-files=no)" ]]; then
    echo "tarball.sh: note: uncommitted changes are not in the tarball (HEAD is); --worktree takes them" >&2
  fi
  git -C "$src" archive --format=tar.gz --prefix="$name/" -o "$tarball" "$rev"
  echo "$tarball"
  exit 0
fi

# The working tree's tracked files: a commit object of them (no ref, no
# change to the checkout), archived, with commit.txt naming HEAD.
snapshot=$(git -C "$src" -c user.name=perfgate -c user.email=perfgate@localhost stash create)
commit=$(git -C "$src" rev-parse HEAD)
if [[ -n "$snapshot" ]]; then
  commit=$commit-dirty
else
  snapshot=HEAD
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$src" archive --format=tar --prefix="$name/" "$snapshot" | tar -x -C "$tmp"
echo "$commit" >"$tmp/$name/cmake/commit.txt"
# Reproducible: names sorted, HEAD's time, no owner, no gzip timestamp.
when=$(git -C "$src" log -1 --format=%ct HEAD)
tar -C "$tmp" --sort=name --mtime="@$when" --owner=0 --group=0 --numeric-owner -cf - "$name" | gzip -n >"$tarball"
echo "$tarball"
