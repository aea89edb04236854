// Elementwise numerics of the native emitter, run as host C++ against values
// worked out by hand from the StableHLO spec and XLA's defined results.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "native_test_util.h"

namespace jft::codegen::native::testing {
namespace {

using fusion::Family;

std::string binary(const std::string& op, const std::string& type, int n,
                   const std::string& result_type = "") {
  const std::string t = "tensor<" + std::to_string(n) + "x" + type + ">";
  const std::string r = "tensor<" + std::to_string(n) + "x" +
                        (result_type.empty() ? type : result_type) + ">";
  return "func.func @main(%a: " + t + ", %b: " + t + ") -> " + r +
         " {\n  %r = stablehlo." + op +
         " %a, %b : " + (result_type.empty() ? t : "(" + t + ", " + t + ") -> " + r) +
         "\n  return %r : " + r + "\n}\n";
}

std::string unary(const std::string& op, const std::string& type, int n,
                  const std::string& result_type = "") {
  const std::string t = "tensor<" + std::to_string(n) + "x" + type + ">";
  const std::string r = "tensor<" + std::to_string(n) + "x" +
                        (result_type.empty() ? type : result_type) + ">";
  return "func.func @main(%a: " + t + ") -> " + r + " {\n  %r = stablehlo." + op +
         " %a : " + (result_type.empty() ? t : "(" + t + ") -> " + r) +
         "\n  return %r : " + r + "\n}\n";
}

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST(NativeNumerics, SignedDivisionAndRemainderFollowXla) {
  JFT_REQUIRE_HOST_RUN();
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  const std::vector<int32_t> a{7, -7, 5, kMin, 3, -9}, b{2, 2, 0, -1, -1, 4};
  auto q = runIr(binary("divide", "i32", 6), Family::kLoop, {bytesOf(a), bytesOf(b)});
  ASSERT_EQ(q.size(), 1u);
  // Truncating division; x / 0 = -1; INT_MIN / -1 = INT_MIN.
  EXPECT_EQ(valuesOf<int32_t>(q[0]), (std::vector<int32_t>{3, -3, -1, kMin, -3, -2}));
  auto r = runIr(binary("remainder", "i32", 6), Family::kLoop, {bytesOf(a), bytesOf(b)});
  ASSERT_EQ(r.size(), 1u);
  // Sign of the dividend; x % 0 = x; INT_MIN % -1 = 0.
  EXPECT_EQ(valuesOf<int32_t>(r[0]), (std::vector<int32_t>{1, -1, 5, 0, 0, -1}));
}

TEST(NativeNumerics, UnsignedDivisionByZeroIsAllOnes) {
  JFT_REQUIRE_HOST_RUN();
  const std::vector<uint8_t> a{5, 200, 7}, b{0, 3, 0};
  auto q = runIr(binary("divide", "ui8", 3), Family::kLoop, {a, b});
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0], (std::vector<uint8_t>{255, 66, 255}));
  auto r = runIr(binary("remainder", "ui8", 3), Family::kLoop, {a, b});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], (std::vector<uint8_t>{5, 2, 7}));
}

TEST(NativeNumerics, SignedArithmeticWraps) {
  JFT_REQUIRE_HOST_RUN();
  const std::vector<int8_t> a{100, -128, 127, -100}, b{100, -1, 2, 3};
  auto sum = runIr(binary("add", "i8", 4), Family::kLoop, {bytesOf(a), bytesOf(b)});
  ASSERT_EQ(sum.size(), 1u);
  EXPECT_EQ(valuesOf<int8_t>(sum[0]), (std::vector<int8_t>{-56, 127, -127, -97}));
  auto product =
      runIr(binary("multiply", "i8", 4), Family::kLoop, {bytesOf(a), bytesOf(b)});
  ASSERT_EQ(product.size(), 1u);
  // 10000 mod 256 = 16; -128 * -1 wraps to -128; 254 -> -2; -300 -> -44.
  EXPECT_EQ(valuesOf<int8_t>(product[0]), (std::vector<int8_t>{16, -128, -2, -44}));
  const int32_t kMax = std::numeric_limits<int32_t>::max();
  const std::vector<int32_t> x{kMax, std::numeric_limits<int32_t>::min()}, one{1, 1};
  auto wrapped =
      runIr(binary("add", "i32", 2), Family::kLoop, {bytesOf(x), bytesOf(one)});
  ASSERT_EQ(wrapped.size(), 1u);
  EXPECT_EQ(valuesOf<int32_t>(wrapped[0]),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), -kMax}));
  auto negated = runIr(unary("negate", "i32", 2), Family::kLoop, {bytesOf(x)});
  ASSERT_EQ(negated.size(), 1u);
  EXPECT_EQ(valuesOf<int32_t>(negated[0]),
            (std::vector<int32_t>{-kMax, std::numeric_limits<int32_t>::min()}));
  auto abs = runIr(unary("abs", "i32", 2), Family::kLoop, {bytesOf(x)});
  ASSERT_EQ(abs.size(), 1u);
  EXPECT_EQ(valuesOf<int32_t>(abs[0]),
            (std::vector<int32_t>{kMax, std::numeric_limits<int32_t>::min()}));
}

