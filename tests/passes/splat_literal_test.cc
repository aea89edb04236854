// Splat literals (one element kept for a whole tensor, as the frontend
// imports MLIR's splats) through the rewrites: CSE merges equal values
// whatever their storage and keeps different ones apart, identities see a
// splat of a 2^26-element type, and integer folding reads splats element by
// element. Expected values are hand computed.
#include <cstring>
#include <optional>

#include "pass_test_util.h"
#include "passes/canonicalize.h"
#include "passes/cse.h"
#include "passes/integer_fold.h"
#include "passes/literal_elements.h"
#include "passes/simplify.h"

namespace jft::passes {
namespace {

using namespace testing;

// JAX's size in jax.random.normal(key, (1 << 26,)).
constexpr int64_t kBig = int64_t{1} << 26;

// A constant of `type` whose every element is the f32 `value`, kept as one.
ValueId compactF32(ir::Builder& b, const Type& type, float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return b.constant(splatLiteral(type, bits));
}

ValueId compactI32(ir::Builder& b, const Type& type, int32_t value) {
  return b.constant(splatLiteral(type, static_cast<uint32_t>(value)));
}

const ir::DenseElements& literalOf(const ir::Op* op) {
  EXPECT_EQ(op->kind, OpKind::Constant);
  return *ir::findAttrAs<ir::DenseElements>(op->attrs, "value");
}

TEST(SplatLiterals, CseMergesEqualSplatsAndKeepsOthers) {
  const Type big = f32({kBig});
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {big}, {big});
  ValueId one = compactF32(b, big, 1.0f);
  ValueId one_again = compactF32(b, big, 1.0f);
  ValueId two = compactF32(b, big, 2.0f);
  ValueId x = b.op1(OpKind::Multiply, {a[0], one}, big);
  ValueId y = b.op1(OpKind::Multiply, {x, one_again}, big);
  b.ret({b.op1(OpKind::Add, {y, two}, big)});
  b.endFunction();

  EXPECT_TRUE(eliminateCommonSubexpressions(m));
  expectVerifies(m);
  const ir::Function& main = mainOf(m);
  EXPECT_EQ(kindsOf(main.body),
            (std::vector<OpKind>{OpKind::Constant, OpKind::Constant, OpKind::Multiply,
                                 OpKind::Multiply, OpKind::Add, OpKind::Return}));
  EXPECT_EQ(main.body.ops[3].operands, (std::vector<ValueId>{x, one}));
  EXPECT_EQ(main.body.ops[4].operands[1], two);
  // Still one element each: nothing spelled them out.
  EXPECT_EQ(literalOf(&main.body.ops[0]).bytes.size(), 4u);
  EXPECT_EQ(literalOf(&main.body.ops[1]).bytes.size(), 4u);
}

TEST(SplatLiterals, CseMergesASplatWithTheLiteralSpellingItOut) {
  const Type t = f32({4});
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {t}, {t, t});
  ValueId compact = compactF32(b, t, 3.0f);
  ValueId spelled = b.constant(ir::denseFromValues(t, {3, 3, 3, 3}));
  ValueId almost = b.constant(ir::denseFromValues(t, {3, 3, 3, 4}));
  ValueId x = b.op1(OpKind::Add, {a[0], compact}, t);
  ValueId y = b.op1(OpKind::Add, {a[0], spelled}, t);
  ValueId z = b.op1(OpKind::Add, {a[0], almost}, t);
  b.ret({b.op1(OpKind::Multiply, {x, y}, t), z});
  b.endFunction();

  EXPECT_TRUE(eliminateCommonSubexpressions(m));
  expectVerifies(m);
  const ir::Function& main = mainOf(m);
  // compact == spelled (same values), so y == x; `almost` differs.
  EXPECT_EQ(kindsOf(main.body),
            (std::vector<OpKind>{OpKind::Constant, OpKind::Constant, OpKind::Add,
                                 OpKind::Add, OpKind::Multiply, OpKind::Return}));
  EXPECT_EQ(definer(main, returned(main)[0])->operands, (std::vector<ValueId>{x, x}));
  EXPECT_EQ(definer(main, z)->operands[1], almost);
}

TEST(SplatLiterals, IdentitiesSeeHugeSplats) {
  const Type big = f32({kBig});
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {big}, {big, big});
  ValueId times_one = b.op1(OpKind::Multiply, {a[0], compactF32(b, big, 1.0f)}, big);
  ValueId times_two = b.op1(OpKind::Multiply, {a[0], compactF32(b, big, 2.0f)}, big);
  b.ret({times_one, times_two});
  b.endFunction();

  EXPECT_TRUE(simplifyAlgebra(m));
  expectVerifies(m);
  const ir::Function& main = mainOf(m);
  EXPECT_EQ(returned(main)[0], a[0]);
  EXPECT_EQ(definer(main, returned(main)[1])->kind, OpKind::Multiply);
}

TEST(SplatLiterals, SplatOperandsFoldToASplat) {
  const Type t = i32({8});
  ir::Module m;
  ir::Builder b(m);
  b.beginFunction("main", {}, {t, t});
  ValueId two = compactI32(b, t, 2);
  ValueId minus_three = compactI32(b, t, -3);
  ValueId steps = b.constant(ir::denseFromValues(t, {0, 1, 2, 3, 4, 5, 6, 7}));
  ValueId product = b.op1(OpKind::Multiply, {two, minus_three}, t);
  ValueId shifted = b.op1(OpKind::Add, {steps, minus_three}, t);
  b.ret({product, shifted});
  b.endFunction();

  EXPECT_TRUE(canonicalize(m));
  expectVerifies(m);
  const ir::Function& main = mainOf(m);
  // 2 * -3 = -6 everywhere, kept as one element.
  const ir::DenseElements& six = literalOf(definer(main, returned(main)[0]));
  EXPECT_TRUE(six.splat);
  EXPECT_EQ(six.bytes, (std::vector<uint8_t>{0xFA, 0xFF, 0xFF, 0xFF}));
  // i - 3 for i in 0..7: a splat read as every element.
  const ir::DenseElements& moved = literalOf(definer(main, returned(main)[1]));
  EXPECT_FALSE(moved.splat);
  EXPECT_EQ(moved, ir::denseFromValues(t, {-3, -2, -1, 0, 1, 2, 3, 4}));
}

TEST(SplatLiterals, FoldIntegerOpReadsSplatsElementByElement) {
  const Type t = pred({3});
  ir::Op op;
  op.kind = OpKind::Xor;
  const ir::DenseElements all_true = splatLiteral(t, 1);
  std::optional<ir::DenseElements> flipped =
      foldIntegerOp(op, {all_true, ir::denseFromValues(t, {1, 0, 1})}, t);
  ASSERT_TRUE(flipped.has_value());
  EXPECT_EQ(flipped->bytes, (std::vector<uint8_t>{0, 1, 0}));
  std::optional<ir::DenseElements> zero = foldIntegerOp(op, {all_true, all_true}, t);
  ASSERT_TRUE(zero.has_value());
  EXPECT_TRUE(zero->splat);
  EXPECT_EQ(zero->expanded(), (std::vector<uint8_t>{0, 0, 0}));
}

}  // namespace
}  // namespace jft::passes
