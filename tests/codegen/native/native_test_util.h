// Helpers for the native emitter's tests: IR text made into one fusion, and
// the emitted source run as host C++ (a host compiler builds it under a shim
// standing in for CUDA's thread indices, __shared__ and __syncthreads, one
// std::thread per CUDA thread of a block) so numerics are checked without a GPU.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "codegen/native/native_kernel.h"
#include "fusion/fusion.h"
#include "ir/module.h"

namespace jft::codegen::native::testing {

// Parses and verifies IR text; fails the test (and returns an empty module)
// when it does not.
ir::Module parseIr(const std::string& text);

// The entry function as one group of `family`: every op but the return, the
// arguments it reads as inputs (first use first), the returned values as
// outputs. A reduction group takes its shape from the first reduce.
fusion::Fusion wholeFunction(const ir::Module& module, fusion::Family family);

// Emits the whole entry function; fails the test on an error.
NativeKernel emitWhole(const ir::Module& module, fusion::Family family);

// The emitter's error for the whole function ("" when it succeeded).
std::string emitError(const ir::Module& module, fusion::Family family);

// Why host runs cannot happen here ("" when they can).
std::string hostRunUnavailable();

// Runs `kernel` on the host: `inputs` hold each input's bytes; returns each
// output's bytes. Fails the test on a compile or load error.
std::vector<std::vector<uint8_t>> runOnHost(
    const NativeKernel& kernel, const std::vector<std::vector<uint8_t>>& inputs);

template <typename T>
std::vector<uint8_t> bytesOf(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <typename T>
std::vector<T> valuesOf(const std::vector<uint8_t>& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty())
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

// Parses, emits and runs `ir` (the whole function as one group).
std::vector<std::vector<uint8_t>> runIr(const std::string& ir, fusion::Family family,
                                        const std::vector<std::vector<uint8_t>>& inputs);

#define JFT_REQUIRE_HOST_RUN()                                                     \
  do {                                                                             \
    const std::string why = ::jft::codegen::native::testing::hostRunUnavailable(); \
    if (!why.empty()) GTEST_SKIP() << why;                                         \
  } while (false)

}  // namespace jft::codegen::native::testing
