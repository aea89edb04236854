// dot_general and convolution rules of the StableHLO spec.
#include "verifier_test_util.h"

namespace jft::ir {
namespace {

using namespace jft::ir::testing;
using Ints = std::vector<int64_t>;

BodyFn dot(DotDimensionNumbers dn, Type out) {
  return oneOp(OpKind::DotGeneral, out, {{"dot_dimension_numbers", dn}});
}

DotDimensionNumbers batchMatmul() {
  DotDimensionNumbers dn;
  dn.lhs_batching_dims = {0};
  dn.rhs_batching_dims = {0};
  dn.lhs_contracting_dims = {2};
  dn.rhs_contracting_dims = {1};
  return dn;
}

TEST(VerifyDotGeneral, BatchMatmul) {
  EXPECT_VALID(
      verifyMain({f32({2, 3, 4}), f32({2, 4, 5})}, dot(batchMatmul(), f32({2, 3, 5}))));
}

TEST(VerifyDotGeneral, ResultShapeIsBatchThenFreeDims) {
  EXPECT_INVALID(
      verifyMain({f32({2, 3, 4}), f32({2, 4, 5})}, dot(batchMatmul(), f32({2, 5, 3}))),
      "stablehlo.dot_general at zoo.py:17:20: result shape [2, 5, 3] should be "
      "[2, 3, 5]");
}

TEST(VerifyDotGeneral, ContractingSizesMatch) {
  EXPECT_INVALID(
      verifyMain({f32({2, 3, 4}), f32({2, 6, 5})}, dot(batchMatmul(), f32({2, 3, 5}))),
      "contracting dimension sizes differ: lhs dimension 2 is 4, rhs dimension 1 "
      "is 6");
}

TEST(VerifyDotGeneral, BatchingSizesMatch) {
  EXPECT_INVALID(
      verifyMain({f32({2, 3, 4}), f32({7, 4, 5})}, dot(batchMatmul(), f32({2, 3, 5}))),
      "batching dimension sizes differ: lhs dimension 0 is 2, rhs dimension 0 is 7");
}

TEST(VerifyDotGeneral, DimensionListsAgreeAndStayInRange) {
  DotDimensionNumbers uneven = batchMatmul();
  uneven.rhs_batching_dims = {};
  EXPECT_INVALID(verifyMain({f32({2, 3, 4}), f32({4, 5})}, dot(uneven, f32({2, 3, 5}))),
                 "batching dimensions differ in number: lhs [0], rhs []");
  DotDimensionNumbers out_of_range = batchMatmul();
  out_of_range.lhs_contracting_dims = {3};
  EXPECT_INVALID(
      verifyMain({f32({2, 3, 4}), f32({2, 4, 5})}, dot(out_of_range, f32({2, 3, 5}))),
      "lhs contracting dimensions [3] has 3 outside [0, 3)");
  DotDimensionNumbers repeated = batchMatmul();
  repeated.lhs_contracting_dims = {0};
  EXPECT_INVALID(
      verifyMain({f32({2, 3, 4}), f32({2, 2, 5})}, dot(repeated, f32({2, 3, 4, 5}))),
      "lhs batching and contracting dimensions [0, 0] repeats 0");
}

// NHWC input, HWIO kernel, NHWC output: [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f].
ConvDimensionNumbers nhwc() {
  ConvDimensionNumbers dn;
  dn.input_batch_dim = 0;
  dn.input_spatial_dims = {1, 2};
  dn.input_feature_dim = 3;
  dn.kernel_spatial_dims = {0, 1};
  dn.kernel_input_feature_dim = 2;
  dn.kernel_output_feature_dim = 3;
  dn.output_batch_dim = 0;
  dn.output_spatial_dims = {1, 2};
  dn.output_feature_dim = 3;
  return dn;
}

BodyFn conv(Type out, Ints strides, int64_t pad, int64_t feature_groups = 1) {
  NamedAttrs attrs = {
      {"dimension_numbers", nhwc()},
      {"window_strides", strides},
      {"padding", denseFromValues(i64({2, 2}),
                                  {double(pad), double(pad), double(pad), double(pad)})},
      {"lhs_dilation", Ints{1, 1}},
      {"rhs_dilation", Ints{1, 1}},
      {"feature_group_count", feature_groups},
      {"batch_group_count", int64_t{1}},
      {"precision_config",
       std::vector<Precision>{Precision::DEFAULT, Precision::DEFAULT}}};
  return oneOp(OpKind::Convolution, out, attrs);
}

TEST(VerifyConvolution, SamePaddedConv2d) {
  // The zoo's conv2d: 3x3 kernel, padding 1, stride 1 keeps 16x16.
  EXPECT_VALID(verifyMain({f32({2, 16, 16, 8}), f32({3, 3, 8, 16})},
                          conv(f32({2, 16, 16, 16}), {1, 1}, 1)));
}

TEST(VerifyConvolution, StridedWindowsCount) {
  // (16 + 2 - 3) / 2 + 1 = 8 windows per spatial dimension.
  EXPECT_VALID(verifyMain({f32({2, 16, 16, 8}), f32({3, 3, 8, 16})},
                          conv(f32({2, 8, 8, 16}), {2, 2}, 1)));
  EXPECT_INVALID(
      verifyMain({f32({2, 16, 16, 8}), f32({3, 3, 8, 16})},
                 conv(f32({2, 16, 16, 16}), {2, 2}, 1)),
      "stablehlo.convolution at zoo.py:17:20: result shape [2, 16, 16, 16] should "
      "be [2, 8, 8, 16]");
}

TEST(VerifyConvolution, KernelInputFeaturesMatchInput) {
  EXPECT_INVALID(verifyMain({f32({2, 16, 16, 8}), f32({3, 3, 4, 16})},
                            conv(f32({2, 16, 16, 16}), {1, 1}, 1)),
                 "kernel input features 4 times feature_group_count 1 must equal input "
                 "features 8");
  // Grouped: 2 groups of 4 input features each.
  EXPECT_VALID(verifyMain({f32({2, 16, 16, 8}), f32({3, 3, 4, 16})},
                          conv(f32({2, 16, 16, 16}), {1, 1}, 1, 2)));
}

TEST(VerifyConvolution, WindowAttributesHaveOneEntryPerSpatialDim) {
  EXPECT_INVALID(verifyMain({f32({2, 16, 16, 8}), f32({3, 3, 8, 16})},
                            conv(f32({2, 16, 16, 16}), {1, 1, 1}, 1)),
                 "window_strides [1, 1, 1] must have 2 entries");
}

// window_reversal arrives from the frontend as a dense i1 literal; its entries
// must be read from a value that outlives the loop over them.
TEST(VerifyConvolution, WindowReversalAsDenseBooleans) {
  auto with_reversal = [](std::vector<double> flags) {
    BodyFn base = conv(f32({2, 16, 16, 16}), {1, 1}, 1);
    return [base, flags](Builder& b, const std::vector<ValueId>& args) {
      std::vector<ValueId> results = base(b, args);
      Op& op = b.lastOp();
      Type pred = Type::tensor(ElementType::PRED, {int64_t(flags.size())});
      op.attrs.push_back({"window_reversal", denseFromValues(pred, flags)});
      return results;
    };
  };
  EXPECT_VALID(
      verifyMain({f32({2, 16, 16, 8}), f32({3, 3, 8, 16})}, with_reversal({0, 1})));
  EXPECT_INVALID(
      verifyMain({f32({2, 16, 16, 8}), f32({3, 3, 8, 16})}, with_reversal({1, 0, 1})),
      "window_reversal must have 2 entries");
}

TEST(VerifyConvolution, RanksAgree) {
  EXPECT_INVALID(verifyMain({f32({2, 16, 16, 8}), f32({3, 8, 16})},
                            conv(f32({2, 16, 16, 16}), {1, 1}, 1)),
                 "lhs, rhs and result must have one rank");
}

}  // namespace
}  // namespace jft::ir
