#!/usr/bin/env bash
# The JAX-suite regression gate in one GPU-machine command: builds and installs our
# plugin the way tests/gpu/run_all.sh does (scripts/build_wheel.py, then pip --target a
# scratch folder put on PYTHONPATH), runs the fixed list of JAX's own tests with upstream
# XLA (JAX_FLAGTREE_DISABLE=1), then with our plugin (XLA_MODE=fl_only), and compares.
#
# Before it, where a clone of jax-ml/jax is (the GPU machine has none):
#   python3 tests/jax_suite/run.py prepare --jax-git DIR --jax-version 0.11.2
# and carry tests/jax_suite/upstream with the command.
#
# With no tests/jax_suite/list.txt yet it bootstraps one: collect, sample, run upstream on
# the sample, and make the list of what passed (written to $OUT/list.txt and
# $OUT/list.meta.json, to be committed as tests/jax_suite/list.txt and list.meta.json).
#
# Writes to $OUT (default ./jax-suite-out), at most 8 files:
#   gate.log, compare.txt, summary-upstream.json, summary-ours.json,
#   jax_suite.tar.gz (results.jsonl, summary.json, nonpassing.json, provenance.json per
#   mode; collect.json; compare.json; build.log), jax_suite_logs.tar.gz (the last 64 KiB
#   of each batch's log), and when bootstrapping list.txt, list.meta.json.
#
# Environment (all optional):
#   JAX_SUITE_TOTAL      seconds this script may take in all (default 560)
#   JAX_SUITE_PARALLEL   test processes at a time (default 4)
#   JAX_SUITE_BATCH      ids per batch process (default 40)
#   JAX_SUITE_LIST       the list to run (default tests/jax_suite/list.txt)
#   JAX_SUITE_SAMPLE     bootstrapping: ids sampled from the collection (default 1200)
#   JAX_SUITE_SEED       bootstrapping: the sample's seed (default 0)
#   JAX_SUITE_UPSTREAM_SHARE  percent of the time left that the upstream run gets (default 40)
#   JAX_SUITE_SITE       a folder where the plugin is already installed: no build
#   JAX_SUITE_BUILD_REV  our build's revision to record (default: git, else the one
#                        prepare recorded)
#   JAX_SUITE_PLATFORM   JAX_PLATFORMS for the tests (default cuda,cpu; cpu only to try the
#                        script without a GPU)
#   JAX_SUITE_MAX_REGRESSIONS  exit 1 when more ids pass upstream and not ours than this
set -u
cd "$(dirname "$0")/../.."
START=$(date +%s)
TOTAL=${JAX_SUITE_TOTAL:-560}
OUT=${OUT:-$PWD/jax-suite-out}
mkdir -p "$OUT"
WORK=$(mktemp -d)
PAR=${JAX_SUITE_PARALLEL:-4}
BATCH=${JAX_SUITE_BATCH:-40}
LIST=${JAX_SUITE_LIST:-tests/jax_suite/list.txt}
SHARE=${JAX_SUITE_UPSTREAM_SHARE:-40}
RUN="python3 tests/jax_suite/run.py"
LOG=$OUT/gate.log
export PYTHONUNBUFFERED=1

left() { echo $((TOTAL - ($(date +%s) - START))); }
note() { echo "[gate $(date +%H:%M:%S) $(left)s left] $*" | tee -a "$LOG"; }

