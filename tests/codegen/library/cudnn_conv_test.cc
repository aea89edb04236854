// cudnnConvOf: the cuDNN description of each convolution form, checked
// against hand-worked shapes and strides: forward NHWC/HWIO (filter permuted
// to KRSC) and NCHW/OIHW (read in place), strides, padding and dilation,
// feature groups, 1-D (a unit spatial dim added), and the two backward
// convolutions exactly as JAX emits them for jax.grad of a forward conv
// (x [2,7,7,3] NHWC, w [3,3,3,4] HWIO, stride 2, pad 1/1, dy [2,4,4,4]):
// both come out with the forward's own stride, padding and dilation, as
// the adjoint relations of cudnn_conv.h say they must. Then the forms no
// cuDNN operation computes exactly.
#include "codegen/library/cudnn_conv.h"

#include <gtest/gtest.h>

#include "codegen/conv_modules.h"
#include "ir/builder.h"

namespace jft::compiler {
namespace {

using namespace jft::codegen::library;

using ir::ElementType;
using ir::Type;
using jft::testing::conv::addConv;
using jft::testing::conv::convResultType;
using jft::testing::conv::ConvSpec;
using runtime::ConvElement;
using runtime::ConvKind;
using runtime::ConvTensor;

using Dims = std::vector<int64_t>;

StatusOr<CudnnConv> describe(const ConvSpec& s) {
  ir::Module module;
  ir::Builder b(module);
  auto a = b.beginFunction(
      "main", {Type::tensor(s.element, s.lhs), Type::tensor(s.element, s.rhs)},
      {convResultType(s)});
  b.ret({addConv(b, a[0], a[1], s)});
  b.endFunction();
  const ir::Function& f = *module.entry();
  return cudnnConvOf(module, f.body.ops[0]);
}

CudnnConv described(const ConvSpec& s) {
  StatusOr<CudnnConv> c = describe(s);
  EXPECT_TRUE(c.isOk()) << c.status().toString();
  return c.isOk() ? *c : CudnnConv{};
}

void expectTensor(const ConvTensor& t, const Dims& dims, const Dims& strides) {
  EXPECT_EQ(t.dims, dims);
  EXPECT_EQ(t.strides, strides);
}

TEST(CudnnConv, SolvesThePostPadding) {
  // floor((in + pre + post - window) / stride) + 1 == out, smallest post >= 0.
  EXPECT_EQ(solvePostPadding(8, 1, 3, 2, 4), 0);   // (8+1+0-3)/2+1 = 4
  EXPECT_EQ(solvePostPadding(17, 0, 3, 2, 9), 2);  // (17+0+2-3)/2+1 = 9
  EXPECT_EQ(solvePostPadding(15, 1, 3, 3, 5), 0);  // (15+1+0-3)/3+1 = 5
  EXPECT_EQ(solvePostPadding(5, 0, 3, 1, 10), 7);  // (5+7-3)/1+1 = 10
  // (10+0+0-1)/2+1 = 5 already: no post padding gives 2.
  EXPECT_EQ(solvePostPadding(10, 0, 1, 2, 2), std::nullopt);
  EXPECT_EQ(solvePostPadding(4, 0, 3, 1, 0), std::nullopt);
}

TEST(CudnnConv, ForwardNhwcPermutesTheHwioFilterToKrsc) {
  ConvSpec s;  // NHWC [2,9,11,5] x HWIO [3,3,5,7], SAME
  s.lhs = {2, 9, 11, 5};
  s.rhs = {3, 3, 5, 7};
  s.padding = {1, 1, 1, 1};
  const CudnnConv c = described(s);
  const runtime::ConvDesc& d = c.desc;
  EXPECT_EQ(d.kind, ConvKind::kForward);
  EXPECT_EQ(d.element, ConvElement::kF32);
  EXPECT_TRUE(d.allow_tf32);  // precision DEFAULT
  EXPECT_FALSE(d.flip);
  expectTensor(d.x, {2, 5, 9, 11}, {495, 1, 55, 5});
  // The rhs permuted to [o, 0, 1, i] = [7,3,3,5], read as K, C, R, S.
  EXPECT_EQ(c.rhs_permutation, (Dims{3, 0, 1, 2}));
  expectTensor(d.w, {7, 5, 3, 3}, {45, 1, 15, 5});
  expectTensor(d.y, {2, 7, 9, 11}, {693, 1, 77, 7});
  EXPECT_TRUE(c.result_order.empty());  // NHWC beside NHWC: written in place
  EXPECT_EQ(d.strides, (Dims{1, 1}));
  EXPECT_EQ(d.pre_padding, (Dims{1, 1}));
  EXPECT_EQ(d.post_padding, (Dims{1, 1}));
  EXPECT_EQ(d.dilations, (Dims{1, 1}));
}

TEST(CudnnConv, ForwardNchwReadsTheOihwFilterInPlace) {
  ConvSpec s;  // NCHW [2,5,11,9] x OIHW [6,5,3,3], VALID: y [2,6,9,7]
  s.lhs = {2, 5, 11, 9};
  s.rhs = {6, 5, 3, 3};
  s.lhs_layout = "bf01";
  s.rhs_layout = "oi01";
  s.out_layout = "bf01";
  s.highest = true;
  const CudnnConv c = described(s);
  EXPECT_TRUE(c.rhs_permutation.empty());
  EXPECT_FALSE(c.desc.allow_tf32);  // HIGHEST
  expectTensor(c.desc.x, {2, 5, 11, 9}, {495, 99, 9, 1});
  expectTensor(c.desc.w, {6, 5, 3, 3}, {45, 9, 3, 1});
  expectTensor(c.desc.y, {2, 6, 9, 7}, {378, 63, 7, 1});
  EXPECT_EQ(c.desc.post_padding, (Dims{0, 0}));
}

TEST(CudnnConv, StridesPaddingAndDilation) {
  // NHWC [3,17,15,6] x HWIO [3,2,6,10], strides (2,3), padding (0,2),(1,0),
  // rhs dilation (1,2): dim 0 (17+2-3)/2+1 = 9, dim 1 window 3, (16-3)/3+1 = 5;
  // cuDNN's post paddings: dim 0 needs 2, dim 1 none ((15+1+0-3)/3+1 = 5).
  ConvSpec s;
  s.lhs = {3, 17, 15, 6};
  s.rhs = {3, 2, 6, 10};
  s.strides = {2, 3};
  s.padding = {0, 2, 1, 0};
  s.rhs_dilation = {1, 2};
  const runtime::ConvDesc d = described(s).desc;
  expectTensor(d.y, {3, 10, 9, 5}, {450, 1, 50, 10});
  EXPECT_EQ(d.strides, (Dims{2, 3}));
  EXPECT_EQ(d.dilations, (Dims{1, 2}));
  EXPECT_EQ(d.pre_padding, (Dims{0, 1}));
  EXPECT_EQ(d.post_padding, (Dims{2, 0}));
}

TEST(CudnnConv, FeatureGroupsAreCudnnGroups) {
  ConvSpec s;  // NHWC [2,8,8,6] x HWIO [3,3,2,9], 3 groups
  s.lhs = {2, 8, 8, 6};
  s.rhs = {3, 3, 2, 9};
  s.feature_groups = 3;
  s.padding = {1, 1, 1, 1};
  const CudnnConv c = described(s);
  EXPECT_EQ(c.desc.kind, ConvKind::kForward);
  expectTensor(c.desc.x, {2, 6, 8, 8}, {384, 1, 48, 6});
  expectTensor(c.desc.w, {9, 2, 3, 3}, {18, 1, 6, 2});  // permuted [9,3,3,2]
  EXPECT_EQ(runtime::convGroups(c.desc), 3);
}

TEST(CudnnConv, ReversedWindowsAreConvolutionMode) {
  ConvSpec s;
  s.lhs = {1, 6, 6, 2};
  s.rhs = {3, 3, 2, 2};
  s.reversal = {true, true};
  EXPECT_TRUE(described(s).desc.flip);
  s.reversal = {true, false};
  StatusOr<CudnnConv> mixed = describe(s);
  ASSERT_FALSE(mixed.isOk());
  EXPECT_NE(mixed.status().message().find("some spatial dims only"), std::string::npos);
}

TEST(CudnnConv, OneSpatialDimGetsAUnitSecond) {
  ConvSpec s;  // NWC [3,31,5] x WIO [4,5,7], stride 3: (31-4)/3+1 = 10
  s.lhs = {3, 31, 5};
  s.rhs = {4, 5, 7};
  s.lhs_layout = "b0f";
  s.rhs_layout = "0io";
  s.out_layout = "b0f";
  s.strides = {3};
  const CudnnConv c = described(s);
  EXPECT_EQ(c.rhs_permutation, (Dims{2, 0, 1}));  // [7,4,5]
  // The unit dim strided as packed NHWC / KRSC would have it.
  expectTensor(c.desc.x, {3, 5, 31, 1}, {155, 1, 5, 5});
  expectTensor(c.desc.w, {7, 5, 4, 1}, {20, 1, 5, 5});
  expectTensor(c.desc.y, {3, 7, 10, 1}, {70, 1, 7, 7});
  EXPECT_EQ(c.desc.strides, (Dims{3, 1}));
  EXPECT_EQ(c.desc.pre_padding, (Dims{0, 0}));
  EXPECT_EQ(c.desc.post_padding, (Dims{0, 0}));
}

TEST(CudnnConv, NoSpatialDimsGetTwoUnitOnes) {
  ConvSpec s;  // [4,6] x [6,3]: a product as a convolution, channels innermost
  s.lhs = {4, 6};
  s.rhs = {6, 3};
  s.lhs_layout = "bf";
  s.rhs_layout = "io";
  s.out_layout = "bf";
  const CudnnConv c = described(s);
  EXPECT_EQ(c.rhs_permutation, (Dims{1, 0}));  // [o, i]
  expectTensor(c.desc.x, {4, 6, 1, 1}, {6, 1, 6, 6});
  expectTensor(c.desc.w, {3, 6, 1, 1}, {6, 1, 6, 6});
  expectTensor(c.desc.y, {4, 3, 1, 1}, {3, 1, 3, 3});
  EXPECT_EQ(c.desc.strides, (Dims{1, 1}));
}

TEST(CudnnConv, JaxInputGradientIsBackwardData) {
  // JAX: conv(dy, rev(w)), dn (b01f, 01oi, b01f): the rhs's input feature is
  // the forward's O, its output feature the forward's I; lhs dilation 2 (the
  // forward's stride), padding before = 3 - 1 - 1 = 1, after = 7 + 3 - 1 - 7 - 1 = 1.
  ConvSpec s;
  s.lhs = {2, 4, 4, 4};
  s.rhs = {3, 3, 3, 4};
  s.rhs_layout = "01oi";
  s.lhs_dilation = {2, 2};
  s.padding = {1, 1, 1, 1};
  const CudnnConv c = described(s);
  const runtime::ConvDesc& d = c.desc;
  EXPECT_EQ(d.kind, ConvKind::kBackwardData);
  EXPECT_FALSE(d.flip);                    // cross-correlation with rev(rev(w)) = w:
  EXPECT_EQ(c.rhs_reverse, (Dims{0, 1}));  // the rhs's window reversed first
  expectTensor(d.y, {2, 4, 4, 4}, {64, 1, 16, 4});
  expectTensor(d.x, {2, 3, 7, 7}, {147, 1, 21, 3});
  // K = the rhs's dim 3 (4), C = its dim 2 (3): permuted [i, 0, 1, o] = [4,3,3,3].
  EXPECT_EQ(c.rhs_permutation, (Dims{3, 0, 1, 2}));
  expectTensor(d.w, {4, 3, 3, 3}, {27, 1, 9, 3});
  EXPECT_EQ(d.strides, (Dims{2, 2}));      // the forward's stride
  EXPECT_EQ(d.pre_padding, (Dims{1, 1}));  // the forward's padding
  EXPECT_EQ(d.post_padding, (Dims{1, 1}));
  EXPECT_EQ(d.dilations, (Dims{1, 1}));
}

TEST(CudnnConv, AReversedInputGradientReadsItsRhsAsIs) {
  // The same with window_reversal on every dim: the rhs is already w.
  ConvSpec s;
  s.lhs = {2, 4, 4, 4};
  s.rhs = {3, 3, 3, 4};
  s.rhs_layout = "01oi";
  s.lhs_dilation = {2, 2};
  s.padding = {1, 1, 1, 1};
  s.reversal = {true, true};
  const CudnnConv c = described(s);
  EXPECT_EQ(c.desc.kind, ConvKind::kBackwardData);
  EXPECT_FALSE(c.desc.flip);
  EXPECT_TRUE(c.rhs_reverse.empty());
  EXPECT_EQ(c.rhs_permutation, (Dims{3, 0, 1, 2}));
}

TEST(CudnnConv, JaxWeightGradientIsBackwardFilter) {
  // JAX: conv(x, dy), dn (f01b, i01o, 01bf): x's batch and feature roles
  // swapped, dy's batch as the input feature; rhs dilation 2 (the forward's
  // stride), padding (1, (7 - 7) + (3 - 1 - 1)) = (1, 1); result HWIO [3,3,3,4].
  ConvSpec s;
  s.lhs = {2, 7, 7, 3};
  s.rhs = {2, 4, 4, 4};
  s.lhs_layout = "f01b";
  s.rhs_layout = "i01o";
  s.out_layout = "01bf";
  s.rhs_dilation = {2, 2};
  s.padding = {1, 1, 1, 1};
  const CudnnConv c = described(s);
  const runtime::ConvDesc& d = c.desc;
  EXPECT_EQ(d.kind, ConvKind::kBackwardFilter);
  EXPECT_TRUE(c.rhs_permutation.empty());
  expectTensor(d.x, {2, 3, 7, 7}, {147, 1, 21, 3});  // the forward's x, NHWC
  expectTensor(d.y, {2, 4, 4, 4}, {64, 1, 16, 4});   // dy
  // dw (HWIO [3,3,3,4]) is written as KRSC [4,3,3,3], then transposed.
  EXPECT_EQ(c.result_order, (Dims{3, 0, 1, 2}));
  expectTensor(d.w, {4, 3, 3, 3}, {27, 1, 9, 3});
  EXPECT_EQ(d.strides, (Dims{2, 2}));
  EXPECT_EQ(d.pre_padding, (Dims{1, 1}));
  EXPECT_EQ(d.post_padding, (Dims{1, 1}));
  EXPECT_EQ(d.dilations, (Dims{1, 1}));
}

TEST(CudnnConv, GroupedWeightGradientUsesBatchGroups) {
  // Forward x [1,5,5,4] * w [3,3,2,4], 2 feature groups, SAME; JAX's weight
  // gradient has batch_group_count 2 and a result of [3,3,2,4].
  ConvSpec s;
  s.lhs = {1, 5, 5, 4};
  s.rhs = {1, 5, 5, 4};
  s.lhs_layout = "f01b";
  s.rhs_layout = "i01o";
  s.out_layout = "01bf";
  s.batch_groups = 2;
  s.padding = {1, 1, 1, 1};
  const runtime::ConvDesc d = described(s).desc;
  EXPECT_EQ(d.kind, ConvKind::kBackwardFilter);
  expectTensor(d.x, {1, 4, 5, 5}, {100, 1, 20, 4});
  expectTensor(d.w, {4, 2, 3, 3}, {18, 1, 6, 2});  // a KRSC temp [4,3,3,2]
  EXPECT_EQ(runtime::convGroups(d), 2);
  EXPECT_EQ(d.post_padding, (Dims{1, 1}));
}

TEST(CudnnConv, ElementTypes) {
  ConvSpec s;
  s.lhs = {1, 5, 5, 2};
  s.rhs = {3, 3, 2, 2};
  s.element = s.result = ElementType::BF16;
  EXPECT_EQ(described(s).desc.element, ConvElement::kBF16);
  EXPECT_FALSE(described(s).desc.allow_tf32);
  s.element = s.result = ElementType::F16;
  EXPECT_EQ(described(s).desc.element, ConvElement::kF16);
  s.element = s.result = ElementType::F64;
  EXPECT_EQ(described(s).desc.element, ConvElement::kF64);
  EXPECT_FALSE(described(s).desc.allow_tf32);
}

TEST(CudnnConv, FormsWithoutAnExactCudnnOperationAreRefused) {
  auto refused = [](const ConvSpec& s, const char* why) {
    StatusOr<CudnnConv> c = describe(s);
    ASSERT_FALSE(c.isOk()) << why;
    EXPECT_EQ(c.status().code(), StatusCode::kUnimplemented);
    EXPECT_NE(c.status().message().find(why), std::string::npos) << c.status().message();
  };
  ConvSpec base;
  base.lhs = {2, 6, 6, 3};
  base.rhs = {3, 3, 3, 4};
  ConvSpec s = base;
  s.padding = {-1, 1, 0, 0};
  refused(s, "negative padding");
  s = base;
  s.lhs_dilation = {2, 2};
  s.strides = {2, 1};
  refused(s, "lhs dilation with window strides");
  s = base;
  s.lhs_dilation = {2, 2};
  s.lhs = {2, 6, 6, 4};
  s.rhs = {3, 3, 2, 4};
  s.feature_groups = 2;
  refused(s, "lhs dilation with groups");
  s = base;
  s.element = s.result = ElementType::I32;
  refused(s, "f16, bf16, f32 and f64");
  s = base;
  s.element = ElementType::BF16;
  s.result = ElementType::F32;
  refused(s, "of one element type");
  s = base;
  s.lhs = {1, 3, 3, 3, 3, 3};
  s.rhs = {1, 1, 1, 1, 3, 4};
  s.lhs_layout = "b0123f";
  s.rhs_layout = "0123io";
  s.out_layout = "b0123f";
  refused(s, "more than 3 spatial dims");
  s = base;
  s.lhs = {0, 6, 6, 3};
  refused(s, "empty");
}

}  // namespace
}  // namespace jft::compiler
