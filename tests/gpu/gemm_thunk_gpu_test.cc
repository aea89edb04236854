// GemmThunks through Executable on a real GPU: CudaDevice::gemm creates its
// cuBLASLt runner on the first product and enqueues on the device's stream,
// in order with the rest of the program. Checked against a float64 host
// reference by relative error norm (f32 < 1e-5, tf32 < 1e-3). Skips, saying
// why, where there is no GPU or no cuBLASLt.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "runtime/executable.h"
#include "runtime/gpu/cublaslt.h"
#include "runtime/gpu/cuda_platform.h"

namespace jft::runtime {
namespace {

using K = BufferSlot::Kind;

constexpr int64_t kM = 33, kK = 17, kN = 9, kP = 5;

BufferSlot slot(K kind, uint64_t bytes, int index = -1, uint64_t offset = 0) {
  BufferSlot s;
  s.kind = kind;
  s.bytes = bytes;
  s.index = index;
  s.offset = offset;
  return s;
}

std::vector<float> draw(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

GemmOperand operand(bool transpose, int64_t ld, int64_t stride) {
  return GemmOperand{GemmType::kF32, transpose, ld, stride};
}

double relativeError(const std::vector<float>& got, const std::vector<double>& want) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return std::sqrt(diff / norm);
}

TEST(GemmThunkGpu, ProductsRunInOrderThroughTheDevicesRunner) {
  auto platform = gpu::openCudaPlatform({});
  if (!platform.isOk()) GTEST_SKIP() << "no usable GPU: " << platform.status().toString();
  if (auto lt = gpu::CublasLt::load(); !lt.isOk())
    GTEST_SKIP() << "no cuBLASLt: " << lt.status().toString();
  Device& device = (*platform)->device(0);

  // x [33x17] (parameter), W^T [9x17] (constant), c [9x5] (parameter),
  // bias [5] (constant). t = x W (exact f32, into a temp); out = t c + bias
  // (TF32), written into the output slot.
  const std::vector<float> x = draw(kM * kK, 1), wt = draw(kN * kK, 2),
                           c = draw(kN * kP, 3), bias = draw(kP, 4);
  Program p;
  p.name = "gpu_gemm";
  p.slots.push_back(slot(K::kParameter, x.size() * 4, 0));
  p.slots.push_back(slot(K::kParameter, c.size() * 4, 1));
  BufferSlot w = slot(K::kConstant, wt.size() * 4);
  w.data.assign(reinterpret_cast<const char*>(wt.data()), w.bytes);
  p.slots.push_back(w);
  BufferSlot b = slot(K::kConstant, bias.size() * 4);
  b.data.assign(reinterpret_cast<const char*>(bias.data()), b.bytes);
  p.slots.push_back(b);
  p.slots.push_back(slot(K::kTemp, kM * kN * 4, -1, 0));
  p.slots.push_back(slot(K::kOutput, kM * kP * 4, 0));
  GemmDesc first;
  first.m = kM, first.n = kN, first.k = kK;
  first.a = operand(false, kK, kM * kK);
  first.b = operand(true, kK, kN * kK);
  first.d_ld = kN, first.d_batch_stride = kM * kN;
  first.compute = GemmCompute::kF32;
  GemmDesc second;
  second.m = kM, second.n = kP, second.k = kN;
  second.a = operand(false, kN, kM * kN);
  second.b = operand(false, kP, kN * kP);
  second.d_ld = kP, second.d_batch_stride = kM * kP;
  second.compute = GemmCompute::kTf32;
  second.bias = true;
  p.thunks.push_back(GemmThunk{first, 0, 2, 4});
  p.thunks.push_back(GemmThunk{second, 4, 1, 5, 3});
  p.temp_bytes = 2048;
  p.parameter_bytes = {x.size() * 4, c.size() * 4};
  p.output_slots = {5};
  p.output_aliases = {-1};
  auto loaded = Executable::load(device, p);
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();

  std::vector<double> t(kM * kN), want(kM * kP);
  for (int64_t i = 0; i < kM; ++i)
    for (int64_t j = 0; j < kN; ++j)
      for (int64_t k = 0; k < kK; ++k)
        t[i * kN + j] += double(x[i * kK + k]) * wt[j * kK + k];
  for (int64_t i = 0; i < kM; ++i)
    for (int64_t j = 0; j < kP; ++j) {
      want[i * kP + j] = bias[j];
      for (int64_t k = 0; k < kN; ++k) want[i * kP + j] += t[i * kN + k] * c[k * kP + j];
    }

  auto upload = [&](const std::vector<float>& v) {
    uint64_t address = *device.allocate(v.size() * 4);
    EXPECT_TRUE(device.copyToDevice(address, v.data(), v.size() * 4, true)
                    .value()
                    ->await()
                    .isOk());
    return address;
  };
  const uint64_t xd = upload(x), cd = upload(c);
  // Twice: the second execution reuses the runner and its cached plans.
  for (int run = 0; run < 2; ++run) {
    ExecuteArgument args[] = {{xd, x.size() * 4, false}, {cd, c.size() * 4, false}};
    auto result = (*loaded)->execute(args);
    ASSERT_TRUE(result.isOk()) << result.status().toString();
    ASSERT_TRUE(result->done->await().isOk());
    std::vector<float> out(kM * kP);
    auto copied =
        device.copyToHost(out.data(), result->outputs[0].address, out.size() * 4);
    ASSERT_TRUE(copied.isOk() && (*copied)->await().isOk());
    EXPECT_LT(relativeError(out, want), 1e-3) << "run " << run;
    device.deallocate(result->outputs[0].address, result->outputs[0].bytes);
  }
  device.deallocate(xd, x.size() * 4);
  device.deallocate(cd, c.size() * 4);
}

}  // namespace
}  // namespace jft::runtime
