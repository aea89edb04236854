// Narrow float decoding and shortest text. Expected values come from the
// formats' definitions (sign, exponent bias, mantissa; the OCP FP8/MX specs
// for the f8/f6/f4 variants), worked out by hand.
#include "ir/float_text.h"

#include <gtest/gtest.h>

#include <cmath>

namespace jft::ir {
namespace {

TEST(FloatText, DecodesIeeeHalfTypes) {
  EXPECT_EQ(decodeFloat(ElementType::BF16, 0x3F80), 1.0);
  EXPECT_EQ(decodeFloat(ElementType::BF16, 0xC040), -3.0);
  EXPECT_EQ(decodeFloat(ElementType::BF16, 0x3DCD), 0.10009765625);
  EXPECT_EQ(decodeFloat(ElementType::F16, 0x7BFF), 65504.0);
  EXPECT_EQ(decodeFloat(ElementType::F16, 0x0001), std::ldexp(1.0, -24));
  EXPECT_TRUE(std::isinf(decodeFloat(ElementType::F16, 0xFC00)));
  EXPECT_TRUE(std::isnan(decodeFloat(ElementType::BF16, 0x7FC0)));
}

TEST(FloatText, DecodesFp8Variants) {
  EXPECT_EQ(decodeFloat(ElementType::F8E4M3FN, 0x7E), 448.0);
  EXPECT_TRUE(std::isnan(decodeFloat(ElementType::F8E4M3FN, 0x7F)));
  EXPECT_EQ(decodeFloat(ElementType::F8E4M3FN, 0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(decodeFloat(ElementType::F8E5M2, 0x7B), 57344.0);
  EXPECT_TRUE(std::isinf(decodeFloat(ElementType::F8E5M2, 0x7C)));
  EXPECT_EQ(decodeFloat(ElementType::F8E4M3, 0x77), 240.0);
  EXPECT_TRUE(std::isinf(decodeFloat(ElementType::F8E4M3, 0x78)));
  EXPECT_EQ(decodeFloat(ElementType::F8E3M4, 0x6F), 15.5);
  EXPECT_EQ(decodeFloat(ElementType::F8E4M3FNUZ, 0x7F), 240.0);
  EXPECT_TRUE(std::isnan(decodeFloat(ElementType::F8E4M3FNUZ, 0x80)));
  EXPECT_EQ(decodeFloat(ElementType::F8E5M2FNUZ, 0x7F), 57344.0);
  EXPECT_EQ(decodeFloat(ElementType::F8E4M3B11FNUZ, 0x7F), 30.0);
  EXPECT_EQ(decodeFloat(ElementType::F8E8M0FNU, 0x7F), 1.0);
  EXPECT_EQ(decodeFloat(ElementType::F8E8M0FNU, 0x80), 2.0);
  EXPECT_TRUE(std::isnan(decodeFloat(ElementType::F8E8M0FNU, 0xFF)));
}

TEST(FloatText, DecodesMicroscalingTypes) {
  EXPECT_EQ(decodeFloat(ElementType::F4E2M1FN, 0x7), 6.0);
  EXPECT_EQ(decodeFloat(ElementType::F4E2M1FN, 0xF), -6.0);
  EXPECT_EQ(decodeFloat(ElementType::F4E2M1FN, 0x1), 0.5);
  EXPECT_EQ(decodeFloat(ElementType::F6E2M3FN, 0x1F), 7.5);
  EXPECT_EQ(decodeFloat(ElementType::F6E3M2FN, 0x1F), 28.0);
}

TEST(FloatText, ShortestTextThatReadsBackInTheSameType) {
  EXPECT_EQ(formatFloatBits(ElementType::BF16, 0x3DCD), "0.1");
  EXPECT_EQ(formatFloatBits(ElementType::BF16, 0x3F80), "1.0");
  EXPECT_EQ(formatFloatBits(ElementType::F16, 0x3555), "0.3333");
  EXPECT_EQ(formatFloatBits(ElementType::F16, 0x0001), "6e-08");
  EXPECT_EQ(formatFloatBits(ElementType::F8E4M3FN, 0x01), "0.002");
  EXPECT_EQ(formatFloatBits(ElementType::F8E4M3FN, 0x7E), "448.0");
  EXPECT_EQ(formatFloatBits(ElementType::F8E8M0FNU, 0x00), "6e-39");
  EXPECT_EQ(formatFloatBits(ElementType::F4E2M1FN, 0xF), "-6.0");
  EXPECT_EQ(formatFloatBits(ElementType::F32, 0x3DCCCCCD), "0.1");
  EXPECT_EQ(formatFloatBits(ElementType::F32, 0x60AD78EC), "1e+20");
  EXPECT_EQ(formatFloatBits(ElementType::F32, 0x80000000), "-0.0");
  EXPECT_EQ(formatFloatBits(ElementType::F32, 0x42C80000), "100.0");
  EXPECT_EQ(formatFloatBits(ElementType::F64, 0x3FB999999999999A), "0.1");
}

TEST(FloatText, NonFiniteSpellings) {
  EXPECT_EQ(formatFloatBits(ElementType::BF16, 0x7F80), "inf");
  EXPECT_EQ(formatFloatBits(ElementType::BF16, 0xFF80), "-inf");
  EXPECT_EQ(formatFloatBits(ElementType::F8E4M3FNUZ, 0x80), "nan");
  EXPECT_EQ(formatDouble(0.25), "0.25");
}

}  // namespace
}  // namespace jft::ir
