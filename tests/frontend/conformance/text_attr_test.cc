// Tests of the attribute readers and of the numeric dense comparison, with
// expected values worked out by hand from MLIR's and StableHLO's syntax.
#include "text_attr.h"

#include <gtest/gtest.h>

#include "attr_compare.h"
#include "dense_compare.h"
#include "ir/builder.h"

namespace jft::conformance {
namespace {

TEST(TextAttr, IntegerArraysAndScalars) {
  EXPECT_EQ(parseIntArray("array<i64: 0, 1>"), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(parseIntArray("array<i64>"), (std::vector<int64_t>{}));
  EXPECT_EQ(parseIntArray("[3, -2]"), (std::vector<int64_t>{3, -2}));
  EXPECT_EQ(parseIntArray("[]"), (std::vector<int64_t>{}));
  EXPECT_EQ(parseIntArray("array<f32: 1.0>"), std::nullopt);
  EXPECT_EQ(parseBoolArray("array<i1: true, false>"), (std::vector<bool>{true, false}));
  EXPECT_EQ(parseInteger("1 : i64"), 1);
  EXPECT_EQ(parseInteger("-7 : i32"), -7);
  EXPECT_EQ(parseInteger("1.5 : f32"), std::nullopt);
  EXPECT_EQ(parseFloat("1.5 : f32"), 1.5);
  EXPECT_EQ(parseStringLiteral(R"("a\"b\0A")"), std::string("a\"b\n"));
  EXPECT_EQ(parseSymbolRef("@chlo.top_k.impl"), std::string("chlo.top_k.impl"));
  EXPECT_EQ(parseBool("true"), true);
}

TEST(TextAttr, EnumsAndStructs) {
  std::optional<DialectEnum> e = parseDialectEnum("#stablehlo<comparison_direction LT>");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, "comparison_direction");
  EXPECT_EQ(e->value, "LT");

  std::optional<DialectStruct> s = parseDialectStruct(
      "#stablehlo.dot<lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, "
      "1], "
      "lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2]>");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->kind, "dot");
  ASSERT_EQ(s->fields.size(), 4u);
  EXPECT_EQ(parseIntArray(s->field("lhs_contracting_dimensions")->value),
            (std::vector<int64_t>{3}));
  EXPECT_EQ(s->field("missing"), nullptr);
}

TEST(TextAttr, ConvolutionLayoutByDimensionRole) {
  // NHWC input, HWIO kernel, NHWC output (the conv2d fixture's layout).
  std::optional<ConvLayout> c =
      parseConvLayout("#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->input_batch, 0);
  EXPECT_EQ(c->input_feature, 3);
  EXPECT_EQ(c->input_spatial, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(c->kernel_input_feature, 2);
  EXPECT_EQ(c->kernel_output_feature, 3);
  EXPECT_EQ(c->kernel_spatial, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(c->output_spatial, (std::vector<int64_t>{1, 2}));

  // NCHW with the spatial dims listed in reverse: spatial 1 sits at position 2.
  c = parseConvLayout("#stablehlo.conv<[b, f, 1, 0]x[o, i, 0, 1]->[b, f, 0, 1]>");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->input_spatial, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(c->kernel_output_feature, 0);
}

TEST(TextAttr, DenseLiterals) {
  std::optional<TextDense> d = parseDense("dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->elements, (std::vector<std::string>{"1", "2", "3", "4"}));
  EXPECT_FALSE(d->splat());
  EXPECT_EQ(d->type.dims, (std::vector<int64_t>{2, 2}));

  d = parseDense("dense<0x7FC00000> : tensor<f32>");
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->splat());

  d = parseDense("dense<\"0x0100000002000000\"> : tensor<2xi32>");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->hex_buffer, "0100000002000000");

  d = parseDense("dense<[(1.000000e+00,2.000000e+00)]> : tensor<1xcomplex<f32>>");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->elements, (std::vector<std::string>{"(1.000000e+00,2.000000e+00)"}));

  d = parseDense("dense<> : tensor<0xindex>");
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->elements.empty());
  EXPECT_EQ(parseDense("dense<1>"), std::nullopt);  // no type
}

