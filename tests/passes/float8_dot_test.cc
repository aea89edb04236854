// float8 products on 16-bit operands: the converts feed a dot of the same
// dimension numbers, the result keeps its id, a float8 result is one
// rounding of the f32 accumulation, other products are left alone.
#include "passes/float8_dot.h"

#include <gtest/gtest.h>

#include "pass_test_util.h"

namespace jft::passes {
namespace {

using namespace testing;

ir::Module f8Dot(ElementType lhs, ElementType rhs, ElementType result,
                 ir::NamedAttrs extra = {}) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {tensor(lhs, {3, 4}), tensor(rhs, {4, 5})},
                              {tensor(result, {3, 5})});
  ir::DotDimensionNumbers dn;
  dn.lhs_contracting_dims = {1};
  dn.rhs_contracting_dims = {0};
  ir::NamedAttrs attrs = {{"dot_dimension_numbers", dn}};
  for (auto& a : extra) attrs.push_back(a);
  b.ret({b.op1(OpKind::DotGeneral, {args[0], args[1]}, tensor(result, {3, 5}), attrs)});
  b.endFunction();
  return m;
}

const ir::Op& onlyDot(const ir::Module& m) {
  const ir::Op* dot = nullptr;
  for (const ir::Op& op : m.functions[0].body.ops)
    if (op.kind == OpKind::DotGeneral) {
      EXPECT_EQ(dot, nullptr);
      dot = &op;
    }
  return *dot;
}

TEST(Float8Dot, OperandsWidenToF16ForAnF32Result) {
  ir::Module m = f8Dot(ElementType::F8E4M3FN, ElementType::F8E5M2, ElementType::F32);
  const ValueId result = m.functions[0].body.ops[0].results[0];
  ASSERT_TRUE(widenFloat8Dots(m));
  ASSERT_TRUE(ir::verifyModule(m).isOk()) << ir::verifyModule(m).message();
  const ir::Op& dot = onlyDot(m);
  EXPECT_EQ(dot.results[0], result);
  EXPECT_EQ(m.typeOf(dot.operands[0]), tensor(ElementType::F16, {3, 4}));
  EXPECT_EQ(m.typeOf(dot.operands[1]), tensor(ElementType::F16, {4, 5}));
  EXPECT_NE(ir::findAttrAs<ir::DotDimensionNumbers>(dot.attrs, "dot_dimension_numbers"),
            nullptr);
}

TEST(Float8Dot, Bf16ResultTakesBf16Operands) {
  ir::Module m = f8Dot(ElementType::F8E4M3FN, ElementType::F8E4M3FN, ElementType::BF16);
  ASSERT_TRUE(widenFloat8Dots(m));
  EXPECT_EQ(m.typeOf(onlyDot(m).operands[0]).element, ElementType::BF16);
}

TEST(Float8Dot, Float8ResultIsAccumulatedInF32ThenRoundedOnce) {
  ir::Module m = f8Dot(ElementType::F8E5M2, ElementType::F8E5M2, ElementType::F8E5M2);
  const ValueId result = m.functions[0].body.ops[0].results[0];
  ASSERT_TRUE(widenFloat8Dots(m));
  ASSERT_TRUE(ir::verifyModule(m).isOk()) << ir::verifyModule(m).message();
  const ir::Op& dot = onlyDot(m);
  EXPECT_EQ(m.typeOf(dot.results[0]), tensor(ElementType::F32, {3, 5}));
  const auto& ops = m.functions[0].body.ops;
  const ir::Op& last = ops[ops.size() - 2];  // before the return
  EXPECT_EQ(last.kind, OpKind::Convert);
  EXPECT_EQ(last.operands[0], dot.results[0]);
  EXPECT_EQ(last.results[0], result);
}

TEST(Float8Dot, OtherProductsAreLeftAlone) {
  ir::Module f16 = f8Dot(ElementType::F16, ElementType::F16, ElementType::F32);
  EXPECT_FALSE(widenFloat8Dots(f16));
  ir::Module e8m0 =
      f8Dot(ElementType::F8E8M0FNU, ElementType::F8E8M0FNU, ElementType::F32);
  EXPECT_FALSE(widenFloat8Dots(e8m0));
  ir::Module mixed = f8Dot(ElementType::F8E4M3FN, ElementType::BF16, ElementType::F32);
  EXPECT_FALSE(widenFloat8Dots(mixed));
}

}  // namespace
}  // namespace jft::passes
