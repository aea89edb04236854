// Small programs for the executable tests, built the way the compiler fills a
// runtime::Program. The "add" kernel adds two float vectors of kElements.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "runtime/program.h"

namespace jft::runtime::testing {

inline constexpr int kElements = 16;
inline constexpr uint64_t kVectorBytes = kElements * sizeof(float);

inline KernelImage kernelImage(const std::string& name,
                               std::vector<KernelImage::Param> params) {
  KernelImage image;
  image.binary = "binary of " + name;
  image.name = name;
  image.params = std::move(params);
  return image;
}

// Triton's usual signature: the buffers, then global and profile scratch.
inline KernelImage addKernel() {
  using P = KernelImage::Param;
  return kernelImage(
      "add", {P::kBuffer, P::kBuffer, P::kBuffer, P::kGlobalScratch, P::kProfileScratch});
}

inline BufferSlot slot(BufferSlot::Kind kind, uint64_t bytes, int index = -1,
                       uint64_t offset = 0) {
  BufferSlot s;
  s.kind = kind;
  s.bytes = bytes;
  s.index = index;
  s.offset = offset;
  return s;
}

inline std::string floatBytes(const std::vector<float>& values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// out0 = x + 2c, out1 = x + c (out1 may take over x when x is donated):
//   slots: 0 x, 1 c (constant), 2 t (temp at 256), 3 out0, 4 out1
//   thunks: t = add(x, c); out0 = add(t, c); out1 = copy(t)
inline Program vectorProgram() {
  using K = BufferSlot::Kind;
  Program p;
  p.name = "vector";
  p.kernels.push_back(addKernel());
  p.slots.push_back(slot(K::kParameter, kVectorBytes, 0));
  BufferSlot constant = slot(K::kConstant, kVectorBytes);
  std::vector<float> c(kElements);
  for (int i = 0; i < kElements; ++i) c[i] = 100.0f * (i + 1);
  constant.data = floatBytes(c);
  p.slots.push_back(constant);
  p.slots.push_back(slot(K::kTemp, kVectorBytes, -1, 256));
  p.slots.push_back(slot(K::kOutput, kVectorBytes, 0));
  p.slots.push_back(slot(K::kOutput, kVectorBytes, 1));
  p.thunks.push_back(LaunchThunk{0, {1, 1, 1}, {0, 1, 2}});
  p.thunks.push_back(LaunchThunk{0, {1, 1, 1}, {2, 1, 3}});
  p.thunks.push_back(CopyThunk{2, 4, kVectorBytes});
  p.temp_bytes = 512;
  p.parameter_bytes = {kVectorBytes};
  p.output_slots = {3, 4};
  p.output_aliases = {-1, 0};
  return p;
}

}  // namespace jft::runtime::testing
