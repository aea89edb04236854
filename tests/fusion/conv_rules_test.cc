// The conv family in the planner: a convolution with its elementwise
// epilogue (bias, relu) and operand converts is one group; XLA_FLAGTREE_CONV's
// three settings; the auto cost model's first guesses; what stays on the
// library (groups, f64).
#include <gtest/gtest.h>

#include "../codegen/conv_modules.h"
#include "codegen/ttir/capability.h"
#include "fusion/conv_gemm_form.h"
#include "fusion_test_util.h"
#include "ir/dense_elements.h"
#include "plan_checks.h"

namespace jft::fusion {
namespace {

using namespace testing;
using jft::testing::conv::addConv;
using jft::testing::conv::convResultType;
using jft::testing::conv::ConvSpec;

PlanOptions withConv(ConvRoute route) {
  PlanOptions options;
  options.library_route = true;
  options.conv = route;
  return options;
}

// NHWC x HWIO, SAME padding, of element type `e`.
ConvSpec sameConv(ElementType e, std::vector<int64_t> x = {2, 8, 8, 16},
                  std::vector<int64_t> w = {3, 3, 16, 32}) {
  ConvSpec s;
  s.lhs = std::move(x);
  s.rhs = std::move(w);
  s.padding = {1, 1, 1, 1};
  s.element = s.result = e;
  return s;
}

// relu(conv(x, w) + bias), bias along the output feature dim.
struct ConvBiasRelu {
  ir::Module m;
  ValueId x, w, bias, conv, out;
  explicit ConvBiasRelu(const ConvSpec& s) {
    ir::Builder b(m);
    const Type t = convResultType(s);
    const int64_t features = s.rhs.back();
    auto a =
        b.beginFunction("main",
                        {Type::tensor(s.element, s.lhs), Type::tensor(s.element, s.rhs),
                         Type::tensor(s.result, {features})},
                        {t});
    x = a[0], w = a[1], bias = a[2];
    conv = addConv(b, x, w, s);
    const ValueId sum = b.op1(OpKind::Add, {conv, broadcast(b, bias, t, {3})}, t);
    const ValueId zero = b.constant(ir::DenseElements::makeSplat(
        t, std::vector<uint8_t>(static_cast<size_t>(ir::storageBytes(s.result)), 0)));
    out = b.op1(OpKind::Maximum, {sum, zero}, t);
    b.ret({out});
    b.endFunction();
  }
  Plan plan(const PlanOptions& options) const {
    expectVerifies(m);
    Plan p = planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir(options));
    checkPlan(m, *m.entry(), p);
    return p;
  }
  std::string text(const Plan& p) const { return describePlan(m, *m.entry(), p); }
};

TEST(ConvRules, ConvBiasReluIsOneGroup) {
  ConvBiasRelu p(sameConv(ElementType::BF16));
  Plan plan = p.plan(withConv(ConvRoute::kTtir));
  ASSERT_EQ(plan.fusions.size(), 1u) << p.text(plan);
  const Fusion& g = plan.fusions[0];
  EXPECT_EQ(g.route, Route::kTtir);
  EXPECT_EQ(g.family, Family::kConv);
  EXPECT_EQ(g.inputs, (std::vector<ValueId>{p.x, p.w, p.bias}));
  EXPECT_EQ(g.outputs, std::vector<ValueId>{p.out});
  EXPECT_EQ(g.name.rfind("fusion_0_conv_convolution", 0), 0u) << g.name;
}

// library: the patches + GEMM route, the epilogue a loop kernel reading the
// convolution's result.
TEST(ConvRules, LibrarySettingKeepsEveryConvolutionOnTheLibrary) {
  ConvBiasRelu p(sameConv(ElementType::BF16));
  Plan plan = p.plan(withConv(ConvRoute::kLibrary));
  ASSERT_EQ(plan.fusions.size(), 2u) << p.text(plan);
  EXPECT_EQ(plan.fusions[0].route, Route::kLibrary);
  EXPECT_EQ(plan.fusions[1].family, Family::kLoop);
  EXPECT_EQ(plan.fusions[1].inputs, (std::vector<ValueId>{p.bias, p.conv}));
}

// auto asks the device's convolution library first: one it takes goes there
// (with its epilogue a loop kernel), one it refuses gets the cost model; the
// other settings never ask.
TEST(ConvRules, AutoPrefersAConvolutionLibraryThatTakesTheOp) {
  ConvBiasRelu p(sameConv(ElementType::BF16, {64, 56, 56, 64}, {3, 3, 64, 64}));
  int asked = 0;
  PlanOptions takes = withConv(ConvRoute::kAuto);
  takes.conv_library_takes = [&](const ir::Op& op) {
    ++asked;
    EXPECT_EQ(op.kind, OpKind::Convolution);
    return true;
  };
  Plan plan = p.plan(takes);
  ASSERT_EQ(plan.fusions.size(), 2u) << p.text(plan);
  EXPECT_EQ(plan.fusions[0].route, Route::kLibrary);
  EXPECT_EQ(plan.fusions[1].family, Family::kLoop);
  EXPECT_GT(asked, 0);

  PlanOptions refuses = withConv(ConvRoute::kAuto);
  refuses.conv_library_takes = [](const ir::Op&) { return false; };
  Plan cost_model = p.plan(refuses);
  ASSERT_EQ(cost_model.fusions.size(), 1u) << p.text(cost_model);
  EXPECT_EQ(cost_model.fusions[0].family, Family::kConv);

  for (ConvRoute route : {ConvRoute::kTtir, ConvRoute::kLibrary}) {
    PlanOptions other = withConv(route);
    other.conv_library_takes = [](const ir::Op&) -> bool {
      ADD_FAILURE() << "only auto asks the library";
      return true;
    };
    p.plan(other);
  }
}

// ttir takes f32 too; groups and f64 stay on the library under every setting.
TEST(ConvRules, TtirSettingTakesWhatTheFamilyComputes) {
  EXPECT_EQ(ConvBiasRelu(sameConv(ElementType::F32))
                .plan(withConv(ConvRoute::kTtir))
                .fusions[0]
                .family,
            Family::kConv);
  {
    ConvSpec s = sameConv(ElementType::BF16, {2, 8, 8, 16}, {3, 3, 8, 32});
    s.feature_groups = 2;
    ConvBiasRelu p(s);
    Plan plan = p.plan(withConv(ConvRoute::kTtir));
    ASSERT_EQ(plan.fusions.size(), 2u) << p.text(plan);
    EXPECT_EQ(plan.fusions[0].route, Route::kLibrary);
    std::string why;
    EXPECT_FALSE(convGemmFormOf(p.m, p.m.entry()->body.ops[0], &why));
    EXPECT_NE(why.find("grouped convolutions"), std::string::npos) << why;
  }
  {
    ConvBiasRelu p(sameConv(ElementType::F64));
    Plan plan = p.plan(withConv(ConvRoute::kTtir));
    ASSERT_EQ(plan.fusions.size(), 2u) << p.text(plan);
    EXPECT_EQ(plan.fusions[0].route, Route::kLibrary);
  }
}

Family firstFamily(const ConvSpec& s) {
  ConvBiasRelu p(s);
  return p.plan(withConv(ConvRoute::kAuto)).fusions[0].family;
}

// auto: 16-bit forward convolutions whose K and N fit on TTIR; f32, lhs
// dilation, long K (the weight gradient's shape) and wide N on the library.
TEST(ConvRules, AutoCostModel) {
  // The benchmark: K = 3 * 3 * 64 = 576, N = 64.
  EXPECT_EQ(firstFamily(sameConv(ElementType::BF16, {64, 56, 56, 64}, {3, 3, 64, 64})),
            Family::kConv);
  EXPECT_EQ(firstFamily(sameConv(ElementType::F16)), Family::kConv);
  EXPECT_EQ(firstFamily(sameConv(ElementType::F32)), Family::kNone);  // library
  {
    ConvSpec s = sameConv(ElementType::BF16);
    s.lhs_dilation = {2, 2};
    EXPECT_EQ(firstFamily(s), Family::kNone);
  }
  // K = 3 * 3 * 512 = 4608 still fits; 3 * 3 * 520 does not.
  EXPECT_EQ(firstFamily(sameConv(ElementType::BF16, {1, 4, 4, 512}, {3, 3, 512, 16})),
            Family::kConv);
  EXPECT_EQ(firstFamily(sameConv(ElementType::BF16, {1, 4, 4, 520}, {3, 3, 520, 16})),
            Family::kNone);
  // N = 512 fits, 513 does not.
  EXPECT_EQ(firstFamily(sameConv(ElementType::BF16, {1, 4, 4, 8}, {3, 3, 8, 512})),
            Family::kConv);
  EXPECT_EQ(firstFamily(sameConv(ElementType::BF16, {1, 4, 4, 8}, {3, 3, 8, 513})),
            Family::kNone);
  {  // The weight gradient of a 3x3 conv on [8, 28, 28, 16]: K = 8 * 28 * 28.
    ConvSpec s;
    s.lhs = {8, 28, 28, 16};
    s.lhs_layout = "f01b";
    s.rhs = {8, 28, 28, 32};
    s.rhs_layout = "i01o";
    s.out_layout = "01bf";
    s.padding = {1, 1, 1, 1};
    s.element = s.result = ElementType::BF16;
    ir::Module m;
    ir::Builder b(m);
    auto a = b.beginFunction(
        "main", {Type::tensor(s.element, s.lhs), Type::tensor(s.element, s.rhs)},
        {convResultType(s)});
    b.ret({addConv(b, a[0], a[1], s)});
    b.endFunction();
    expectVerifies(m);
    std::optional<ConvGemmForm> form = convGemmFormOf(m, m.entry()->body.ops[0]);
    ASSERT_TRUE(form);
    EXPECT_EQ(form->k, 8 * 28 * 28);
    EXPECT_EQ(form->m, 3 * 3 * 16);
    EXPECT_EQ(form->n, 32);
    EXPECT_EQ(chooseConvRoute(*form, withConv(ConvRoute::kAuto)), Route::kLibrary);
    EXPECT_EQ(chooseConvRoute(*form, withConv(ConvRoute::kTtir)), Route::kTtir);
    // Without a library route, auto takes it on TTIR.
    PlanOptions none;
    EXPECT_EQ(chooseConvRoute(*form, none), Route::kTtir);
  }
}

// A convert feeding the convolution joins its group and is applied to the
// loaded tiles; the f32 input is the group's input.
TEST(ConvRules, OperandConvertJoins) {
  const ConvSpec s = sameConv(ElementType::BF16);
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32(s.lhs), Type::tensor(s.element, s.rhs)},
                           {convResultType(s)});
  const ValueId x = b.op1(OpKind::Convert, {a[0]}, Type::tensor(s.element, s.lhs));
  b.ret({addConv(b, x, a[1], s)});
  b.endFunction();
  expectVerifies(m);
  Plan plan = planFusions(m, *m.entry(),
                          ::jft::codegen::ttir::withTtir(withConv(ConvRoute::kTtir)));
  checkPlan(m, *m.entry(), plan);
  ASSERT_EQ(plan.fusions.size(), 1u) << describePlan(m, *m.entry(), plan);
  EXPECT_EQ(plan.fusions[0].family, Family::kConv);
  EXPECT_EQ(plan.fusions[0].inputs, (std::vector<ValueId>{a[0], a[1]}));
}

