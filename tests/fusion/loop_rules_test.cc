// Loop fusion rules on hand-built functions: who joins whom, what is copied,
// what stays apart, and the inputs and outputs that follow.
#include <gtest/gtest.h>

#include "codegen/ttir/capability.h"
#include "fusion_test_util.h"
#include "plan_checks.h"
#include "planned_module.h"

namespace jft::fusion {
namespace {

using namespace testing;

// e = exp(x) read by two kernels that each return their value: e is
// computed once, in the first reader's kernel (which stores it as a second
// output), and read by the other, never recomputed (multi_output_test.cc).
TEST(LoopRules, ProducerWithReadersInTwoGroupsJoinsTheFirst) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({4})}, {f32({4}), f32({4})});
  ValueId e = b.op1(OpKind::Exponential, {x[0]}, f32({4}));
  ValueId n = b.op1(OpKind::Negate, {e}, f32({4}));
  ValueId s = b.op1(OpKind::Sqrt, {e}, f32({4}));
  b.ret({n, s});
  b.endFunction();
  Plan plan = planAndCheck(built);
  ASSERT_EQ(plan.fusions.size(), 2u) << describePlan(built.m, built.main(), plan);
  EXPECT_EQ(groupsOf(plan, opOf(built.main(), e)), std::vector<int>{0});
  EXPECT_EQ(groupOf(plan, opOf(built.main(), n)), 0);
  EXPECT_EQ(plan.fusions[0].outputs, (std::vector<ValueId>{e, n}));
  EXPECT_EQ(groupOf(plan, opOf(built.main(), s)), 1);
  EXPECT_EQ(plan.fusions[1].inputs, std::vector<ValueId>{e});
}

// A diamond e -> (sin, cos) -> add: every reader of e ends in the add's
// group, so all four ops are one kernel.
TEST(LoopRules, DiamondIsOneKernel) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({8})}, {f32({8})});
  ValueId e = b.op1(OpKind::Exponential, {x[0]}, f32({8}));
  ValueId s = b.op1(OpKind::Sine, {e}, f32({8}));
  ValueId c = b.op1(OpKind::Cosine, {e}, f32({8}));
  b.ret({b.op1(OpKind::Add, {s, c}, f32({8}))});
  b.endFunction();
  Plan plan = planAndCheck(built);
  ASSERT_EQ(plan.fusions.size(), 1u);
  EXPECT_EQ(plan.fusions[0].ops, (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(plan.fusions[0].inputs, x);
  EXPECT_EQ(plan.fusions[0].name, "fusion_0_loop_exponential_sine_cosine");
}

// A broadcast of a parameter read by two kernels is recomputed in each: no
// group of its own, and both read the parameter, not the broadcast. (The
// readers have different shapes, so they are not siblings to merge.)
TEST(LoopRules, CheapOpIsCopiedIntoEachReader) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({4})}, {f32({4, 2}), f32({8})});
  ValueId wide = broadcast(b, x[0], f32({2, 4}), {1});
  ValueId t = b.op1(OpKind::Transpose, {wide}, f32({4, 2}),
                    {{"permutation", std::vector<int64_t>{1, 0}}});
  ValueId e = b.op1(OpKind::Exponential, {t}, f32({4, 2}));
  ValueId l = b.op1(OpKind::Log, {b.op1(OpKind::Reshape, {wide}, f32({8}))}, f32({8}));
  b.ret({e, l});
  b.endFunction();
  Plan plan = planAndCheck(built);
  ASSERT_EQ(plan.fusions.size(), 2u) << describePlan(built.m, built.main(), plan);
  EXPECT_EQ(groupsOf(plan, opOf(built.main(), wide)), (std::vector<int>{0, 1}));
  for (const Fusion& f : plan.fusions) {
    EXPECT_EQ(f.inputs, x) << f.name;
    EXPECT_EQ(f.outputs.size(), 1u) << f.name;
    EXPECT_EQ(f.ops.size(), 3u) << f.name;
  }
}

