// Row reductions of the native emitter run as host C++ (one std::thread per
// CUDA thread of the block) against sums, softmax and argmax computed here.
#include <gtest/gtest.h>

#include <cmath>

#include "native_test_util.h"

namespace jft::codegen::native::testing {
namespace {

using fusion::Family;

TEST(NativeReduction, RowSumsOfLongRows) {
  JFT_REQUIRE_HOST_RUN();
  // 300 elements per row: more than the block's 256 threads, so each thread
  // folds several before the tree.
  const std::string ir = R"(
func.func @main(%x: tensor<3x300xf32>) -> tensor<3xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce %x, %z {dimensions = array<i64: 1>} ({
  ^bb0(%ra: tensor<f32>, %rb: tensor<f32>):
    %rt = stablehlo.add %ra, %rb : tensor<f32>
    stablehlo.return %rt : tensor<f32>
  }) : (tensor<3x300xf32>, tensor<f32>) -> tensor<3xf32>
  return %s : tensor<3xf32>
})";
  std::vector<float> x(900);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 2.0f;
  auto out = runIr(ir, Family::kReduction, {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  const std::vector<float> s = valuesOf<float>(out[0]);
  for (size_t r = 0; r < 3; ++r) {
    double want = 0;
    for (size_t k = 0; k < 300; ++k) want += x[r * 300 + k];
    EXPECT_EQ(s[r], static_cast<float>(want)) << "row " << r;  // small integers: exact
  }
}

TEST(NativeReduction, SoftmaxIsOneKernel) {
  JFT_REQUIRE_HOST_RUN();
  const std::string ir = R"(
func.func @main(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce %x, %ninf {dimensions = array<i64: 1>} ({
  ^bb0(%ra: tensor<f32>, %rb: tensor<f32>):
    %rt = stablehlo.maximum %ra, %rb : tensor<f32>
    stablehlo.return %rt : tensor<f32>
  }) : (tensor<2x5xf32>, tensor<f32>) -> tensor<2xf32>
  %mb = stablehlo.broadcast_in_dim %m {broadcast_dimensions = array<i64: 0>} : (tensor<2xf32>) -> tensor<2x5xf32>
  %d = stablehlo.subtract %x, %mb : tensor<2x5xf32>
  %e = stablehlo.exponential %d : tensor<2x5xf32>
  %s = stablehlo.reduce %e, %zero {dimensions = array<i64: 1>} ({
  ^bb0(%sa: tensor<f32>, %sb2: tensor<f32>):
    %st = stablehlo.add %sa, %sb2 : tensor<f32>
    stablehlo.return %st : tensor<f32>
  }) : (tensor<2x5xf32>, tensor<f32>) -> tensor<2xf32>
  %sb = stablehlo.broadcast_in_dim %s {broadcast_dimensions = array<i64: 0>} : (tensor<2xf32>) -> tensor<2x5xf32>
  %r = stablehlo.divide %e, %sb : tensor<2x5xf32>
  return %r : tensor<2x5xf32>
})";
  const std::vector<float> x{1, 2, 3, 4, 5, -1, 0, 100, 0.5f, 2};
  auto out = runIr(ir, Family::kReduction, {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  const std::vector<float> y = valuesOf<float>(out[0]);
  for (size_t r = 0; r < 2; ++r) {
    double m = -INFINITY, sum = 0;
    for (size_t k = 0; k < 5; ++k) m = std::max(m, double{x[r * 5 + k]});
    for (size_t k = 0; k < 5; ++k) sum += std::exp(x[r * 5 + k] - m);
    for (size_t k = 0; k < 5; ++k)
      EXPECT_NEAR(y[r * 5 + k], std::exp(x[r * 5 + k] - m) / sum, 1e-6) << r << "," << k;
  }
}

TEST(NativeReduction, ArgmaxWithAVariadicReduce) {
  JFT_REQUIRE_HOST_RUN();
  // Ties go to the lower index; NaN wins (as jnp.argmax).
  const std::string ir = R"(
func.func @main(%x: tensor<3x4xf32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %i = stablehlo.iota {iota_dimension = 1} : tensor<3x4xi32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %v, %a = stablehlo.reduce %x, %i, %ninf, %zero {dimensions = array<i64: 1>} ({
  ^bb0(%p: tensor<f32>, %pi: tensor<i32>, %q: tensor<f32>, %qi: tensor<i32>):
    %gt = stablehlo.compare %p, %q {comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %nan = stablehlo.compare %p, %p {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %pick = stablehlo.or %gt, %nan : tensor<i1>
    %eq = stablehlo.compare %p, %q {comparison_direction = #stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %lower = stablehlo.compare %pi, %qi {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %tie = stablehlo.and %eq, %lower : tensor<i1>
    %first = stablehlo.or %pick, %tie : tensor<i1>
    %mv = stablehlo.select %first, %p, %q : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %mi = stablehlo.select %first, %pi, %qi : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    stablehlo.return %mv, %mi : tensor<f32>, tensor<i32>
  }) : (tensor<3x4xf32>, tensor<3x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
  return %v, %a : tensor<3xf32>, tensor<3xi32>
})";
  const std::vector<float> x{1, 7, 7, 2, -5, -6, -7, -5, 0, NAN, 3, 9};
  auto out = runIr(ir, Family::kReduction, {bytesOf(x)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(valuesOf<int32_t>(out[1]), (std::vector<int32_t>{1, 0, 1}));
  const std::vector<float> v = valuesOf<float>(out[0]);
  EXPECT_EQ(v[0], 7.0f);
  EXPECT_EQ(v[1], -5.0f);
  EXPECT_TRUE(std::isnan(v[2]));
}

TEST(NativeReduction, Bf16MeanWithAnEpilogue) {
  JFT_REQUIRE_HOST_RUN();
  // A bf16 sum (each add rounded to bf16), then the epilogue divides.
  const std::string ir = R"(
func.func @main(%x: tensor<2x4xbf16>) -> tensor<2xbf16> {
  %z = stablehlo.constant dense<0.0> : tensor<bf16>
  %n = stablehlo.constant dense<4.0> : tensor<2xbf16>
  %s = stablehlo.reduce %x, %z {dimensions = array<i64: 1>} ({
  ^bb0(%ra: tensor<bf16>, %rb: tensor<bf16>):
    %rt = stablehlo.add %ra, %rb : tensor<bf16>
    stablehlo.return %rt : tensor<bf16>
  }) : (tensor<2x4xbf16>, tensor<bf16>) -> tensor<2xbf16>
  %m = stablehlo.divide %s, %n : tensor<2xbf16>
  return %m : tensor<2xbf16>
})";
  // Row 0: 1, 2, 3, 4 -> mean 2.5; row 1: 256, 1, 0, 0 -> 256 + 1 is a tie
  // in bf16 (spacing 2 at 256) that rounds to even 256 in any order: mean 64.
  const std::vector<uint16_t> x{0x3f80, 0x4000, 0x4040, 0x4080, 0x4380, 0x3f80, 0, 0};
  auto out = runIr(ir, Family::kReduction, {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(valuesOf<uint16_t>(out[0]), (std::vector<uint16_t>{0x4020, 0x4280}));
}

}  // namespace
}  // namespace jft::codegen::native::testing
