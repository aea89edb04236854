// The scatter family: x.at[idx].add (an embedding gradient), .set, .max on
// f32 (through the bits) and on i32, with the copy / barrier / update order
// one program needs, the window bounds check that drops out-of-range updates,
// and the planner's refusals (multiply, non-integer indices).
#include <gtest/gtest.h>

#include "emit_test_util.h"
#include "launch_dump.h"

namespace jft::codegen::ttir::testing {
namespace {

using fusion::Family;

// scatter(operand [rows, cols], idx [n, 1], upd [n, cols]) along dim 0, with
// `combine` applied as combine(current, update) (kNone: replace).
ir::Module rowScatter(ElementType element, int64_t rows, int64_t cols, int64_t n,
                      std::optional<OpKind> combine) {
  ir::Module m;
  ir::Builder b(m);
  const Type table = Type::tensor(element, {rows, cols});
  const Type upd = Type::tensor(element, {n, cols});
  auto a = b.beginFunction("main", {table, i32({n, 1}), upd}, {table});
  const Type scalar = Type::scalar(element);
  auto args = b.beginRegion({scalar, scalar});
  b.ret({combine ? b.op1(*combine, {args[0], args[1]}, scalar) : args[1]});
  ir::Region body = b.endRegion();
  ir::ScatterDimensionNumbers dn;
  dn.update_window_dims = {1};
  dn.inserted_window_dims = {0};
  dn.scatter_dims_to_operand_dims = {0};
  dn.index_vector_dim = 1;
  b.ret({b.op1(OpKind::Scatter, {a[0], a[1], a[2]}, table,
               {{"scatter_dimension_numbers", dn}}, {std::move(body)})});
  b.endFunction();
  return m;
}

TEST(EmitScatter, AddCopiesThenWaitsThenAddsAtomicallyInsideTheTable) {
  ir::Module m = rowScatter(ElementType::F32, 100, 16, 32, OpKind::Add);
  const fusion::Plan plan = fusion::planFusions(m, *m.entry());
  ASSERT_TRUE(plan.unsupported.empty()) << plan.unsupported[0].reason;
  ASSERT_EQ(plan.fusions.size(), 1u);
  EXPECT_EQ(plan.fusions[0].family, Family::kScatter);
  TtirKernel k = emitWhole(m, Family::kScatter);
  dumpLaunch(k);
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{1, 1, 1}));
  const size_t copy = k.ttir.find("tt.store ");
  const size_t barrier = k.ttir.find("gpu.barrier");
  const size_t atomic = k.ttir.find("tt.atomic_rmw fadd, acq_rel, gpu, ");
  ASSERT_NE(copy, std::string::npos);
  ASSERT_NE(barrier, std::string::npos);
  ASSERT_NE(atomic, std::string::npos);
  EXPECT_LT(copy, barrier);
  EXPECT_LT(barrier, atomic);
  EXPECT_EQ(count(k.ttir, "scf.for"), 2);
  // Row index in [0, 100 - 1]: both ends checked, nothing clamped.
  EXPECT_NE(k.ttir.find("arith.cmpi sle"), std::string::npos);
  EXPECT_NE(k.ttir.find("arith.cmpi sge"), std::string::npos);
  EXPECT_NE(k.ttir.find("dense<99> : tensor<1024xi32>"), std::string::npos);
  EXPECT_EQ(count(k.ttir, "arith.minsi"), 0);
  EXPECT_EQ(count(k.ttir, "tt.load "), 3);  // operand, indices, updates
}

TEST(EmitScatter, SetIsAMaskedStore) {
  ir::Module m = rowScatter(ElementType::BF16, 10, 4, 3, std::nullopt);
  TtirKernel k = emitWhole(m, Family::kScatter);
  dumpLaunch(k);
  EXPECT_EQ(count(k.ttir, "tt.atomic_rmw"), 0);
  EXPECT_EQ(count(k.ttir, "tt.store "), 2);  // the copy, then the updates
  EXPECT_NE(k.ttir.find("dense<9> : tensor<1024xi32>"), std::string::npos);
}

TEST(EmitScatter, FloatMaxGoesThroughTheBits) {
  ir::Module f = rowScatter(ElementType::F32, 10, 4, 3, OpKind::Maximum);
  TtirKernel k = emitWhole(f, Family::kScatter);
  dumpLaunch(k);
  EXPECT_EQ(count(k.ttir, "tt.atomic_rmw max, "), 1);   // non-negative values
  EXPECT_EQ(count(k.ttir, "tt.atomic_rmw umin, "), 1);  // negative ones
  EXPECT_NE(k.ttir.find("-> tensor<1024x!tt.ptr<i32>>"), std::string::npos);
}

TEST(EmitScatter, IntMinIsDirect) {
  ir::Module i = rowScatter(ElementType::I32, 10, 4, 3, OpKind::Minimum);
  TtirKernel ki = emitWhole(i, Family::kScatter);
  dumpLaunch(ki);
  EXPECT_EQ(count(ki.ttir, "tt.atomic_rmw min, "), 1);
  EXPECT_EQ(count(ki.ttir, "tt.bitcast"), 0);
}

TEST(EmitScatter, MultiplyAndEightBitAddAreNotTtir) {
  ir::Module mul = rowScatter(ElementType::F32, 10, 4, 3, OpKind::Multiply);
  fusion::Plan plan = fusion::planFusions(mul, *mul.entry());
  ASSERT_EQ(plan.unsupported.size(), 1u);
  EXPECT_NE(plan.unsupported[0].reason.find("multiply"), std::string::npos);
  ir::Module i8 = rowScatter(ElementType::I8, 10, 4, 3, OpKind::Add);
  plan = fusion::planFusions(i8, *i8.entry());
  ASSERT_EQ(plan.unsupported.size(), 1u);
  EXPECT_NE(plan.unsupported[0].reason.find("atomic add"), std::string::npos);
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
