// The native scatter family run as host C++ (one std::thread per CUDA
// thread, the copy kernel then the updates kernel) against StableHLO's
// scatter written out here: rows of updates at row indices (as
// x.at[idx].add/set emit), duplicates combined, updates whose window leaves
// the operand dropped whole (XLA's rule).
#include <gtest/gtest.h>

#include <cmath>

#include "native_test_util.h"

namespace jft::codegen::native::testing {
namespace {

using fusion::Family;

// x.at[idx] <region> rows: operand [rows, cols], indices [n, 1], updates
// [n, cols]; `body` is the region's ops over %cur and %upd returning %res.
std::string rowScatterIr(int rows, int cols, int n, const std::string& element,
                         const std::string& body, bool unique = false) {
  const std::string s = "tensor<" + element + ">";
  const std::string operand =
      "tensor<" + std::to_string(rows) + "x" + std::to_string(cols) + "x" + element + ">";
  const std::string updates =
      "tensor<" + std::to_string(n) + "x" + std::to_string(cols) + "x" + element + ">";
  const std::string indices = "tensor<" + std::to_string(n) + "x1xi32>";
  return "func.func @main(%x: " + operand + ", %i: " + indices + ", %u: " + updates +
         ") -> " + operand +
         " {\n  %r = stablehlo.scatter %x, %i, %u {indices_are_sorted = false, "
         "scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], "
         "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
         "index_vector_dim = 1>, unique_indices = " +
         (unique ? "true" : "false") + "} ({\n  ^bb0(%cur: " + s + ", %upd: " + s +
         "):\n" + body + "  }) : (" + operand + ", " + indices + ", " + updates +
         ") -> " + operand + "\n  return %r : " + operand + "\n}";
}

// A region of one binary op of (current, update).
std::string binaryScatterBody(const std::string& op, const std::string& element) {
  const std::string s = "tensor<" + element + ">";
  return "    %res = stablehlo." + op + " %cur, %upd : " + s +
         "\n    stablehlo.return %res : " + s + "\n";
}

// StableHLO's scatter of rows, updates applied in order.
template <typename T, typename F>
std::vector<T> rowScatterReference(std::vector<T> x, int cols,
                                   const std::vector<int32_t>& idx,
                                   const std::vector<T>& u, F f) {
  const int rows = static_cast<int>(x.size()) / cols;
  for (size_t k = 0; k < idx.size(); ++k) {
    if (idx[k] < 0 || idx[k] > rows - 1) continue;  // the window leaves the operand
    for (int c = 0; c < cols; ++c) {
      T& e = x[static_cast<size_t>(idx[k] * cols + c)];
      e = f(e, u[k * static_cast<size_t>(cols) + static_cast<size_t>(c)]);
    }
  }
  return x;
}

TEST(NativeScatter, AddCombinesDuplicatesAndDropsOutOfBoundsRows) {
  JFT_REQUIRE_HOST_RUN();
  const std::string ir = rowScatterIr(10, 3, 8, "f32", binaryScatterBody("add", "f32"));
  std::vector<float> x(30), u(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  for (size_t i = 0; i < u.size(); ++i) u[i] = static_cast<float>(i % 5) + 1.0f;
  const std::vector<int32_t> idx{2, 7, 2, -1, 10, 2, 0, 9};
  auto out = runIr(ir, Family::kScatter, {bytesOf(x), bytesOf(idx), bytesOf(u)});
  ASSERT_EQ(out.size(), 1u);
  // Small integers: exact in any order.
  EXPECT_EQ(
      valuesOf<float>(out[0]),
      rowScatterReference<float>(x, 3, idx, u, [](float a, float b) { return a + b; }));
}

TEST(NativeScatter, ReplaceAppliesDuplicatesInOrder) {
  JFT_REQUIRE_HOST_RUN();
  // The region returns the update: with repeated rows the last one wins.
  const std::string ir =
      rowScatterIr(6, 40, 9, "i32", "    stablehlo.return %upd : tensor<i32>\n");
  std::vector<int32_t> x(240), u(360);
  for (size_t i = 0; i < x.size(); ++i) x[i] = -static_cast<int32_t>(i);
  for (size_t i = 0; i < u.size(); ++i) u[i] = static_cast<int32_t>(i) + 1000;
  const std::vector<int32_t> idx{4, 1, 4, 6, 4, -3, 1, 0, 4};
  auto out = runIr(ir, Family::kScatter, {bytesOf(x), bytesOf(idx), bytesOf(u)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(
      valuesOf<int32_t>(out[0]),
      rowScatterReference<int32_t>(x, 40, idx, u, [](int32_t, int32_t b) { return b; }));
}

TEST(NativeScatter, AnOrderDependentRegionRunsInOrder) {
  JFT_REQUIRE_HOST_RUN();
  // cur * 2 + upd: the result depends on the order of the updates.
  const std::string ir =
      rowScatterIr(5, 4, 6, "i32",
                   "    %two = stablehlo.constant dense<2> : tensor<i32>\n"
                   "    %d = stablehlo.multiply %cur, %two : tensor<i32>\n"
                   "    %res = stablehlo.add %d, %upd : tensor<i32>\n"
                   "    stablehlo.return %res : tensor<i32>\n");
  std::vector<int32_t> x(20), u(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int32_t>(i % 3);
  for (size_t i = 0; i < u.size(); ++i) u[i] = static_cast<int32_t>(i % 7) - 3;
  const std::vector<int32_t> idx{3, 3, 1, 3, 5, 1};
  auto out = runIr(ir, Family::kScatter, {bytesOf(x), bytesOf(idx), bytesOf(u)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(valuesOf<int32_t>(out[0]),
            rowScatterReference<int32_t>(x, 4, idx, u,
                                         [](int32_t a, int32_t b) { return a * 2 + b; }));
}

TEST(NativeScatter, MaxOfSixteenBitIntegersSwapsTheirWord) {
  JFT_REQUIRE_HOST_RUN();
  // No 16-bit atomic max: a compare-and-swap on the aligned 32-bit word,
  // whose other half belongs to a neighbour updated at the same time.
  const std::string ir =
      rowScatterIr(4, 5, 12, "i16", binaryScatterBody("maximum", "i16"));
  std::vector<int16_t> x(20), u(60);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<int16_t>(static_cast<int>(i) - 10);
  for (size_t i = 0; i < u.size(); ++i)
    u[i] = static_cast<int16_t>((static_cast<int>(i) * 7919) % 61 - 30);
  const std::vector<int32_t> idx{0, 1, 2, 3, 0, 1, 2, 3, 1, 1, 4, 2};
  auto out = runIr(ir, Family::kScatter, {bytesOf(x), bytesOf(idx), bytesOf(u)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(valuesOf<int16_t>(out[0]),
            rowScatterReference<int16_t>(
                x, 5, idx, u, [](int16_t a, int16_t b) { return std::max(a, b); }));
}

TEST(NativeScatter, APartlyOutsideWindowDropsTheWholeUpdate) {
  JFT_REQUIRE_HOST_RUN();
  // Windows of 2x2 at (row, col) starts: a start of col 3 would reach col 4
  // of a 4-wide operand, so that update is dropped, not clipped.
  const std::string ir = R"(
func.func @main(%x: tensor<3x4xf32>, %i: tensor<3x2xi32>, %u: tensor<3x2x2xf32>) -> tensor<3x4xf32> {
  %r = stablehlo.scatter %x, %i, %u {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1, 2], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>} ({
  ^bb0(%cur: tensor<f32>, %upd: tensor<f32>):
    %res = stablehlo.add %cur, %upd : tensor<f32>
    stablehlo.return %res : tensor<f32>
  }) : (tensor<3x4xf32>, tensor<3x2xi32>, tensor<3x2x2xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
})";
  const std::vector<float> x(12, 0.0f);
  const std::vector<int32_t> idx{0, 0, 1, 3, 1, 2};
  const std::vector<float> u{1, 2, 3, 4, 10, 20, 30, 40, 100, 200, 300, 400};
  auto out = runIr(ir, Family::kScatter, {bytesOf(x), bytesOf(idx), bytesOf(u)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> want(12, 0.0f);
  for (int k : {0, 2}) {  // update 1 starts at col 3: dropped
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b)
        want[static_cast<size_t>((idx[2 * k] + a) * 4 + idx[2 * k + 1] + b)] +=
            u[static_cast<size_t>(k * 4 + a * 2 + b)];
  }
  EXPECT_EQ(valuesOf<float>(out[0]), want);
}

TEST(NativeScatter, TwoEntryPointsInOneSource) {
  const ir::Module m =
      parseIr(rowScatterIr(4, 2, 3, "f32", binaryScatterBody("add", "f32")));
  const NativeKernel k = emitWhole(m, Family::kScatter);
  ASSERT_EQ(k.later.size(), 1u);
  EXPECT_EQ(k.later[0].name, k.name + "_updates");
  EXPECT_NE(k.source.find(k.later[0].name + "("), std::string::npos);
  EXPECT_NE(k.source.find("jft_atomic_add(&out0["), std::string::npos) << k.source;
}

}  // namespace
}  // namespace jft::codegen::native::testing
