// Complex values in the native emitter, run as host C++: arithmetic in parts,
// real/imag/complex/abs, converts, compares, a complex sum.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "native_test_util.h"

namespace jft::codegen::native::testing {
namespace {

using fusion::Family;
using C = std::complex<float>;

TEST(NativeComplex, ArithmeticPartsAndAbs) {
  JFT_REQUIRE_HOST_RUN();
  const std::string ir = R"(
func.func @main(%a: tensor<3xcomplex<f32>>, %b: tensor<3xcomplex<f32>>) -> (tensor<3xcomplex<f32>>, tensor<3xf32>, tensor<3xf32>, tensor<3xi1>) {
  %m = stablehlo.multiply %a, %b : tensor<3xcomplex<f32>>
  %s = stablehlo.subtract %m, %a : tensor<3xcomplex<f32>>
  %n = stablehlo.negate %s : tensor<3xcomplex<f32>>
  %r = stablehlo.real %n : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
  %i = stablehlo.imag %n : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
  %c = stablehlo.complex %r, %i : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xcomplex<f32>>
  %abs = stablehlo.abs %c : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
  %eq = stablehlo.compare %c, %n {comparison_direction = #stablehlo<comparison_direction EQ>} : (tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>) -> tensor<3xi1>
  return %c, %r, %abs, %eq : tensor<3xcomplex<f32>>, tensor<3xf32>, tensor<3xf32>, tensor<3xi1>
})";
  const std::vector<C> a{{1, 2}, {-3, 0.5f}, {0, -1}}, b{{3, -1}, {2, 2}, {0.25f, 4}};
  auto out = runIr(ir, Family::kLoop, {bytesOf(a), bytesOf(b)});
  ASSERT_EQ(out.size(), 4u);
  const std::vector<C> c = valuesOf<C>(out[0]);
  for (size_t k = 0; k < a.size(); ++k) {
    const C want = -(a[k] * b[k] - a[k]);  // small values: exact in f32
    EXPECT_EQ(c[k], want) << k;
    EXPECT_EQ(valuesOf<float>(out[1])[k], want.real());
    EXPECT_FLOAT_EQ(valuesOf<float>(out[2])[k], std::abs(want));
    EXPECT_EQ(out[3][k], 1);
  }
}

TEST(NativeComplex, ConvertsBetweenRealAndComplex) {
  JFT_REQUIRE_HOST_RUN();
  const std::string ir = R"(
func.func @main(%x: tensor<2xf32>, %z: tensor<2xcomplex<f32>>) -> (tensor<2xcomplex<f64>>, tensor<2xi32>, tensor<2xi1>) {
  %c = stablehlo.convert %x : (tensor<2xf32>) -> tensor<2xcomplex<f64>>
  %i = stablehlo.convert %z : (tensor<2xcomplex<f32>>) -> tensor<2xi32>
  %p = stablehlo.convert %z : (tensor<2xcomplex<f32>>) -> tensor<2xi1>
  return %c, %i, %p : tensor<2xcomplex<f64>>, tensor<2xi32>, tensor<2xi1>
})";
  const std::vector<float> x{1.5f, -2};
  const std::vector<C> z{{-7.9f, 3}, {0, 1}};
  auto out = runIr(ir, Family::kLoop, {bytesOf(x), bytesOf(z)});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(valuesOf<std::complex<double>>(out[0]),
            (std::vector<std::complex<double>>{{1.5, 0}, {-2, 0}}));
  EXPECT_EQ(valuesOf<int32_t>(out[1]), (std::vector<int32_t>{-7, 0}));  // the real part
  EXPECT_EQ(out[2], (std::vector<uint8_t>{1, 1}));  // either part nonzero
}

TEST(NativeComplex, RowSumOfComplexValues) {
  JFT_REQUIRE_HOST_RUN();
  const std::string ir = R"(
func.func @main(%x: tensor<2x3xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  %z = stablehlo.constant dense<(0.0, 0.0)> : tensor<complex<f32>>
  %s = stablehlo.reduce %x, %z {dimensions = array<i64: 1>} ({
  ^bb0(%p: tensor<complex<f32>>, %q: tensor<complex<f32>>):
    %t = stablehlo.add %p, %q : tensor<complex<f32>>
    stablehlo.return %t : tensor<complex<f32>>
  }) : (tensor<2x3xcomplex<f32>>, tensor<complex<f32>>) -> tensor<2xcomplex<f32>>
  return %s : tensor<2xcomplex<f32>>
})";
  const std::vector<C> x{{1, 1}, {2, -1}, {3, 5}, {-1, 0}, {0, -2}, {4, 4}};
  auto out = runIr(ir, Family::kReduction, {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(valuesOf<C>(out[0]), (std::vector<C>{{6, 5}, {3, 2}}));
}

}  // namespace
}  // namespace jft::codegen::native::testing
