// The scatter family: x.at[idx].add (an embedding gradient), .set, .max on
// f32 (through the bits) and on i32, as two grid-parallel kernels (the
// operand copied into the result, then the updates), the window bounds check
// that drops out-of-range updates, and the planner's refusals (multiply,
// non-integer indices).
#include <gtest/gtest.h>

#include "emit_test_util.h"

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
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kScatter);
  ASSERT_EQ(k.size(), 2u);
  // The copy: 1600 elements, two programs of 1024; nothing atomic.
  EXPECT_EQ(k[0].name, "fusion_0_test");
  EXPECT_EQ(k[0].stage, 0);
  EXPECT_EQ(k[0].grid, (std::array<uint32_t, 3>{2, 1, 1}));
  EXPECT_EQ(k[0].tile, "1024 copy");
  EXPECT_EQ(k[1].tile, "1024 updates");
  EXPECT_EQ(count(k[0].ttir, "tt.load "), 1);
  EXPECT_EQ(count(k[0].ttir, "tt.store "), 1);
  EXPECT_EQ(count(k[0].ttir, "tt.atomic_rmw"), 0);
  EXPECT_NE(k[0].ttir.find("dense<1600> : tensor<1024xi32>"), std::string::npos);
  // The updates: 32 x 16 = 512 elements, one program; the copy's launch
  // orders it, so no barrier and relaxed atomics.
  EXPECT_EQ(k[1].name, "fusion_0_test_updates");
  EXPECT_EQ(k[1].stage, 1);
  EXPECT_EQ(k[1].grid, (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(count(k[1].ttir, "tt.atomic_rmw fadd, relaxed, gpu, "), 1);
  EXPECT_EQ(count(k[1].ttir, "tt.store "), 0);
  EXPECT_EQ(count(k[1].ttir, "tt.load "), 2);  // indices, updates
  for (const TtirKernel& kernel : k) {
    EXPECT_EQ(count(kernel.ttir, "gpu.barrier"), 0);
    EXPECT_EQ(count(kernel.ttir, "scf.for"), 0);
    EXPECT_TRUE(kernel.scratch.empty());
  }
  // Row index in [0, 100 - 1]: both ends checked, nothing clamped.
  EXPECT_NE(k[1].ttir.find("arith.cmpi sle"), std::string::npos);
  EXPECT_NE(k[1].ttir.find("arith.cmpi sge"), std::string::npos);
  EXPECT_NE(k[1].ttir.find("dense<99> : tensor<1024xi32>"), std::string::npos);
  EXPECT_EQ(count(k[1].ttir, "arith.minsi"), 0);
}

// jnp.zeros_like(table).at[idx].add(g): the zeros fuse into the copy kernel
// (stored, never loaded), and both kernels spread over the whole device:
// 50000 x 512 / 1024 = 25000 copy programs, 65536 x 512 / 1024 = 32768
// update programs.
TEST(EmitScatter, EmbeddingGradientIsGridParallelWithTheZerosFused) {
  ir::Module m;
  ir::Builder b(m);
  const Type table = f32({50000, 512});
  auto a = b.beginFunction("main", {i32({65536, 1}), f32({65536, 512})}, {table});
  const ValueId zero = scalarConstant(b, f32(), 0);
  const ValueId zeros = b.op1(OpKind::BroadcastInDim, {zero}, table,
                              {{"broadcast_dimensions", std::vector<int64_t>{}}});
  auto args = b.beginRegion({f32(), f32()});
  b.ret({b.op1(OpKind::Add, {args[0], args[1]}, f32())});
  ir::Region body = b.endRegion();
  ir::ScatterDimensionNumbers dn;
  dn.update_window_dims = {1};
  dn.inserted_window_dims = {0};
  dn.scatter_dims_to_operand_dims = {0};
  dn.index_vector_dim = 1;
  b.ret({b.op1(OpKind::Scatter, {zeros, a[0], a[1]}, table,
               {{"scatter_dimension_numbers", dn}}, {std::move(body)})});
  b.endFunction();
  const fusion::Plan plan = fusion::planFusions(m, *m.entry());
  ASSERT_TRUE(plan.unsupported.empty()) << plan.unsupported[0].reason;
  ASSERT_EQ(plan.fusions.back().family, Family::kScatter);
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kScatter);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].grid, (std::array<uint32_t, 3>{25000, 1, 1}));
  EXPECT_EQ(count(k[0].ttir, "tt.load "), 0);
  EXPECT_EQ(count(k[0].ttir, "tt.store "), 1);
  EXPECT_EQ(k[1].grid, (std::array<uint32_t, 3>{32768, 1, 1}));
  EXPECT_EQ(count(k[1].ttir, "tt.atomic_rmw fadd, relaxed, gpu, "), 1);
  EXPECT_NE(k[1].ttir.find("dense<49999> : tensor<1024xi32>"), std::string::npos);
}

TEST(EmitScatter, SetIsAMaskedStore) {
  ir::Module m = rowScatter(ElementType::BF16, 10, 4, 3, std::nullopt);
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kScatter);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(count(k[0].ttir, "tt.store "), 1);  // the copy
  EXPECT_EQ(count(k[1].ttir, "tt.store "), 1);  // the updates, in parallel
  EXPECT_EQ(count(k[0].ttir + k[1].ttir, "tt.atomic_rmw"), 0);
  EXPECT_NE(k[1].ttir.find("dense<9> : tensor<1024xi32>"), std::string::npos);
}

TEST(EmitScatter, FloatMaxGoesThroughTheBits) {
  ir::Module f = rowScatter(ElementType::F32, 10, 4, 3, OpKind::Maximum);
  const std::vector<TtirKernel> k = emitWholeStages(f, Family::kScatter);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(count(k[1].ttir, "tt.atomic_rmw max, relaxed, "), 1);   // non-negative
  EXPECT_EQ(count(k[1].ttir, "tt.atomic_rmw umin, relaxed, "), 1);  // negative
  EXPECT_NE(k[1].ttir.find("-> tensor<1024x!tt.ptr<i32>>"), std::string::npos);
}

TEST(EmitScatter, IntMinIsDirect) {
  ir::Module i = rowScatter(ElementType::I32, 10, 4, 3, OpKind::Minimum);
  const std::vector<TtirKernel> k = emitWholeStages(i, Family::kScatter);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(count(k[1].ttir, "tt.atomic_rmw min, relaxed, "), 1);
  EXPECT_EQ(count(k[1].ttir, "tt.bitcast"), 0);
}

// emitKernel is for groups of one kernel; a scatter says it is two.
TEST(EmitScatter, EmitKernelRefusesATwoKernelGroup) {
  ir::Module m = rowScatter(ElementType::F32, 10, 4, 3, OpKind::Add);
  StatusOr<TtirKernel> k = emitKernel(m, *m.entry(), wholeFunction(m, Family::kScatter));
  ASSERT_FALSE(k.isOk());
  EXPECT_NE(k.status().message().find("2 kernels"), std::string::npos);
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
