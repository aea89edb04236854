// Multi-output fusion on hand-built functions: a value read by several groups
// joins one of them as an extra output, never when that closes a cycle in the
// group graph, and the plan's order is a topological order of that graph
// (which ascending roots no longer are). Sibling loop groups merge.
#include <gtest/gtest.h>

#include <algorithm>

#include "codegen/ttir/capability.h"
#include "fusion_test_util.h"
#include "plan_checks.h"
#include "planned_module.h"

namespace jft::fusion {
namespace {

using namespace testing;

// Column 0 of a 4x8 value as a vector of 4: a loop op whose result has
// another shape than its operand.
ValueId firstColumn(ir::Builder& b, ValueId v) {
  ValueId s = b.op1(OpKind::Slice, {v}, f32({4, 1}),
                    {{"start_indices", std::vector<int64_t>{0, 0}},
                     {"limit_indices", std::vector<int64_t>{4, 1}},
                     {"strides", std::vector<int64_t>{1, 1}}});
  return b.op1(OpKind::Reshape, {s}, f32({4}));
}

// e = exp(x) read by a loop group (y = 2e, returned) and a reduction group
// (r: row sums, returned).
struct ExpReadTwice {
  Built built;
  std::vector<ValueId> x;
  ValueId e, y, r;
  ExpReadTwice() {
    ir::Builder b(built.m);
    x = b.beginFunction("main", {f32({4, 8})}, {f32({4, 8}), f32({4})});
    e = b.op1(OpKind::Exponential, {x[0]}, f32({4, 8}));
    y = b.op1(OpKind::Multiply, {e, splat(b, f32({4, 8}), 2)}, f32({4, 8}));
    r = reduce(b, e, splat(b, f32(), 0), {1}, f32({4}));
    b.ret({y, r});
    b.endFunction();
  }
};

// e becomes a second output of y's kernel, which runs first; the reduction
// reads it. Two kernels where one group per reader pattern made three (exp,
// multiply, reduce).
TEST(MultiOutput, IntermediateReadByTwoGroupsIsAnExtraOutput) {
  ExpReadTwice p;
  const Built& built = p.built;
  const std::vector<ValueId>& x = p.x;
  const ValueId e = p.e, y = p.y, r = p.r;
  Plan plan = planAndCheck(built);
  const std::string text = describePlan(built.m, built.main(), plan);
  ASSERT_EQ(plan.fusions.size(), 2u) << text;
  const ir::Function& f = built.main();
  const int host = groupOf(plan, opOf(f, e));
  ASSERT_EQ(host, groupOf(plan, opOf(f, y))) << text;
  EXPECT_EQ(host, 0) << text;
  EXPECT_EQ(plan.fusions[0].family, Family::kLoop);
  EXPECT_EQ(plan.fusions[0].outputs, (std::vector<ValueId>{e, y}));
  EXPECT_EQ(plan.fusions[0].inputs, x);
  const Fusion& sum = plan.fusions[1];
  EXPECT_EQ(sum.family, Family::kReduction);
  EXPECT_EQ(sum.inputs, std::vector<ValueId>{e});  // read, not recomputed
  EXPECT_EQ(sum.outputs, std::vector<ValueId>{r});
}

PlanOptions recomputing() {
  PlanOptions options;
  options.recompute_elementwise = true;
  return options;
}

// With PlanOptions::recompute_elementwise, e = exp(x) above is recomputed by
// the reduction from x (which it reads at the same size) instead of stored by
// the loop kernel and read back.
TEST(MultiOutput, RecomputingAnElementwiseValueInEachReaderStoresItNowhere) {
  ExpReadTwice p;
  Plan plan = planAndCheck(p.built, recomputing());
  const std::string text = p.built.text(plan);
  ASSERT_EQ(plan.fusions.size(), 2u) << text;
  for (const Fusion& fusion : plan.fusions) {
    EXPECT_EQ(fusion.inputs, p.x) << text;
    EXPECT_EQ(std::count(fusion.outputs.begin(), fusion.outputs.end(), p.e), 0) << text;
  }
}

// A gelu epilogue's residuals (tanh, 1 + tanh, 0.5 (1 + tanh)) read by the
// forward epilogue and by two backward kernels: recomputed there from the
// product's biased result, the product stores that and the gelu only, where
// it stored every residual. Values read at two sizes (the bias) or two
// stored values are never recomputed.
TEST(MultiOutput, RecomputedResidualsLeaveTheProductTwoOutputs) {
  Built built;
  ir::Builder b(built.m);
  const Type t = f32({64, 256});
  auto a = b.beginFunction("main", {f32({64, 128}), f32({128, 256}), f32({256}), t},
                           {t, f32({256}), t});
  ir::NamedAttrs attrs{{"dot_dimension_numbers", [] {
                          ir::DotDimensionNumbers dn;
                          dn.lhs_contracting_dims = {1};
                          dn.rhs_contracting_dims = {0};
                          return dn;
                        }()}};
  ValueId d = b.op1(OpKind::DotGeneral, {a[0], a[1]}, t, attrs);
  ValueId h = b.op1(OpKind::Add, {d, broadcast(b, a[2], t, {1})}, t);
  ValueId th = b.op1(OpKind::Tanh, {h}, t);
  ValueId u = b.op1(OpKind::Add, {splat(b, t, 1), th}, t);
  ValueId half = b.op1(OpKind::Multiply, {splat(b, t, 0.5), u}, t);
  ValueId gelu = b.op1(OpKind::Multiply, {h, half}, t);
  const ValueId dy = a[3];
  ValueId du = b.op1(OpKind::Multiply, {dy, half}, t);
  ValueId bias_grad = reduce(b, du, splat(b, f32(), 0), {0}, f32({256}));
  ValueId dt = b.op1(OpKind::Multiply, {dy, b.op1(OpKind::Multiply, {th, h}, t)}, t);
  b.ret({gelu, bias_grad, dt});
  b.endFunction();
  PlanOptions options = recomputing();
  options.matmul = MatmulRoute::kTtir;
  Plan plan = planAndCheck(built, options);
  const std::string text = describePlan(built.m, built.main(), plan);
  const int product = groupOf(plan, opOf(built.main(), d));
  ASSERT_GE(product, 0) << text;
  EXPECT_EQ(plan.fusions[static_cast<size_t>(product)].family, Family::kMatmul) << text;
  std::vector<ValueId> stored = plan.fusions[static_cast<size_t>(product)].outputs;
  std::sort(stored.begin(), stored.end());
  std::vector<ValueId> expected = {h, gelu};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(stored, expected) << text;
  for (const Fusion& fusion : plan.fusions)
    for (ValueId residual : {th, u, half})
      EXPECT_EQ(std::count(fusion.inputs.begin(), fusion.inputs.end(), residual), 0)
          << "%" << residual << " is recomputed, not read\n"
          << text;

  Plan stores = planAndCheck(built, [] {
    PlanOptions o;
    o.matmul = MatmulRoute::kTtir;
    return o;
  }());
  const int before = groupOf(stores, opOf(built.main(), d));
  EXPECT_GT(stores.fusions[static_cast<size_t>(before)].outputs.size(), 2u)
      << "without the option the residuals are stored\n"
      << describePlan(built.m, built.main(), stores);
}

// The same value also returned: still one write, by the kernel hosting it.
TEST(MultiOutput, ReturnedIntermediateIsStoredOnce) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({4})}, {f32({4}), f32({4}), f32({4})});
  ValueId e = b.op1(OpKind::Exponential, {x[0]}, f32({4}));
  ValueId n = b.op1(OpKind::Negate, {e}, f32({4}));
  ValueId s = b.op1(OpKind::Sqrt, {e}, f32({4}));
  b.ret({n, s, e});
  b.endFunction();
  Plan plan = planAndCheck(built);
  const std::string text = describePlan(built.m, built.main(), plan);
  ASSERT_EQ(plan.fusions.size(), 2u) << text;
  EXPECT_EQ(plan.fusions[0].outputs, (std::vector<ValueId>{e, n})) << text;
  EXPECT_EQ(plan.fusions[1].inputs, std::vector<ValueId>{e}) << text;
  EXPECT_EQ(plan.fusions[1].outputs, std::vector<ValueId>{s}) << text;
}

