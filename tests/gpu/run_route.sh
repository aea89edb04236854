#!/usr/bin/env bash
# The compile route on a GPU machine with a plugin library built elsewhere:
# smoke program, zoo programs and jit cases in fl_only, then the benchmark
# workloads named in BENCH (from BENCH_DIR, ours then upstream). Much cheaper
# than run_all.sh (no builds). Usage, from the project root:
#   JFT_PLUGIN_SO=build/src/pjrt/libjax_flagtree_pjrt.so bash tests/gpu/run_route.sh
# Logs under $OUT: smoke.log, zoo.log, execute.log, bench.jsonl, summary.txt.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
SO=${JFT_PLUGIN_SO:-build/src/pjrt/libjax_flagtree_pjrt.so}
SITE=$(mktemp -d)
cp -r python/jax_plugins python/jax_flagtree "$SITE/"
cp "$SO" "$SITE/jax_plugins/flagtree/libjax_flagtree_pjrt.so"
export PYTHONPATH="$SITE:$PWD/tests/gpu${PYTHONPATH:+:$PYTHONPATH}"
export JAX_FLAGTREE_CACHE_DIR="$SITE/cache" PYTHONUNBUFFERED=1

run() {  # log name, then the command
  local log=$1; shift
  local start=$SECONDS
  timeout 300 "$@" > "$OUT/$log" 2>&1
  echo "rc=$? $((SECONDS - start))s $log" >> "$OUT/summary.txt"
  grep -E '^(FAIL|smoke:)|passed, ' "$OUT/$log" >> "$OUT/summary.txt"
}
: > "$OUT/summary.txt"
run smoke.log env XLA_MODE=fl_only XLA_FLAGTREE_LOG=1 python3 scripts/smoke.py
run smoke_warm.log env XLA_MODE=fl_only XLA_FLAGTREE_LOG=1 python3 scripts/smoke.py
run zoo.log env XLA_MODE=fl_only XLA_FLAGTREE_LOG=1 python3 tests/gpu/test_zoo.py
run execute.log python3 tests/gpu/test_execute.py
if [ -n "${BENCH:-}" ] && [ -d "${BENCH_DIR:-}" ]; then
  run bench_ours.jsonl env XLA_MODE=fl_only python3 "$BENCH_DIR/run_bench.py" --only "$BENCH" --label ours
  run bench_upstream.jsonl env JAX_FLAGTREE_DISABLE=1 python3 "$BENCH_DIR/run_bench.py" --only "$BENCH" --label upstream
  cat "$OUT/bench_ours.jsonl" "$OUT/bench_upstream.jsonl" | grep '^{' > "$OUT/bench.jsonl"
fi
cat "$OUT/summary.txt"
