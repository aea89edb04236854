#!/usr/bin/env bash
# The whole-suite gate, one step per GPU-machine command (each fits the 10-minute limit;
# a step cut short leaves MISSING ids, never a half-written result). From the repository
# root, with tests/jax_suite/upstream (made by `run.py prepare`) carried along:
#
#   bash tests/jax_suite/device_suite.sh collect PROFILE...     # one_gpu x64 two_gpu
#   bash tests/jax_suite/device_suite.sh upstream PROFILE I/N   # upstream on the selection
#   bash tests/jax_suite/device_suite.sh bootstrap PROFILE I/N  # collect + upstream in one
#   bash tests/jax_suite/device_suite.sh ours PROFILE I/N       # our plugin on the list
#
# collect   collects every test file of each PROFILE (parallel pytest --collect-only
#           over file groups), draws the stratified selection and writes
#           $OUT/PROFILE/{selected.txt,selected.meta.json,collect.json,files.json};
#           commit the first two as tests/jax_suite/lists/PROFILE.selected.txt/.meta.json.
# upstream  runs shard I/N of lists/PROFILE.selected.txt with upstream XLA
#           (JAX_FLAGTREE_DISABLE=1); $OUT/upstream-PROFILE-I.tar.gz is its run folder.
#           With every shard back: `run.py make-list --from DIR1 --from DIR2 --list
#           tests/jax_suite/lists/PROFILE.txt`, and commit the list, its meta and upstream.json.
# bootstrap collect (this PROFILE only, at most 240 s) and upstream shard I/N of the fresh
#           selection in one command: saves committing the selection between the two; the
#           selection is also in $OUT/PROFILE/.
# ours      builds and installs the plugin as tests/gpu/run_all.sh does (a warm machine
#           reuses build-dev/), runs shard I/N of lists/PROFILE.txt with XLA_MODE=fl_only;
#           $OUT/ours-PROFILE-I.tar.gz is its run folder. With every shard back:
#           `run.py verdict DIR1 DIR2 --list tests/jax_suite/lists/PROFILE.txt --out V`.
#
# Environment (optional): JAX_SUITE_TOTAL (seconds for the whole command, default 570),
# JAX_SUITE_PARALLEL (test processes, default 16), JAX_SUITE_BATCH (ids per batch, default
# 50), JAX_SUITE_SIZE (ids to select per profile, default 8000; JAX_SUITE_SIZE_X64, 1800),
# JAX_SUITE_SEED (0), JAX_SUITE_SITE (the plugin already installed there: no build),
# JAX_SUITE_TEST_TIMEOUT (per test, default 120), JAX_SUITE_LIST (the list to run instead),
# JAX_SUITE_PLATFORM (JAX_PLATFORMS for the tests, default cuda,cpu; cpu only to try the script).
set -u
cd "$(dirname "$0")/../.."
START=$(date +%s)
TOTAL=${JAX_SUITE_TOTAL:-570}
OUT=${OUT:-$PWD/jax-suite-out}
mkdir -p "$OUT"
PAR=${JAX_SUITE_PARALLEL:-16}
BATCH=${JAX_SUITE_BATCH:-50}
TT=${JAX_SUITE_TEST_TIMEOUT:-120}
RUN="python3 tests/jax_suite/run.py"
PLAT=(--platform "${JAX_SUITE_PLATFORM:-cuda,cpu}")
LISTS=tests/jax_suite/lists
WORK=tests/jax_suite/out/work
LOG=$OUT/suite.log
export PYTHONUNBUFFERED=1
left() { echo $((TOTAL - ($(date +%s) - START))); }
note() { echo "[suite $(date +%H:%M:%S) $(left)s left] $*" | tee -a "$LOG"; }

pack() {  # run folder, name: the folder without batches, and each batch log's last 32 KiB
  local dir=$1 name=$2
  mkdir -p "$dir/logtails"
  for f in "$dir"/logs/*.log; do [ -f "$f" ] && tail -c 32768 "$f" > "$dir/logtails/$(basename "$f")"; done
  tar czf "$OUT/$name.tar.gz" -C "$(dirname "$dir")" --exclude='*/logs' --exclude='*/batches' \
      "$(basename "$dir")" 2>/dev/null
  for f in summary.json failure_classes.txt; do
    [ -f "$dir/$f" ] && cp "$dir/$f" "$OUT/$name.$f"
  done
}

