#!/usr/bin/env bash
# Builds the wheel, installs it into a scratch directory, and runs every plugin
# GPU test plus the 1 GiB bandwidth comparison (ours, then upstream with
# JAX_FLAGTREE_DISABLE=1). Logs go to $OUT (default ./gpu-out):
#   build.log, tests.log, trace.log, summary.txt
# The last line of tests.log and summary.txt is "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
JOBS=${JOBS:-$(nproc)}
TESTS="pjrt_devices pjrt_registration_order pjrt_roundtrip pjrt_memory_cycles pjrt_upstream pjrt_direct"

{
  echo "== machine"; nvidia-smi -L 2>&1 | head -4; uname -m
  python3 -c 'import sys, jax, jaxlib; print(sys.version.split()[0], "jax", jax.__version__, "jaxlib", jaxlib.__version__)' 2>&1
  python3 -c 'import pytest; print("pytest", pytest.__version__)' 2>&1 | tail -1
  echo "== wheel"
  python3 tests/gpu/pjrt_probe_upstream.py 2>&1
  python3 scripts/build_wheel.py --build-dir build-dev --out dist --jobs "$JOBS" 2>&1 | tail -5
} > "$OUT/build.log" 2>&1
WHEEL=$(ls dist/jax_flagtree-*.whl 2>/dev/null | head -1)
if [ -z "$WHEEL" ]; then
  echo "0 passed, 1 failed, 0 skipped (wheel build failed)" | tee "$OUT/summary.txt"
  exit 1
fi
SITE=$(mktemp -d)
python3 -m pip install -q --no-deps --no-index --target "$SITE" "$WHEEL" >> "$OUT/build.log" 2>&1
echo "installed $WHEEL into $SITE" >> "$OUT/build.log"
export PYTHONPATH="$SITE:$PWD/tests/gpu${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1

pass=0; fail=0; skip=0
run_test() {  # name, then extra environment assignments
  local name=$1; shift
  echo "== $name $*" >> "$OUT/tests.log"
  env "$@" timeout 300 python3 "tests/gpu/$name.py" > "$OUT/$name.tmp" 2>&1
  local rc=$?
  cat "$OUT/$name.tmp" >> "$OUT/tests.log"
  local p f s
  p=$(grep -cE '^PASS[ :]' "$OUT/$name.tmp"); f=$(grep -cE '^FAIL[ :]' "$OUT/$name.tmp")
  s=$(grep -cE '^SKIP[ :]' "$OUT/$name.tmp")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1; echo "FAIL $name: exited with status $rc" >> "$OUT/tests.log"
  fi
  pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
  rm -f "$OUT/$name.tmp"
}
for t in $TESTS; do run_test "$t"; done
run_test test_worker
run_test test_worker_loss
run_test test_persistent_cache
run_test test_startup
run_test test_execute
run_test test_profiler
run_test test_zoo XLA_MODE=fl_only
run_test test_ops XLA_MODE=fl_only
run_test test_horizontal XLA_MODE=fl_only
run_test test_modes
run_test test_linalg
run_test test_conv XLA_MODE=fl_only
run_test test_conv XLA_MODE=fl_only XLA_FLAGTREE_CONV=ttir
run_test test_conv XLA_MODE=fl_only XLA_FLAGTREE_CONV=library
run_test test_conv XLA_MODE=fl_only XLA_FLAGTREE_CONV=cudnn
run_test test_dot XLA_MODE=fl_only
run_test test_rng XLA_MODE=fl_only
run_test test_pallas XLA_MODE=fl_only
run_test test_deterministic XLA_MODE=fl_only
run_test test_matmul XLA_MODE=fl_only XLA_FLAGTREE_MATMUL=ttir
run_test test_autotune
run_test test_matmul XLA_MODE=fl_only XLA_FLAGTREE_MATMUL=library
run_test test_collectives XLA_MODE=fl_only
run_test test_sharded XLA_MODE=fl_only
run_test test_multiprocess XLA_MODE=fl_only
run_test test_callbacks XLA_MODE=fl_only
run_test test_ffi XLA_MODE=fl_only
run_test test_dlpack_memory XLA_MODE=fl_only
run_test test_diffrax_lineax XLA_MODE=fl_only
run_test test_pjrt_extras XLA_MODE=fl_only
run_test pjrt_bandwidth
run_test pjrt_bandwidth JFT_PINNED_STAGING=0
run_test pjrt_bandwidth JAX_FLAGTREE_DISABLE=1

# C++ GPU tests (ctest label "gpu"), built from the full project in build-gpu.
run_ctest_gpu() {
  echo "== ctest -L gpu" >> "$OUT/tests.log"
  if ! { cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release &&
         cmake --build build-gpu -j "$JOBS" --target runtime_launch_test gpu_solver_test gpu_fft_test gpu_conv_test; } \
       > "$OUT/ctest-build.log" 2>&1; then
    echo "FAIL ctest_gpu: build failed (see ctest-build.log)" >> "$OUT/tests.log"
    fail=$((fail + 1)); return
  fi
  ctest --test-dir build-gpu -L gpu --output-on-failure --timeout 300 > "$OUT/ctest.tmp" 2>&1
  cat "$OUT/ctest.tmp" >> "$OUT/tests.log"
  # One "n/N Test #k: name ... Passed|Skipped|Failed" line per gtest case.
  local p f s
  p=$(grep -cE 'Test +#[0-9]+: .*Passed' "$OUT/ctest.tmp")
  s=$(grep -cE 'Test +#[0-9]+: .*Skipped' "$OUT/ctest.tmp")
  f=$(grep -cE 'Test +#[0-9]+: .*(Failed|Exception|Timeout|Not Run)' "$OUT/ctest.tmp")
  if [ $((p + f + s)) -eq 0 ]; then
    f=1; echo "FAIL ctest_gpu: no test ran" >> "$OUT/tests.log"
  fi
  pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
  rm -f "$OUT/ctest.tmp"
  # Host cost of one execution and of the allocator, for the summary.
  build-gpu/tests/runtime/runtime_launch_test --gtest_filter='*HostCost*' 2>&1 |
    grep -E '^PERF' >> "$OUT/tests.log"
}
run_ctest_gpu

# Which entry points JAX calls on the plugin for one put/get (for debugging).
JFT_PJRT_TRACE=1 timeout 120 python3 -c '
import jax, numpy as np
x = jax.device_put(np.arange(6, dtype=np.float32).reshape(2, 3))
print(np.asarray(x)); print(jax.devices()[0].memory_stats())
' > "$OUT/trace.log" 2>&1

summary="$pass passed, $fail failed, $skip skipped"
grep -E '^(BANDWIDTH|HOST)' "$OUT/tests.log" > "$OUT/summary.txt"
grep -E '^PERF' "$OUT/tests.log" >> "$OUT/summary.txt"
echo "$summary" | tee -a "$OUT/tests.log" >> "$OUT/summary.txt"
cat "$OUT/summary.txt"
[ "$fail" -eq 0 ]