// A loop kernel stores values of its root's shape only: a 4x8 value read by
// a group whose root is 4 long and by one whose root is 4x8 joins the second
// (the only one that can store it), although the first comes first in
// program order. That group must then run first: ascending roots would put
// the reader before the writer, the topological order does not.
TEST(MultiOutput, OrderIsTopologicalNotByRoot) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({4, 8}), f32({4})}, {f32({4}), f32({4, 8})});
  ValueId v = b.op1(OpKind::Exponential, {x[0]}, f32({4, 8}));
  ValueId g1 = b.op1(OpKind::Add, {firstColumn(b, v), x[1]}, f32({4}));
  ValueId g2 = b.op1(OpKind::Multiply, {v, splat(b, f32({4, 8}), 3)}, f32({4, 8}));
  b.ret({g1, g2});
  b.endFunction();
  Plan plan = planAndCheck(built);
  const std::string text = describePlan(built.m, built.main(), plan);
  const ir::Function& f = built.main();
  ASSERT_EQ(plan.fusions.size(), 2u) << text;
  // g1's op comes before g2's in the function, g2's group runs first.
  ASSERT_LT(opOf(f, g1), opOf(f, g2));
  EXPECT_EQ(groupOf(plan, opOf(f, v)), 0) << text;
  EXPECT_EQ(groupOf(plan, opOf(f, g2)), 0) << text;
  EXPECT_EQ(groupOf(plan, opOf(f, g1)), 1) << text;
  EXPECT_EQ(plan.fusions[0].outputs, (std::vector<ValueId>{v, g2})) << text;
  EXPECT_EQ(plan.fusions[1].inputs, (std::vector<ValueId>{v, x[1]})) << text;
}

