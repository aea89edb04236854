// Every attribute kind of ir/attribute.h, printed. Expected spellings follow
// StableHLO's attribute syntax (docs/spec.md and the zoo's program.mlir),
// with integers free of MLIR's type suffix as ir/attribute_printer.h says.
#include "ir/attribute_printer.h"

#include <gtest/gtest.h>

#include "ir/builder.h"
#include "verifier_test_util.h"

namespace jft::ir {
namespace {

using testing::f32;
using testing::i32;

TEST(AttributePrinter, Scalars) {
  EXPECT_EQ(printAttribute(true), "true");
  EXPECT_EQ(printAttribute(int64_t{-3}), "-3");
  EXPECT_EQ(printAttribute(0.25), "0.25");
  EXPECT_EQ(printAttribute(std::string("a\"b\n\x01")), "\"a\\\"b\\n\\01\"");
  EXPECT_EQ(printAttribute(SymbolRef{"fft"}), "@fft");
  EXPECT_EQ(printAttribute(f32({2, 3})), "tensor<2x3xf32>");
  EXPECT_EQ(printAttribute(CustomCallApiVersion::TYPED_FFI), "4 : i32");
}

TEST(AttributePrinter, Arrays) {
  EXPECT_EQ(printAttribute(std::vector<int64_t>{1, 2}), "array<i64: 1, 2>");
  EXPECT_EQ(printAttribute(std::vector<int64_t>{}), "array<i64>");
  EXPECT_EQ(printAttribute(std::vector<bool>{true, false}), "array<i1: true, false>");
  EXPECT_EQ(printAttribute(AttrList{int64_t{1}, std::string("x")}), "[1, \"x\"]");
}

TEST(AttributePrinter, Enums) {
  EXPECT_EQ(printAttribute(ComparisonDirection::GE),
            "#stablehlo<comparison_direction GE>");
  EXPECT_EQ(printAttribute(ComparisonType::TOTALORDER),
            "#stablehlo<comparison_type TOTALORDER>");
  EXPECT_EQ(
      printAttribute(std::vector<Precision>{Precision::DEFAULT, Precision::HIGHEST}),
      "[#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]");
  EXPECT_EQ(printAttribute(FftType::RFFT), "#stablehlo<fft_type RFFT>");
  EXPECT_EQ(printAttribute(RngAlgorithm::THREE_FRY),
            "#stablehlo<rng_algorithm THREE_FRY>");
  EXPECT_EQ(printAttribute(RngDistribution::NORMAL),
            "#stablehlo<rng_distribution NORMAL>");
  EXPECT_EQ(printAttribute(Transpose::NO_TRANSPOSE),
            "#stablehlo<transpose NO_TRANSPOSE>");
}

TEST(AttributePrinter, DimensionNumbers) {
  DotDimensionNumbers dot;
  dot.lhs_batching_dims = {0};
  dot.rhs_batching_dims = {0};
  dot.lhs_contracting_dims = {2};
  dot.rhs_contracting_dims = {1};
  EXPECT_EQ(
      printAttribute(dot),
      "#stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
      "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>");
  dot.lhs_batching_dims = dot.rhs_batching_dims = {};
  EXPECT_EQ(
      printAttribute(dot),
      "#stablehlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = "
      "[1]>");

  ConvDimensionNumbers conv;
  conv.input_batch_dim = 0;
  conv.input_spatial_dims = {1, 2};
  conv.input_feature_dim = 3;
  conv.kernel_spatial_dims = {0, 1};
  conv.kernel_input_feature_dim = 2;
  conv.kernel_output_feature_dim = 3;
  conv.output_batch_dim = 0;
  conv.output_feature_dim = 1;
  conv.output_spatial_dims = {2, 3};
  EXPECT_EQ(printAttribute(conv),
            "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, f, 0, 1]>");

  GatherDimensionNumbers gather;
  gather.offset_dims = {1};
  gather.collapsed_slice_dims = {0};
  gather.operand_batching_dims = {2};
  gather.start_indices_batching_dims = {0};
  gather.start_index_map = {0};
  gather.index_vector_dim = 1;
  EXPECT_EQ(
      printAttribute(gather),
      "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], "
      "operand_batching_dims = [2], start_indices_batching_dims = [0], start_index_map "
      "= [0], index_vector_dim = 1>");

  ScatterDimensionNumbers scatter;
  scatter.update_window_dims = {1};
  scatter.inserted_window_dims = {0};
  scatter.scatter_dims_to_operand_dims = {0};
  scatter.index_vector_dim = 1;
  EXPECT_EQ(printAttribute(scatter),
            "#stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], "
            "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>");
}

TEST(AttributePrinter, Structs) {
  DotAlgorithm algorithm;
  algorithm.lhs_precision_type = Type::scalar(ElementType::BF16);
  algorithm.rhs_precision_type = Type::scalar(ElementType::BF16);
  algorithm.accumulation_type = Type::scalar(ElementType::F32);
  algorithm.num_primitive_operations = 3;
  EXPECT_EQ(
      printAttribute(algorithm),
      "#stablehlo.dot_algorithm<lhs_precision_type = bf16, rhs_precision_type = bf16, "
      "accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, "
      "num_primitive_operations = 3, allow_imprecise_accumulation = false>");
  ResultAccuracy accuracy;
  accuracy.atol = 1e-5;
  accuracy.ulps = 2;
  accuracy.mode = ResultAccuracyMode::TOLERANCE;
  EXPECT_EQ(printAttribute(accuracy),
            "#stablehlo.result_accuracy<atol = 1e-05, rtol = 0.0, ulps = 2, mode = "
            "#stablehlo.result_accuracy_mode<TOLERANCE>>");
  EXPECT_EQ(printAttribute(ChannelHandle{1, 2}),
            "#stablehlo.channel_handle<handle = 1, type = 2>");
  OutputOperandAlias alias;
  alias.output_tuple_indices = {0};
  EXPECT_EQ(
      printAttribute(std::vector<OutputOperandAlias>{alias}),
      "[#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, "
      "operand_tuple_indices = []>]");
}

TEST(AttributePrinter, DictionariesSortByNameAndShowUnitsBare) {
  NamedAttrs attrs = {{"zeta", int64_t{1}}, {"alpha", UnitAttr{}}, {"mid", false}};
  EXPECT_EQ(printAttribute(attrs), "{alpha, mid = false, zeta = 1}");
  EXPECT_EQ(printAttrDict({}), "{}");
}

TEST(AttributePrinter, OpaqueAttributesKeepTheirText) {
  EXPECT_EQ(printAttribute(OpaqueAttr{"sdy", "#sdy.sharding<@mesh, [{}]>"}),
            "#sdy.sharding<@mesh, [{}]>");
  EXPECT_EQ(printAttribute(OpaqueAttr{"sdy", ""}), "#sdy<?>");
}

TEST(DensePrinter, NestedSplatAndEmpty) {
  EXPECT_EQ(printAttribute(denseFromValues(i32({2, 2}), {1, 2, 3, 4})),
            "dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>");
  EXPECT_EQ(printDenseLiteral(denseFromValues(f32({2, 2}), {0.5, 0.5, 0.5, 0.5})),
            "dense<0.5>");
  EXPECT_EQ(printDenseLiteral(denseFromValues(f32({0}), {})), "dense<>");
  EXPECT_EQ(printDenseLiteral(denseFromValues(f32({}), {-2})), "dense<-2.0>");
}

TEST(DensePrinter, ElementTypes) {
  EXPECT_EQ(
      printDenseLiteral(denseFromValues(Type::tensor(ElementType::PRED, {2}), {1, 0})),
      "dense<[true, false]>");
  EXPECT_EQ(
      printDenseLiteral(denseFromBits(Type::tensor(ElementType::I4, {2}), {0xF, 0x7})),
      "dense<[-1, 7]>");
  EXPECT_EQ(
      printDenseLiteral(denseFromBits(Type::tensor(ElementType::U4, {2}), {0xF, 0x7})),
      "dense<[15, 7]>");
  EXPECT_EQ(printDenseLiteral(denseFromBits(Type::tensor(ElementType::U64, {2}),
                                            {0xFFFFFFFFFFFFFFFFull, 1})),
            "dense<[18446744073709551615, 1]>");
  EXPECT_EQ(printDenseLiteral(denseFromBits(Type::tensor(ElementType::BF16, {3}),
                                            {0x3DCD, 0xC040, 0x7F80})),
            "dense<[0.1, -3.0, inf]>");
  EXPECT_EQ(printDenseLiteral(
                denseFromBits(Type::tensor(ElementType::F8E4M3FN, {2}), {0x7E, 0x01})),
            "dense<[448.0, 0.002]>");
  // complex<f32> (1.5, -2.0): real then imaginary part.
  EXPECT_EQ(printDenseLiteral(denseFromBits(Type::tensor(ElementType::C64, {}),
                                            {0x3FC00000, 0xC0000000})),
            "dense<(1.5,-2.0)>");
}

TEST(DensePrinter, LargeLiteralsElideWhenAsked) {
  std::vector<double> values(100);
  for (size_t i = 0; i < values.size(); ++i) values[i] = double(i);
  PrintOptions options;
  options.max_dense_elements = 16;
  EXPECT_EQ(printDenseLiteral(denseFromValues(i32({100}), values), options),
            "dense<...> (100 elements)");
  EXPECT_EQ(printDenseLiteral(denseFromValues(i32({100}), std::vector<double>(100, 7)),
                              options),
            "dense<7>");
}

TEST(LocationPrinter, FullAndUserFrame) {
  LocationTable table;
  Location file{Location::Kind::File, "zoo.py", 17, 20, 17, 28, {}};
  const LocId file_id = table.add(file);
  Location caller{Location::Kind::File, "main.py", 3, 1, 0, 0, {}};
  const LocId caller_id = table.add(caller);
  const LocId call =
      table.add(Location{Location::Kind::CallSite, "", 0, 0, 0, 0, {file_id, caller_id}});
  const LocId named =
      table.add(Location{Location::Kind::Name, "jit(f)/add", 0, 0, 0, 0, {call}});
  const LocId fused =
      table.add(Location{Location::Kind::Fused, "", 0, 0, 0, 0, {named, caller_id}});
  EXPECT_EQ(printLocation(table, named),
            "\"jit(f)/add\"(callsite(\"zoo.py\":17:20 to :28 at \"main.py\":3:1))");
  EXPECT_EQ(printLocation(table, fused),
            "fused[\"jit(f)/add\"(callsite(\"zoo.py\":17:20 to :28 at \"main.py\":3:1)), "
            "\"main.py\":3:1]");
  EXPECT_EQ(printLocation(table, kUnknownLoc), "unknown");
  EXPECT_EQ(printUserFrame(table, named), "\"zoo.py\":17:20");
  EXPECT_EQ(printUserFrame(table, kUnknownLoc), "unknown");
}

}  // namespace
}  // namespace jft::ir
