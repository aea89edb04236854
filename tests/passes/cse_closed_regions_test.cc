// cse keeps a reduction's combiner closed: JAX's argmax over integers or bools
// compares a value with itself (its NaN test), which simplification folds to a
// constant inside the combiner; merging that constant with an equal one outside
// would leave the combiner reading a value from outside its region.
#include "pass_test_util.h"
#include "passes/cse.h"

namespace jft::passes {
namespace {

using namespace testing;

TEST(CseClosedRegions, CombinerKeepsItsOwnConstant) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {pred({5})}, {pred()});
  ValueId outer_false = splat(b, pred(), 0.0);
  auto args = b.beginRegion({pred(), pred()});
  ValueId inner_false = splat(b, pred(), 0.0);
  ValueId either = b.op1(OpKind::Or, {args[0], args[1]}, pred());
  b.ret({b.op1(OpKind::Or, {either, inner_false}, pred())});
  ir::Region body = b.endRegion();
  ValueId any = b.op1(OpKind::Reduce, {a[0], outer_false}, pred(),
                      ints("dimensions", {0}), {std::move(body)});
  b.ret({any});
  b.endFunction();

  EXPECT_FALSE(eliminateCommonSubexpressions(m));
  const ir::Region& combiner = mainOf(m).body.ops[1].regions[0];
  EXPECT_EQ(kindsOf(combiner), (std::vector<OpKind>{OpKind::Constant, OpKind::Or,
                                                    OpKind::Or, OpKind::Return}));
  EXPECT_EQ(combiner.ops[2].operands[1], inner_false);
}

// Inside the closed region, equal ops still merge with each other.
TEST(CseClosedRegions, EqualOpsWithinTheCombinerMerge) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({5})}, {f32()});
  ValueId zero = splat(b, f32(), 0.0);
  auto args = b.beginRegion({f32(), f32()});
  ValueId s1 = b.op1(OpKind::Add, {args[0], args[1]}, f32());
  ValueId s2 = b.op1(OpKind::Add, {args[0], args[1]}, f32());
  b.ret({b.op1(OpKind::Maximum, {s1, s2}, f32())});
  ir::Region body = b.endRegion();
  ValueId r = b.op1(OpKind::Reduce, {a[0], zero}, f32(), ints("dimensions", {0}),
                    {std::move(body)});
  b.ret({r});
  b.endFunction();

  EXPECT_TRUE(eliminateCommonSubexpressions(m));
  expectVerifies(m);
  const ir::Region& combiner = mainOf(m).body.ops[1].regions[0];
  EXPECT_EQ(kindsOf(combiner),
            (std::vector<OpKind>{OpKind::Add, OpKind::Maximum, OpKind::Return}));
  EXPECT_EQ(combiner.ops[1].operands, (std::vector<ValueId>{s1, s1}));
}

}  // namespace
}  // namespace jft::passes
