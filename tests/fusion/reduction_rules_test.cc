// Reduction fusion rules on hand-built functions: prologue, epilogue,
// broadcasts back to rows (bounded by max_row_elements), reduces of one
// space sharing a kernel, argmax's two-operand reduce.
#include <gtest/gtest.h>

#include "codegen/ttir/capability.h"
#include "fusion_test_util.h"
#include "plan_checks.h"
#include "planned_module.h"

namespace jft::fusion {
namespace {

using namespace testing;

// y = x - broadcast(sum(exp(x), rows)) over 4 rows of 1000.
void buildCentredRows(Built& built) {
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({4, 1000})}, {f32({4, 1000})});
  ValueId e = b.op1(OpKind::Exponential, {x[0]}, f32({4, 1000}));
  ValueId s = reduce(b, e, splat(b, f32(), 0.0), {1}, f32({4}));
  ValueId back = broadcast(b, s, f32({4, 1000}), {0});
  b.ret({b.op1(OpKind::Subtract, {x[0], back}, f32({4, 1000}))});
  b.endFunction();
}

TEST(ReductionRules, RowThatFitsIsOneKernel) {
  Built built;
  buildCentredRows(built);
  PlanOptions options;
  options.max_row_elements = 1000;
  Plan plan = planAndCheck(built, options);
  ASSERT_EQ(plan.fusions.size(), 1u) << built.text(plan);
  EXPECT_EQ(plan.fusions[0].family, Family::kReduction);
  EXPECT_EQ(plan.fusions[0].reduce_shape, (std::vector<int64_t>{4, 1000}));
  EXPECT_EQ(plan.fusions[0].reduced_dims, std::vector<int64_t>{1});
}

// Rows longer than max_row_elements: the reduce keeps its prologue (exp)
// but not the broadcast back and what reads it.
TEST(ReductionRules, LongRowIsNotFusedWithTheBroadcastBack) {
  Built built;
  buildCentredRows(built);
  PlanOptions options;
  options.max_row_elements = 999;
  Plan plan = planAndCheck(built, options);
  ASSERT_EQ(plan.fusions.size(), 2u) << built.text(plan);
  const Fusion& red = plan.fusions[0];
  EXPECT_EQ(red.family, Family::kReduction);
  EXPECT_EQ(red.ops, (std::vector<size_t>{0, 1, 2}));  // exp, constant, reduce
  const Fusion& loop = plan.fusions[1];
  EXPECT_EQ(loop.family, Family::kLoop);
  EXPECT_EQ(loop.ops, (std::vector<size_t>{3, 4}));  // broadcast, subtract
  // First read first: the broadcast reads the sums before subtract reads x.
  EXPECT_EQ(loop.inputs,
            (std::vector<ValueId>{red.outputs[0], built.main().body.args[0]}));
}

// Sum and sum of squares of one row (both reduces of space (F, {1})) and an
// epilogue on K = [8] combining them: one kernel with both reduces.
TEST(ReductionRules, ReducesOfOneSpaceShareAKernel) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({8, 64})}, {f32({8})});
  ValueId zero = splat(b, f32(), 0.0);
  ValueId s = reduce(b, x[0], zero, {1}, f32({8}));
  ValueId sq = b.op1(OpKind::Multiply, {x[0], x[0]}, f32({8, 64}));
  ValueId ss = reduce(b, sq, zero, {1}, f32({8}));
  ValueId mean = b.op1(OpKind::Multiply, {s, s}, f32({8}));
  b.ret({b.op1(OpKind::Subtract, {ss, mean}, f32({8}))});
  b.endFunction();
  Plan plan = planAndCheck(built);
  ASSERT_EQ(plan.fusions.size(), 1u) << built.text(plan);
  EXPECT_EQ(plan.fusions[0].family, Family::kReduction);
  EXPECT_EQ(plan.fusions[0].ops, (std::vector<size_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(plan.fusions[0].inputs, x);
}

// A reduce of another space (the row sums summed again) is its own kernel.
TEST(ReductionRules, ReduceOfAnotherSpaceStaysApart) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({8, 64})}, {f32()});
  ValueId zero = splat(b, f32(), 0.0);
  ValueId rows = reduce(b, x[0], zero, {1}, f32({8}));
  b.ret({reduce(b, rows, zero, {0}, f32())});
  b.endFunction();
  Plan plan = planAndCheck(built);
  ASSERT_EQ(plan.fusions.size(), 2u) << built.text(plan);
  EXPECT_EQ(plan.fusions[0].reduce_shape, (std::vector<int64_t>{8, 64}));
  EXPECT_EQ(plan.fusions[1].reduce_shape, std::vector<int64_t>{8});
  EXPECT_EQ(plan.fusions[1].reduced_dims, std::vector<int64_t>{0});
}

