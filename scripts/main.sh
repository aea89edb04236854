#!/usr/bin/env bash
# The main job. On a machine with an NVIDIA GPU and JAX: build the plugin's
# wheel, install it into a scratch directory and run the smoke program with
# XLA_MODE=fl_only. Elsewhere: build the jft tool and compile a bundled JAX
# program offline up to TTIR (the compiler's work that needs no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v nvidia-smi >/dev/null 2>&1 && python3 -c 'import jax' 2>/dev/null; then
  python3 scripts/build_wheel.py --build-dir build-wheel --out dist >/dev/null
  site=$(mktemp -d)
  python3 -m pip install -q --no-deps --no-index --target "$site" dist/jax_flagtree-*.whl
  PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" XLA_MODE=fl_only python3 scripts/smoke.py
  exit 0
fi
./scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" >/dev/null
ninja -C build jft
./build/tools/jft compile --emit ttir "${1:-tests/fixtures/zoo/smoke/program.mlirbc}"
