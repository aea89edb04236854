#!/usr/bin/env bash
# The test command: installs missing build dependencies, builds, runs every
# CPU test with the standard library's bounds checks on, then runs the tests of
# the code that reads untrusted input or owns memory and threads again under
# AddressSanitizer + UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
jobs=$(nproc)

# -O2 without debug info: the optimiser's warnings are checked as users build it,
# at a fraction of the compile time of a debug-info build. _GLIBCXX_ASSERTIONS
# turns an out-of-range container index anywhere into an abort.
# Test binaries as unity builds (their shared headers parsed once per batch);
# the library code one file at a time, as users build it.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG -D_GLIBCXX_ASSERTIONS" \
  -DJFT_TEST_UNITY=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16
ninja -C build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

# Sanitized: the bytecode reader, IR verifier, PJRT entry points, runtime,
# GEMM descriptions, kernel-cache/protocol parsers, program assembly and the
# XLA FFI structs handlers hand us.
# Line tables only (-g1): enough for sanitizer stack traces, cheaper to build.
sanitized=(bytecode_test vhlo_test conformance_test ir_test pjrt_unit_test
           pjrt_executable_test pjrt_abi_test runtime_test runtime_gemm_test
           kernel_compiler_test compiler_test ffi_test)
# Everything here as a unity build: this tree only runs the tests, and
# sanitizer instrumentation makes each translation unit dearer still.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 \
  -DJFT_SANITIZE=ON -DCMAKE_UNITY_BUILD=ON -DJFT_TEST_UNITY=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16
ninja -C build-asan -j"$jobs" "${sanitized[@]}" jft_fuzz
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
export JFT_FIXTURE_DIR=$PWD/tests/fixtures/zoo
for test in "${sanitized[@]}"; do
  binary=$(find build-asan/tests -type f -name "$test" -perm -u+x | head -1)
  echo "sanitized: $test"
  "$binary" --gtest_brief=1
done

# The fuzzer, sanitized and time-bounded: replays tests/fuzz/regressions, then
# mutates the zoo's bytecode (reader, VHLO import, IR verifier), compile
# options protos and the zoo printed as IR text (the IR parser). A crash, a hang past --input-ms or a malformed error fails
# the run; the input is saved under build-asan/fuzz-findings (make it a
# regression input and fix it). JFT_FUZZ_SEED explores other mutants.
findings=build-asan/fuzz-findings
mkdir -p "$findings"
fuzz=(build-asan/tests/fuzz/jft_fuzz --regressions tests/fuzz/regressions --save "$findings"
      --seed "${JFT_FUZZ_SEED:-1}" --input-ms 5000)
"${fuzz[@]}" --target bytecode --corpus tests/fixtures/zoo --seconds 70
"${fuzz[@]}" --target compile_options --seconds 10
"${fuzz[@]}" --target ir_text --corpus tests/fixtures/zoo --seconds 10
echo "all tests passed (plain and sanitized)"