TEST(NativeNumerics, ShiftsPastTheWidthGiveZeroOrTheSignFill) {
  JFT_REQUIRE_HOST_RUN();
  const std::vector<int32_t> ones{1, 1, 1, 1}, counts{0, 31, 32, -1};
  auto left = runIr(binary("shift_left", "i32", 4), Family::kLoop,
                    {bytesOf(ones), bytesOf(counts)});
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(valuesOf<int32_t>(left[0]),
            (std::vector<int32_t>{1, std::numeric_limits<int32_t>::min(), 0, 0}));
  const std::vector<int32_t> minus8{-8, -8, -8, -8}, c2{1, 28, 32, 100};
  auto arithmetic = runIr(binary("shift_right_arithmetic", "i32", 4), Family::kLoop,
                          {bytesOf(minus8), bytesOf(c2)});
  ASSERT_EQ(arithmetic.size(), 1u);
  EXPECT_EQ(valuesOf<int32_t>(arithmetic[0]), (std::vector<int32_t>{-4, -1, -1, -1}));
  auto logical = runIr(binary("shift_right_logical", "i32", 4), Family::kLoop,
                       {bytesOf(minus8), bytesOf(c2)});
  ASSERT_EQ(logical.size(), 1u);
  EXPECT_EQ(valuesOf<int32_t>(logical[0]), (std::vector<int32_t>{0x7ffffffc, 15, 0, 0}));
  // ui8: the arithmetic shift reads the top bit as the sign.
  const std::vector<uint8_t> u{0x80, 0x80, 0x40}, uc{1, 9, 1};
  auto u_arith =
      runIr(binary("shift_right_arithmetic", "ui8", 3), Family::kLoop, {u, uc});
  ASSERT_EQ(u_arith.size(), 1u);
  EXPECT_EQ(u_arith[0], (std::vector<uint8_t>{0xC0, 0xFF, 0x20}));
  auto u_left = runIr(binary("shift_left", "ui8", 3), Family::kLoop, {u, uc});
  ASSERT_EQ(u_left.size(), 1u);
  EXPECT_EQ(u_left[0], (std::vector<uint8_t>{0x00, 0x00, 0x80}));
}

TEST(NativeNumerics, IntegerPowerPopcountAndLeadingZeros) {
  JFT_REQUIRE_HOST_RUN();
  const std::vector<int32_t> base{3, 2, -1, -1, 1, 5, 2},
      exponent{4, 31, 3, -2, -7, -1, 32};
  auto power =
      runIr(binary("power", "i32", 7), Family::kLoop, {bytesOf(base), bytesOf(exponent)});
  ASSERT_EQ(power.size(), 1u);
  EXPECT_EQ(
      valuesOf<int32_t>(power[0]),
      (std::vector<int32_t>{81, std::numeric_limits<int32_t>::min(), -1, 1, 1, 0, 0}));
  const std::vector<int8_t> bytes{0, 1, -1, 0x10};
  auto popcnt = runIr(unary("popcnt", "i8", 4), Family::kLoop, {bytesOf(bytes)});
  ASSERT_EQ(popcnt.size(), 1u);
  EXPECT_EQ(valuesOf<int8_t>(popcnt[0]), (std::vector<int8_t>{0, 1, 8, 1}));
  auto clz =
      runIr(unary("count_leading_zeros", "i8", 4), Family::kLoop, {bytesOf(bytes)});
  ASSERT_EQ(clz.size(), 1u);
  EXPECT_EQ(valuesOf<int8_t>(clz[0]), (std::vector<int8_t>{8, 7, 0, 3}));
}

