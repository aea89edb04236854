#!/usr/bin/env bash
# The client suite in one GPU-machine command: builds and installs our plugin as
# tests/gpu/run_all.sh does (scripts/build_wheel.py, pip --target a scratch folder on
# PYTHONPATH; a warm machine reuses build-dev/; JAX_CLIENTS_SITE=DIR skips the build),
# then runs every tests/clients/client_*.py with upstream XLA and with our plugin
# (run_clients.py) and compares. Writes to $OUT (default ./clients-out): build.log,
# clients.txt, clients.json, clients_logs.tar.gz. Exit status: run_clients.py's.
#   JAX_CLIENTS_PARALLEL (processes at a time, default 9), JAX_CLIENTS_TIMEOUT (s, 270),
#   JAX_CLIENTS_TOTAL (seconds for the whole command, default 570),
#   JAX_CLIENTS_ONLY (program names, space-separated)
set -u
cd "$(dirname "$0")/../.."
START=$(date +%s)
OUT=${OUT:-$PWD/clients-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
if [ -n "${JAX_CLIENTS_SITE:-}" ]; then
  SITE=$JAX_CLIENTS_SITE
else
  python3 scripts/build_wheel.py --build-dir build-dev --out dist --jobs "$(nproc)" > "$OUT/build.log" 2>&1
  WHEEL=$(ls -t dist/jax_flagtree-*.whl 2>/dev/null | head -1)
  if [ -z "$WHEEL" ]; then echo "wheel build failed"; tail -20 "$OUT/build.log"; exit 1; fi
  SITE=$(mktemp -d)
  python3 -m pip install -q --no-deps --no-index --target "$SITE" "$WHEEL" >> "$OUT/build.log" 2>&1
  echo "installed $(basename "$WHEEL")" | tee -a "$OUT/build.log"
fi
export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
python3 -c 'import importlib.metadata as m
for p in ("jax", "jaxlib", "flax", "optax", "equinox", "diffrax", "lineax", "optimistix", "numpyro", "chex", "orbax-checkpoint"):
  try: print(p, m.version(p))
  except Exception: print(p, "not installed")' 2>&1 | tee "$OUT/versions.txt"
ONLY=()
[ -n "${JAX_CLIENTS_ONLY:-}" ] && ONLY=(--only $JAX_CLIENTS_ONLY)
LEFT=$(( ${JAX_CLIENTS_TOTAL:-570} - ($(date +%s) - START) - 15 ))
python3 tests/clients/run_clients.py --out "$OUT/run" --parallel "${JAX_CLIENTS_PARALLEL:-9}" \
    --timeout "${JAX_CLIENTS_TIMEOUT:-270}" --budget "$LEFT" "${ONLY[@]}"
RC=$?
cp "$OUT/run/clients.txt" "$OUT/run/clients.json" "$OUT/" 2>/dev/null
tar czf "$OUT/clients_logs.tar.gz" -C "$OUT/run" logs 2>/dev/null && rm -rf "$OUT/run"
exit $RC