// The implicit GEMM's sizes and rhs index maps for an OIHW kernel.
TEST(ConvRules, FormOfAnNchwConvolution) {
  ConvSpec s;
  s.lhs = {2, 3, 9, 8};
  s.rhs = {4, 3, 3, 2};
  s.lhs_layout = "bf01";
  s.rhs_layout = "oi01";
  s.out_layout = "bf01";
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32(s.lhs), f32(s.rhs)}, {convResultType(s)});
  b.ret({addConv(b, a[0], a[1], s)});
  b.endFunction();
  std::optional<ConvGemmForm> form = convGemmFormOf(m, m.entry()->body.ops[0]);
  ASSERT_TRUE(form);
  EXPECT_EQ(form->m, 2 * 7 * 7);  // out [2, 4, 7, 7]: batch and spatial dims
  EXPECT_EQ(form->n, 4);
  EXPECT_EQ(form->k, 3 * 2 * 3);  // window 3 x 2, 3 features
  EXPECT_EQ(form->m_dims, (std::vector<int64_t>{0, 2, 3}));
  // k = (kh, kw, i): kh and kw adjacent in OIHW memory (one segment of 6,
  // stride 1), i at stride 6; n (o) at stride 18.
  ASSERT_EQ(form->rhs_k.size(), 2u);
  EXPECT_EQ(form->rhs_k[0].extent, 6);
  EXPECT_EQ(form->rhs_k[0].stride, 1);
  EXPECT_EQ(form->rhs_k[1].extent, 3);
  EXPECT_EQ(form->rhs_k[1].stride, 6);
  ASSERT_EQ(form->rhs_n.size(), 1u);
  EXPECT_EQ(form->rhs_n[0].stride, 18);
  EXPECT_EQ(form->input_precision, "tf32");
}

TEST(ConvRules, RouteNames) {
  EXPECT_STREQ(convRouteName(ConvRoute::kAuto), "auto");
  EXPECT_STREQ(convRouteName(ConvRoute::kLibrary), "library");
  EXPECT_STREQ(convRouteName(ConvRoute::kTtir), "ttir");
  EXPECT_STREQ(familyName(Family::kConv), "conv");
}

}  // namespace
}  // namespace jft::fusion
