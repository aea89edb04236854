// The native emitter's source text and contract: parameters and launch per
// family, index width, rounding and wrapping as written, refusals by name.
#include <gtest/gtest.h>

#include "codegen/common/kernel_group.h"
#include "native_test_util.h"

namespace jft::codegen::native::testing {
namespace {

using fusion::Family;

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(NativeSource, LoopParametersAndLaunch) {
  const ir::Module m = parseIr(R"(
func.func @main(%a: tensor<1000xf32>, %b: tensor<1000xbf16>, %p: tensor<1000xi1>) -> (tensor<1000xbf16>, tensor<1000xi1>) {
  %c = stablehlo.convert %a : (tensor<1000xf32>) -> tensor<1000xbf16>
  %s = stablehlo.select %p, %c, %b : (tensor<1000xi1>, tensor<1000xbf16>, tensor<1000xbf16>) -> tensor<1000xbf16>
  %n = stablehlo.not %p : tensor<1000xi1>
  return %s, %n : tensor<1000xbf16>, tensor<1000xi1>
})");
  const NativeKernel k = emitWhole(m, Family::kLoop);
  ASSERT_EQ(k.params.size(), 5u);
  EXPECT_EQ(k.params[0].c_type, "const float*");
  // Inputs in first-use order: %a, %p, %b.
  EXPECT_EQ(k.params[1].c_type, "const jft_u8*");
  EXPECT_EQ(k.params[2].c_type, "const jft_u16*");
  EXPECT_EQ(k.params[3].c_type, "jft_u16*");
  EXPECT_EQ(k.params[4].c_type, "jft_u8*");
  EXPECT_TRUE(k.params[3].is_output && !k.params[2].is_output);
  EXPECT_EQ(k.name, "fusion_0_test");
  EXPECT_EQ(k.family, "loop");
  EXPECT_EQ(k.grid[0], 4u);  // ceil(1000 / 256)
  EXPECT_EQ(k.num_warps, 8);
  EXPECT_NE(
      k.source.find("extern \"C\" __global__ void __launch_bounds__(256) fusion_0_test("
                    "const float* in0, const jft_u8* in1, const jft_u16* in2, "
                    "jft_u16* out0, jft_u8* out1)"),
      std::string::npos)
      << k.source;
  EXPECT_EQ(k.index_type, "jft_i32");
  EXPECT_EQ(k.shared_mem, 0u);
}

TEST(NativeSource, SixtyFourBitIndicesPastTwoToThe31Elements) {
  const ir::Module big = parseIr(R"(
func.func @main(%a: tensor<65536x32769xi8>) -> tensor<65536x32769xi8> {
  %r = stablehlo.add %a, %a : tensor<65536x32769xi8>
  return %r : tensor<65536x32769xi8>
})");
  const NativeKernel k = emitWhole(big, Family::kLoop);
  EXPECT_EQ(k.index_type, "jft_i64");
  EXPECT_NE(k.source.find("const jft_i64 v0 = (jft_i64)jft_i;"), std::string::npos)
      << k.source;
  EXPECT_EQ(k.grid[0], 1u << 20);  // capped; the grid-stride loop covers the rest
  const ir::Module small = parseIr(R"(
func.func @main(%a: tensor<65536x32767xi8>) -> tensor<65536x32767xi8> {
  %r = stablehlo.add %a, %a : tensor<65536x32767xi8>
  return %r : tensor<65536x32767xi8>
})");
  EXPECT_EQ(emitWhole(small, Family::kLoop).index_type, "jft_i32");
}

TEST(NativeSource, NarrowFloatsRoundAfterEveryOpAndIntegersWrapUnsigned) {
  const ir::Module m = parseIr(R"(
func.func @main(%a: tensor<8xf16>, %i: tensor<8xi32>) -> (tensor<8xf16>, tensor<8xi32>) {
  %m = stablehlo.multiply %a, %a : tensor<8xf16>
  %e = stablehlo.exponential %m : tensor<8xf16>
  %s = stablehlo.add %e, %a : tensor<8xf16>
  %j = stablehlo.multiply %i, %i : tensor<8xi32>
  return %s, %j : tensor<8xf16>, tensor<8xi32>
})");
  const NativeKernel k = emitWhole(m, Family::kLoop);
  EXPECT_EQ(count(k.source, "= jft_round_f16("), 3) << k.source;
  EXPECT_NE(k.source.find("jft_round_f16(expf("), std::string::npos);
  EXPECT_NE(k.source.find("(jft_i32)((jft_u32)"), std::string::npos);
}

TEST(NativeSource, ReductionLaunchAndSharedTree) {
  const ir::Module m = parseIr(R"(
func.func @main(%x: tensor<7x40xf32>) -> tensor<7xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce %x, %z {dimensions = array<i64: 1>} ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %t = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %t : tensor<f32>
  }) : (tensor<7x40xf32>, tensor<f32>) -> tensor<7xf32>
  return %s : tensor<7xf32>
})");
  const NativeKernel k = emitWhole(m, Family::kReduction);
  EXPECT_EQ(k.family, "reduction");
  EXPECT_EQ(k.grid[0], 7u);   // a block per row
  EXPECT_EQ(k.num_warps, 2);  // 64 threads: the power of two covering 40
  EXPECT_NE(k.source.find("__shared__ float jft_smem0[64];"), std::string::npos)
      << k.source;
  EXPECT_EQ(count(k.source, "__syncthreads();"), 3);
}

