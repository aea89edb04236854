// The native sort family run as host C++ (one std::thread per CUDA thread)
// against std::stable_sort with the comparator written here: a total-order
// f32 sort (NaNs and -0.0 by their bits), an argsort (values with an iota
// fused in, as jnp.argsort and top_k emit), a descending stable sort with
// ties over rows longer than the block, and a sort along a leading dim.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "native_test_util.h"

namespace jft::codegen::native::testing {
namespace {

using fusion::Family;

// The f32 total order (StableHLO's TOTALORDER): -NaN < -inf < ... < -0 < +0
// < ... < +inf < +NaN, as an integer key of the bits.
int32_t totalOrderKey(float x) {
  int32_t i = 0;
  std::memcpy(&i, &x, sizeof i);
  return i < 0 ? static_cast<int32_t>(i ^ 0x7fffffff) : i;
}

uint32_t bitsOfFloat(float x) {
  uint32_t u = 0;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

TEST(NativeSort, TotalOrderPlacesNaNsAndSignedZeros) {
  JFT_REQUIRE_HOST_RUN();
  const std::string ir = R"(
func.func @main(%x: tensor<2x13xf32>) -> tensor<2x13xf32> {
  %s = stablehlo.sort %x {dimension = 1, is_stable = true} ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %lt = stablehlo.compare %p, %q {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type TOTALORDER>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<2x13xf32>) -> tensor<2x13xf32>
  return %s : tensor<2x13xf32>
})";
  const float inf = INFINITY;
  const float neg_nan = -std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x{
      3.0f, -0.0f, NAN, 0.0f, -inf, 1.5f, neg_nan, inf, -2.0f, 0.0f, -0.0f, 7.0f, -1.0f,
      // the second row
      5.0f, 4.0f, 3.0f, 2.0f, 1.0f, 0.0f, -1.0f, -2.0f, -3.0f, NAN, -4.0f, -5.0f, -0.0f};
  auto out = runIr(ir, Family::kSort, {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  const std::vector<float> got = valuesOf<float>(out[0]);
  for (size_t r = 0; r < 2; ++r) {
    std::vector<float> want(x.begin() + static_cast<std::ptrdiff_t>(r * 13),
                            x.begin() + static_cast<std::ptrdiff_t>(r * 13 + 13));
    std::stable_sort(want.begin(), want.end(), [](float a, float b) {
      return totalOrderKey(a) < totalOrderKey(b);
    });
    for (size_t k = 0; k < 13; ++k)
      EXPECT_EQ(bitsOfFloat(got[r * 13 + k]), bitsOfFloat(want[k])) << r << "," << k;
  }
}

TEST(NativeSort, ArgsortCarriesAFusedIotaAndKeepsTiesInOrder) {
  JFT_REQUIRE_HOST_RUN();
  // Both results stored; values tie often, so stability decides the indices.
  const std::string ir = R"(
func.func @main(%x: tensor<3x37xf32>) -> (tensor<3x37xf32>, tensor<3x37xi32>) {
  %i = stablehlo.iota {iota_dimension = 1} : tensor<3x37xi32>
  %s:2 = stablehlo.sort %x, %i {dimension = 1, is_stable = true} ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>, %pi: tensor<i32>, %qi: tensor<i32>):
    %lt = stablehlo.compare %p, %q {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<3x37xf32>, tensor<3x37xi32>) -> (tensor<3x37xf32>, tensor<3x37xi32>)
  return %s#0, %s#1 : tensor<3x37xf32>, tensor<3x37xi32>
})";
  std::vector<float> x(111);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 5) % 7);
  auto out = runIr(ir, Family::kSort, {bytesOf(x)});
  ASSERT_EQ(out.size(), 2u);
  const std::vector<float> values = valuesOf<float>(out[0]);
  const std::vector<int32_t> indices = valuesOf<int32_t>(out[1]);
  for (size_t r = 0; r < 3; ++r) {
    std::vector<int32_t> order(37);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int32_t a, int32_t b) { return x[r * 37 + a] < x[r * 37 + b]; });
    for (size_t k = 0; k < 37; ++k) {
      EXPECT_EQ(indices[r * 37 + k], order[k]) << r << "," << k;
      EXPECT_EQ(values[r * 37 + k], x[r * 37 + static_cast<size_t>(order[k])])
          << r << "," << k;
    }
  }
}