TEST(NativeNumerics, FloatMaximumMinimumPropagateNanAndOrderZeros) {
  JFT_REQUIRE_HOST_RUN();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> a{nan, 1.0f, -0.0f, 0.0f, 2.0f},
      b{1.0f, nan, 0.0f, -0.0f, -3.0f};
  auto mx = runIr(binary("maximum", "f32", 5), Family::kLoop, {bytesOf(a), bytesOf(b)});
  ASSERT_EQ(mx.size(), 1u);
  const std::vector<float> m = valuesOf<float>(mx[0]);
  EXPECT_TRUE(std::isnan(m[0]));
  EXPECT_TRUE(std::isnan(m[1]));
  EXPECT_EQ(bitsOf(m[2]), 0u);  // +0
  EXPECT_EQ(bitsOf(m[3]), 0u);
  EXPECT_EQ(m[4], 2.0f);
  auto mn = runIr(binary("minimum", "f32", 5), Family::kLoop, {bytesOf(a), bytesOf(b)});
  ASSERT_EQ(mn.size(), 1u);
  const std::vector<float> n = valuesOf<float>(mn[0]);
  EXPECT_TRUE(std::isnan(n[0]));
  EXPECT_TRUE(std::isnan(n[1]));
  EXPECT_EQ(bitsOf(n[2]), 0x80000000u);  // -0
  EXPECT_EQ(bitsOf(n[3]), 0x80000000u);
  EXPECT_EQ(n[4], -3.0f);
}

