// Index ops of the native elemental emitter (broadcast, transpose, reshape,
// slice, pad, concatenate, iota, reverse, dynamic slices) run as host C++
// against the ops' definitions written out in plain loops.
#include <gtest/gtest.h>

#include <numeric>

#include "native_test_util.h"

namespace jft::codegen::native::testing {
namespace {

using fusion::Family;

std::vector<float> iotaF(int n) {
  std::vector<float> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

TEST(NativeIndexing, TransposeBroadcastAndAdd) {
  JFT_REQUIRE_HOST_RUN();
  const std::string ir = R"(
func.func @main(%x: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<3x2xf32> {
  %t = stablehlo.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %bb = stablehlo.broadcast_in_dim %b {broadcast_dimensions = array<i64: 1>} : (tensor<2xf32>) -> tensor<3x2xf32>
  %r = stablehlo.add %t, %bb : tensor<3x2xf32>
  return %r : tensor<3x2xf32>
})";
  const std::vector<float> x = iotaF(6), b{100, 200};
  auto out = runIr(ir, Family::kLoop, {bytesOf(x), bytesOf(b)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> want;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      want.push_back(x[static_cast<size_t>(j * 3 + i)] + b[static_cast<size_t>(j)]);
  EXPECT_EQ(valuesOf<float>(out[0]), want);
}

TEST(NativeIndexing, ReshapeRegroupsAndSliceStrides) {
  JFT_REQUIRE_HOST_RUN();
  const std::string ir = R"(
func.func @main(%x: tensor<4x6xf32>) -> tensor<3x2x2xf32> {
  %r = stablehlo.reshape %x : (tensor<4x6xf32>) -> tensor<2x3x4xf32>
  %t = stablehlo.transpose %r {permutation = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %s = stablehlo.slice %t {start_indices = array<i64: 0, 0, 1>, limit_indices = array<i64: 3, 2, 4>, strides = array<i64: 1, 1, 2>} : (tensor<3x2x4xf32>) -> tensor<3x2x2xf32>
  return %s : tensor<3x2x2xf32>
})";
  const std::vector<float> x = iotaF(24);
  auto out = runIr(ir, Family::kLoop, {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> want;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 1; k < 4; k += 2)
        want.push_back(x[static_cast<size_t>(j * 12 + i * 4 + k)]);
  EXPECT_EQ(valuesOf<float>(out[0]), want);
}

TEST(NativeIndexing, PadWithEdgesAndInterior) {
  JFT_REQUIRE_HOST_RUN();
  const std::string ir = R"(
func.func @main(%x: tensor<3xf32>, %p: tensor<f32>) -> tensor<8xf32> {
  %r = stablehlo.pad %x, %p {edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 2>, interior_padding = array<i64: 1>} : (tensor<3xf32>, tensor<f32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
})";
  const std::vector<float> x{1, 2, 3}, p{-1};
  auto out = runIr(ir, Family::kLoop, {bytesOf(x), bytesOf(p)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(valuesOf<float>(out[0]), (std::vector<float>{-1, 1, -1, 2, -1, 3, -1, -1}));
}

TEST(NativeIndexing, NegativePadCrops) {
  JFT_REQUIRE_HOST_RUN();
  const std::string ir = R"(
func.func @main(%x: tensor<5xi32>, %p: tensor<i32>) -> tensor<4xi32> {
  %r = stablehlo.pad %x, %p {edge_padding_low = array<i64: -2>, edge_padding_high = array<i64: 1>, interior_padding = array<i64: 0>} : (tensor<5xi32>, tensor<i32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
})";
  const std::vector<int32_t> x{10, 11, 12, 13, 14}, p{7};
  auto out = runIr(ir, Family::kLoop, {bytesOf(x), bytesOf(p)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(valuesOf<int32_t>(out[0]), (std::vector<int32_t>{12, 13, 14, 7}));
}

TEST(NativeIndexing, ConcatenateAlongTheInnerDim) {
  JFT_REQUIRE_HOST_RUN();
  const std::string ir = R"(
func.func @main(%a: tensor<2x1xf32>, %b: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %r = stablehlo.concatenate %a, %b {dimension = 1} : (tensor<2x1xf32>, tensor<2x3xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
})";
  const std::vector<float> a{-1, -2}, b = iotaF(6);
  auto out = runIr(ir, Family::kLoop, {bytesOf(a), bytesOf(b)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(valuesOf<float>(out[0]), (std::vector<float>{-1, 0, 1, 2, -2, 3, 4, 5}));
}

TEST(NativeIndexing, IotaReverseAndSelect) {
  JFT_REQUIRE_HOST_RUN();
  const std::string ir = R"(
func.func @main(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %i = stablehlo.iota {iota_dimension = 1} : tensor<2x3xi32>
  %r = stablehlo.reverse %x {dimensions = array<i64: 1>} : tensor<2x3xi32>
  %c = stablehlo.compare %r, %i {comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
  %s = stablehlo.select %c, %r, %i : (tensor<2x3xi1>, tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  return %s : tensor<2x3xi32>
})";
  const std::vector<int32_t> x{5, -1, 0, 1, 1, 1};
  auto out = runIr(ir, Family::kLoop, {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  // reversed rows: [0, -1, 5], [1, 1, 1]; max with the column index.
  EXPECT_EQ(valuesOf<int32_t>(out[0]), (std::vector<int32_t>{0, 1, 5, 1, 1, 2}));
}

TEST(NativeIndexing, DynamicSliceClampsItsStart) {
  JFT_REQUIRE_HOST_RUN();
  const std::string ir = R"(
func.func @main(%x: tensor<6xf32>, %s: tensor<i32>) -> tensor<3xf32> {
  %r = stablehlo.dynamic_slice %x, %s {slice_sizes = array<i64: 3>} : (tensor<6xf32>, tensor<i32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
})";
  const std::vector<float> x = iotaF(6);
  for (const auto& [start, first] :
       std::vector<std::pair<int32_t, float>>{{1, 1}, {5, 3}, {-4, 0}}) {
    auto out =
        runIr(ir, Family::kLoop, {bytesOf(x), bytesOf(std::vector<int32_t>{start})});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(valuesOf<float>(out[0]), (std::vector<float>{first, first + 1, first + 2}))
        << "start " << start;
  }
}

TEST(NativeIndexing, DynamicUpdateSliceWritesTheWindowOnly) {
  JFT_REQUIRE_HOST_RUN();
  const std::string ir = R"(
func.func @main(%x: tensor<3x4xf32>, %u: tensor<2x2xf32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<3x4xf32> {
  %r = stablehlo.dynamic_update_slice %x, %u, %i, %j : (tensor<3x4xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
})";
  const std::vector<float> x(12, 0.0f), u{1, 2, 3, 4};
  // Start (5, 1) clamps to (1, 1).
  auto out = runIr(ir, Family::kLoop,
                   {bytesOf(x), bytesOf(u), bytesOf(std::vector<int32_t>{5}),
                    bytesOf(std::vector<int32_t>{1})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(valuesOf<float>(out[0]),
            (std::vector<float>{0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0}));
}

TEST(NativeIndexing, ScalarOperandsOfClampAndSplatConstants) {
  JFT_REQUIRE_HOST_RUN();
  const std::string ir = R"(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %lo = stablehlo.constant dense<-1.0> : tensor<f32>
  %hi = stablehlo.constant dense<2.5> : tensor<f32>
  %r = stablehlo.clamp %lo, %x, %hi : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
})";
  const std::vector<float> x{-3, 0, 3, 2};
  auto out = runIr(ir, Family::kLoop, {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(valuesOf<float>(out[0]), (std::vector<float>{-1, 0, 2.5, 2}));
}

TEST(NativeIndexing, GatherRowsWithClampedIndices) {
  JFT_REQUIRE_HOST_RUN();
  // x[idx] as JAX writes it: rows of a [5, 3] operand; an index past the end
  // clamps to the last row, a negative one to the first (StableHLO's rule).
  const std::string ir = R"(
func.func @main(%x: tensor<5x3xf32>, %i: tensor<4x1xi32>) -> tensor<4x3xf32> {
  %g = stablehlo.gather %x, %i {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>} : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
  return %g : tensor<4x3xf32>
})";
  const std::vector<float> x = iotaF(15);
  const std::vector<int32_t> idx{2, 7, -1, 4};
  auto out = runIr(ir, Family::kLoop, {bytesOf(x), bytesOf(idx)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(valuesOf<float>(out[0]),
            (std::vector<float>{6, 7, 8, 12, 13, 14, 0, 1, 2, 12, 13, 14}));
}

TEST(NativeIndexing, GatherWindowsOfTwoStartDims) {
  JFT_REQUIRE_HOST_RUN();
  // 2x2 windows of a [4, 4] operand at (row, col) starts, each clamped so the
  // window stays inside: (3, 1) -> (2, 1).
  const std::string ir = R"(
func.func @main(%x: tensor<4x4xi32>, %i: tensor<2x2xi64>) -> tensor<2x2x2xi32> {
  %g = stablehlo.gather %x, %i {dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 2, 2>} : (tensor<4x4xi32>, tensor<2x2xi64>) -> tensor<2x2x2xi32>
  return %g : tensor<2x2x2xi32>
})";
  std::vector<int32_t> x(16);
  for (int i = 0; i < 16; ++i) x[static_cast<size_t>(i)] = i;
  const std::vector<int64_t> idx{0, 2, 3, 1};
  auto out = runIr(ir, Family::kLoop, {bytesOf(x), bytesOf(idx)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(valuesOf<int32_t>(out[0]), (std::vector<int32_t>{2, 3, 6, 7, 9, 10, 13, 14}));
}

}  // namespace
}  // namespace jft::codegen::native::testing
