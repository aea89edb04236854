// foldIntegerOp edge cases, checked against numpy: pred arithmetic is
// logical (np.add on bools is np.logical_or), conversions fold only when the
// value is kept (np.int32(-1).astype(np.uint32) wraps, which StableHLO does
// not promise), any non-zero integer converts to true.
#include "passes/integer_fold.h"

#include "pass_test_util.h"
#include "passes/literal_elements.h"

namespace jft::passes {
namespace {

using namespace testing;

std::optional<ir::DenseElements> fold(OpKind kind,
                                      const std::vector<ir::DenseElements>& in,
                                      const Type& result) {
  ir::Op op;
  op.kind = kind;
  return foldIntegerOp(op, in, result);
}

TEST(IntegerFold, PredAddIsOrAndMultiplyIsAnd) {
  const ir::DenseElements a = ir::denseFromValues(pred({4}), {0, 0, 1, 1});
  const ir::DenseElements b = ir::denseFromValues(pred({4}), {0, 1, 0, 1});
  std::optional<ir::DenseElements> sum = fold(OpKind::Add, {a, b}, pred({4}));
  ASSERT_TRUE(sum.has_value());
  EXPECT_EQ(sum->bytes, (std::vector<uint8_t>{0, 1, 1, 1}));
  std::optional<ir::DenseElements> product = fold(OpKind::Multiply, {a, b}, pred({4}));
  ASSERT_TRUE(product.has_value());
  EXPECT_EQ(product->bytes, (std::vector<uint8_t>{0, 0, 0, 1}));
  EXPECT_FALSE(fold(OpKind::Subtract, {a, b}, pred({4})).has_value());
  EXPECT_FALSE(fold(OpKind::Negate, {a}, pred({4})).has_value());
}

TEST(IntegerFold, ConversionsKeepValuesOrDoNotFold) {
  const Type u32 = tensor(ElementType::U32, {1});
  EXPECT_FALSE(fold(OpKind::Convert, {ir::denseFromValues(i32({1}), {-1})}, u32));
  std::optional<ir::DenseElements> kept =
      fold(OpKind::Convert, {ir::denseFromValues(i32({1}), {70000})}, u32);
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(elementInteger(*kept, 0), 70000);
  // u64 max does not fit i64; it does fit u64.
  const Type u64 = tensor(ElementType::U64, {1});
  const ir::DenseElements max = ir::denseFromBits(u64, {~uint64_t{0}});
  EXPECT_FALSE(fold(OpKind::Convert, {max}, tensor(ElementType::I64, {1})).has_value());
  std::optional<ir::DenseElements> same = fold(OpKind::Convert, {max}, u64);
  ASSERT_TRUE(same.has_value());
  EXPECT_EQ(same->bytes, max.bytes);
  std::optional<ir::DenseElements> truth =
      fold(OpKind::Convert, {ir::denseFromValues(i32({3}), {2, 0, -5})}, pred({3}));
  ASSERT_TRUE(truth.has_value());
  EXPECT_EQ(truth->bytes, (std::vector<uint8_t>{1, 0, 1}));
}

TEST(IntegerFold, UnsignedCompareAndShiftsOutOfRange) {
  const Type u8 = tensor(ElementType::U8, {2});
  ir::Op less;
  less.kind = OpKind::Compare;
  less.attrs = {{"comparison_direction", ir::ComparisonDirection::LT}};
  // 200 < 100 is false for u8 (it would be true read as i8: -56 < 100).
  std::optional<ir::DenseElements> result = foldIntegerOp(
      less, {ir::denseFromValues(u8, {200, 1}), ir::denseFromValues(u8, {100, 2})},
      pred({2}));
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->bytes, (std::vector<uint8_t>{0, 1}));
  // Shifting an i32 by 32 or by -1 is left to the implementation: no fold.
  EXPECT_FALSE(
      fold(OpKind::ShiftLeft,
           {ir::denseFromValues(i32({1}), {1}), ir::denseFromValues(i32({1}), {32})},
           i32({1})));
  EXPECT_FALSE(
      fold(OpKind::ShiftRightLogical,
           {ir::denseFromValues(i32({1}), {1}), ir::denseFromValues(i32({1}), {-1})},
           i32({1})));
  // Floats never fold.
  EXPECT_FALSE(
      fold(OpKind::Add,
           {ir::denseFromValues(f32({1}), {1}), ir::denseFromValues(f32({1}), {2})},
           f32({1})));
}

}  // namespace
}  // namespace jft::passes