ir::DenseElements bits(ir::ElementType type, std::vector<int64_t> dims,
                       std::vector<uint64_t> values) {
  return ir::denseFromBits(ir::Type::tensor(type, std::move(dims)), values);
}

bool agrees(std::string_view text, const ir::DenseElements& value) {
  std::optional<TextDense> d = parseDense(text);
  EXPECT_TRUE(d) << text;
  return d && !denseMismatch(*d, value);
}

TEST(DenseCompare, NumbersBitsAndSplats) {
  using ET = ir::ElementType;
  EXPECT_TRUE(agrees("dense<1.250000e+00> : tensor<2xf32>",
                     bits(ET::F32, {2}, {0x3FA00000, 0x3FA00000})));
  EXPECT_FALSE(
      agrees("dense<1.250000e+00> : tensor<2xf32>", bits(ET::F32, {2}, {0x3FA00000, 0})));
  EXPECT_TRUE(agrees("dense<0x7FC00000> : tensor<f32>", bits(ET::F32, {}, {0x7FC00000})));
  EXPECT_FALSE(
      agrees("dense<0x7FC00000> : tensor<f32>", bits(ET::F32, {}, {0x7F800000})));
  // 0.1 in bf16 is 0x3DCD; MLIR prints it as 1.000980e-01.
  EXPECT_TRUE(agrees("dense<1.000980e-01> : tensor<bf16>", bits(ET::BF16, {}, {0x3DCD})));
  EXPECT_FALSE(
      agrees("dense<1.000980e-01> : tensor<bf16>", bits(ET::BF16, {}, {0x3DCE})));
  // f16: 1.5 is 0x3E00.
  EXPECT_TRUE(agrees("dense<1.500000e+00> : tensor<f16>", bits(ET::F16, {}, {0x3E00})));
  EXPECT_TRUE(
      agrees("dense<[-1, 2]> : tensor<2xi64>", bits(ET::I64, {2}, {~uint64_t{0}, 2})));
  EXPECT_TRUE(
      agrees("dense<4294967295> : tensor<ui32>", bits(ET::U32, {}, {0xFFFFFFFF})));
  EXPECT_TRUE(agrees("dense<[true, false]> : tensor<2xi1>", bits(ET::PRED, {2}, {1, 0})));
  EXPECT_FALSE(
      agrees("dense<[true, false]> : tensor<2xi1>", bits(ET::PRED, {2}, {1, 1})));
  EXPECT_FALSE(
      agrees("dense<1> : tensor<2xi32>", bits(ET::I32, {3}, {1, 1, 1})));  // type
  EXPECT_FALSE(agrees("dense<[1, 2, 3]> : tensor<2xi32>", bits(ET::I32, {2}, {1, 2})));
  EXPECT_TRUE(agrees("dense<\"0x0100000002000000\"> : tensor<2xi32>",
                     bits(ET::I32, {2}, {1, 2})));
  EXPECT_TRUE(agrees("dense<(1.000000e+00,-2.000000e+00)> : tensor<complex<f32>>",
                     bits(ET::C64, {}, {0x3F800000, 0xC0000000})));
}

TEST(DenseCompare, MessageNamesTheFirstWrongElement) {
  std::optional<TextDense> d = parseDense("dense<[1, 2, 3]> : tensor<3xi32>");
  ASSERT_TRUE(d);
  std::optional<std::string> problem =
      denseMismatch(*d, bits(ir::ElementType::I32, {3}, {1, 5, 6}));
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("2 of 3 elements differ; element 1 is 2"), std::string::npos)
      << *problem;
}

TEST(AttrCompare, WrongKindIsNamed) {
  std::optional<std::string> problem =
      attributeMismatch("array<i64: 1>", ir::Attribute(int64_t{1}));
  ASSERT_TRUE(problem);
  EXPECT_EQ(*problem, "expected [1], import holds int64");
  problem = attributeMismatch("#stablehlo<comparison_direction LT>",
                              ir::Attribute(std::string("LT")));
  ASSERT_TRUE(problem);
  EXPECT_EQ(*problem, "expected comparison_direction LT, import holds string");
  EXPECT_FALSE(
      attributeMismatch("#sdy.sharding<@mesh, [{}]>", ir::Attribute(int64_t{0})));
}

}  // namespace
}  // namespace jft::conformance
