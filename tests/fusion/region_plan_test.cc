// Plans of a while body (its arguments and captured values are inputs), the
// control route around it, and the plan checker itself catching broken plans.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "codegen/ttir/capability.h"
#include "fusion_test_util.h"
#include "plan_checks.h"

namespace jft::fusion {
namespace {

using namespace testing;

void expectHas(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << text;
}

// while (i < 10) { i = i + 1; acc = acc * scale + exp(acc) } with `scale`
// captured from the function.
struct WhileProgram {
  ir::Module m;
  ValueId scale = 0, loop_i = 0, loop_acc = 0;
  const ir::Function& main() const { return *m.findFunction("main"); }
  const ir::Op& whileOp() const { return main().body.ops[2]; }

  WhileProgram() {
    ir::Builder b(m);
    auto a = b.beginFunction("main", {f32({16}), f32({16})}, {f32({16})});
    scale = a[1];
    ValueId zero = splat(b, i32(), 0);
    ValueId ten = splat(b, i32(), 10);
    auto c = b.beginRegion({i32(), f32({16})});
    b.ret({b.op1(OpKind::Compare, {c[0], ten}, pred(),
                 {{"comparison_direction", ir::ComparisonDirection::LT}})});
    ir::Region cond = b.endRegion();
    auto body_args = b.beginRegion({i32(), f32({16})});
    loop_i = body_args[0];
    loop_acc = body_args[1];
    ValueId next_i = b.op1(OpKind::Add, {loop_i, splat(b, i32(), 1)}, i32());
    ValueId scaled = b.op1(OpKind::Multiply, {loop_acc, scale}, f32({16}));
    ValueId e = b.op1(OpKind::Exponential, {loop_acc}, f32({16}));
    b.ret({next_i, b.op1(OpKind::Add, {scaled, e}, f32({16}))});
    ir::Region body = b.endRegion();
    auto r = b.op(OpKind::While, {zero, a[0]}, {i32(), f32({16})}, {},
                  {std::move(cond), std::move(body)});
    b.ret({r[1]});
    b.endFunction();
  }
};

TEST(RegionPlan, WhileBodyReadsItsArgumentsAndCaptures) {
  WhileProgram p;
  expectVerifies(p.m);
  const ir::Region& body = p.whileOp().regions[1];
  Plan plan = planFusions(p.m, body, ::jft::codegen::ttir::withTtir());
  checkPlan(p.m, body, plan);
  ASSERT_EQ(plan.fusions.size(), 2u) << describePlan(p.m, body, plan);
  // The counter (a scalar of its own shape) and the accumulator update.
  EXPECT_EQ(plan.fusions[0].inputs, std::vector<ValueId>{p.loop_i});
  EXPECT_EQ(plan.fusions[1].inputs, (std::vector<ValueId>{p.loop_acc, p.scale}));
  EXPECT_EQ(plan.fusions[1].family, Family::kLoop);
}

TEST(RegionPlan, WhileIsOneControlGroupReadingWhatItCaptures) {
  WhileProgram p;
  PlanOptions options;
  options.control_route = true;
  Plan plan = planFusions(p.m, p.main(), ::jft::codegen::ttir::withTtir(options));
  checkPlan(p.m, p.main(), plan);
  EXPECT_TRUE(plan.unsupported.empty());
  const Fusion& loop = plan.fusions.back();
  EXPECT_EQ(loop.route, Route::kControl);
  EXPECT_EQ(loop.ops, std::vector<size_t>{2});
  const ValueId zero = p.main().body.ops[0].results[0];
  const ValueId ten = p.main().body.ops[1].results[0];
  // Operands first, then what the cond and body capture.
  EXPECT_EQ(loop.inputs,
            (std::vector<ValueId>{zero, p.main().body.args[0], ten, p.scale}));

  Plan strict = planFusions(p.m, p.main(), ::jft::codegen::ttir::withTtir());
  ASSERT_EQ(strict.unsupported.size(), 1u);
  EXPECT_EQ(strict.unsupported[0].op, 2u);
  EXPECT_EQ(strict.unsupported[0].reason, "no control route for while yet");
  EXPECT_EQ(strict.fusions.back().route, Route::kNative);
}

// Failure messages `check` reports, intercepted.
std::string failuresOf(const std::function<void()>& check) {
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD,
        &results);
    check();
  }
  std::string all;
  for (int i = 0; i < results.size(); ++i)
    all += std::string(results.GetTestPartResult(i).message()) + "\n";
  return all;
}

// The checker is not vacuous: each kind of broken plan is reported.
TEST(PlanChecker, CatchesBrokenPlans) {
  ir::Module m;
  ir::Builder b(m);
  auto x = b.beginFunction("main", {f32({4})}, {f32({4})});
  ValueId e = b.op1(OpKind::Exponential, {x[0]}, f32({4}));
  ValueId n = b.op1(OpKind::Negate, {e}, f32({4}));
  b.ret({n});
  const ir::Function& f = b.endFunction();
  Plan good;
  good.fusions.push_back(
      {0, "fusion_0_loop_exp", Route::kTtir, Family::kLoop, {0}, x, {e}});
  good.fusions.push_back(
      {1, "fusion_1_loop_neg", Route::kTtir, Family::kLoop, {1}, {e}, {n}});
  checkPlan(m, f, good);

  Plan missing_input = good;
  missing_input.fusions[1].inputs.clear();
  EXPECT_EQ(failuresOf([&] { checkPlan(m, f, good); }), "");
  expectHas(failuresOf([&] { checkPlan(m, f, missing_input); }), "inputs");
  Plan swapped = good;
  std::swap(swapped.fusions[0], swapped.fusions[1]);
  swapped.fusions[0].id = 0;
  swapped.fusions[1].id = 1;
  expectHas(failuresOf([&] { checkPlan(m, f, swapped); }),
            "reads a value no earlier group wrote");
  Plan copied_exp = good;
  copied_exp.fusions[1].ops = {0, 1};
  expectHas(failuresOf([&] { checkPlan(m, f, copied_exp); }),
            "op 0 (exponential) in 2 groups");
  Plan unused_output = good;
  unused_output.fusions[1].outputs = {};
  expectHas(failuresOf([&] { checkPlan(m, f, unused_output); }),
            "returned value not written");
}

}  // namespace
}  // namespace jft::fusion
