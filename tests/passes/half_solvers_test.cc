// 16-bit solvers in f32: the operands are widened, the op solves in f32 with
// its attributes, one convert rounds the result back under the op's id;
// f32 and mixed-type ops are left alone.
#include "passes/half_solvers.h"

#include <gtest/gtest.h>

#include "pass_test_util.h"

namespace jft::passes {
namespace {

using namespace testing;

ir::Module triangularSolve(ElementType type) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {tensor(type, {2, 4, 4}), tensor(type, {2, 4, 3})},
                              {tensor(type, {2, 4, 3})});
  ir::NamedAttrs attrs = {{"left_side", true},
                          {"lower", false},
                          {"unit_diagonal", false},
                          {"transpose_a", ir::Transpose::NO_TRANSPOSE}};
  b.ret({b.op1(OpKind::TriangularSolve, {args[0], args[1]}, tensor(type, {2, 4, 3}),
               attrs)});
  b.endFunction();
  return m;
}

const ir::Op& only(const ir::Module& m, OpKind kind) {
  const ir::Op* found = nullptr;
  for (const ir::Op& op : m.functions[0].body.ops)
    if (op.kind == kind) {
      EXPECT_EQ(found, nullptr);
      found = &op;
    }
  return *found;
}

TEST(HalfSolvers, Bf16TriangularSolveSolvesInF32) {
  ir::Module m = triangularSolve(ElementType::BF16);
  const ValueId result = m.functions[0].body.ops[0].results[0];
  ASSERT_TRUE(widenHalfSolvers(m));
  ASSERT_TRUE(ir::verifyModule(m).isOk()) << ir::verifyModule(m).message();
  const ir::Op& solve = only(m, OpKind::TriangularSolve);
  EXPECT_EQ(m.typeOf(solve.operands[0]), tensor(ElementType::F32, {2, 4, 4}));
  EXPECT_EQ(m.typeOf(solve.operands[1]), tensor(ElementType::F32, {2, 4, 3}));
  EXPECT_EQ(m.typeOf(solve.results[0]), tensor(ElementType::F32, {2, 4, 3}));
  const auto* left = ir::findAttrAs<bool>(solve.attrs, "left_side");
  ASSERT_NE(left, nullptr);
  EXPECT_TRUE(*left);
  const auto& ops = m.functions[0].body.ops;
  const ir::Op& last = ops[ops.size() - 2];  // before the return
  EXPECT_EQ(last.kind, OpKind::Convert);
  EXPECT_EQ(last.operands[0], solve.results[0]);
  EXPECT_EQ(last.results[0], result);
  EXPECT_EQ(m.typeOf(result), tensor(ElementType::BF16, {2, 4, 3}));
}

TEST(HalfSolvers, F16CholeskySolvesInF32) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {tensor(ElementType::F16, {5, 5})},
                              {tensor(ElementType::F16, {5, 5})});
  b.ret({b.op1(OpKind::Cholesky, {args[0]}, tensor(ElementType::F16, {5, 5}),
               {{"lower", true}})});
  b.endFunction();
  ASSERT_TRUE(widenHalfSolvers(m));
  ASSERT_TRUE(ir::verifyModule(m).isOk()) << ir::verifyModule(m).message();
  EXPECT_EQ(m.typeOf(only(m, OpKind::Cholesky).results[0]),
            tensor(ElementType::F32, {5, 5}));
}

TEST(HalfSolvers, OtherSolversAreLeftAlone) {
  ir::Module f32 = triangularSolve(ElementType::F32);
  EXPECT_FALSE(widenHalfSolvers(f32));
  ir::Module f64 = triangularSolve(ElementType::F64);
  EXPECT_FALSE(widenHalfSolvers(f64));
}

}  // namespace
}  // namespace jft::passes