TEST(NativeSort, DescendingStableSortOfThreeOperandsOverLongRows) {
  JFT_REQUIRE_HOST_RUN();
  // 700 per row: 1024 slots, more pairs than the block's threads. Only the
  // second and third results are outputs (as top_k keeps what it needs).
  const std::string ir = R"(
func.func @main(%k: tensor<2x700xi32>, %v: tensor<2x700xf32>) -> (tensor<2x700xf32>, tensor<2x700xi32>) {
  %i = stablehlo.iota {iota_dimension = 1} : tensor<2x700xi32>
  %s:3 = stablehlo.sort %k, %v, %i {dimension = 1, is_stable = true} ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %av: tensor<f32>, %bv: tensor<f32>, %ai: tensor<i32>, %bi: tensor<i32>):
    %gt = stablehlo.compare %a, %b {comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %gt : tensor<i1>
  }) : (tensor<2x700xi32>, tensor<2x700xf32>, tensor<2x700xi32>) -> (tensor<2x700xi32>, tensor<2x700xf32>, tensor<2x700xi32>)
  return %s#1, %s#2 : tensor<2x700xf32>, tensor<2x700xi32>
})";
  std::vector<int32_t> keys(1400);
  std::vector<float> values(1400);
  for (size_t i = 0; i < keys.size(); ++i) {
    keys[i] = static_cast<int32_t>((i * 37) % 23) - 11;
    values[i] = static_cast<float>(i) * 0.5f;
  }
  auto out = runIr(ir, Family::kSort, {bytesOf(keys), bytesOf(values)});
  ASSERT_EQ(out.size(), 2u);
  const std::vector<float> got_values = valuesOf<float>(out[0]);
  const std::vector<int32_t> got_indices = valuesOf<int32_t>(out[1]);
  for (size_t r = 0; r < 2; ++r) {
    std::vector<int32_t> order(700);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return keys[r * 700 + a] > keys[r * 700 + b];
    });
    for (size_t k = 0; k < 700; ++k) {
      ASSERT_EQ(got_indices[r * 700 + k], order[k]) << r << "," << k;
      ASSERT_EQ(got_values[r * 700 + k], values[r * 700 + static_cast<size_t>(order[k])]);
    }
  }
}

TEST(NativeSort, AlongALeadingDimension) {
  JFT_REQUIRE_HOST_RUN();
  const std::string ir = R"(
func.func @main(%x: tensor<5x3xi16>) -> tensor<5x3xi16> {
  %s = stablehlo.sort %x {dimension = 0} ({
  ^bb0(%p: tensor<i16>, %q: tensor<i16>):
    %lt = stablehlo.compare %p, %q {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<i16>, tensor<i16>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<5x3xi16>) -> tensor<5x3xi16>
  return %s : tensor<5x3xi16>
})";
  const std::vector<int16_t> x{4, -1, 9, 2, 3, -9, -7, 8, 0, 2, -3, 1, 1000, 0, -2};
  auto out = runIr(ir, Family::kSort, {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  const std::vector<int16_t> got = valuesOf<int16_t>(out[0]);
  for (size_t c = 0; c < 3; ++c) {
    std::vector<int16_t> column;
    for (size_t r = 0; r < 5; ++r) column.push_back(x[r * 3 + c]);
    std::sort(column.begin(), column.end());
    for (size_t r = 0; r < 5; ++r) EXPECT_EQ(got[r * 3 + c], column[r]) << r << "," << c;
  }
}

TEST(NativeSort, RowsBeyondSharedMemoryAreRefusedNamingTheOp) {
  const ir::Module m = parseIr(R"(
func.func @main(%x: tensor<2x20000xf32>) -> tensor<2x20000xf32> {
  %s = stablehlo.sort %x {dimension = 1 } ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %lt = stablehlo.compare %p, %q {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<2x20000xf32>) -> tensor<2x20000xf32>
  return %s : tensor<2x20000xf32>
})");
  const std::string error = emitError(m, Family::kSort);
  EXPECT_NE(error.find("UNIMPLEMENTED"), std::string::npos) << error;
  EXPECT_NE(error.find("stablehlo.sort: rows of 20000 elements"), std::string::npos)
      << error;
}

}  // namespace
}  // namespace jft::codegen::native::testing