// A -> B -> C where joining would close a cycle. i = log(y) is read by group
// G1 (root g1, 4 long) and by G2 (root g2, 4x8, through a copied broadcast);
// it joins G1, the first, which then feeds G2. v = exp(x) is read by G1 (a
// column of it) and G2; G1 cannot store a 4x8 value, and v in G2 would make
// G2 feed G1 while G1 feeds G2. So v keeps a group of its own: v's group ->
// G1 -> G2.
TEST(MultiOutput, JoinThatWouldCloseACycleIsRefused) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({4, 8}), f32({4})}, {f32({4}), f32({4, 8})});
  ValueId v = b.op1(OpKind::Exponential, {x[0]}, f32({4, 8}));
  ValueId i = b.op1(OpKind::Log, {x[1]}, f32({4}));
  ValueId g1 = b.op1(OpKind::Add, {firstColumn(b, v), i}, f32({4}));
  ValueId wide = broadcast(b, i, f32({4, 8}), {0});
  ValueId g2 = b.op1(OpKind::Multiply, {v, wide}, f32({4, 8}));
  b.ret({g1, g2});
  b.endFunction();
  Plan plan = planAndCheck(built);
  const std::string text = describePlan(built.m, built.main(), plan);
  const ir::Function& f = built.main();
  ASSERT_EQ(plan.fusions.size(), 3u) << text;
  EXPECT_EQ(groupOf(plan, opOf(f, v)), 0) << text;
  EXPECT_EQ(plan.fusions[0].ops, std::vector<size_t>{opOf(f, v)}) << text;
  EXPECT_EQ(groupOf(plan, opOf(f, i)), 1) << text;
  EXPECT_EQ(groupOf(plan, opOf(f, g1)), 1) << text;
  EXPECT_EQ(plan.fusions[1].outputs, (std::vector<ValueId>{i, g1})) << text;
  EXPECT_EQ(groupOf(plan, opOf(f, g2)), 2) << text;
  EXPECT_EQ(plan.fusions[2].inputs, (std::vector<ValueId>{i, v})) << text;
}