if [ ! -f tests/jax_suite/upstream/SOURCE.json ]; then
  note "no tests/jax_suite/upstream: run 'python3 tests/jax_suite/run.py prepare' where a jax clone is, and carry that folder"
  exit 2
fi
STEP=${1:-}
shift || true
rm -rf "$WORK"; mkdir -p "$WORK"
nvidia-smi -L 2>&1 | head -8 | tee -a "$LOG"

collect_profile() {  # profile, seconds it may take
  local prof=$1 limit=$2 size=${JAX_SUITE_SIZE:-8000}
  [ "$prof" = x64 ] && size=${JAX_SUITE_SIZE_X64:-1800}
  note "collecting profile $prof, selecting $size"
  $RUN collect "${PLAT[@]}" --profile "$prof" --out "$WORK/$prof" --parallel "$PAR" \
      --timeout "$limit" --stratify "$size" --seed "${JAX_SUITE_SEED:-0}" \
      2>&1 | tail -40 | tee -a "$LOG"
  mkdir -p "$OUT/$prof"
  cp "$WORK/$prof"/{selected.txt,selected.meta.json,collect.json,files.json} "$OUT/$prof/" 2>/dev/null
  tar czf "$OUT/$prof/collect-logs.tar.gz" -C "$WORK/$prof" $(cd "$WORK/$prof" && ls *.log 2>/dev/null) 2>/dev/null
}

case "$STEP" in
  collect)
    [ $# -ge 1 ] || { note "collect: name the profiles (one_gpu x64 two_gpu)"; exit 2; }
    for prof in "$@"; do collect_profile "$prof" $(( $(left) - 20 )); done
    note "done"
    ;;
  upstream|ours|bootstrap)
    prof=${1:?profile}; shard=${2:-1/1}
    i=${shard%/*}
    if [ "$STEP" = bootstrap ]; then
      # Collect and select here (deterministic: every shard's command draws the same
      # selection, which make-list checks by its sha256), then run upstream on a shard.
      collect_profile "$prof" 240
      list=$WORK/$prof/selected.txt; mode=(--upstream); STEP=upstream
    elif [ "$STEP" = upstream ]; then
      list=${JAX_SUITE_LIST:-$LISTS/$prof.selected.txt}; mode=(--upstream)
    else
      list=${JAX_SUITE_LIST:-$LISTS/$prof.txt}; mode=()
      if [ -n "${JAX_SUITE_SITE:-}" ]; then
        SITE=$JAX_SUITE_SITE
      else
        note "building the wheel (build-dev/ is reused on a warm machine)"
        python3 scripts/build_wheel.py --build-dir build-dev --out dist --jobs "$(nproc)" \
            > "$OUT/build.log" 2>&1
        WHEEL=$(ls -t dist/jax_flagtree-*.whl 2>/dev/null | head -1)
        [ -n "$WHEEL" ] || { note "wheel build failed"; tail -20 "$OUT/build.log" | tee -a "$LOG"; exit 1; }
        SITE=tests/jax_suite/out/site
        rm -rf "$SITE"
        python3 -m pip install -q --no-deps --no-index --target "$SITE" "$WHEEL" >> "$OUT/build.log" 2>&1
        note "installed $(basename "$WHEEL")"
      fi
      export PYTHONPATH="$(cd "$SITE" && pwd)${PYTHONPATH:+:$PYTHONPATH}"
    fi
    [ -f "$list" ] || { note "no $list (see this script's header)"; exit 2; }
    note "$STEP run of $list shard $shard"
    mkdir -p "$WORK/$STEP-$prof-$i"
    # The full output stays in the run folder; the log (and the command's output) skip
    # the per-batch lines.
    $RUN run "${PLAT[@]}" "${mode[@]}" --list "$list" --shard "$shard" --out "$WORK/$STEP-$prof-$i" \
        --parallel "$PAR" --batch-size "$BATCH" --test-timeout "$TT" \
        --budget $(( $(left) - 25 )) 2>&1 | tee "$WORK/$STEP-$prof-$i/run.log" |
        grep -v '^\[jax_suite .*\] batch ' | tee -a "$LOG"
    rc=${PIPESTATUS[0]}
    pack "$WORK/$STEP-$prof-$i" "$STEP-$prof-$i"
    note "done (run exit $rc)"
    exit "$rc"
    ;;
  *)
    note "usage: device_suite.sh collect PROFILE... | upstream PROFILE I/N | bootstrap PROFILE I/N | ours PROFILE I/N"
    exit 2
    ;;
esac
