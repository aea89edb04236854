// Shape-moving ops of the StableHLO spec: a valid and an invalid module each.
#include "verifier_test_util.h"

namespace jft::ir {
namespace {

using namespace jft::ir::testing;
using Ints = std::vector<int64_t>;

TEST(VerifyShapes, BroadcastInDim) {
  auto bcast = [](Ints dims, Type out) {
    return oneOp(OpKind::BroadcastInDim, out, {{"broadcast_dimensions", dims}});
  };
  EXPECT_VALID(verifyMain({f32({3})}, bcast({1}, f32({2, 3}))));
  EXPECT_VALID(verifyMain({f32({1, 3})}, bcast({0, 1}, f32({5, 3}))));
  EXPECT_INVALID(verifyMain({f32({3})}, bcast({0, 1}, f32({2, 3}))),
                 "broadcast_dimensions [0, 1] must have 1 entries");
  EXPECT_INVALID(verifyMain({f32({3})}, bcast({2}, f32({2, 3}))),
                 "broadcast_dimensions [2] has 2 outside [0, 2)");
  EXPECT_INVALID(
      verifyMain({f32({3})}, bcast({0}, f32({2, 3}))),
      "stablehlo.broadcast_in_dim at zoo.py:17:20: operand dimension 0 (size 3) "
      "cannot broadcast to result dimension 0 (size 2)");
  EXPECT_INVALID(verifyMain({f32({3, 3})}, bcast({1, 1}, f32({3, 3}))),
                 "broadcast_dimensions [1, 1] repeats 1");
  EXPECT_INVALID(verifyMain({f32({3})}, bcast({1}, i32({2, 3}))),
                 "result element type i32 differs from operand's f32");
}

TEST(VerifyShapes, ReshapeKeepsElementCount) {
  EXPECT_VALID(verifyMain({f32({2, 6})}, oneOp(OpKind::Reshape, f32({3, 4}))));
  EXPECT_INVALID(verifyMain({f32({2, 6})}, oneOp(OpKind::Reshape, f32({3, 5}))),
                 "element counts differ: tensor<2x6xf32> has 12, tensor<3x5xf32> has 15");
}

TEST(VerifyShapes, TransposeNeedsAPermutation) {
  auto transpose = [](Ints perm, Type out) {
    return oneOp(OpKind::Transpose, out, {{"permutation", perm}});
  };
  EXPECT_VALID(verifyMain({f32({2, 3, 4})}, transpose({2, 0, 1}, f32({4, 2, 3}))));
  EXPECT_INVALID(verifyMain({f32({2, 3, 4})}, transpose({0, 0, 1}, f32({2, 2, 3}))),
                 "permutation [0, 0, 1] repeats 0");
  EXPECT_INVALID(verifyMain({f32({2, 3, 4})}, transpose({2, 0, 1}, f32({2, 3, 4}))),
                 "result shape [2, 3, 4] should be [4, 2, 3]");
  EXPECT_INVALID(verifyMain({f32({2, 3})}, oneOp(OpKind::Transpose, f32({3, 2}))),
                 "missing attribute 'permutation'");
}

TEST(VerifyShapes, SliceBoundsAndStrides) {
  auto slice = [](Ints start, Ints limit, Ints strides, Type out) {
    return oneOp(
        OpKind::Slice, out,
        {{"start_indices", start}, {"limit_indices", limit}, {"strides", strides}});
  };
  // ceil((7 - 1) / 4) = 2 and ceil((3 - 0) / 1) = 3.
  EXPECT_VALID(verifyMain({f32({8, 3})}, slice({1, 0}, {7, 3}, {4, 1}, f32({2, 3}))));
  EXPECT_INVALID(verifyMain({f32({8, 3})}, slice({1, 0}, {9, 3}, {1, 1}, f32({8, 3}))),
                 "dimension 0: need 0 <= start 1 <= limit 9 <= size 8");
  EXPECT_INVALID(verifyMain({f32({8, 3})}, slice({1, 0}, {7, 3}, {0, 1}, f32({2, 3}))),
                 "dimension 0: stride 0 must be positive");
  EXPECT_INVALID(verifyMain({f32({8, 3})}, slice({1, 0}, {7, 3}, {4, 1}, f32({1, 3}))),
                 "result shape [1, 3] should be [2, 3]");
}

TEST(VerifyShapes, DynamicSlice) {
  NamedAttrs sizes = {{"slice_sizes", Ints{2, 3}}};
  EXPECT_VALID(verifyMain({f32({5, 3}), i32(), i32()},
                          oneOp(OpKind::DynamicSlice, f32({2, 3}), sizes)));
  EXPECT_INVALID(
      verifyMain({f32({5, 3}), i32()}, oneOp(OpKind::DynamicSlice, f32({2, 3}), sizes)),
      "expects 2 start indices, got 1");
  EXPECT_INVALID(verifyMain({f32({5, 3}), i32(), i64()},
                            oneOp(OpKind::DynamicSlice, f32({2, 3}), sizes)),
                 "start indices have different types: tensor<i32> vs tensor<i64>");
  EXPECT_INVALID(verifyMain({f32({5, 3}), i32({1}), i32({1})},
                            oneOp(OpKind::DynamicSlice, f32({2, 3}), sizes)),
                 "start index #0 must be a 0-d integer tensor");
  EXPECT_INVALID(verifyMain({f32({5, 2}), i32(), i32()},
                            oneOp(OpKind::DynamicSlice, f32({2, 3}), sizes)),
                 "slice_sizes [2, 3] exceed operand shape [5, 2]");
  EXPECT_INVALID(verifyMain({f32({5, 3}), i32(), i32()},
                            oneOp(OpKind::DynamicSlice, f32({3, 2}), sizes)),
                 "result shape [3, 2] should be [2, 3]");
}

TEST(VerifyShapes, DynamicUpdateSlice) {
  EXPECT_VALID(verifyMain({f32({5, 3}), f32({2, 3}), i32(), i32()},
                          oneOp(OpKind::DynamicUpdateSlice, f32({5, 3}))));
  EXPECT_INVALID(verifyMain({f32({5, 3}), f32({2, 4}), i32(), i32()},
                            oneOp(OpKind::DynamicUpdateSlice, f32({5, 3}))),
                 "update shape [2, 4] exceeds operand shape [5, 3]");
  EXPECT_INVALID(verifyMain({f32({5, 3}), f32({2, 3}), i32(), i32()},
                            oneOp(OpKind::DynamicUpdateSlice, f32({2, 3}))),
                 "result type tensor<2x3xf32> differs from operand type tensor<5x3xf32>");
}

TEST(VerifyShapes, Concatenate) {
  NamedAttrs dim1 = {{"dimension", int64_t{1}}};
  EXPECT_VALID(verifyMain({f32({2, 3}), f32({2, 5})},
                          oneOp(OpKind::Concatenate, f32({2, 8}), dim1)));
  EXPECT_INVALID(
      verifyMain({f32({2, 3}), f32({4, 5})},
                 oneOp(OpKind::Concatenate, f32({2, 8}), dim1)),
      "input shapes differ outside dimension 1: tensor<2x3xf32> vs tensor<4x5xf32>");
  EXPECT_INVALID(verifyMain({f32({2, 3}), f32({2, 5})},
                            oneOp(OpKind::Concatenate, f32({2, 9}), dim1)),
                 "result shape [2, 9] should be [2, 8]");
  EXPECT_INVALID(
      verifyMain({f32({2, 3}), f32({2, 5})},
                 oneOp(OpKind::Concatenate, f32({2, 8}), {{"dimension", int64_t{2}}})),
      "dimension 2 outside [0, 2)");
}

TEST(VerifyShapes, Pad) {
  auto pad = [](Ints low, Ints high, Ints interior, Type out) {
    return oneOp(OpKind::Pad, out,
                 {{"edge_padding_low", low},
                  {"edge_padding_high", high},
                  {"interior_padding", interior}});
  };
  // 1 + 4 + 3 * 1 + 2 = 10; -1 + 3 + 0 + 0 = 2.
  EXPECT_VALID(
      verifyMain({f32({4, 3}), f32()}, pad({1, -1}, {2, 0}, {1, 0}, f32({10, 2}))));
  EXPECT_INVALID(
      verifyMain({f32({4, 3}), f32()}, pad({1, -1}, {2, 0}, {1, 0}, f32({9, 2}))),
      "result shape [9, 2] should be [10, 2]");
  EXPECT_INVALID(
      verifyMain({f32({4, 3}), f32()}, pad({0, 0}, {0, 0}, {-1, 0}, f32({4, 3}))),
      "interior_padding [-1, 0] is negative");
  EXPECT_INVALID(
      verifyMain({f32({4, 3}), i32()}, pad({0, 0}, {0, 0}, {0, 0}, f32({4, 3}))),
      "padding value must be a 0-d tensor of f32, got tensor<i32>");
}

TEST(VerifyShapes, Iota) {
  EXPECT_VALID(
      verifyMain({}, oneOp(OpKind::Iota, i32({4, 5}), {{"iota_dimension", int64_t{1}}})));
  EXPECT_INVALID(
      verifyMain({}, oneOp(OpKind::Iota, i32({4, 5}), {{"iota_dimension", int64_t{2}}})),
      "stablehlo.iota at zoo.py:17:20: iota_dimension 2 outside [0, 2)");
}

TEST(VerifyShapes, Reverse) {
  EXPECT_VALID(verifyMain(
      {f32({4, 5})}, oneOp(OpKind::Reverse, f32({4, 5}), {{"dimensions", Ints{0, 1}}})));
  EXPECT_INVALID(verifyMain({f32({4, 5})}, oneOp(OpKind::Reverse, f32({4, 5}),
                                                 {{"dimensions", Ints{1, 1}}})),
                 "dimensions [1, 1] repeats 1");
  EXPECT_INVALID(verifyMain({f32({4, 5})}, oneOp(OpKind::Reverse, f32({4, 5}),
                                                 {{"dimensions", Ints{3}}})),
                 "dimensions [3] has 3 outside [0, 2)");
}

TEST(VerifyShapes, ConstantMatchesItsValue) {
  EXPECT_VALID(verifyMain({}, [](Builder& b, const std::vector<ValueId>&) {
    return std::vector<ValueId>{b.constant(denseFromValues(f32({2}), {1, 2}))};
  }));
  EXPECT_INVALID(verifyMain({},
                            [](Builder& b, const std::vector<ValueId>&) {
                              return std::vector<ValueId>{
                                  b.op1(OpKind::Constant, {}, f32({3}),
                                        {{"value", denseFromValues(f32({2}), {1, 2})}})};
                            }),
                 "value type tensor<2xf32> differs from result type tensor<3xf32>");
}

TEST(VerifyShapes, ConstantSplatHoldsOneElement) {
  // 2^40 f32 elements: valid as one element, never spelled out.
  const Type huge = f32({int64_t{1} << 40});
  EXPECT_VALID(verifyMain({}, [&](Builder& b, const std::vector<ValueId>&) {
    return std::vector<ValueId>{
        b.constant(DenseElements::makeSplat(huge, {0, 0, 0x80, 0x3F}))};
  }));
  DenseElements two_elements = DenseElements::makeSplat(f32({3}), {0, 0, 0x80, 0x3F});
  two_elements.bytes.resize(8);
  EXPECT_INVALID(verifyMain({},
                            [&](Builder& b, const std::vector<ValueId>&) {
                              return std::vector<ValueId>{b.constant(two_elements)};
                            }),
                 "value holds 8 bytes, a splat of tensor<3xf32> needs 4");
  DenseElements short_literal = denseFromValues(f32({3}), {1, 2, 3});
  short_literal.bytes.resize(8);
  EXPECT_INVALID(verifyMain({},
                            [&](Builder& b, const std::vector<ValueId>&) {
                              return std::vector<ValueId>{b.constant(short_literal)};
                            }),
                 "value holds 8 bytes, tensor<3xf32> needs 12");
}

}  // namespace
}  // namespace jft::ir