// Layer norm's forward with the centred value also read elsewhere (here a
// transpose, as a backward pass would): the whole normalisation is one
// reduction kernel that stores the centred x (shape F, a row of 8 fits a tile)
// besides its result; the transpose reads it. Without multi-output fusion the
// centring (with the mean) was a kernel of its own.
TEST(MultiOutput, ReductionGroupStoresAFullShapeValue) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({4, 8})}, {f32({4, 8}), f32({8, 4})});
  ValueId zero = splat(b, f32(), 0);
  ValueId sum = reduce(b, x[0], zero, {1}, f32({4}));
  ValueId mean = b.op1(OpKind::Divide, {sum, splat(b, f32({4}), 8)}, f32({4}));
  ValueId xc =
      b.op1(OpKind::Subtract, {x[0], broadcast(b, mean, f32({4, 8}), {0})}, f32({4, 8}));
  ValueId sq = b.op1(OpKind::Multiply, {xc, xc}, f32({4, 8}));
  ValueId var = reduce(b, sq, zero, {1}, f32({4}));
  ValueId rstd = b.op1(OpKind::Rsqrt, {var}, f32({4}));
  ValueId y =
      b.op1(OpKind::Multiply, {xc, broadcast(b, rstd, f32({4, 8}), {0})}, f32({4, 8}));
  ValueId t = b.op1(OpKind::Transpose, {xc}, f32({8, 4}),
                    {{"permutation", std::vector<int64_t>{1, 0}}});
  b.ret({y, t});
  b.endFunction();
  Plan plan = planAndCheck(built);
  const std::string text = describePlan(built.m, built.main(), plan);
  const ir::Function& f = built.main();
  ASSERT_EQ(plan.fusions.size(), 2u) << text;
  const Fusion& norm = plan.fusions[0];
  EXPECT_EQ(norm.family, Family::kReduction) << text;
  for (ValueId v : {sum, mean, xc, var, rstd, y})
    EXPECT_EQ(groupOf(plan, opOf(f, v)), 0) << text;
  EXPECT_EQ(norm.outputs, (std::vector<ValueId>{xc, y})) << text;
  EXPECT_EQ(plan.fusions[1].inputs, std::vector<ValueId>{xc}) << text;
}

// The same with rows longer than max_row_elements: a reduction kernel cannot
// store a value of the full shape (it never holds a whole row), so the
// centred x is not an extra output of the variance's group.
TEST(MultiOutput, FullShapeValueNotStoredWhenRowsDoNotFit) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({4, 8})}, {f32({4}), f32({8, 4})});
  ValueId e = b.op1(OpKind::Exponential, {x[0]}, f32({4, 8}));
  ValueId sum = reduce(b, e, splat(b, f32(), 0), {1}, f32({4}));
  ValueId t = b.op1(OpKind::Transpose, {e}, f32({8, 4}),
                    {{"permutation", std::vector<int64_t>{1, 0}}});
  b.ret({sum, t});
  b.endFunction();
  PlanOptions narrow;
  narrow.max_row_elements = 4;
  Plan plan = planAndCheck(built, narrow);
  const std::string text = describePlan(built.m, built.main(), plan);
  const ir::Function& f = built.main();
  // e joins neither the reduction (a full-shape store) nor the transpose
  // (its root is 8x4, e is 4x8).
  ASSERT_EQ(plan.fusions.size(), 3u) << text;
  EXPECT_EQ(plan.fusions[static_cast<size_t>(groupOf(plan, opOf(f, e)))].ops,
            std::vector<size_t>{opOf(f, e)})
      << text;
  // With the default bound e is stored by the reduction kernel.
  Plan wide = planAndCheck(built);
  EXPECT_EQ(wide.fusions.size(), 2u) << describePlan(built.m, built.main(), wide);
  EXPECT_EQ(groupOf(wide, opOf(f, e)), groupOf(wide, opOf(f, sum)));
}

// With fusion off nothing joins, extra outputs included.
TEST(MultiOutput, NoFusionKeepsOneGroupPerOp) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({4})}, {f32({4}), f32({4})});
  ValueId e = b.op1(OpKind::Exponential, {x[0]}, f32({4}));
  b.ret({b.op1(OpKind::Negate, {e}, f32({4})), b.op1(OpKind::Sqrt, {e}, f32({4}))});
  b.endFunction();
  PlanOptions off;
  off.fuse = false;
  EXPECT_EQ(planAndCheck(built, off).fusions.size(), 3u);
}

