#include "passes/integer_dot.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "integer_eval.h"
#include "pass_test_util.h"

namespace jft::passes {
namespace {

using namespace testing;

ir::DotDimensionNumbers numbers(std::vector<int64_t> lb, std::vector<int64_t> rb,
                                std::vector<int64_t> lk, std::vector<int64_t> rk) {
  return {std::move(lb), std::move(rb), std::move(lk), std::move(rk)};
}

// main(lhs, rhs) = dot_general(lhs, rhs); returns the module.
ir::Module dotModule(const Type& lhs, const Type& rhs, const Type& result,
                     const ir::DotDimensionNumbers& dn) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {lhs, rhs}, {result});
  b.setLoc(b.fileLoc("model.py", 7, 3));
  b.ret({b.op1(OpKind::DotGeneral, {args[0], args[1]}, result,
               {{"dot_dimension_numbers", dn}})});
  b.endFunction();
  return m;
}

// Lowers main's dot, checks it verifies and that no dot is left and every
// new op keeps the dot's location; returns main's value on the inputs.
Tensor lowerAndRun(ir::Module& m, const Tensor& lhs, const Tensor& rhs) {
  const ir::LocId loc = m.functions[0].body.ops[0].loc;
  EXPECT_TRUE(lowerIntegerDots(m));
  const Status verified = ir::verifyModule(m);
  EXPECT_TRUE(verified.isOk()) << verified.message();
  for (const ir::Op& op : m.functions[0].body.ops) {
    EXPECT_NE(op.kind, OpKind::DotGeneral);
    if (op.kind != OpKind::Return) {
      EXPECT_EQ(op.loc, loc) << ir::opKindName(op.kind);
    }
  }
  std::vector<Tensor> out = evaluate(m, {lhs, rhs});
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? Tensor{} : out[0];
}

// dot_general by its definition, one result element at a time.
Tensor reference(const Tensor& lhs, const Tensor& rhs, const ir::DotDimensionNumbers& dn,
                 const std::vector<int64_t>& result_dims, ElementType t) {
  auto freeOf = [](size_t rank, const std::vector<int64_t>& a,
                   const std::vector<int64_t>& c) {
    std::vector<int64_t> free;
    for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d)
      if (std::find(a.begin(), a.end(), d) == a.end() &&
          std::find(c.begin(), c.end(), d) == c.end())
        free.push_back(d);
    return free;
  };
  const auto lm = freeOf(lhs.dims.size(), dn.lhs_batching_dims, dn.lhs_contracting_dims);
  const auto rn = freeOf(rhs.dims.size(), dn.rhs_batching_dims, dn.rhs_contracting_dims);
  std::vector<int64_t> kdims;
  for (int64_t d : dn.lhs_contracting_dims)
    kdims.push_back(lhs.dims[static_cast<size_t>(d)]);
  Tensor r{result_dims, std::vector<int64_t>(static_cast<size_t>(count(result_dims)), 0)};
  for (int64_t i = 0; i < count(result_dims); ++i) {
    const auto out = unflatten(i, result_dims);
    int64_t sum = 0;
    for (int64_t k = 0; k < count(kdims); ++k) {
      const auto kk = unflatten(k, kdims);
      std::vector<int64_t> li(lhs.dims.size()), ri(rhs.dims.size());
      size_t o = 0;
      for (size_t j = 0; j < dn.lhs_batching_dims.size(); ++j, ++o) {
        li[static_cast<size_t>(dn.lhs_batching_dims[j])] = out[o];
        ri[static_cast<size_t>(dn.rhs_batching_dims[j])] = out[o];
      }
      for (int64_t d : lm) li[static_cast<size_t>(d)] = out[o++];
      for (int64_t d : rn) ri[static_cast<size_t>(d)] = out[o++];
      for (size_t j = 0; j < kk.size(); ++j) {
        li[static_cast<size_t>(dn.lhs_contracting_dims[j])] = kk[j];
        ri[static_cast<size_t>(dn.rhs_contracting_dims[j])] = kk[j];
      }
      const int64_t a = wrap(lhs.data[static_cast<size_t>(flatten(li, lhs.dims))], t);
      const int64_t b = wrap(rhs.data[static_cast<size_t>(flatten(ri, rhs.dims))], t);
      sum = wrap(sum + wrap(a * b, t), t);
    }
    r.data[static_cast<size_t>(i)] = sum;
  }
  return r;
}

Tensor iota(std::vector<int64_t> dims, int64_t start, int64_t step) {
  Tensor t{dims, {}};
  for (int64_t i = 0; i < count(dims); ++i) t.data.push_back(start + i * step);
  return t;
}

