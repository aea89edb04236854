// Sizes from damaged input must give errors, never overflow or read out of
// bounds (the frontend hands the verifier whatever the bytes said).
#include <limits>

#include "ir/attribute_printer.h"
#include "verifier_test_util.h"

namespace jft::ir {
namespace {

using namespace jft::ir::testing;
using Ints = std::vector<int64_t>;

constexpr int64_t kHuge = std::numeric_limits<int64_t>::max();

TEST(VerifyRobustness, ReshapeOfHugeShapes) {
  EXPECT_INVALID(verifyMain({f32({int64_t{1} << 40, int64_t{1} << 40})},
                            oneOp(OpKind::Reshape, f32({4}))),
                 "element count overflows int64");
}

TEST(VerifyRobustness, PadBeyondInt64) {
  EXPECT_INVALID(verifyMain({f32({4}), f32()}, oneOp(OpKind::Pad, f32({4}),
                                                     {{"edge_padding_low", Ints{kHuge}},
                                                      {"edge_padding_high", Ints{kHuge}},
                                                      {"interior_padding", Ints{0}}})),
                 "dimension 0 overflows int64");
}

TEST(VerifyRobustness, WindowArithmeticBeyondInt64) {
  EXPECT_INVALID(verifyMain({f32({4}), f32()},
                            [](Builder& b, const std::vector<ValueId>& args) {
                              Region body = combiner(b, {f32(), f32()}, OpKind::Add);
                              return b.op(OpKind::ReduceWindow, args, {f32({1})},
                                          {{"window_dimensions", Ints{2}},
                                           {"base_dilations", Ints{kHuge}}},
                                          {std::move(body)});
                            }),
                 "window sizes overflow int64");
}

TEST(VerifyRobustness, SliceWithHugeStride) {
  EXPECT_VALID(verifyMain({f32({8})}, oneOp(OpKind::Slice, f32({1}),
                                            {{"start_indices", Ints{2}},
                                             {"limit_indices", Ints{8}},
                                             {"strides", Ints{kHuge}}})));
}

TEST(VerifyRobustness, GatherResultOfTheWrongRank) {
  GatherDimensionNumbers dn;
  dn.offset_dims = {1, 2};
  dn.collapsed_slice_dims = {};
  dn.start_index_map = {0};
  dn.index_vector_dim = 1;
  EXPECT_INVALID(
      verifyMain({f32({100, 16}), i32({32, 1})},
                 oneOp(OpKind::Gather, f32({32, 1, 16, 5}),
                       {{"dimension_numbers", dn}, {"slice_sizes", Ints{1, 16}}})),
      "result rank 4 should be 3");
}

TEST(VerifyRobustness, AttributesOfTheWrongKind) {
  EXPECT_INVALID(
      verifyMain({f32({3})}, oneOp(OpKind::BroadcastInDim, f32({2, 3}),
                                   {{"broadcast_dimensions", std::string("1")}})),
      "attribute 'broadcast_dimensions' must be a list of integers, got \"1\"");
  EXPECT_INVALID(
      verifyMain({f32({2}), f32({2})}, oneOp(OpKind::Compare, pred({2}),
                                             {{"comparison_direction", int64_t{1}}})),
      "attribute 'comparison_direction' has an unexpected kind");
}

TEST(PrinterRobustness, EnumsOutOfRangePrintAsQuestionMarks) {
  EXPECT_EQ(printAttribute(static_cast<ComparisonDirection>(42)),
            "#stablehlo<comparison_direction ?>");
  EXPECT_EQ(printAttribute(static_cast<RngAlgorithm>(9)), "#stablehlo<rng_algorithm ?>");
}

}  // namespace
}  // namespace jft::ir