TEST(NativeNumerics, Bf16RoundsAfterEveryOp) {
  JFT_REQUIRE_HOST_RUN();
  // (1 + 2^-8) + 2^-8 in bf16 (8 significant bits): each add is a tie that
  // rounds to even (1.0), so the sum stays 1.0; adding in f32 and rounding
  // once would give 1 + 2^-7.
  const std::string ir = R"(
func.func @main(%a: tensor<2xbf16>, %b: tensor<2xbf16>) -> tensor<2xbf16> {
  %s = stablehlo.add %a, %b : tensor<2xbf16>
  %r = stablehlo.add %s, %b : tensor<2xbf16>
  return %r : tensor<2xbf16>
})";
  const std::vector<uint16_t> a{0x3f80, 0x4040}, b{0x3b80, 0x3f80};  // 1, 3 / 2^-8, 1
  auto out = runIr(ir, Family::kLoop, {bytesOf(a), bytesOf(b)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(valuesOf<uint16_t>(out[0]), (std::vector<uint16_t>{0x3f80, 0x40a0}));  // 1, 5
}

TEST(NativeNumerics, ConvertToF16RoundsOverflowsAndUnderflows) {
  JFT_REQUIRE_HOST_RUN();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x{
      65519.0f, 65520.0f, std::ldexp(1.0f, -25), std::ldexp(3.0f, -26),
      -1.5f,    nan,      std::ldexp(1.0f, -14), 1.0009765625f + std::ldexp(1.0f, -11)};
  auto out = runIr(unary("convert", "f32", 8, "f16"), Family::kLoop, {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  const std::vector<uint16_t> h = valuesOf<uint16_t>(out[0]);
  EXPECT_EQ(h[0], 0x7bffu);  // 65504, the largest finite
  EXPECT_EQ(h[1], 0x7c00u);  // the tie at 65520 rounds to even: inf
  EXPECT_EQ(h[2], 0x0000u);  // 2^-25 ties to even zero
  EXPECT_EQ(h[3], 0x0001u);  // 1.5 * 2^-25 rounds up to 2^-24
  EXPECT_EQ(h[4], 0xbe00u);
  EXPECT_EQ(h[5] & 0x7e00u, 0x7e00u);  // a quiet NaN
  EXPECT_EQ(h[6], 0x0400u);            // the smallest normal
  EXPECT_EQ(h[7], 0x3c02u);            // 1 + 1.5 ulp: tie to even, up
}

TEST(NativeNumerics, IntegerToBf16RoundsOnce) {
  JFT_REQUIRE_HOST_RUN();
  // 2^24 + 2^16 + 1 lies just above a bf16 midpoint: one rounding gives
  // 2^24 + 2^17; rounding through f32 first (to the midpoint) would give 2^24.
  const std::vector<int32_t> x{16842753, -16842753, 3, 0};
  auto out = runIr(unary("convert", "i32", 4, "bf16"), Family::kLoop, {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  const std::vector<uint16_t> b = valuesOf<uint16_t>(out[0]);
  EXPECT_EQ(floatOf(uint32_t{b[0]} << 16), 16908288.0f);
  EXPECT_EQ(floatOf(uint32_t{b[1]} << 16), -16908288.0f);
  EXPECT_EQ(floatOf(uint32_t{b[2]} << 16), 3.0f);
  EXPECT_EQ(b[3], 0u);
}

TEST(NativeNumerics, F64ToBf16RoundsOnce) {
  JFT_REQUIRE_HOST_RUN();
  // 1 + 2^-8 + 2^-30: above the bf16 midpoint 1 + 2^-8, so it rounds up to
  // 1 + 2^-7; through f32 (which drops 2^-30) it would tie down to 1.
  const std::vector<double> x{1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30), 1e300,
                              -2.5};
  auto out = runIr(unary("convert", "f64", 3, "bf16"), Family::kLoop, {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(valuesOf<uint16_t>(out[0]), (std::vector<uint16_t>{0x3f81, 0x7f80, 0xc020}));
}

TEST(NativeNumerics, FloatToIntegerSaturates) {
  JFT_REQUIRE_HOST_RUN();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x{nan, 3e9f, -3e9f, -1.7f, 2.9f, -0.0f};
  auto out = runIr(unary("convert", "f32", 6, "i32"), Family::kLoop, {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(valuesOf<int32_t>(out[0]),
            (std::vector<int32_t>{0, std::numeric_limits<int32_t>::max(),
                                  std::numeric_limits<int32_t>::min(), -1, 2, 0}));
  auto u8 = runIr(unary("convert", "f32", 6, "ui8"), Family::kLoop, {bytesOf(x)});
  ASSERT_EQ(u8.size(), 1u);
  EXPECT_EQ(u8[0], (std::vector<uint8_t>{0, 255, 0, 0, 2, 0}));
}

TEST(NativeNumerics, ConvertToPredAndBack) {
  JFT_REQUIRE_HOST_RUN();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x{0.0f, -0.0f, nan, 0.5f};
  auto out = runIr(unary("convert", "f32", 4, "i1"), Family::kLoop, {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (std::vector<uint8_t>{0, 0, 1, 1}));
  auto back = runIr(unary("convert", "i1", 4, "f32"), Family::kLoop, {out[0]});
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(valuesOf<float>(back[0]), (std::vector<float>{0, 0, 1, 1}));
}

TEST(NativeNumerics, BitcastConvertKeepsBits) {
  JFT_REQUIRE_HOST_RUN();
  const std::vector<float> x{1.0f, -0.0f};
  auto out =
      runIr(unary("bitcast_convert", "f32", 2, "i32"), Family::kLoop, {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(valuesOf<int32_t>(out[0]), (std::vector<int32_t>{0x3f800000, INT32_MIN}));
  const std::vector<int16_t> h{0x3c00, static_cast<int16_t>(0xfc00)};
  auto half =
      runIr(unary("bitcast_convert", "i16", 2, "f16"), Family::kLoop, {bytesOf(h)});
  ASSERT_EQ(half.size(), 1u);
  EXPECT_EQ(valuesOf<uint16_t>(half[0]), (std::vector<uint16_t>{0x3c00, 0xfc00}));
}

TEST(NativeNumerics, CompareFloatNeIsUnorderedAndTotalOrderSortsNans) {
  JFT_REQUIRE_HOST_RUN();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> a{nan, 1.0f, -0.0f, -nan, nan}, b{nan, 1.0f, 0.0f, -inf, inf};
  const std::string ne = R"(
func.func @main(%a: tensor<5xf32>, %b: tensor<5xf32>) -> (tensor<5xi1>, tensor<5xi1>, tensor<5xi1>) {
  %ne = stablehlo.compare %a, %b {comparison_direction = #stablehlo<comparison_direction NE>} : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
  %eq = stablehlo.compare %a, %b {comparison_direction = #stablehlo<comparison_direction EQ>} : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
  %lt = stablehlo.compare %a, %b {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type TOTALORDER>} : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
  return %ne, %eq, %lt : tensor<5xi1>, tensor<5xi1>, tensor<5xi1>
})";
  auto out = runIr(ne, Family::kLoop, {bytesOf(a), bytesOf(b)});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], (std::vector<uint8_t>{1, 0, 0, 1, 1}));
  EXPECT_EQ(out[1], (std::vector<uint8_t>{0, 1, 1, 0, 0}));
  // TOTALORDER: -0 < +0, -NaN < -inf, +NaN > +inf.
  EXPECT_EQ(out[2], (std::vector<uint8_t>{0, 0, 1, 1, 0}));
}

TEST(NativeNumerics, FloatFunctionsMatchTheHostLibrary) {
  JFT_REQUIRE_HOST_RUN();
  const std::vector<float> x{0.5f, -1.25f, 3.0f, 0.0f};
  const std::string ir = R"(
func.func @main(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = stablehlo.exponential %a : tensor<4xf32>
  %t = stablehlo.tanh %a : tensor<4xf32>
  %l = stablehlo.logistic %a : tensor<4xf32>
  %s = stablehlo.sign %a : tensor<4xf32>
  %r = stablehlo.round_nearest_even %a : tensor<4xf32>
  return %e, %t, %l, %s, %r : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
})";
  auto out = runIr(ir, Family::kLoop, {bytesOf(x)});
  ASSERT_EQ(out.size(), 5u);
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    EXPECT_NEAR(valuesOf<float>(out[0])[i], std::exp(v), 1e-6 * std::exp(v));
    EXPECT_NEAR(valuesOf<float>(out[1])[i], std::tanh(v), 1e-6);
    EXPECT_NEAR(valuesOf<float>(out[2])[i], 1 / (1 + std::exp(-v)), 1e-6);
    EXPECT_EQ(valuesOf<float>(out[3])[i], v > 0 ? 1.0f : (v < 0 ? -1.0f : 0.0f));
    EXPECT_EQ(valuesOf<float>(out[4])[i], std::nearbyint(v));
  }
}

TEST(NativeNumerics, NarrowNanBitsSurviveACopy) {
  JFT_REQUIRE_HOST_RUN();
  // A transpose moves f16/bf16 values through float registers: signalling
  // and payload-carrying NaNs come out with their bits, as a copy would.
  const std::string ir = R"(
func.func @main(%a: tensor<2x2xbf16>, %b: tensor<2x2xf16>) -> (tensor<2x2xbf16>, tensor<2x2xf16>) {
  %t = stablehlo.transpose %a {permutation = array<i64: 1, 0>} : (tensor<2x2xbf16>) -> tensor<2x2xbf16>
  %u = stablehlo.transpose %b {permutation = array<i64: 1, 0>} : (tensor<2x2xf16>) -> tensor<2x2xf16>
  return %t, %u : tensor<2x2xbf16>, tensor<2x2xf16>
})";
  const std::vector<uint16_t> a{0x7f81, 0xffc0, 0x7f80, 0x3f80},
      b{0x7c01, 0xfe00, 0x7d55, 0x3c00};
  auto out = runIr(ir, Family::kLoop, {bytesOf(a), bytesOf(b)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(valuesOf<uint16_t>(out[0]),
            (std::vector<uint16_t>{0x7f81, 0x7f80, 0xffc0, 0x3f80}));
  EXPECT_EQ(valuesOf<uint16_t>(out[1]),
            (std::vector<uint16_t>{0x7c01, 0x7d55, 0xfe00, 0x3c00}));
}

}  // namespace
}  // namespace jft::codegen::native::testing
