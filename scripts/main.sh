#!/usr/bin/env bash
# The main job on a machine without a GPU: build the jft tool and inspect a
# bundled JAX program (the StableHLO artifact JAX hands a plugin).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" >/dev/null
ninja -C build jft
./build/tools/jft inspect "${1:-tests/fixtures/zoo/softmax/program.mlirbc}"
