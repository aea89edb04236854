// cse: equal pure ops merge within a scope and from enclosing scopes, never
// across sibling regions, never when they have side effects.
#include "passes/cse.h"

#include "pass_test_util.h"

namespace jft::passes {
namespace {

using namespace testing;

TEST(Cse, EqualOpsMergeAndUsesFollow) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({4}), f32({4})}, {f32({4})});
  ValueId c1 = splat(b, f32({4}), 2.0);
  ValueId c2 = splat(b, f32({4}), 2.0);
  ValueId c3 = splat(b, f32({4}), 3.0);  // another value: stays
  ValueId x = b.op1(OpKind::Multiply, {a[0], c1}, f32({4}));
  ValueId y = b.op1(OpKind::Multiply, {a[0], c2}, f32({4}));
  ValueId swapped = b.op1(OpKind::Multiply, {c1, a[0]}, f32({4}));  // other operands
  ValueId sum = b.op1(OpKind::Add, {x, y}, f32({4}));
  ValueId sum2 = b.op1(OpKind::Add, {sum, swapped}, f32({4}));
  b.ret({b.op1(OpKind::Add, {sum2, c3}, f32({4}))});
  b.endFunction();

  EXPECT_TRUE(eliminateCommonSubexpressions(m));
  expectVerifies(m);
  // %c1 = 2; %c3 = 3; %x = a*%c1; %s = c1*a; %sum = x+x; ...
  const ir::Function& main = mainOf(m);
  EXPECT_EQ(kindsOf(main.body),
            (std::vector<OpKind>{OpKind::Constant, OpKind::Constant, OpKind::Multiply,
                                 OpKind::Multiply, OpKind::Add, OpKind::Add, OpKind::Add,
                                 OpKind::Return}));
  const ir::Op& first_add = main.body.ops[4];
  EXPECT_EQ(first_add.operands, (std::vector<ValueId>{x, x}));
  EXPECT_EQ(main.body.ops[2].operands, (std::vector<ValueId>{a[0], c1}));
  EXPECT_FALSE(eliminateCommonSubexpressions(m));
}

TEST(Cse, AttributesAndResultTypesMustMatch) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({2, 3})}, {f32({3, 2}), f32({6})});
  ValueId t = b.op1(OpKind::Transpose, {a[0]}, f32({3, 2}), ints("permutation", {1, 0}));
  ValueId r1 = b.op1(OpKind::Reshape, {a[0]}, f32({6}));
  ValueId r2 = b.op1(OpKind::Reshape, {a[0]}, f32({3, 2}));  // other result type
  ValueId sum = b.op1(OpKind::Add, {t, r2}, f32({3, 2}));
  b.ret({sum, r1});
  b.endFunction();
  EXPECT_FALSE(eliminateCommonSubexpressions(m));
}

TEST(Cse, SideEffectsNeverMerge) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32(), f32()}, {f32(), f32(), f32(), f32()});
  ir::NamedAttrs effect = {{"call_target_name", std::string("tick")},
                           {"has_side_effect", true}};
  ValueId e1 = b.op1(OpKind::CustomCall, {a[0]}, f32(), effect);
  ValueId e2 = b.op1(OpKind::CustomCall, {a[0]}, f32(), effect);
  ir::NamedAttrs uniform = {{"rng_distribution", ir::RngDistribution::UNIFORM}};
  ValueId shape = b.constant(ir::denseFromValues(tensor(ElementType::I64, {0}), {}));
  ValueId r1 = b.op1(OpKind::Rng, {a[0], a[1], shape}, f32(), uniform);
  ValueId r2 = b.op1(OpKind::Rng, {a[0], a[1], shape}, f32(), uniform);
  b.ret({e1, e2, r1, r2});
  b.endFunction();
  EXPECT_FALSE(eliminateCommonSubexpressions(m));
}

