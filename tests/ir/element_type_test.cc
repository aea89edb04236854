#include "ir/element_type.h"

#include <gtest/gtest.h>

#include "ir/type.h"

namespace jft::ir {
namespace {

TEST(ElementType, NamesRoundTrip) {
  for (int i = 0; i < kNumElementTypes; ++i) {
    auto type = static_cast<ElementType>(i);
    auto parsed = parseElementType(elementTypeName(type));
    ASSERT_TRUE(parsed.has_value()) << elementTypeName(type);
    EXPECT_EQ(*parsed, type);
  }
  EXPECT_FALSE(parseElementType("f33").has_value());
}

TEST(ElementType, WidthsFollowTheSpec) {
  EXPECT_EQ(bitWidth(ElementType::PRED), 1);
  EXPECT_EQ(bitWidth(ElementType::F8E4M3FN), 8);
  EXPECT_EQ(bitWidth(ElementType::C128), 128);
  EXPECT_EQ(storageBytes(ElementType::I4), 1);
  EXPECT_EQ(storageBytes(ElementType::BF16), 2);
  EXPECT_EQ(complexComponent(ElementType::C64), ElementType::F32);
}

TEST(Type, PrintsLikeStableHlo) {
  EXPECT_EQ(Type::tensor(ElementType::F32, {4, 8}).str(), "tensor<4x8xf32>");
  EXPECT_EQ(Type::scalar(ElementType::U8).str(), "tensor<ui8>");
  EXPECT_EQ(Type::token().str(), "!stablehlo.token");
  EXPECT_EQ(Type::tensor(ElementType::BF16, {2, 3}).byteSize(), 12);
}

}  // namespace
}  // namespace jft::ir