// The same broadcast also returned: the copies stay, and a group of its own
// writes it for the return.
TEST(LoopRules, CopiedOpReadOutsideTtirAlsoGetsItsOwnGroup) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({4})}, {f32({4, 2}), f32({8}), f32({2, 4})});
  ValueId wide = broadcast(b, x[0], f32({2, 4}), {1});
  ValueId t = b.op1(OpKind::Transpose, {wide}, f32({4, 2}),
                    {{"permutation", std::vector<int64_t>{1, 0}}});
  ValueId e = b.op1(OpKind::Exponential, {t}, f32({4, 2}));
  ValueId l = b.op1(OpKind::Log, {b.op1(OpKind::Reshape, {wide}, f32({8}))}, f32({8}));
  b.ret({e, l, wide});
  b.endFunction();
  Plan plan = planAndCheck(built);
  ASSERT_EQ(plan.fusions.size(), 3u) << describePlan(built.m, built.main(), plan);
  EXPECT_EQ(groupsOf(plan, opOf(built.main(), wide)).size(), 3u);
  int writers = 0;
  for (const Fusion& f : plan.fusions)
    if (f.outputs == std::vector<ValueId>{wide}) ++writers;
  EXPECT_EQ(writers, 1);
}

// Scalar constants go into every kernel that reads them and are never
// inputs; one also returned gets a constant-buffer group (route none).
TEST(LoopRules, SplatConstantsAreCopiedNeverRead) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({4})}, {f32({4}), f32({2, 2}), f32()});
  ValueId two = splat(b, f32(), 2.0);
  ValueId e = b.op1(OpKind::Exponential, {x[0]}, f32({4}));
  ValueId m1 = b.op1(OpKind::Multiply, {e, broadcast(b, two, f32({4}), {})}, f32({4}));
  ValueId m2 = b.op1(
      OpKind::Add,
      {b.op1(OpKind::Reshape, {x[0]}, f32({2, 2})), broadcast(b, two, f32({2, 2}), {})},
      f32({2, 2}));
  b.ret({m1, m2, two});
  b.endFunction();
  Plan plan = planAndCheck(built);
  const size_t const_op = opOf(built.main(), two);
  std::vector<int> holders = groupsOf(plan, const_op);
  ASSERT_EQ(holders.size(), 3u) << describePlan(built.m, built.main(), plan);
  int buffers = 0;
  for (int g : holders) {
    const Fusion& f = plan.fusions[g];
    if (f.route == Route::kNone) {
      ++buffers;
      EXPECT_EQ(f.ops, std::vector<size_t>{const_op});
      EXPECT_EQ(f.outputs, std::vector<ValueId>{two});
    } else {
      EXPECT_EQ(f.inputs, x) << f.name;
    }
  }
  EXPECT_EQ(buffers, 1);
}

// A non-splat constant is a buffer: a group of route none, read as an input.
TEST(LoopRules, DenseConstantIsAnInputBuffer) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({3})}, {f32({3})});
  ValueId table = b.constant(ir::denseFromValues(f32({3}), {1, 2, 3}));
  b.ret({b.op1(OpKind::Add, {x[0], table}, f32({3}))});
  b.endFunction();
  Plan plan = planAndCheck(built);
  ASSERT_EQ(plan.fusions.size(), 2u);
  EXPECT_EQ(plan.fusions[0].route, Route::kNone);
  EXPECT_EQ(plan.fusions[0].name, "fusion_0_none_constant");
  EXPECT_EQ(plan.fusions[1].inputs, (std::vector<ValueId>{x[0], table}));
}

// e = exp(x) and f = e * 2 both returned: one kernel with two outputs.
TEST(LoopRules, ValuesTheReturnReadsMakeAMultiOutputKernel) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({2, 4})}, {f32({2, 4}), f32({2, 4})});
  ValueId e = b.op1(OpKind::Exponential, {x[0]}, f32({2, 4}));
  ValueId f = b.op1(OpKind::Multiply, {e, splat(b, f32({2, 4}), 2.0)}, f32({2, 4}));
  b.ret({e, f});
  b.endFunction();
  Plan plan = planAndCheck(built);
  ASSERT_EQ(plan.fusions.size(), 1u);
  EXPECT_EQ(plan.fusions[0].outputs, (std::vector<ValueId>{e, f}));
}