// The kept shape may carry unit dims (JAX keeps reduced dims as 1s): a
// [8] -> [8,1] broadcast, arithmetic on [8,1], and a broadcast back to rows
// stay in the kernel; a transpose of an in-kernel row value does not.
TEST(ReductionRules, UnitDimsOfTheKeptShapeStayInTheKernel) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({8, 64})}, {f32({8, 64}), f32({64, 8})});
  ValueId s = reduce(b, x[0], splat(b, f32(), 0.0), {1}, f32({8}));
  ValueId col = broadcast(b, s, f32({8, 1}), {0});
  ValueId scaled =
      b.op1(OpKind::Multiply, {col, splat(b, f32({8, 1}), 0.5)}, f32({8, 1}));
  ValueId back = broadcast(b, scaled, f32({8, 64}), {0, 1});
  ValueId y = b.op1(OpKind::Subtract, {x[0], back}, f32({8, 64}));
  ValueId t = b.op1(OpKind::Transpose, {y}, f32({64, 8}),
                    {{"permutation", std::vector<int64_t>{1, 0}}});
  b.ret({y, t});
  b.endFunction();
  Plan plan = planAndCheck(built);
  ASSERT_EQ(plan.fusions.size(), 2u) << built.text(plan);
  EXPECT_EQ(plan.fusions[0].family, Family::kReduction);
  EXPECT_EQ(plan.fusions[0].outputs, std::vector<ValueId>{y});
  EXPECT_EQ(plan.fusions[1].family, Family::kLoop);
  EXPECT_EQ(plan.fusions[1].inputs, std::vector<ValueId>{y});
}

// A broadcast that puts K on the reduced dim (not back along the kept dims)
// does not share an index with the row: [8] -> [8,8] along dim 1.
TEST(ReductionRules, BroadcastAlongTheReducedDimIsNotABroadcastBack) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({8, 8})}, {f32({8, 8})});
  ValueId s = reduce(b, x[0], splat(b, f32(), 0.0), {1}, f32({8}));
  ValueId across = broadcast(b, s, f32({8, 8}), {1});
  b.ret({b.op1(OpKind::Subtract, {x[0], across}, f32({8, 8}))});
  b.endFunction();
  Plan plan = planAndCheck(built);
  ASSERT_EQ(plan.fusions.size(), 2u) << built.text(plan);
  EXPECT_EQ(plan.fusions[0].family, Family::kReduction);
  EXPECT_EQ(plan.fusions[1].family, Family::kLoop);
}

// argmax over rows: reduce(x, iota, -inf, 0) with a (value, index) combiner.
TEST(ReductionRules, ArgmaxTwoOperandReduceIsOneKernel) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({4, 8})}, {f32({4}), i32({4})});
  ValueId idx = b.op1(OpKind::Iota, {}, i32({4, 8}), {{"iota_dimension", int64_t{1}}});
  ValueId ninf = splat(b, f32(), -1e30);
  ValueId zero = splat(b, i32(), 0);
  auto args = b.beginRegion({f32(), i32(), f32(), i32()});
  ValueId gt = b.op1(OpKind::Compare, {args[0], args[2]}, pred(),
                     {{"comparison_direction", ir::ComparisonDirection::GT}});
  ValueId v = b.op1(OpKind::Select, {gt, args[0], args[2]}, f32());
  ValueId i = b.op1(OpKind::Select, {gt, args[1], args[3]}, i32());
  b.ret({v, i});
  ir::Region combiner = b.endRegion();
  auto r = b.op(OpKind::Reduce, {x[0], idx, ninf, zero}, {f32({4}), i32({4})},
                {{"dimensions", std::vector<int64_t>{1}}}, {std::move(combiner)});
  b.ret({r[0], r[1]});
  b.endFunction();
  Plan plan = planAndCheck(built);
  ASSERT_EQ(plan.fusions.size(), 1u) << built.text(plan);
  const Fusion& f = plan.fusions[0];
  EXPECT_EQ(f.family, Family::kReduction);
  EXPECT_EQ(f.ops, (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(f.inputs, x);
  EXPECT_EQ(f.outputs, (std::vector<ValueId>{r[0], r[1]}));
  EXPECT_EQ(f.name, "fusion_0_reduction_iota_reduce");
}

// An init value computed by another op is never pulled into the kernel.
TEST(ReductionRules, ComputedInitStaysOutside) {
  Built built;
  ir::Builder b(built.m);
  auto a = b.beginFunction("main", {f32({4, 8}), f32()}, {f32({4})});
  ValueId init = b.op1(OpKind::Negate, {a[1]}, f32());
  b.ret({reduce(b, a[0], init, {1}, f32({4}))});
  b.endFunction();
  Plan plan = planAndCheck(built);
  ASSERT_EQ(plan.fusions.size(), 2u) << built.text(plan);
  EXPECT_EQ(plan.fusions[1].inputs, (std::vector<ValueId>{a[0], init}));
}

}  // namespace
}  // namespace jft::fusion
