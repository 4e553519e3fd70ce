#!/usr/bin/env bash
# Installs exactly the Debian packages perfgate needs that are missing.
# usage: ci/install-deps.sh [--test] [--check]
#   --test   adds the test suite's packages, and its PyPI tools
#            (ci/requirements-test.txt: zizmor, check-jsonschema) into the
#            virtual environment build-tools/venv
#   --check  installs nothing: names what is missing and exits 3 (for machines
#            where an admin installs the packages once, such as the nightly
#            GPU runner, which has no sudo)
# Idempotent: when everything is present it changes nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

lists=("$here/packages.txt")
test=0 check=0
for arg in "$@"; do
  case "$arg" in
    --test) test=1 ;;
    --check) check=1 ;;
    *)
      echo "usage: ci/install-deps.sh [--test] [--check]" >&2
      exit 2
      ;;
  esac
done
if [[ $test -eq 1 ]]; then
  lists+=("$here/packages-test.txt")
fi

missing=()
while read -r pkg; do
  [[ -z "$pkg" || "$pkg" == \#* ]] && continue
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done < <(cat "${lists[@]}")

# The PyPI tools of the test suite live in their own virtual environment
# (Debian's python3 refuses system-wide pip installs), pinned; the stamp
# holds the requirements it was made from.
install_pypi() {
  local venv
  venv="$here/../build-tools/venv"
  if [[ -f "$venv/requirements.stamp" ]] && cmp -s "$venv/requirements.stamp" "$here/requirements-test.txt"; then
    return 0
  fi
  echo "install-deps: installing the PyPI tools of ci/requirements-test.txt into build-tools/venv"
  rm -rf "$venv"
  if ! python3 -m venv "$venv" || ! "$venv/bin/pip" install -q -r "$here/requirements-test.txt"; then
    echo "install-deps: could not install ci/requirements-test.txt into build-tools/venv" >&2
    exit 3
  fi
  cp "$here/requirements-test.txt" "$venv/requirements.stamp"
}

if [[ ${#missing[@]} -eq 0 ]]; then
  if [[ $test -eq 1 && $check -eq 0 ]]; then
    install_pypi
  fi
  echo "install-deps: all packages present"
  exit 0
fi
if [[ $check -eq 1 ]]; then
  echo "install-deps: missing (an admin installs them once): ${missing[*]}" >&2
  exit 3
fi

echo "install-deps: installing ${missing[*]}"
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: apt-get not found; install these packages by hand: ${missing[*]}" >&2
  exit 3
fi
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
  else
    echo "install-deps: not root and no sudo; install these packages by hand: ${missing[*]}" >&2
    exit 3
  fi
fi
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"; then
  # A fresh machine may have no package lists yet.
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" || {
    echo "install-deps: apt-get could not install: ${missing[*]}" >&2
    exit 3
  }
fi
if [[ $test -eq 1 ]]; then
  install_pypi
fi