TEST(NativeSource, EmptyOutputsAreNeverLaunched) {
  const ir::Module m = parseIr(R"(
func.func @main(%a: tensor<0x4xf32>) -> tensor<0x4xf32> {
  %r = stablehlo.negate %a : tensor<0x4xf32>
  return %r : tensor<0x4xf32>
})");
  EXPECT_EQ(emitWhole(m, Family::kLoop).grid[0], 0u);
}

TEST(NativeSource, KernelNamesAreCSymbols) {
  EXPECT_EQ(common::kernelName("fusion_3_loop.add-x"), "fusion_3_loop_add_x");
  EXPECT_EQ(common::kernelName("3abc"), "k_3abc");
  EXPECT_EQ(common::kernelName(""), "k_");
}

struct Refusal {
  const char* name;
  Family family;
  const char* ir;
  const char* expected;  // in the message
};

class NativeRefusals : public ::testing::TestWithParam<Refusal> {};

TEST_P(NativeRefusals, AreUnimplementedAndNameWhat) {
  const Refusal& r = GetParam();
  const ir::Module m = parseIr(r.ir);
  ASSERT_NE(m.entry(), nullptr);
  StatusOr<NativeKernel> k = emitNativeKernel(m, *m.entry(), wholeFunction(m, r.family));
  ASSERT_FALSE(k.isOk());
  EXPECT_EQ(k.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(k.status().message().find(r.expected), std::string::npos)
      << k.status().message();
  EXPECT_NE(k.status().message().find("fusion_0_test"), std::string::npos)
      << k.status().message();
}

INSTANTIATE_TEST_SUITE_P(All, NativeRefusals,
                         ::testing::Values(Refusal{"complex", Family::kLoop, R"(
func.func @main(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %r = stablehlo.divide %a, %a : tensor<4xcomplex<f32>>
  return %r : tensor<4xcomplex<f32>>
})",
                                                   "stablehlo.divide: complex operands"},
                                           Refusal{"f8", Family::kLoop, R"(
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  %b = stablehlo.convert %c : (tensor<4xf8E4M3FN>) -> tensor<4xf32>
  return %b : tensor<4xf32>
})",
                                                   "f8E4M3FN"},
                                           Refusal{"literal", Family::kLoop, R"(
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %r = stablehlo.add %a, %c : tensor<2xf32>
  return %r : tensor<2xf32>
})",
                                                   "not a splat"},
                                           Refusal{"reduce_in_loop", Family::kLoop, R"(
func.func @main(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce %x, %z {dimensions = array<i64: 1>} ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %t = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %t : tensor<f32>
  }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  return %s : tensor<2xf32>
})",
                                                   "stablehlo.reduce"},
                                           Refusal{"matmul_family", Family::kMatmul, R"(
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = stablehlo.negate %a : tensor<4xf32>
  return %r : tensor<4xf32>
})",
                                                   "kernel family matmul"},
                                           Refusal{"loop_shapes", Family::kLoop, R"(
func.func @main(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<2x2xf32>) {
  %r = stablehlo.reshape %a : (tensor<4xf32>) -> tensor<2x2xf32>
  return %a, %r : tensor<4xf32>, tensor<2x2xf32>
})",
                                                   "different shapes"}),
                         [](const ::testing::TestParamInfo<Refusal>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace jft::codegen::native::testing
