// Width-changing bitcast_convert, expanded and run by the reference
// evaluator: narrow elements along the minor dim fill the wide element from
// its low bits (little-endian), both ways, signed types through their bits.
#include "passes/bitcast_widths.h"

#include <gtest/gtest.h>

#include "integer_eval.h"
#include "pass_test_util.h"

namespace jft::passes {
namespace {

using namespace testing;

Tensor bitcast(const Type& from, const Type& to, const Tensor& x) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {from}, {to});
  b.ret({b.op1(OpKind::BitcastConvert, {args[0]}, to)});
  b.endFunction();
  EXPECT_TRUE(expandWidthChangingBitcasts(m));
  EXPECT_TRUE(ir::verifyModule(m).isOk()) << ir::verifyModule(m).message();
  for (const ir::Op& op : m.functions[0].body.ops)
    if (op.kind == OpKind::BitcastConvert) {
      EXPECT_EQ(ir::bitWidth(m.typeOf(op.operands[0]).element),
                ir::bitWidth(m.typeOf(op.results[0]).element));
    }
  return evaluate(m, {x}).at(0);
}

TEST(BitcastWidths, JaxRbgKeyRoundTrip) {
  // u32[4] reshaped to [2, 2] -> u64[2]: [a | b << 32, c | d << 32].
  const Tensor words{{2, 2}, {0x11111111, static_cast<int64_t>(0xFFFFFFFEu), 5, 0}};
  const Tensor wide =
      bitcast(tensor(ElementType::U32, {2, 2}), tensor(ElementType::U64, {2}), words);
  EXPECT_EQ(wide.data,
            (std::vector<int64_t>{static_cast<int64_t>(0xFFFFFFFE11111111ULL), 5}));
  const Tensor back =
      bitcast(tensor(ElementType::U64, {2}), tensor(ElementType::U32, {2, 2}), wide);
  EXPECT_EQ(back.dims, words.dims);
  EXPECT_EQ(back.data, words.data);
}

TEST(BitcastWidths, BytesOfSignedWordsLowByteFirst) {
  // i32 -1 and 0x01020304 as u8[4] each.
  const Tensor x{{2}, {-1, 0x01020304}};
  const Tensor bytes =
      bitcast(tensor(ElementType::I32, {2}), tensor(ElementType::U8, {2, 4}), x);
  EXPECT_EQ(bytes.data, (std::vector<int64_t>{255, 255, 255, 255, 4, 3, 2, 1}));
  // And four i8 into one i32: 0x80 0x00 0x00 0x80 -> 0x80000080 (negative).
  const Tensor y{{1, 4}, {-128, 0, 0, -128}};
  const Tensor word =
      bitcast(tensor(ElementType::I8, {1, 4}), tensor(ElementType::I32, {1}), y);
  EXPECT_EQ(word.data,
            (std::vector<int64_t>{static_cast<int64_t>(int32_t(0x80000080u))}));
}

TEST(BitcastWidths, SameWidthAndSubByteAreLeftAlone) {
  for (auto [from, to] :
       {std::pair{tensor(ElementType::F32, {3}), tensor(ElementType::U32, {3})},
        std::pair{tensor(ElementType::I4, {3, 2}), tensor(ElementType::I8, {3})}}) {
    ir::Module m;
    ir::Builder b(m);
    auto args = b.beginFunction("main", {from}, {to});
    b.ret({b.op1(OpKind::BitcastConvert, {args[0]}, to)});
    b.endFunction();
    EXPECT_FALSE(expandWidthChangingBitcasts(m));
  }
}

}  // namespace
}  // namespace jft::passes