pack() {
  for m in upstream ours; do
    [ -f "$WORK/$m/summary.json" ] && cp "$WORK/$m/summary.json" "$OUT/summary-$m.json"
  done
  (cd "$WORK" && tar czf "$OUT/jax_suite.tar.gz" --exclude='*/logs' --exclude='*/batches' \
      --exclude='collect/*.log' . 2>/dev/null)
  mkdir -p "$WORK/logtails"
  for f in "$WORK"/*/logs/*.log "$WORK"/collect/*.log; do
    [ -f "$f" ] || continue
    d=$(basename "$(dirname "$(dirname "$f")")")
    [ "$(basename "$(dirname "$f")")" = collect ] && d=collect
    mkdir -p "$WORK/logtails/$d"
    tail -c 65536 "$f" > "$WORK/logtails/$d/$(basename "$f")"
  done
  (cd "$WORK/logtails" && tar czf "$OUT/jax_suite_logs.tar.gz" . 2>/dev/null)
}

if [ ! -f tests/jax_suite/upstream/SOURCE.json ]; then
  note "no tests/jax_suite/upstream: run 'python3 tests/jax_suite/run.py prepare' where a jax clone is, and carry that folder"
  exit 2
fi
{
  nvidia-smi -L 2>&1 | head -4
  python3 -c 'import sys, jax, jaxlib; print(sys.version.split()[0], "jax", jax.__version__, "jaxlib", jaxlib.__version__)' 2>&1
  python3 -c 'import pytest, absl; print("pytest", pytest.__version__, "absl ok")' 2>&1 | tail -1
  python3 -c 'import json; s=json.load(open("tests/jax_suite/upstream/SOURCE.json")); print("jax tests from", s["revision"], s["commit"][:12], "exact" if s["exact"] else "NOT exact: " + s["note"])'
} 2>&1 | tee -a "$LOG"

# Our plugin, as tests/gpu/run_all.sh installs it.
if [ -n "${JAX_SUITE_SITE:-}" ]; then
  SITE=$JAX_SUITE_SITE
  note "using the plugin installed in $SITE"
else
  note "building the wheel"
  python3 scripts/build_wheel.py --build-dir build-dev --out dist --jobs "$(nproc)" > "$WORK/build.log" 2>&1
  WHEEL=$(ls -t dist/jax_flagtree-*.whl 2>/dev/null | head -1)
  if [ -z "$WHEEL" ]; then
    note "wheel build failed; the end of build.log:"; tail -20 "$WORK/build.log" | tee -a "$LOG"
    pack; exit 1
  fi
  SITE=$(mktemp -d)
  python3 -m pip install -q --no-deps --no-index --target "$SITE" "$WHEEL" >> "$WORK/build.log" 2>&1
  note "installed $(basename "$WHEEL")"
fi
export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
REV=()
[ -n "${JAX_SUITE_BUILD_REV:-}" ] && REV=(--build-rev "$JAX_SUITE_BUILD_REV")
PLAT=(--platform "${JAX_SUITE_PLATFORM:-cuda,cpu}")

BOOTSTRAP=0
RUNLIST=$LIST
if [ ! -f "$LIST" ]; then
  BOOTSTRAP=1
  note "no $LIST: collecting, then sampling ${JAX_SUITE_SAMPLE:-1200} ids"
  $RUN collect --out "$WORK/collect" --parallel 8 --timeout $(($(left) / 4)) "${PLAT[@]}" \
      --sample "${JAX_SUITE_SAMPLE:-1200}" --seed "${JAX_SUITE_SEED:-0}" 2>&1 | tee -a "$LOG"
  RUNLIST=$WORK/collect/selected.txt
  if [ ! -s "$RUNLIST" ]; then note "collection gave no ids"; pack; exit 1; fi
fi

B=$(( $(left) * SHARE / 100 ))
note "upstream run, budget ${B}s"
$RUN run --upstream --list "$RUNLIST" --out "$WORK/upstream" --parallel "$PAR" \
    --batch-size "$BATCH" --budget "$B" "${REV[@]}" "${PLAT[@]}" 2>&1 | tee -a "$LOG"

if [ "$BOOTSTRAP" = 1 ]; then
  $RUN make-list --from "$WORK/upstream" --list "$WORK/list.txt" 2>&1 | tee -a "$LOG"
  cp "$WORK/list.txt" "$WORK/list.meta.json" "$OUT/" 2>/dev/null
  RUNLIST=$WORK/list.txt
fi

B=$(( $(left) - 25 ))
note "our run (XLA_MODE=fl_only), budget ${B}s"
$RUN run --list "$RUNLIST" --out "$WORK/ours" --parallel "$PAR" --batch-size "$BATCH" \
    --budget "$B" "${REV[@]}" "${PLAT[@]}" 2>&1 | tee -a "$LOG"

MAXR=()
[ -n "${JAX_SUITE_MAX_REGRESSIONS:-}" ] && MAXR=(--max-regressions "$JAX_SUITE_MAX_REGRESSIONS")
$RUN compare "$WORK/upstream" "$WORK/ours" --json "$WORK/compare.json" "${MAXR[@]}" > "$OUT/compare.txt"
RC=$?
pack
cat "$OUT/compare.txt"
note "done (compare exit $RC)"
exit $RC
