#!/usr/bin/env bash
# Makes the git repository the bisection tests and bench search: 32 commits
# of a small library of two kernels (kern.c, a perfgate plugin) and a program
# that reports their time (kern_time.c), built by its Makefile. Commit 1
# holds everything; the others add a line to CHANGES.md, except:
#   sharp:  commit 7 gives kern_b 2 % more sweeps, commit 19 gives kern_a 10 % more
#   spread: kern_a gets its 10 % in four steps of about 2.5 %, commits 17 to 20
#   flat:   nothing changes the kernels
#   nights: commit 6 gives kern_a 40 % more sweeps, commit 14 takes them back
#           (the nightly's lifecycle: nights at commits 2, 3, 4, 8, 12 and 16)
# usage: make_repo.sh DIR sharp|spread|flat|nights
# Commits are dated and authored alike on every run, so their SHAs are too.
set -euo pipefail
dir=$1 mode=$2
here=$(cd "$(dirname "$0")" && pwd)
case "$mode" in sharp | spread | flat | nights) ;; *)
  echo "make_repo.sh: mode is sharp, spread, flat or nights, not '$mode'" >&2
  exit 2
  ;;
esac
mkdir -p "$dir/src"
cd "$dir"
export GIT_AUTHOR_NAME=perfgate GIT_AUTHOR_EMAIL=perfgate@example.invalid
export GIT_COMMITTER_NAME=perfgate GIT_COMMITTER_EMAIL=perfgate@example.invalid
git init -q -b main .
git config commit.gpgsign false
cp "$here/kern.c" src/kern.c
cp "$here/kern_time.c" src/kern_time.c
cat >Makefile <<'MK'
# make PERFGATE_INCLUDE=DIR: the plugin and the program into build/ (the suites' {build}).
CC ?= cc
PERFGATE_INCLUDE ?= /usr/local/include
all: build/libkern.so build/kern-time
build/libkern.so: src/kern.c src/work.h
	mkdir -p build
	$(CC) -O2 -fPIC -shared -I$(PERFGATE_INCLUDE) -Isrc -o $@ src/kern.c
build/kern-time: src/kern_time.c src/work.h
	mkdir -p build
	$(CC) -O2 -Isrc -o $@ src/kern_time.c
MK
printf 'build/\n' >.gitignore
work() {
  printf '/* work.h - sweeps per iteration of each kernel. */\n#define A_SWEEPS %d\n#define B_SWEEPS %d\n' "$1" "$2" >src/work.h
}
commit() {
  local n=$1
  export GIT_AUTHOR_DATE="2026-01-01T00:$(printf %02d "$n"):00Z" GIT_COMMITTER_DATE="2026-01-01T00:$(printf %02d "$n"):00Z"
  git add -A
  git commit -q -m "$2"
}
a=200 b=200
work $a $b
echo "changes" >CHANGES.md
commit 1 "kern: two kernels and their plugin"
for n in $(seq 2 32); do
  msg="notes: change $n"
  if [[ $mode == sharp && $n == 7 ]]; then
    b=204
    msg="kern_b: 2% more sweeps"
  elif [[ $mode == sharp && $n == 19 ]]; then
    a=220
    msg="kern_a: 10% more sweeps"
  elif [[ $mode == nights && $n == 6 ]]; then
    a=280
    msg="kern_a: 40% more sweeps"
  elif [[ $mode == nights && $n == 14 ]]; then
    a=200
    msg="kern_a: back to 200 sweeps"
  elif [[ $mode == spread && $n -ge 17 && $n -le 20 ]]; then
    a=$((a + 5))
    msg="kern_a: 5 more sweeps"
  fi
  work $a $b
  echo "change $n" >>CHANGES.md
  commit "$n" "$msg"
done
