// Float formats decoded from their bit patterns, against values the format
// definitions fix (IEEE 754; the OCP 8-bit and MX formats; the FNUZ variants
// of Graphcore's proposal as implemented by LLVM's APFloat).
#include "frontend/bytecode/values.h"

#include <gtest/gtest.h>

#include <cmath>

namespace jft::frontend::bytecode {
namespace {

double decode(const char* name, uint64_t bits) {
  return floatBitsToDouble(name, {bits});
}

TEST(FloatBits, IeeeFormats) {
  EXPECT_EQ(decode("f32", 0x3F800000), 1.0);
  EXPECT_EQ(decode("f32", 0xC0490FDB), -3.1415927410125732);
  EXPECT_EQ(decode("f64", 0x3FF8000000000000), 1.5);
  EXPECT_EQ(decode("f16", 0x3C00), 1.0);
  EXPECT_EQ(decode("f16", 0x7BFF), 65504.0);
  EXPECT_EQ(decode("f16", 0x0001), std::ldexp(1.0, -24));
  EXPECT_TRUE(std::isinf(decode("f16", 0x7C00)));
  EXPECT_TRUE(std::isnan(decode("f16", 0x7E00)));
  EXPECT_EQ(decode("bf16", 0x3F80), 1.0);
  EXPECT_EQ(decode("bf16", 0xC040), -3.0);
  EXPECT_EQ(decode("tf32", 0x1FC00), 1.0);  // 19 bits: sign, 8 exponent, 10 mantissa
}

TEST(FloatBits, EightBitFormats) {
  EXPECT_EQ(decode("f8E4M3FN", 0x7E), 448.0);  // largest finite
  EXPECT_TRUE(std::isnan(decode("f8E4M3FN", 0x7F)));
  EXPECT_EQ(decode("f8E4M3FN", 0x38), 1.0);
  EXPECT_EQ(decode("f8E4M3FN", 0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(decode("f8E5M2", 0x3C), 1.0);
  EXPECT_EQ(decode("f8E5M2", 0x7B), 57344.0);
  EXPECT_TRUE(std::isinf(decode("f8E5M2", 0x7C)));
  EXPECT_EQ(decode("f8E4M3", 0x77), 240.0);  // IEEE-style: 0x78 is inf
  EXPECT_TRUE(std::isinf(decode("f8E4M3", 0x78)));
  EXPECT_EQ(decode("f8E3M4", 0x30), 1.0);
  EXPECT_EQ(decode("f8E4M3FNUZ", 0x40), 1.0);  // bias 8
  EXPECT_TRUE(std::isnan(decode("f8E4M3FNUZ", 0x80)));
  EXPECT_EQ(decode("f8E4M3FNUZ", 0x7F), 240.0);
  EXPECT_EQ(decode("f8E5M2FNUZ", 0x40), 1.0);  // bias 16
  EXPECT_EQ(decode("f8E5M2FNUZ", 0x7F), 57344.0);
  EXPECT_EQ(decode("f8E4M3B11FNUZ", 0x58), 1.0);  // bias 11
  EXPECT_EQ(decode("f8E8M0FNU", 0x7F), 1.0);
  EXPECT_EQ(decode("f8E8M0FNU", 0x80), 2.0);
  EXPECT_TRUE(std::isnan(decode("f8E8M0FNU", 0xFF)));
}

TEST(FloatBits, MicroscalingFormats) {
  EXPECT_EQ(decode("f4E2M1FN", 0x7), 6.0);
  EXPECT_EQ(decode("f4E2M1FN", 0x1), 0.5);
  EXPECT_EQ(decode("f4E2M1FN", 0xF), -6.0);
  EXPECT_EQ(decode("f6E2M3FN", 0x1F), 7.5);
  EXPECT_EQ(decode("f6E3M2FN", 0x1F), 28.0);
}

TEST(FloatBits, WidthsOfKnownFormats) {
  EXPECT_EQ(floatBitWidth("tf32"), 19u);
  EXPECT_EQ(floatBitWidth("f6E3M2FN"), 6u);
  EXPECT_EQ(floatBitWidth("f8E8M0FNU"), 8u);
  EXPECT_EQ(floatBitWidth("f80"), 80u);
  EXPECT_FALSE(floatBitWidth("f7").has_value());
}

TEST(Integers, ExtendPerSignedness) {
  EXPECT_EQ(extendInteger(0xF, 4, MType::Signedness::Signless), -1);
  EXPECT_EQ(extendInteger(0xF, 4, MType::Signedness::Unsigned), 15);
  EXPECT_EQ(extendInteger(0x80, 8, MType::Signedness::Signed), -128);
  EXPECT_EQ(extendInteger(1, 1, MType::Signedness::Signless), 1);  // i1 true is 1
  EXPECT_EQ(extendInteger(~uint64_t{0}, 64, MType::Signedness::Unsigned), -1);
}

}  // namespace
}  // namespace jft::frontend::bytecode