TEST(IntegerDot, MatrixProductMatchesHandValues) {
  // [[1,2,3],[4,5,6]] x [[1,0],[2,1],[-1,3]] = [[2,11],[8,23]]
  const auto dn = numbers({}, {}, {1}, {0});
  ir::Module m = dotModule(i32({2, 3}), i32({3, 2}), i32({2, 2}), dn);
  const Tensor out =
      lowerAndRun(m, {{2, 3}, {1, 2, 3, 4, 5, 6}}, {{3, 2}, {1, 0, 2, 1, -1, 3}});
  EXPECT_EQ(out.dims, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(out.data, (std::vector<int64_t>{2, 11, 8, 23}));
  // Both operands broadcast straight to [m, n, k] = [2, 2, 3] (rhs's [k, n]
  // through the map {2, 1}, no transpose), one multiply, one add-reduce.
  const auto& ops = m.functions[0].body.ops;
  std::vector<OpKind> kinds;
  for (const ir::Op& op : ops) kinds.push_back(op.kind);
  EXPECT_EQ(kinds, (std::vector<OpKind>{OpKind::BroadcastInDim, OpKind::BroadcastInDim,
                                        OpKind::Multiply, OpKind::Constant,
                                        OpKind::Reduce, OpKind::Return}));
  EXPECT_EQ(*ir::findAttrAs<std::vector<int64_t>>(ops[0].attrs, "broadcast_dimensions"),
            (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(*ir::findAttrAs<std::vector<int64_t>>(ops[1].attrs, "broadcast_dimensions"),
            (std::vector<int64_t>{2, 1}));
  const ir::Op& reduce = ops[ops.size() - 2];
  ASSERT_EQ(reduce.kind, OpKind::Reduce);
  EXPECT_EQ(*ir::findAttrAs<std::vector<int64_t>>(reduce.attrs, "dimensions"),
            std::vector<int64_t>{2});
  EXPECT_EQ(m.typeOf(reduce.operands[0]), i32({2, 2, 3}));
}

// A pred product (jnp.einsum over bools) is XLA's logical one: an output is
// true when some k has both operands true.
TEST(IntegerDot, PredProductIsAnOrOfAnds) {
  // [[1,0,1],[0,0,1]] x [[0,1],[1,0],[0,0]] = [[0,1],[0,0]]
  const auto dn = numbers({}, {}, {1}, {0});
  ir::Module m = dotModule(pred({2, 3}), pred({3, 2}), pred({2, 2}), dn);
  const Tensor out =
      lowerAndRun(m, {{2, 3}, {1, 0, 1, 0, 0, 1}}, {{3, 2}, {0, 1, 1, 0, 0, 0}});
  EXPECT_EQ(out.data, (std::vector<int64_t>{0, 1, 0, 0}));
  std::vector<OpKind> kinds;
  for (const ir::Op& op : m.functions[0].body.ops) kinds.push_back(op.kind);
  EXPECT_EQ(kinds, (std::vector<OpKind>{OpKind::BroadcastInDim, OpKind::BroadcastInDim,
                                        OpKind::And, OpKind::Constant, OpKind::Reduce,
                                        OpKind::Return}));
  EXPECT_EQ(m.functions[0].body.ops[4].regions[0].ops[0].kind, OpKind::Or);
}

TEST(IntegerDot, BatchDimsAndTransposedOperandsMatchTheDefinition) {
  // lhs [k=3, m=2, b=2], rhs [b=2, n=4, k=3] -> [b, m, n]
  const auto dn = numbers({2}, {0}, {0}, {2});
  ir::Module m = dotModule(i32({3, 2, 2}), i32({2, 4, 3}), i32({2, 2, 4}), dn);
  const Tensor lhs = iota({3, 2, 2}, -5, 1), rhs = iota({2, 4, 3}, 7, -1);
  const Tensor out = lowerAndRun(m, lhs, rhs);
  const Tensor want = reference(lhs, rhs, dn, {2, 2, 4}, ElementType::I32);
  EXPECT_EQ(out.dims, want.dims);
  EXPECT_EQ(out.data, want.data);
  // One value by hand: out[1][0][2] = sum_k lhs[k][0][1] * rhs[1][2][k]
  //   lhs[k][0][1] = -5 + 4k + 1 = -4, 0, 4; rhs[1][2][k] = 7 - (12+6+k) = -11, -12, -13
  //   = 44 + 0 - 52 = -8
  EXPECT_EQ(out.data[static_cast<size_t>(flatten({1, 0, 2}, {2, 2, 4}))], -8);
}

TEST(IntegerDot, SeveralContractingDims) {
  // lhs [2, k1=3, k2=2], rhs [k2=2, k1=3, 4] -> [2, 4]
  const auto dn = numbers({}, {}, {1, 2}, {1, 0});
  ir::Module m = dotModule(i32({2, 3, 2}), i32({2, 3, 4}), i32({2, 4}), dn);
  const Tensor lhs = iota({2, 3, 2}, 1, 1), rhs = iota({2, 3, 4}, -3, 2);
  const Tensor out = lowerAndRun(m, lhs, rhs);
  const Tensor want = reference(lhs, rhs, dn, {2, 4}, ElementType::I32);
  EXPECT_EQ(out.data, want.data);
  // out[0][0] = sum over k1,k2 of lhs[0][k1][k2] * rhs[k2][k1][0]
  //   lhs[0] = 1..6 row-major (k1,k2); rhs[k2][k1][0] = -3 + 2*(12 k2 + 4 k1)
  //   k2=0: 1*-3 + 3*5 + 5*13 = 77; k2=1: 2*21 + 4*29 + 6*37 = 380 -> 457
  EXPECT_EQ(out.data[0], 457);
}

TEST(IntegerDot, U32ProductsAndSumsWrap) {
  // [0xFFFFFFFF, 0x80000001] . [2, 2]: 0x1FFFFFFFE -> 0xFFFFFFFE, 0x100000002 -> 2,
  // and 0xFFFFFFFE + 2 wraps to 0.
  const Type u32v = tensor(ElementType::U32, {2});
  const auto dn = numbers({}, {}, {0}, {0});
  ir::Module m = dotModule(u32v, u32v, tensor(ElementType::U32), dn);
  const Tensor out = lowerAndRun(m, {{2}, {0xFFFFFFFF, 0x80000001}}, {{2}, {2, 2}});
  EXPECT_EQ(out.data, std::vector<int64_t>{0});
  ir::Module m2 = dotModule(u32v, u32v, tensor(ElementType::U32), dn);
  const Tensor out2 = lowerAndRun(m2, {{2}, {0xFFFFFFFF, 3}}, {{2}, {3, 1}});
  // 3 * 0xFFFFFFFF = 0x2FFFFFFFD -> 0xFFFFFFFD, + 3 = 0x100000000 -> 0
  EXPECT_EQ(out2.data, std::vector<int64_t>{0});
  ir::Module m3 = dotModule(u32v, u32v, tensor(ElementType::U32), dn);
  const Tensor out3 = lowerAndRun(m3, {{2}, {0xFFFFFFFF, 1}}, {{2}, {1, 5}});
  EXPECT_EQ(out3.data, std::vector<int64_t>{4});  // 0xFFFFFFFF + 5 wraps to 4
}

TEST(IntegerDot, NarrowOperandsAreConvertedToTheResultType) {
  // i8 x i8 -> i8: 100*2 + 100*1 = 300 wraps to 44.
  const auto dn = numbers({}, {}, {0}, {0});
  ir::Module m = dotModule(i8({2}), i8({2}), i8(), dn);
  EXPECT_EQ(lowerAndRun(m, {{2}, {100, 100}}, {{2}, {2, 1}}).data,
            std::vector<int64_t>{44});
  // i16 x i16 -> i32 widens first: 300*300 + 1 = 90001, no i16 wrapping.
  const Type i16v = tensor(ElementType::I16, {2});
  ir::Module w = dotModule(i16v, i16v, i32(), dn);
  EXPECT_EQ(lowerAndRun(w, {{2}, {300, 1}}, {{2}, {300, 1}}).data,
            std::vector<int64_t>{90001});
  int converts = 0;
  for (const ir::Op& op : w.functions[0].body.ops) converts += op.kind == OpKind::Convert;
  EXPECT_EQ(converts, 2);
}

TEST(IntegerDot, PlainDotIsLowered) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {i32({2, 2}), i32({2})}, {i32({2})});
  b.ret({b.op1(OpKind::Dot, {args[0], args[1]}, i32({2}))});
  b.endFunction();
  // [[1,2],[3,4]] . [5,6] = [17, 39]
  EXPECT_EQ(lowerAndRun(m, {{2, 2}, {1, 2, 3, 4}}, {{2}, {5, 6}}).data,
            (std::vector<int64_t>{17, 39}));
}

TEST(IntegerDot, LibraryAndFloatProductsAreLeftAlone) {
  const auto dn = numbers({}, {}, {1}, {0});
  ir::Module s8 = dotModule(i8({4, 8}), i8({8, 12}), i32({4, 12}), dn);
  EXPECT_FALSE(lowerIntegerDots(s8));
  EXPECT_EQ(s8.functions[0].body.ops[0].kind, OpKind::DotGeneral);
  ir::Module f = dotModule(f32({2, 3}), f32({3, 2}), f32({2, 2}), dn);
  EXPECT_FALSE(lowerIntegerDots(f));
  EXPECT_EQ(f.functions[0].body.ops[0].kind, OpKind::DotGeneral);
  EXPECT_TRUE(
      libraryComputes(ElementType::I8, ElementType::I8, ElementType::I32, 4, 12, 8));
  EXPECT_FALSE(
      libraryComputes(ElementType::I8, ElementType::I32, ElementType::I32, 4, 4, 4));
}

// einsum(..., preferred_element_type=int32) on float operands: XLA computes
// the product in the operands' float type and converts (its result caster).
TEST(IntegerDot, FloatProductWithIntegerResultIsAFloatDotThenAConvert) {
  const auto dn = numbers({}, {}, {1}, {0});
  ir::Module m = dotModule(f32({2, 3}), f32({3, 4}), i32({2, 4}), dn);
  const ir::ValueId result = m.functions[0].body.ops[0].results[0];
  ASSERT_TRUE(lowerIntegerDots(m));
  ASSERT_TRUE(ir::verifyModule(m).isOk());
  const auto& ops = m.functions[0].body.ops;
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].kind, OpKind::DotGeneral);
  EXPECT_EQ(m.typeOf(ops[0].results[0]), f32({2, 4}));
  EXPECT_EQ(ops[1].kind, OpKind::Convert);
  EXPECT_EQ(ops[1].results[0], result);
  EXPECT_EQ(m.typeOf(result), i32({2, 4}));

  // Mixed float operands meet in f32.
  ir::Module mixed =
      dotModule(tensor(ElementType::BF16, {2, 3}), f32({3, 4}), i32({2, 4}), dn);
  ASSERT_TRUE(lowerIntegerDots(mixed));
  ASSERT_TRUE(ir::verifyModule(mixed).isOk());
  const auto& mixed_ops = mixed.functions[0].body.ops;
  ASSERT_EQ(mixed_ops.size(), 4u);
  EXPECT_EQ(mixed_ops[0].kind, OpKind::Convert);
  EXPECT_EQ(mixed.typeOf(mixed_ops[0].results[0]), f32({2, 3}));
  EXPECT_EQ(mixed_ops[1].kind, OpKind::DotGeneral);
  EXPECT_EQ(mixed.typeOf(mixed_ops[1].results[0]), f32({2, 4}));
}

