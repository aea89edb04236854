#!/usr/bin/env bash
# The test command: installs missing build dependencies, builds, and runs every
# CPU test twice, once plain and once under AddressSanitizer + UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
jobs=$(nproc)

# -O2 without debug info: the optimiser's warnings are checked as users build it,
# at a fraction of the compile time of a debug-info build.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG"
ninja -C build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

# Line tables only (-g1): enough for sanitizer stack traces, cheaper to build.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 \
  -DJFT_SANITIZE=ON
ninja -C build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"
echo "all tests passed (plain and sanitized)"
