// The attention family in the planner (fusion/attention_form.h): plain-JAX
// attention is one kAttention group; with the probabilities or a mask op read
// elsewhere, or every dot sent to the library, the plan is today's (GEMM,
// softmax, GEMM).
#include <gtest/gtest.h>

#include <algorithm>

#include "../codegen/attention_modules.h"
#include "fusion/attention_form.h"
#include "fusion/use_graph.h"
#include "fusion_test_util.h"
#include "planned_module.h"

namespace jft::fusion {
namespace {

using codegen::ttir::testing::attentionModule;
using codegen::ttir::testing::AttentionProgram;
using namespace testing;

PlanOptions withLibrary(MatmulRoute route = MatmulRoute::kAuto) {
  PlanOptions options;
  options.library_route = true;
  options.matmul = route;
  return options;
}

Built build(const AttentionProgram& p) {
  StatusOr<ir::Module> m = attentionModule(p);
  EXPECT_TRUE(m.isOk()) << m.status().toString();
  Built built;
  if (m.isOk()) built.m = std::move(m).value();
  return built;
}

std::vector<const Fusion*> ofFamily(const Plan& plan, Family family) {
  std::vector<const Fusion*> out;
  for (const Fusion& f : plan.fusions)
    if (f.family == family) out.push_back(&f);
  return out;
}

size_t countKind(const Built& built, const Fusion& f, OpKind kind) {
  return std::count_if(f.ops.begin(), f.ops.end(),
                       [&](size_t i) { return built.main().body.ops[i].kind == kind; });
}

// The benchmark's program (causal, bf16, scale by multiplication): one
// kernel reading q, k, v and writing the output, holding both dots, both
// reduces and the mask.
TEST(AttentionPlan, BenchmarkPatternIsOneAttentionGroup) {
  const Built built = build({});
  const Plan plan = planAndCheck(built, withLibrary());
  ASSERT_EQ(plan.fusions.size(), 1u) << built.text(plan);
  const Fusion& f = plan.fusions[0];
  EXPECT_EQ(f.route, Route::kTtir);
  EXPECT_EQ(f.family, Family::kAttention);
  EXPECT_EQ(f.inputs, built.main().body.args);
  EXPECT_EQ(f.outputs, built.main().body.ops.back().operands);
  EXPECT_EQ(countKind(built, f, OpKind::DotGeneral), 2u);
  EXPECT_EQ(countKind(built, f, OpKind::Reduce), 2u);
  EXPECT_EQ(countKind(built, f, OpKind::Compare), 1u);
  EXPECT_EQ(f.ops.size(), built.main().body.ops.size() - 1);  // all but the return
  EXPECT_EQ(f.name.rfind("fusion_0_attention", 0), 0u) << f.name;
}

TEST(AttentionPlan, FormSeesTheCausalMaskAndTheScale) {
  const Built built = build({});
  const UseGraph uses(built.main().body);
  std::string why;
  const size_t pv = built.main().body.ops.size() - 2;
  std::optional<AttentionForm> form =
      attentionFormOf(built.m, built.main().body, uses, pv, &why);
  ASSERT_TRUE(form.has_value()) << why;
  EXPECT_EQ(form->causal_offset, std::optional<int64_t>(0));
  EXPECT_EQ(form->qk.m, 64);
  EXPECT_EQ(form->qk.n, 64);
  EXPECT_EQ(form->qk.k, 32);
  EXPECT_EQ(form->pv.n, 32);
  // convert, multiply, select between the dot and the softmax.
  EXPECT_EQ(form->score_ops.size(), 3u);
  EXPECT_TRUE(form->copied.empty());
}

TEST(AttentionPlan, VariantsStillMatch) {
  for (const AttentionProgram& p :
       {AttentionProgram{.causal = false},
        AttentionProgram{.type = "f32", .divide = true, .highest = true},
        AttentionProgram{.tq = 200, .tk = 200, .type = "f16"},
        AttentionProgram{.batch = 1,
        .heads = 3,
        .tq = 16,
        .tk = 40,
        .d = 64,
        .dv = 16,
        .causal = false}}) {
    const Built built = build(p);
    const Plan plan = planAndCheck(built, withLibrary());
    EXPECT_EQ(ofFamily(plan, Family::kAttention).size(), 1u) << built.text(plan);
  }
}

// Under XLA_FLAGTREE_MATMUL=ttir too; never under =library.
TEST(AttentionPlan, FollowsTheMatmulSetting) {
  const Built built = build({});
  EXPECT_EQ(
      ofFamily(planAndCheck(built, withLibrary(MatmulRoute::kTtir)), Family::kAttention)
          .size(),
      1u);
  const Plan library = planAndCheck(built, withLibrary(MatmulRoute::kLibrary));
  EXPECT_TRUE(ofFamily(library, Family::kAttention).empty()) << built.text(library);
}

// A training step saves the probabilities for the backward pass: then the
// plan is today's, the scores in memory.
TEST(AttentionPlan, ProbabilitiesReadElsewhereKeepTodaysPlan) {
  AttentionProgram p;
  p.return_probs = true;
  const Built built = build(p);
  const Plan plan = planAndCheck(built, withLibrary());
  EXPECT_TRUE(ofFamily(plan, Family::kAttention).empty()) << built.text(plan);
  const UseGraph uses(built.main().body);
  std::string why;
  EXPECT_FALSE(attentionFormOf(built.m, built.main().body, uses,
                               built.main().body.ops.size() - 2, &why));
  EXPECT_NE(why.find("is returned"), std::string::npos) << why;
  // The dots in groups of their own, the softmax's reduces in another.
  const auto& ops = built.main().body.ops;
  std::vector<int> dots, reduces;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].kind == OpKind::DotGeneral) dots.push_back(groupOf(plan, i));
    if (ops[i].kind == OpKind::Reduce) reduces.push_back(groupOf(plan, i));
  }
  ASSERT_EQ(dots.size(), 2u);
  ASSERT_EQ(reduces.size(), 2u);
  EXPECT_NE(dots[0], dots[1]);
  EXPECT_EQ(reduces[0], reduces[1]);
  EXPECT_NE(reduces[0], dots[0]);
  EXPECT_NE(reduces[0], dots[1]);
}

// A mask op other groups read is not copied (the plan copies only cheap
// ops): no attention group.
TEST(AttentionPlan, SharedMaskCompareKeepsTodaysPlan) {
  AttentionProgram p;
  p.return_mask = true;
  const Built built = build(p);
  const Plan plan = planAndCheck(built, withLibrary());
  EXPECT_TRUE(ofFamily(plan, Family::kAttention).empty()) << built.text(plan);
}

// A head dim past 256 does not fit the kernel's registers.
TEST(AttentionPlan, WideHeadsKeepTodaysPlan) {
  AttentionProgram p;
  p.d = p.dv = 512;
  p.tq = p.tk = 16;
  const Built built = build(p);
  const Plan plan = planAndCheck(built, withLibrary());
  EXPECT_TRUE(ofFamily(plan, Family::kAttention).empty()) << built.text(plan);
}

}  // namespace
}  // namespace jft::fusion
