#!/usr/bin/env bash
# device-check.sh - one short check of the CUDA backend on a machine with a GPU.
#
# Builds perfgate with the CUDA backend (or unpacks a prebuilt bundle), runs
# the GPU tests, runs suites/gpu.yaml into a scratch database, prints a table
# (median, IQR, n, TFLOP/s or GB/s, MFU, SM clocks, throttled samples) and, if
# PyTorch and Triton are installed, times torch.matmul on the same bf16
# 8192^3 GEMM with triton.testing.do_bench (median) and prints perfgate's time
# over torch's as a ratio. Sized for under 5 minutes on one H200.
#
# usage:
#   scripts/device-check.sh bundle   # on a build machine: Release build + bundle of
#                                    # the binaries and the shared libraries a bare GPU
#                                    # machine may lack -> build-device/bundle.tar.xz
#   scripts/device-check.sh          # on the GPU machine: use build-device/bundle.tar.xz
#                                    # when present, else build from source here
# Output also goes to $OUT/device-check.log when OUT is set.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bdir=${PG_DEVICE_BUILD:-build-device}
bundle=$bdir/bundle.tar.xz
out=${OUT:-}
log=/dev/null
if [[ -n "$out" ]]; then
  mkdir -p "$out"
  log=$out/device-check.log
fi
say() { echo "$@" | tee -a "$log"; }
step() { say ""; say "== $*"; }

build() {
  cmake -S . -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DPG_USE_CUDA=ON -DPG_BUILD_TESTS=ON >"$bdir/build.log" 2>&1 &&
    cmake --build "$bdir" -j "$(nproc)" --target perfgate test_cuda >>"$bdir/build.log" 2>&1 || {
      tail -40 "$bdir/build.log"
      return 1
    }
}

if [[ "${1:-}" == "bundle" ]]; then
  mkdir -p "$bdir"
  build || exit 3
  stage=$(mktemp -d)
  mkdir -p "$stage/bin" "$stage/lib"
  cp "$bdir/perfgate" "$bdir/tests/test_cuda" "$stage/bin/"
  # Every shared library the binaries load except glibc's, the C++ runtime's
  # and CUDA's own (those come with the GPU machine's driver and toolkit).
  ldd "$bdir/perfgate" "$bdir/tests/test_cuda" | awk '$3 ~ /^\// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*|libstdc\+\+|libgcc_s|libcuda|libcudart|libcublas|libcublasLt|libnvidia-ml)\.so' |
    while read -r lib; do cp -L "$lib" "$stage/lib/"; done
  echo "$root" >"$stage/source_dir"
  tar -C "$stage" -cJf "$bundle" . && rm -rf "$stage"
  ls -l "$bundle"
  echo "carry it to the GPU machine: run(command='bash scripts/device-check.sh', carry=['$bundle'])"
  exit 0
fi

start=$(date +%s)
step "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu --format=csv 2>&1 | tee -a "$log"
command -v nvcc >/dev/null && nvcc --version | tail -2 | tee -a "$log"

bin=$bdir
tests=$bdir/tests
if [[ -f "$bundle" ]]; then
  step "unpacking $bundle"
  pg=/tmp/perfgate-device
  rm -rf "$pg" && mkdir -p "$pg" && tar -C "$pg" -xJf "$bundle" || exit 3
  export LD_LIBRARY_PATH=$pg/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  bin=$pg/bin
  tests=$pg/bin
  # The tests find suites/ and the binary through the paths they were built at.
  src=$(cat "$pg/source_dir")
  if [[ "$src" != "$root" && ! -e "$src" ]]; then
    mkdir -p "$(dirname "$src")" && ln -s "$root" "$src"
  fi
  mkdir -p "$src/$bdir" 2>/dev/null && cp "$bin/perfgate" "$src/$bdir/perfgate" 2>/dev/null
else
  step "building (Release, PG_USE_CUDA=ON) in $bdir"
  mkdir -p "$bdir"
  build || { say "build failed: see above (missing -dev packages? then bundle on a build machine)"; exit 3; }
fi
"$bin/perfgate" doctor 2>&1 | sed -n '/^gpu:/,/^$/p' | tee -a "$log"

step "GPU tests (test_cuda)"
tests_out=$(mktemp)
timeout 180 "$tests/test_cuda" --jobs 1 --verbose > "$tests_out" 2>&1
tests_rc=$?
grep -E '^\[(PASS|FAIL|SKIP|ERR)|Synthesis|Assertion|failed' "$tests_out" | tee -a "$log"
# On a machine with a device only the no-device tests may skip: a skipped device test did not run.
if grep -E '^\[SKIP\]' "$tests_out" | grep -qv 'cuda_nodevice::'; then
  say "device tests SKIPPED on a machine that should have a device (see the reasons above)"
  tests_rc=1
fi
rm -f "$tests_out"
step "the skip path with the device hidden (CUDA_VISIBLE_DEVICES=)"
CUDA_VISIBLE_DEVICES= timeout 60 "$tests/test_cuda" --jobs 1 --filter 'cuda_nodevice/*' 2>&1 | tail -1 | tee -a "$log"

step "perfgate run suites/gpu.yaml"
db=$(mktemp -d)/gpu.db
timeout 240 "$bin/perfgate" run --db "$db" --commit device-check --branch device-check suites/gpu.yaml 2>&1 | tee -a "$log"
run_rc=${PIPESTATUS[0]}
say "perfgate run exit code: $run_rc (0 expected)"
step "perfgate run examples/gpu-host-sync.yaml (fails by design: a host sync inside a step)"
timeout 60 "$bin/perfgate" run --no-store examples/gpu-host-sync.yaml 2>&1 | tee -a "$log"
say "exit code: ${PIPESTATUS[0]} (1 expected on a GPU: the check names the range and the op)"

step "table"
python3 scripts/device_table.py "$db" 2>&1 | tee -a "$log"
[[ -n "$out" ]] && cp "$db" "$out/gpu.db" 2>/dev/null

step "perfgate bf16 8192^3 GEMM vs torch.matmul timed by triton.testing.do_bench (median)"
python3 scripts/device_table.py "$db" --torch 2>&1 | tee -a "$log"

say ""
say "device-check: tests exit $tests_rc, run exit $run_rc, $(($(date +%s) - start)) s"
(( tests_rc == 0 && run_rc == 0 ))
