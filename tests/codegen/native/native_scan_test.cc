// The native scan family run as host C++ (one std::thread per CUDA thread)
// against cumulative sums, products and maxima computed here from the
// reduce_window definition: out[i] = init (+) x[0] (+) ... (+) x[i] along
// the axis, from the far end for a reverse scan. Short rows take the
// per-thread loop, long ones the block scan over several chunks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "native_test_util.h"

namespace jft::codegen::native::testing {
namespace {

using fusion::Family;

std::string shapeText(const std::vector<int64_t>& dims, const std::string& element) {
  std::string t = "tensor<";
  for (int64_t d : dims) t += std::to_string(d) + "x";
  return t + element + ">";
}

// A cumulative reduce_window of `op` along `axis` (the form fusion's
// scan_form.h reads), init `init` (an MLIR literal).
std::string cumulativeIr(const std::vector<int64_t>& dims, const std::string& element,
                         size_t axis, bool reverse, const std::string& op,
                         const std::string& init) {
  const std::string t = shapeText(dims, element), s = "tensor<" + element + ">";
  std::string window, padding;
  for (size_t d = 0; d < dims.size(); ++d) {
    window += (d ? ", " : "") + std::to_string(d == axis ? dims[d] : 1);
    const int64_t pad = d == axis ? dims[d] - 1 : 0;
    padding += std::string(d ? ", " : "") + "[" + std::to_string(reverse ? 0 : pad) +
               ", " + std::to_string(reverse ? pad : 0) + "]";
  }
  return "func.func @main(%x: " + t + ") -> " + t +
         " {\n  %z = stablehlo.constant dense<" + init + "> : " + s +
         "\n  %r = stablehlo.reduce_window %x, %z {window_dimensions = array<i64: " +
         window + ">, padding = dense<[" + padding + "]> : tensor<" +
         std::to_string(dims.size()) + "x2xi64>} ({\n  ^bb0(%a: " + s + ", %b: " + s +
         "):\n    %c = stablehlo." + op + " %a, %b : " + s +
         "\n    stablehlo.return %c : " + s + "\n  }) : (" + t + ", " + s + ") -> " + t +
         "\n  return %r : " + t + "\n}";
}

// out at every position of `dims` from a sequential fold along `axis`.
template <typename T, typename F>
std::vector<T> cumulativeReference(const std::vector<T>& x,
                                   const std::vector<int64_t>& dims, size_t axis,
                                   bool reverse, T init, F f) {
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < dims.size(); ++d)
    (d < axis ? outer : inner) *= d == axis ? 1 : dims[d];
  const int64_t n = dims[axis];
  std::vector<T> out(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      T acc = init;
      for (int64_t k = 0; k < n; ++k) {
        const int64_t p = reverse ? n - 1 - k : k;
        const size_t at = static_cast<size_t>((o * n + p) * inner + i);
        acc = f(acc, x[at]);
        out[at] = acc;
      }
    }
  return out;
}

TEST(NativeScan, CumsumAlongTheLastAxisInChunks) {
  JFT_REQUIRE_HOST_RUN();
  // 600 per row: more than the block's 256 lanes, so the carry crosses chunks.
  const std::vector<int64_t> dims{3, 600};
  std::vector<float> x(1800);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(static_cast<int>(i * 7 % 11) - 5);
  auto out = runIr(cumulativeIr(dims, "f32", 1, false, "add", "0.0"), Family::kScan,
                   {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  // Small integers: every association is exact.
  EXPECT_EQ(valuesOf<float>(out[0]),
            cumulativeReference<float>(x, dims, 1, false, 0.0f,
                                       [](float a, float b) { return a + b; }));
}

TEST(NativeScan, ReverseCumsumOfIntegersWraps) {
  JFT_REQUIRE_HOST_RUN();
  const std::vector<int64_t> dims{2, 300};
  std::vector<int32_t> x(600);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<int32_t>(i * 2654435761u);  // large: the sums wrap
  auto out =
      runIr(cumulativeIr(dims, "i32", 1, true, "add", "0"), Family::kScan, {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(
      valuesOf<int32_t>(out[0]),
      cumulativeReference<int32_t>(x, dims, 1, true, 0, [](int32_t a, int32_t b) {
        return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
      }));
}

TEST(NativeScan, ReverseCumprodAlongTheLeadingAxis) {
  JFT_REQUIRE_HOST_RUN();
  // Rows of 5 along axis 0: one thread's loop per row.
  const std::vector<int64_t> dims{5, 3};
  const std::vector<int32_t> x{1, 2, 3, -1, 2, 2, 3, 1, -2, 2, 5, 1, -1, 1, 3};
  auto out = runIr(cumulativeIr(dims, "i32", 0, true, "multiply", "1"), Family::kScan,
                   {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(valuesOf<int32_t>(out[0]),
            cumulativeReference<int32_t>(x, dims, 0, true, 1,
                                         [](int32_t a, int32_t b) { return a * b; }));
}

TEST(NativeScan, CummaxAlongAMiddleAxisPropagatesNaN) {
  JFT_REQUIRE_HOST_RUN();
  const std::vector<int64_t> dims{2, 70, 3};
  std::vector<float> x(420);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i)) * 10.0f;
  x[1 * 210 + 40 * 3 + 2] = NAN;  // the rest of that row is NaN
  x[0 * 210 + 5 * 3 + 0] = -0.0f;
  auto out = runIr(cumulativeIr(dims, "f32", 1, false, "maximum", "0xFF800000"),
                   Family::kScan, {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  const std::vector<float> got = valuesOf<float>(out[0]);
  const std::vector<float> want =
      cumulativeReference<float>(x, dims, 1, false, -INFINITY, [](float a, float b) {
        if (std::isnan(a) || std::isnan(b)) return NAN;
        return a > b ? a : b;
      });
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << i;
    } else {
      EXPECT_EQ(got[i], want[i]) << i;
    }
  }
}

TEST(NativeScan, ARowOfTheBlockScanTakesItsPrologue) {
  JFT_REQUIRE_HOST_RUN();
  // exp fused before the scan; rows of 40 (the block path, one chunk).
  const std::string ir = R"(
func.func @main(%x: tensor<2x40xf32>) -> tensor<2x40xf32> {
  %e = stablehlo.negate %x : tensor<2x40xf32>
  %z = stablehlo.constant dense<1.0> : tensor<f32>
  %r = stablehlo.reduce_window %e, %z {window_dimensions = array<i64: 1, 40>, padding = dense<[[0, 0], [39, 0]]> : tensor<2x2xi64>} ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %c : tensor<f32>
  }) : (tensor<2x40xf32>, tensor<f32>) -> tensor<2x40xf32>
  return %r : tensor<2x40xf32>
})";
  std::vector<float> x(80);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 9);
  auto out = runIr(ir, Family::kScan, {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> neg(x.size());
  for (size_t i = 0; i < x.size(); ++i) neg[i] = -x[i];
  // The init counts once per row, as the TTIR route's scan.
  EXPECT_EQ(valuesOf<float>(out[0]),
            cumulativeReference<float>(neg, {2, 40}, 1, false, 1.0f,
                                       [](float a, float b) { return a + b; }));
}

TEST(NativeScan, ANonScanRootIsRefused) {
  const ir::Module m = parseIr(R"(
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = stablehlo.negate %a : tensor<4xf32>
  return %r : tensor<4xf32>
})");
  const std::string error = emitError(m, Family::kScan);
  EXPECT_NE(error.find("UNIMPLEMENTED"), std::string::npos) << error;
  EXPECT_NE(error.find("stablehlo.negate"), std::string::npos) << error;
}

}  // namespace
}  // namespace jft::codegen::native::testing
