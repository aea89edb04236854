// reduce_window and select_and_scatter rules of the StableHLO spec.
#include "verifier_test_util.h"

namespace jft::ir {
namespace {

using namespace jft::ir::testing;
using Ints = std::vector<int64_t>;

// A 2x2 max pool with stride 2 over [4, 6], optionally padded.
BodyFn maxPool(Type out, NamedAttrs extra = {}) {
  return [=](Builder& b, const std::vector<ValueId>& args) {
    Region body = combiner(b, {f32(), f32()}, OpKind::Maximum);
    NamedAttrs attrs = {{"window_dimensions", Ints{2, 2}},
                        {"window_strides", Ints{2, 2}}};
    attrs.insert(attrs.end(), extra.begin(), extra.end());
    return b.op(OpKind::ReduceWindow, args, {out}, attrs, {std::move(body)});
  };
}

TEST(VerifyReduceWindow, CountsWindows) {
  EXPECT_VALID(verifyMain({f32({4, 6}), f32()}, maxPool(f32({2, 3}))));
  // Padding one row above and below: (1 + 4 + 1 - 2) / 2 + 1 = 3 rows.
  EXPECT_VALID(verifyMain({f32({4, 6}), f32()},
                          maxPool(f32({3, 3}), {{"padding", Ints{1, 1, 0, 0}}})));
  EXPECT_INVALID(
      verifyMain({f32({4, 6}), f32()}, maxPool(f32({2, 2}))),
      "stablehlo.reduce_window at zoo.py:17:20: result #0 tensor<2x2xf32> should be "
      "tensor<2x3xf32>");
}

TEST(VerifyReduceWindow, WindowAttributesCoverEveryDimension) {
  EXPECT_INVALID(verifyMain({f32({4, 6}), f32()},
                            maxPool(f32({2, 3}), {{"base_dilations", Ints{1}}})),
                 "base_dilations [1] must have 2 entries");
  EXPECT_INVALID(verifyMain({f32({4, 6}), f32()},
                            maxPool(f32({2, 3}), {{"window_dilations", Ints{0, 1}}})),
                 "window_dilations [0, 1] must be at least 1");
}

TEST(VerifyReduceWindow, InitValueMatchesTheInput) {
  EXPECT_INVALID(
      verifyMain({f32({4, 6}), i32()}, maxPool(f32({2, 3}))),
      "init value #0 tensor<i32> must be a 0-d tensor of the input's element type");
}

BodyFn poolGradient(Type select_arg) {
  return [=](Builder& b, const std::vector<ValueId>& args) {
    std::vector<Region> regions;
    auto sel = b.beginRegion({select_arg, select_arg});
    b.ret({b.op1(OpKind::Compare, {sel[0], sel[1]}, pred(),
                 {{"comparison_direction", ComparisonDirection::GE}})});
    regions.push_back(b.endRegion());
    regions.push_back(combiner(b, {f32(), f32()}, OpKind::Add));
    return b.op(OpKind::SelectAndScatter, args, {f32({4, 6})},
                {{"window_dimensions", Ints{2, 2}}, {"window_strides", Ints{2, 2}}},
                std::move(regions));
  };
}

TEST(VerifySelectAndScatter, SourceHasOneValuePerWindow) {
  EXPECT_VALID(verifyMain({f32({4, 6}), f32({2, 3}), f32()}, poolGradient(f32())));
  EXPECT_INVALID(
      verifyMain({f32({4, 6}), f32({2, 2}), f32()}, poolGradient(f32())),
      "stablehlo.select_and_scatter at zoo.py:17:20: source shape [2, 2] should be the "
      "window count [2, 3]");
}

TEST(VerifySelectAndScatter, SelectComparesTwoScalars) {
  EXPECT_INVALID(
      verifyMain({f32({4, 6}), f32({2, 3}), f32()}, poolGradient(f32({1}))),
      "select takes (tensor<1xf32>, tensor<1xf32>), expected (tensor<f32>, tensor<f32>)");
}

}  // namespace
}  // namespace jft::ir
