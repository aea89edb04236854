// Types: every element type ir knows, tuples, tokens; and the errors for
// what ir cannot hold (dynamic shapes, quantized and other element types).
#include "frontend/vhlo/types.h"

#include <gtest/gtest.h>

#include "tree_builder.h"

namespace jft::frontend::vhlo {
namespace {

using namespace vhlo_test;
using ir::ElementType;
using S = MType::Signedness;

const OpSite kAddSite{"vhlo.add_v1", "zoo.py:17:20"};

ElementType elementOf(const MTypePtr& t) {
  auto converted = convertElementType(t.get(), kAddSite);
  EXPECT_TRUE(converted.isOk()) << describeType(t.get());
  return converted.isOk() ? *converted : ElementType::F32;
}

TEST(Types, IntegerElements) {
  EXPECT_EQ(elementOf(intType(1)), ElementType::PRED);
  EXPECT_EQ(elementOf(intType(2)), ElementType::I2);
  EXPECT_EQ(elementOf(intType(4)), ElementType::I4);
  EXPECT_EQ(elementOf(intType(8)), ElementType::I8);
  EXPECT_EQ(elementOf(intType(16)), ElementType::I16);
  EXPECT_EQ(elementOf(intType(32)), ElementType::I32);
  EXPECT_EQ(elementOf(intType(64)), ElementType::I64);
  EXPECT_EQ(elementOf(intType(32, S::Signed)), ElementType::I32);
  EXPECT_EQ(elementOf(intType(2, S::Unsigned)), ElementType::U2);
  EXPECT_EQ(elementOf(intType(4, S::Unsigned)), ElementType::U4);
  EXPECT_EQ(elementOf(intType(8, S::Unsigned)), ElementType::U8);
  EXPECT_EQ(elementOf(intType(16, S::Unsigned)), ElementType::U16);
  EXPECT_EQ(elementOf(intType(32, S::Unsigned)), ElementType::U32);
  EXPECT_EQ(elementOf(intType(64, S::Unsigned)), ElementType::U64);
}

TEST(Types, FloatAndComplexElements) {
  const std::pair<const char*, ElementType> floats[] = {
      {"f4E2M1FN", ElementType::F4E2M1FN},
      {"f6E2M3FN", ElementType::F6E2M3FN},
      {"f6E3M2FN", ElementType::F6E3M2FN},
      {"f8E3M4", ElementType::F8E3M4},
      {"f8E4M3", ElementType::F8E4M3},
      {"f8E4M3FN", ElementType::F8E4M3FN},
      {"f8E4M3FNUZ", ElementType::F8E4M3FNUZ},
      {"f8E4M3B11FNUZ", ElementType::F8E4M3B11FNUZ},
      {"f8E5M2", ElementType::F8E5M2},
      {"f8E5M2FNUZ", ElementType::F8E5M2FNUZ},
      {"f8E8M0FNU", ElementType::F8E8M0FNU},
      {"f16", ElementType::F16},
      {"bf16", ElementType::BF16},
      {"f32", ElementType::F32},
      {"f64", ElementType::F64}};
  for (const auto& [name, element] : floats)
    EXPECT_EQ(elementOf(floatType(name)), element);
  EXPECT_EQ(elementOf(complexOf(f32())), ElementType::C64);
  EXPECT_EQ(elementOf(complexOf(floatType("f64"))), ElementType::C128);
}

TEST(Types, TensorsTokensTuples) {
  auto t = convertType(tensor({2, 3}, floatType("bf16")).get(), kAddSite);
  ASSERT_TRUE(t.isOk());
  EXPECT_EQ(*t, ir::Type::tensor(ElementType::BF16, {2, 3}));
  auto scalar = convertType(tensor({}, intType(1)).get(), kAddSite);
  ASSERT_TRUE(scalar.isOk());
  EXPECT_EQ(*scalar, ir::Type::scalar(ElementType::PRED));
  auto tok = convertType(token().get(), kAddSite);
  ASSERT_TRUE(tok.isOk());
  EXPECT_TRUE(tok->isToken());
  auto tup = convertType(tuple({tensor({4}, f32()), token()}).get(), kAddSite);
  ASSERT_TRUE(tup.isOk());
  EXPECT_EQ(*tup, ir::Type::makeTuple(
                      {ir::Type::tensor(ElementType::F32, {4}), ir::Type::token()}));
}

// JAX's pinned refs (custom_call @CreateBuffer, @Pin, @Unpin) carry
// !vhlo.buffer_v1: one array, so as a value it is that tensor. Other opaque types stay
// invalid.
TEST(Types, BufferIsTheTensorItHolds) {
  auto buffer = std::make_shared<MType>(*tensor({3, 2}, f32()));
  buffer->kind = MType::Kind::Opaque;
  buffer->dialect = "vhlo";
  buffer->text = "buffer_v1";
  auto t = convertType(buffer.get(), kAddSite);
  ASSERT_TRUE(t.isOk()) << t.status().message();
  EXPECT_EQ(*t, ir::Type::tensor(ElementType::F32, {3, 2}));

  auto future = std::make_shared<MType>(*tuple({tensor({4}, f32())}));
  future->kind = MType::Kind::Opaque;
  future->dialect = "vhlo";
  future->text = "future_v1";
  EXPECT_EQ(convertType(future.get(), kAddSite).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(Types, DynamicDimensionIsInvalidAndNamesTheSite) {
  auto t = convertType(tensor({4, kDynamicDim}, f32()).get(), kAddSite);
  ASSERT_FALSE(t.isOk());
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            "vhlo.add_v1: dynamic dimension in tensor<4x?xf32>: shapes must be static "
            "(at zoo.py:17:20)");
}

TEST(Types, UnrankedTensorIsInvalid) {
  auto t = convertType(unranked(f32()).get(), kAddSite);
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("unranked"), std::string::npos);
}

TEST(Types, QuantizedAndUnknownElementsAreUnimplemented) {
  auto q =
      convertType(tensor({4}, quantized("!quant.uniform<i8:f32, 0.5>")).get(), kAddSite);
  ASSERT_FALSE(q.isOk());
  EXPECT_EQ(q.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(q.status().message().find("quantized"), std::string::npos);
  EXPECT_NE(q.status().message().find("(at zoo.py:17:20)"), std::string::npos);
  EXPECT_EQ(convertType(tensor({4}, floatType("tf32")).get(), kAddSite).status().code(),
            StatusCode::kUnimplemented);
  EXPECT_EQ(convertType(tensor({4}, indexType()).get(), kAddSite).status().code(),
            StatusCode::kUnimplemented);
  EXPECT_EQ(convertType(tensor({4}, intType(7)).get(), kAddSite).status().code(),
            StatusCode::kUnimplemented);
}

TEST(Types, NonValueTypesAndMissingTypesAreInvalid) {
  EXPECT_EQ(convertType(f32().get(), kAddSite).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(convertType(nullptr, kAddSite).status().code(), StatusCode::kInvalidArgument);
  auto no_element = std::make_shared<MType>();
  no_element->kind = MType::Kind::RankedTensor;
  EXPECT_EQ(convertType(no_element.get(), kAddSite).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(Types, OverflowingShapeIsInvalid) {
  auto t =
      convertType(tensor({int64_t{1} << 40, int64_t{1} << 40}, f32()).get(), kAddSite);
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace jft::frontend::vhlo