// ... but a returned value of another shape than the kernel's output stays
// out: a loop kernel tiles one output shape.
TEST(LoopRules, ReturnedValueOfAnotherShapeStaysOut) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({2, 4})}, {f32({2, 4}), f32({4, 2})});
  ValueId e = b.op1(OpKind::Exponential, {x[0]}, f32({2, 4}));
  ValueId t = b.op1(OpKind::Transpose, {e}, f32({4, 2}),
                    {{"permutation", std::vector<int64_t>{1, 0}}});
  b.ret({e, t});
  b.endFunction();
  Plan plan = planAndCheck(built);
  ASSERT_EQ(plan.fusions.size(), 2u);
  EXPECT_EQ(plan.fusions[0].outputs, std::vector<ValueId>{e});
  EXPECT_EQ(plan.fusions[1].inputs, std::vector<ValueId>{e});
  EXPECT_EQ(plan.fusions[1].outputs, std::vector<ValueId>{t});
}

// p = exp(x), q = dot(p, w) (another route), r = p + q. Fusing p into r's
// kernel would make it both feed and read the dot: p stays apart and the
// groups come out as p, dot, r.
TEST(LoopRules, NoCycleThroughAnotherRoute) {
  Built built;
  ir::Builder b(built.m);
  auto a = b.beginFunction("main", {f32({4, 4}), f32({4, 4})}, {f32({4, 4})});
  ValueId p = b.op1(OpKind::Exponential, {a[0]}, f32({4, 4}));
  ir::DotDimensionNumbers dims;
  dims.lhs_contracting_dims = {1};
  dims.rhs_contracting_dims = {0};
  ValueId q = b.op1(OpKind::DotGeneral, {p, a[1]}, f32({4, 4}),
                    {{"dot_dimension_numbers", dims}});
  ValueId r = b.op1(OpKind::Add, {p, q}, f32({4, 4}));
  b.ret({r});
  b.endFunction();
  for (bool library : {false, true}) {
    PlanOptions options;
    options.library_route = library;
    options.matmul = MatmulRoute::kLibrary;  // the dot on the library (or none)
    Plan plan = planAndCheck(built, options);
    ASSERT_EQ(plan.fusions.size(), 3u);
    EXPECT_EQ(plan.fusions[0].outputs, std::vector<ValueId>{p});
    EXPECT_EQ(plan.fusions[1].route, library ? Route::kLibrary : Route::kNative);
    EXPECT_EQ(plan.fusions[2].inputs, (std::vector<ValueId>{p, q}));
    EXPECT_EQ(plan.unsupported.size(), library ? 0u : 1u);
  }
}

TEST(LoopRules, UnfusedPlanHasOneOpPerGroup) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({8})}, {f32({8})});
  ValueId e = b.op1(OpKind::Exponential, {x[0]}, f32({8}));
  ValueId s = b.op1(OpKind::Sine, {e}, f32({8}));
  b.ret({b.op1(OpKind::Add, {s, splat(b, f32({8}), 1.0)}, f32({8}))});
  b.endFunction();
  PlanOptions options;
  options.fuse = false;
  Plan plan = planAndCheck(built, options);
  ASSERT_EQ(plan.fusions.size(), 3u);
  EXPECT_EQ(plan.fusions[0].ops, std::vector<size_t>{0});
  EXPECT_EQ(plan.fusions[1].ops, std::vector<size_t>{1});
  EXPECT_EQ(plan.fusions[2].ops, (std::vector<size_t>{2, 3}));  // constant copied
  EXPECT_EQ(plan.fusions[2].inputs, std::vector<ValueId>{s});
}

// The description names values as the printer does.
TEST(LoopRules, DescribePlanLine) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({4})}, {f32({4})});
  ValueId e = b.op1(OpKind::Exponential, {x[0]}, f32({4}));
  b.ret({b.op1(OpKind::Negate, {e}, f32({4}))});
  b.endFunction();
  Plan plan = planAndCheck(built);
  EXPECT_EQ(describePlan(built.m, built.main(), plan),
            "fusion_0_loop_exponential_negate ttir/loop ops=[0,1] in=[%arg0] out=[%1]\n");
}

}  // namespace
}  // namespace jft::fusion
