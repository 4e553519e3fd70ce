#!/usr/bin/env bash
# Benchmark (not a test): `perfgate compare` and `perfgate history` on a year
# of nightly runs (365 runs x CASES cases x SAMPLES raw samples), on both
# engines: a SQLite file and a PostgreSQL server this script starts itself
# (initdb in a temporary directory, a Unix socket there; as root the server
# runs as the user postgres, else nobody).
#
#   bash bench/db_fleet.sh [CASES=1000] [SAMPLES=50] [REPEATS=3]
#
# Prints the time to store the year, then the median wall and CPU time
# (user + system, perfgate and, for the server, not the server's own) of
# compare (newest run against the 5 before it, pooled) and history (every
# case, newest 100 commits) over REPEATS runs. On a loaded machine trust the
# ratios more than the seconds; give `uptime` beside any figure.
source "$(dirname "$0")/common.sh"
cases=${1:-1000}
samples=${2:-50}
repeats=${3:-3}
FILL="$BUILD/bench/bench_db_year"
[[ -x "$FILL" ]] || cmake --build "$BUILD" -j "${PERFGATE_BENCH_JOBS:-2}" --target bench_db_year >/dev/null

bin=$(dirname "$(readlink -f "$(command -v initdb || echo /usr/lib/postgresql/15/bin/initdb)")")
[[ -x "$bin/initdb" ]] || { echo "no PostgreSQL server binaries (initdb); install postgresql" >&2; exit 2; }
as=()
if [[ $(id -u) -eq 0 ]]; then
  user=postgres
  id postgres >/dev/null 2>&1 || user=nobody
  chown "$user" "$TMP"
  as=(runuser -u "$user" --)
fi
"${as[@]}" "$bin/initdb" -D "$TMP/data" -U perfgate -A trust -E UTF8 --locale=C --no-sync >"$TMP/initdb.log" 2>&1
"${as[@]}" "$bin/pg_ctl" -D "$TMP/data" -l "$TMP/server.log" -w -s -o "-k $TMP -c listen_addresses=''" start
trap '"${as[@]}" "$bin/pg_ctl" -D "$TMP/data" -m fast -w -s stop; rm -rf "$TMP"' EXIT
"$bin/psql" -X -q -d "postgresql:///postgres?host=$TMP&user=perfgate" -c "CREATE DATABASE bench"

sqlite_db="$TMP/year.db"
server_db="postgresql:///bench?host=$TMP&user=perfgate"
echo "load: $(uptime)"
"$FILL" --fill "$sqlite_db" "$cases" "$samples"
"$FILL" --fill "$server_db" "$cases" "$samples"
"$bin/psql" -X -q -d "$server_db" -c "VACUUM ANALYZE"

# Median wall and CPU seconds of REPEATS runs of a perfgate command.
timed() {
  local i
  : >"$TMP/times"
  for ((i = 0; i < repeats; i++)); do
    /usr/bin/time -f "%e %U %S" -a -o "$TMP/times" "$PERFGATE" "$@" >/dev/null 2>&1 || true
  done
  local wall cpu mid=$(((repeats + 1) / 2))
  # GNU time adds "Command exited with non-zero status N" (compare exits 1 on a regression).
  wall=$(awk '/^[0-9.]+ /{print $1}' "$TMP/times" | sort -g | sed -n "${mid}p")
  cpu=$(awk '/^[0-9.]+ /{print $2 + $3}' "$TMP/times" | sort -g | sed -n "${mid}p")
  echo "$wall s wall, $cpu s CPU"
}

for engine in sqlite server; do
  db=$sqlite_db
  [[ $engine == server ]] && db=$server_db
  printf '%-7s compare: %s\n' "$engine" "$(timed compare --db "$db" --base last:5 --format json)"
  printf '%-7s history: %s\n' "$engine" "$(timed history --db "$db" --format json)"
done
echo "load: $(uptime)"