// cuBLASLt's int8 kernels refuse leading dimensions that are not multiples
// of 4: such s8 x s8 -> s32 products run as a reduction instead.
TEST(IntegerDot, Int8ProductsTheLibraryRefusesAreLowered) {
  const auto dn = numbers({}, {}, {1}, {0});
  ir::Module m = dotModule(i8({2, 3}), i8({3, 2}), i32({2, 2}), dn);
  // [[1,2,3],[4,5,-6]] x [[7,8],[9,10],[11,-128]] = [[58,-356],[7,850]]
  EXPECT_EQ(
      lowerAndRun(m, {{2, 3}, {1, 2, 3, 4, 5, -6}}, {{3, 2}, {7, 8, 9, 10, 11, -128}})
          .data,
      (std::vector<int64_t>{58, -356, 7, 850}));
  EXPECT_FALSE(
      libraryComputes(ElementType::I8, ElementType::I8, ElementType::I32, 2, 2, 3));
  EXPECT_FALSE(
      libraryComputes(ElementType::I8, ElementType::I8, ElementType::I32, 4, 4, 6));
}

TEST(IntegerDot, ProductsOverTwoToThe31ElementsAreLeftAlone) {
  // [2048 x 1024] x [1024 x 1024]: the broadcast shape has 2^31 elements.
  const auto dn = numbers({}, {}, {1}, {0});
  ir::Module fits =
      dotModule(i32({2048, 1024}), i32({1024, 1024}), i32({2048, 1024}), dn);
  EXPECT_TRUE(lowerIntegerDots(fits));
  ir::Module big = dotModule(i32({4096, 1024}), i32({1024, 1024}), i32({4096, 1024}), dn);
  EXPECT_FALSE(lowerIntegerDots(big));
  EXPECT_EQ(big.functions[0].body.ops[0].kind, OpKind::DotGeneral);
}

}  // namespace
}  // namespace jft::passes
