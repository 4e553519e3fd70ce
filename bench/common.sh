# common.sh - sourced by the bench scripts: a Release build of perfgate in build-bench/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${PERFGATE_BENCH_BUILD:-$ROOT/build-bench}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
if [[ ! -x "$BUILD/perfgate" || -n "${PERFGATE_BENCH_REBUILD:-}" ]]; then
  { cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DPG_BUILD_TESTS=OFF -DPG_USE_CUDA=OFF &&
    cmake --build "$BUILD" -j "${PERFGATE_BENCH_JOBS:-2}"; } >"$TMP/build.log" 2>&1 ||
    { cat "$TMP/build.log" >&2; exit 3; }
fi
PERFGATE="$BUILD/perfgate"

# Median (seconds per iteration) of the newest run's only result in database $1.
pg_median() {
  sqlite3 "$1" "SELECT median FROM results WHERE run_id = (SELECT MAX(id) FROM runs);"
}