TEST(Cse, NestedRegionReusesEnclosingValueButSiblingsStayApart) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {pred(), f32()}, {f32(), f32()});
  ValueId outer = b.op1(OpKind::Exponential, {a[1]}, f32());
  b.beginRegion({});
  ValueId inner = b.op1(OpKind::Exponential, {a[1]}, f32());  // same as outer
  ValueId only_here = b.op1(OpKind::Sine, {a[1]}, f32());
  b.ret({b.op1(OpKind::Add, {inner, only_here}, f32())});
  ir::Region then_branch = b.endRegion();
  b.beginRegion({});
  b.ret({b.op1(OpKind::Sine, {a[1]}, f32())});  // equal to the sibling's, stays
  ir::Region else_branch = b.endRegion();
  ValueId chosen = b.op1(OpKind::If, {a[0]}, f32(), {},
                         {std::move(then_branch), std::move(else_branch)});
  // After the if: a sine at top level must not reuse one from inside a branch.
  ValueId top_sine = b.op1(OpKind::Sine, {a[1]}, f32());
  b.ret({chosen, b.op1(OpKind::Add, {outer, top_sine}, f32())});
  b.endFunction();

  EXPECT_TRUE(eliminateCommonSubexpressions(m));
  expectVerifies(m);
  const ir::Op& if_op = mainOf(m).body.ops[1];
  const ir::Region& then_region = if_op.regions[0];
  EXPECT_EQ(kindsOf(then_region),
            (std::vector<OpKind>{OpKind::Sine, OpKind::Add, OpKind::Return}));
  EXPECT_EQ(then_region.ops[1].operands[0], outer);
  EXPECT_EQ(kindsOf(if_op.regions[1]),
            (std::vector<OpKind>{OpKind::Sine, OpKind::Return}));
  EXPECT_EQ(kindsOf(mainOf(m).body),
            (std::vector<OpKind>{OpKind::Exponential, OpKind::If, OpKind::Sine,
                                 OpKind::Add, OpKind::Return}));
}

// Two reduces with the same combiner (written twice, with their own values)
// merge; a reduce with another combiner does not.
TEST(Cse, RegionOpsMergeWhenTheirRegionsAreStructurallyEqual) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({8})}, {f32(), f32(), f32()});
  ValueId zero = splat(b, f32(), 0.0);
  auto reduce = [&](OpKind combine) {
    auto args = b.beginRegion({f32(), f32()});
    b.ret({b.op1(combine, {args[0], args[1]}, f32())});
    ir::Region body = b.endRegion();
    return b.op1(OpKind::Reduce, {a[0], zero}, f32(), ints("dimensions", {0}),
                 {std::move(body)});
  };
  ValueId s1 = reduce(OpKind::Add);
  ValueId s2 = reduce(OpKind::Add);
  ValueId mx = reduce(OpKind::Maximum);
  b.ret({s1, s2, mx});
  b.endFunction();
  EXPECT_TRUE(eliminateCommonSubexpressions(m));
  expectVerifies(m);
  EXPECT_EQ(kindsOf(mainOf(m).body),
            (std::vector<OpKind>{OpKind::Constant, OpKind::Reduce, OpKind::Reduce,
                                 OpKind::Return}));
  EXPECT_EQ(returned(mainOf(m)), (std::vector<ValueId>{s1, s1, mx}));
}

TEST(Cse, EqualOpsInsideALoopBodyMerge) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32()}, {f32()});
  auto cond_args = b.beginRegion({f32()});
  ValueId limit = splat(b, f32(), 10.0);
  b.ret({b.op1(OpKind::Compare, {cond_args[0], limit}, pred(),
               {{"comparison_direction", ir::ComparisonDirection::LT}})});
  ir::Region cond = b.endRegion();
  auto body_args = b.beginRegion({f32()});
  ValueId e1 = b.op1(OpKind::Exponential, {body_args[0]}, f32());
  ValueId e2 = b.op1(OpKind::Exponential, {body_args[0]}, f32());
  b.ret({b.op1(OpKind::Add, {e1, e2}, f32())});
  ir::Region body = b.endRegion();
  b.ret({b.op1(OpKind::While, {a[0]}, f32(), {}, {std::move(cond), std::move(body)})});
  b.endFunction();
  EXPECT_TRUE(eliminateCommonSubexpressions(m));
  expectVerifies(m);
  const ir::Region& loop_body = mainOf(m).body.ops[0].regions[1];
  EXPECT_EQ(kindsOf(loop_body),
            (std::vector<OpKind>{OpKind::Exponential, OpKind::Add, OpKind::Return}));
  EXPECT_EQ(loop_body.ops[1].operands, (std::vector<ValueId>{e1, e1}));
}

TEST(Cse, AttributeOrderDoesNotMatter) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({4}), f32({4})}, {pred({4}), pred({4})});
  ValueId c1 = b.op1(OpKind::Compare, {a[0], a[1]}, pred({4}),
                     {{"comparison_direction", ir::ComparisonDirection::LT},
                      {"compare_type", ir::ComparisonType::FLOAT}});
  ValueId c2 = b.op1(OpKind::Compare, {a[0], a[1]}, pred({4}),
                     {{"compare_type", ir::ComparisonType::FLOAT},
                      {"comparison_direction", ir::ComparisonDirection::LT}});
  b.ret({c1, c2});
  b.endFunction();
  EXPECT_TRUE(eliminateCommonSubexpressions(m));
  EXPECT_EQ(returned(mainOf(m)), (std::vector<ValueId>{c1, c1}));
}

}  // namespace
}  // namespace jft::passes
