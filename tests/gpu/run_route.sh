#!/usr/bin/env bash
# The compile route on a GPU machine with a plugin library built elsewhere:
# smoke program, zoo programs, jit cases and the op sweep (test_ops.py) in
# fl_only, then the benchmark
# workloads named in BENCH (from BENCH_DIR, ours then upstream). Much cheaper
# than run_all.sh (no builds). Usage, from the project root:
#   JFT_PLUGIN_SO=build/src/pjrt/libjax_flagtree_pjrt.so bash tests/gpu/run_route.sh
# Logs under $OUT: smoke.log, zoo.log, execute.log, ops.log, conv.log, conv_ttir.log, dot.log, rng.log,
# matmul.log, autotune.log,
# linalg.log, bench_*.log,
# bench.jsonl,
# dump/<workload> (what JAX sent us), summary.txt.
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
run ops.log env XLA_MODE=fl_only python3 tests/gpu/test_ops.py
run conv.log env XLA_MODE=fl_only XLA_FLAGTREE_LOG=1 python3 tests/gpu/test_conv.py
run conv_ttir.log env XLA_MODE=fl_only XLA_FLAGTREE_CONV=ttir XLA_FLAGTREE_LOG=1 python3 tests/gpu/test_conv.py
run dot.log env XLA_MODE=fl_only python3 tests/gpu/test_dot.py
run rng.log env XLA_MODE=fl_only python3 tests/gpu/test_rng.py
run linalg.log env XLA_MODE=fl_only python3 tests/gpu/test_linalg.py
run matmul.log env XLA_MODE=fl_only XLA_FLAGTREE_MATMUL=ttir XLA_FLAGTREE_LOG=1 python3 tests/gpu/test_matmul.py
run autotune.log python3 tests/gpu/test_autotune.py
# Each workload in its own process with its own limit (BENCH_TIMEOUT seconds),
# so a hang or crash costs that workload only; ours also dumps what JAX sent.
if [ -n "${BENCH:-}" ] && [ -d "${BENCH_DIR:-}" ]; then
  limit=${BENCH_TIMEOUT:-120}
  for w in ${BENCH//,/ }; do
    for side in ours upstream; do
      if [ $side = ours ]; then
        env_args=(XLA_MODE=fl_only XLA_FLAGTREE_LOG=1 "XLA_FLAGS=--xla_dump_to=$OUT/dump/$w")
      else
        env_args=(JAX_FLAGTREE_DISABLE=1)
      fi
      start=$SECONDS
      timeout -s ABRT -k 10 "$limit" env PYTHONFAULTHANDLER=1 "${env_args[@]}" python3 "$BENCH_DIR/run_bench.py" --only "$w" \
        --label $side > "$OUT/bench_${side}_$w.log" 2>&1
      rc=$?
      echo "rc=$rc $((SECONDS - start))s bench $side $w" >> "$OUT/summary.txt"
      if grep -q '^{' "$OUT/bench_${side}_$w.log"; then
        grep '^{' "$OUT/bench_${side}_$w.log" >> "$OUT/bench.jsonl"
      else
        echo "{\"label\": \"$side\", \"workload\": \"$w\", \"error\": \"rc=$rc after $((SECONDS - start)) s\"}" >> "$OUT/bench.jsonl"
      fi
    done
  done
fi
cat "$OUT/summary.txt"