// Siblings: two loop kernels of one shape reading the same parameter, with
// no path between them, are one kernel that reads it once and stores both.
TEST(SiblingFusion, SameShapeReadersOfOneInputMerge) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({4, 4})}, {f32({4, 4}), f32({4, 4})});
  ValueId e = b.op1(OpKind::Exponential, {x[0]}, f32({4, 4}));
  ValueId l = b.op1(OpKind::Log, {x[0]}, f32({4, 4}));
  b.ret({e, l});
  b.endFunction();
  Plan plan = planAndCheck(built);
  ASSERT_EQ(plan.fusions.size(), 1u) << describePlan(built.m, built.main(), plan);
  EXPECT_EQ(plan.fusions[0].inputs, x);
  EXPECT_EQ(plan.fusions[0].outputs, (std::vector<ValueId>{e, l}));
  PlanOptions off;
  off.fuse = false;
  EXPECT_EQ(planAndCheck(built, off).fusions.size(), 2u);
}

// Same shape, same input, but one feeds the other through a library product
// (exp -> dot -> add): merging would need the product both before and after
// the merged kernel, so they stay apart.
TEST(SiblingFusion, SiblingsWithAPathBetweenThemStayApart) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({4, 4})}, {f32({4, 4})});
  ValueId a = b.op1(OpKind::Exponential, {x[0]}, f32({4, 4}));
  ir::DotDimensionNumbers dn;
  dn.lhs_contracting_dims = {1};
  dn.rhs_contracting_dims = {0};
  ValueId d =
      b.op1(OpKind::DotGeneral, {a, a}, f32({4, 4}), {{"dot_dimension_numbers", dn}});
  ValueId sum = b.op1(OpKind::Add, {x[0], d}, f32({4, 4}));
  b.ret({sum});
  b.endFunction();
  PlanOptions options;
  options.library_route = true;
  options.matmul = MatmulRoute::kLibrary;
  Plan plan = planAndCheck(built, options);
  const std::string text = describePlan(built.m, built.main(), plan);
  const ir::Function& f = built.main();
  ASSERT_EQ(plan.fusions.size(), 3u) << text;
  EXPECT_EQ(groupOf(plan, opOf(f, a)), 0) << text;
  EXPECT_EQ(plan.fusions[1].route, Route::kLibrary) << text;
  EXPECT_EQ(groupOf(plan, opOf(f, sum)), 2) << text;
}

// Reductions of one space reading one input merge too; the splat constant
// both copied stays one copy, not an input.
TEST(SiblingFusion, ReductionsOfOneSpaceMerge) {
  Built built;
  ir::Builder b(built.m);
  auto x = b.beginFunction("main", {f32({4, 8})}, {f32({4}), f32({4})});
  ValueId zero = splat(b, f32(), 0);
  ValueId sum = reduce(b, x[0], zero, {1}, f32({4}));
  ValueId max = reduce(b, x[0], zero, {1}, f32({4}), OpKind::Maximum);
  b.ret({sum, max});
  b.endFunction();
  Plan plan = planAndCheck(built);
  ASSERT_EQ(plan.fusions.size(), 1u) << describePlan(built.m, built.main(), plan);
  const Fusion& f = plan.fusions[0];
  EXPECT_EQ(f.family, Family::kReduction);
  EXPECT_EQ(f.inputs, x);
  EXPECT_EQ(f.outputs, (std::vector<ValueId>{sum, max}));
  EXPECT_EQ(f.ops, (std::vector<size_t>{0, 1, 2}));
  // Another space (the other dim) stays apart.
  Built other;
  ir::Builder c(other.m);
  auto y = c.beginFunction("main", {f32({4, 8})}, {f32({4}), f32({8})});
  ValueId z = splat(c, f32(), 0);
  c.ret({reduce(c, y[0], z, {1}, f32({4})), reduce(c, y[0], z, {0}, f32({8}))});
  c.endFunction();
  EXPECT_EQ(planAndCheck(other).fusions.size(), 2u);
}

}  // namespace
}  // namespace jft::fusion
