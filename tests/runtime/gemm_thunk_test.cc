// GemmThunk: load-time validation (the description and every slot it reads
// or writes), and execution in thunk order on the recording device, whose
// host products let the data be checked against hand-computed values.
#include <gtest/gtest.h>

#include <functional>

#include "recording_device.h"
#include "runtime/executable.h"
#include "runtime/program_check.h"
#include "test_programs.h"

namespace jft::runtime::testing {
namespace {

using K = BufferSlot::Kind;
using Op = RecordedOp::Kind;

constexpr int kN = 4;  // 4x4 matrices: kElements floats, so "add" applies too

// W[r][c] = r - 2c, stored transposed (as W^T) in a constant.
float w(int r, int c) {
  return static_cast<float>(r - 2 * c);
}

GemmDesc square(bool bTransposed) {
  GemmDesc g;
  g.m = g.n = g.k = kN;
  g.a = {GemmType::kF32, false, kN, kN * kN};
  g.b = {GemmType::kF32, bTransposed, kN, kN * kN};
  g.d_ld = kN;
  g.d_batch_stride = kN * kN;
  return g;
}

// slots: 0 x (parameter), 1 W^T (constant), 2 bias (constant), 3 t (temp),
// 4 out0, 5 out1. thunks: t = x W; out0 = add(t, x); out1 = t x + bias.
Program gemmProgram() {
  Program p;
  p.name = "gemm";
  p.kernels.push_back(addKernel());
  p.slots.push_back(slot(K::kParameter, kVectorBytes, 0));
  std::vector<float> wt(kElements), bias(kN);
  for (int r = 0; r < kN; ++r)
    for (int c = 0; c < kN; ++c) wt[c * kN + r] = w(r, c);
  for (int c = 0; c < kN; ++c) bias[c] = 1000.0f * (c + 1);
  BufferSlot weights = slot(K::kConstant, kVectorBytes);
  weights.data = floatBytes(wt);
  p.slots.push_back(weights);
  BufferSlot biasSlot = slot(K::kConstant, kN * sizeof(float));
  biasSlot.data = floatBytes(bias);
  p.slots.push_back(biasSlot);
  p.slots.push_back(slot(K::kTemp, kVectorBytes, -1, 0));
  p.slots.push_back(slot(K::kOutput, kVectorBytes, 0));
  p.slots.push_back(slot(K::kOutput, kVectorBytes, 1));
  p.thunks.push_back(GemmThunk{square(true), 0, 1, 3});
  p.thunks.push_back(LaunchThunk{0, {1, 1, 1}, {3, 0, 4}});
  GemmDesc withBias = square(false);
  withBias.bias = true;
  p.thunks.push_back(GemmThunk{withBias, 3, 0, 5, 2});
  p.temp_bytes = 256;
  p.parameter_bytes = {kVectorBytes};
  p.output_slots = {4, 5};
  p.output_aliases = {-1, -1};
  return p;
}

void expectGemmRejected(const std::function<void(Program&)>& breakIt,
                    const std::string& fragment) {
  Program program = gemmProgram();
  breakIt(program);
  Status status = checkProgram(program, 32);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << fragment;
  EXPECT_NE(status.message().find(fragment), std::string::npos) << status.message();
}

GemmThunk& gemmAt(Program& p, int thunk) {
  return std::get<GemmThunk>(p.thunks[thunk]);
}

TEST(GemmThunkCheck, TheExampleIsValid) {
  EXPECT_TRUE(checkProgram(gemmProgram(), 32).isOk());
}

TEST(GemmThunkCheck, TheDescriptionMustBeRunnable) {
  expectGemmRejected([](Program& p) { gemmAt(p, 0).gemm.m = 0; }, "thunk 0: gemm: ");
  // f32 operands cannot produce bf16.
  expectGemmRejected([](Program& p) { gemmAt(p, 2).gemm.d_type = GemmType::kBF16; },
                 "thunk 2: gemm: ");
}

TEST(GemmThunkCheck, SlotsExistAndHoldWhatTheProductTouches) {
  expectGemmRejected([](Program& p) { gemmAt(p, 0).a = 6; }, "thunk 0: gemm A slot 6 of 6");
  expectGemmRejected([](Program& p) { gemmAt(p, 0).b = -1; }, "gemm B slot -1");
  // A 5-row product reads 80 bytes of x, which holds 64.
  expectGemmRejected(
      [](Program& p) {
        gemmAt(p, 0).gemm.m = 5;
        gemmAt(p, 0).gemm.d_batch_stride = 5 * kN;
      },
      "gemm A slot 0 holds 64 bytes, the product reads 80");
  // A larger leading dimension reaches past W^T's end.
  expectGemmRejected([](Program& p) { gemmAt(p, 0).gemm.b.ld = kN + 1; },
                 "gemm B slot 1 holds 64 bytes, the product reads 76");
  expectGemmRejected([](Program& p) { gemmAt(p, 0).gemm.d_ld = kN + 1; },
                 "gemm D slot 3 holds 64 bytes, not 76");
}

TEST(GemmThunkCheck, DMustBeWritable) {
  expectGemmRejected([](Program& p) { gemmAt(p, 0).d = 0; }, "gemm D slot 0 is read-only");
  expectGemmRejected([](Program& p) { gemmAt(p, 0).d = 1; }, "gemm D slot 1 is read-only");
}

TEST(GemmThunkCheck, BiasSlotGoesWithTheBiasFlag) {
  expectGemmRejected([](Program& p) { gemmAt(p, 2).bias = -1; }, "has no bias slot");
  expectGemmRejected([](Program& p) { gemmAt(p, 0).bias = 2; },
                 "gemm without a bias names bias slot 2");
  // The bias has n elements of D's type: x (64 bytes) is fine, a 4-byte slot not.
  expectGemmRejected(
      [](Program& p) {
        p.slots[2].bytes = 4;
        p.slots[2].data.resize(4);
      },
      "gemm bias slot 2 holds 4 bytes, the product reads 16");
}

class GemmThunkExecution : public ::testing::Test {
 protected:
  void SetUp() override {
    device_.setKernelBody("add", [](const std::vector<uint64_t>& p, const LaunchDims&) {
      for (int i = 0; i < kElements; ++i)
        floats(p[2])[i] = floats(p[0])[i] + floats(p[1])[i];
    });
  }
  RecordingDevice device_;
};

TEST_F(GemmThunkExecution, ProductsRunInThunkOrderOnTheSlotsAddresses) {
  auto loaded = Executable::load(device_, gemmProgram());
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  auto& executable = *loaded;
  uint64_t x = *device_.allocate(kVectorBytes);
  for (int i = 0; i < kElements; ++i) floats(x)[i] = static_cast<float>(i % 7) - 3;
  device_.clearOps();
  ExecuteArgument argument{x, kVectorBytes, false};
  auto result = executable->execute({&argument, 1});
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  ASSERT_TRUE((*result).done->await().isOk());

  std::vector<Op> kinds;
  for (const RecordedOp& op : device_.ops()) kinds.push_back(op.kind);
  EXPECT_EQ(kinds, (std::vector<Op>{Op::kGemm, Op::kLaunch, Op::kGemm, Op::kEvent}));
  auto gemms = device_.opsOfKind(Op::kGemm);
  const uint64_t out0 = result->outputs[0].address, out1 = result->outputs[1].address;
  // The temp t is the first product's D, the launch's first input and the
  // second product's A; the second product writes output 1 in place.
  EXPECT_EQ(gemms[0].params[0], x);
  EXPECT_EQ(gemms[0].params[3], 0u);  // no bias
  EXPECT_EQ(gemms[1].params[0], gemms[0].params[2]);
  EXPECT_EQ(gemms[1].params[1], x);
  EXPECT_EQ(gemms[1].params[2], out1);
  EXPECT_NE(gemms[1].params[3], 0u);
  EXPECT_TRUE(gemms[0].gemm.b.transpose);
  EXPECT_TRUE(gemms[1].gemm.bias);

  auto X = [&](int r, int c) { return floats(x)[r * kN + c]; };
  float t[kN][kN];
  for (int r = 0; r < kN; ++r)
    for (int c = 0; c < kN; ++c) {
      t[r][c] = 0;
      for (int k = 0; k < kN; ++k) t[r][c] += X(r, k) * w(k, c);
    }
  for (int r = 0; r < kN; ++r)
    for (int c = 0; c < kN; ++c) {
      EXPECT_FLOAT_EQ(floats(out0)[r * kN + c], t[r][c] + X(r, c)) << r << "," << c;
      float expected = 1000.0f * (c + 1);
      for (int k = 0; k < kN; ++k) expected += t[r][k] * X(k, c);
      EXPECT_FLOAT_EQ(floats(out1)[r * kN + c], expected) << r << "," << c;
    }
  for (auto& output : result->outputs) device_.deallocate(output.address, output.bytes);
  device_.deallocate(x, kVectorBytes);
}

TEST_F(GemmThunkExecution, AFailedProductNamesItsThunkAndFreesTheOutputs) {
  auto loaded = Executable::load(device_, gemmProgram());
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  uint64_t x = *device_.allocate(kVectorBytes);
  size_t live = device_.liveAllocations();
  device_.failGemms(true);
  ExecuteArgument argument{x, kVectorBytes, false};
  auto result = (*loaded)->execute({&argument, 1});
  ASSERT_FALSE(result.isOk());
  EXPECT_NE(result.status().message().find("program 'gemm', thunk 0"), std::string::npos)
      << result.status().message();
  EXPECT_NE(result.status().message().find("cublasLtMatmul"), std::string::npos);
  EXPECT_EQ(device_.liveAllocations(), live);
  EXPECT_TRUE(device_.opsOfKind(Op::kLaunch).empty());
  device_.deallocate(x, kVectorBytes);
}

// A device without a GEMM library answers UNIMPLEMENTED naming itself.
class DataOnlyDevice final : public Device {
 public:
  DataOnlyDevice() { info_.name = "Data-only GPU"; }
  const DeviceInfo& info() const override { return info_; }
  StatusOr<uint64_t> allocate(uint64_t) override { return uint64_t{0}; }
  void deallocate(uint64_t, uint64_t) override {}
  StatusOr<EventPtr> copyToDevice(uint64_t, const void*, uint64_t, bool) override {
    return Event::ready();
  }
  StatusOr<EventPtr> copyToHost(void*, uint64_t, uint64_t) override {
    return Event::ready();
  }
  StatusOr<EventPtr> copyFromDevice(uint64_t, Device&, uint64_t, uint64_t) override {
    return Event::ready();
  }
  StatusOr<void*> allocatePinned(uint64_t) override { return nullptr; }
  void deallocatePinned(void*) override {}
  StatusOr<EventPtr> copyDeviceToPinned(void*, uint64_t, uint64_t) override {
    return Event::ready();
  }
  StatusOr<EventPtr> copyPinnedToDevice(uint64_t, const void*, uint64_t) override {
    return Event::ready();
  }
  MemoryStats memoryStats() const override { return {}; }
  void resetPeakMemory() override {}

 private:
  DeviceInfo info_;
};

TEST(GemmThunkDevice, DefaultIsUnimplemented) {
  DataOnlyDevice device;
  Status status = device.gemm(square(false), 1, 2, 3, 0);
  EXPECT_EQ(status.code(), StatusCode::kUnimplemented);
  EXPECT_NE(status.message().find("Data-only GPU"), std::string::npos);
}

}  // namespace
}  // namespace jft::runtime::testing
