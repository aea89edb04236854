// --xla_gpu_exclude_nondeterministic_ops for the scatter family
// (EmitOptions::deterministic): scatters whose result depends on the order
// of colliding updates (float add, multiply, set, any region) apply them in
// StableHLO's order with plain loads and stores, either programs over
// window offsets walking the rows in an scf.for, or, when windows of
// different rows can overlap, one program of one lane walking every update;
// order-independent combiners (integer add/max/min, float max/min) keep
// their atomics. The predicates behind the choice are checked against the
// index arithmetic worked by hand.
#include <gtest/gtest.h>

#include "emit_test_util.h"
#include "fusion/scatter_form.h"
#include "scatter_modules.h"

namespace jft::codegen::ttir::testing {
namespace {

using fusion::Family;

// Windows of 3 along a 1-D operand of 10: row 0 at 0 offset 1 and row 1 at
// 1 offset 0 both reach element 1.
ir::Module overlapping(int64_t n) {
  ir::ScatterDimensionNumbers dn;
  dn.update_window_dims = {1};
  dn.scatter_dims_to_operand_dims = {0};
  dn.index_vector_dim = 1;
  return scatterOf(ElementType::F32, {10}, {n, 1}, {n, 3}, dn, OpKind::Add);
}

EmitOptions deterministic() {
  EmitOptions o;
  o.deterministic = true;
  return o;
}

const ir::Op& scatterOp(const ir::Module& m) {
  for (const ir::Op& op : m.entry()->body.ops)
    if (op.kind == OpKind::Scatter) return op;
  ADD_FAILURE() << "no scatter";
  return m.entry()->body.ops.front();
}

TEST(EmitScatterOrder, FlagOffFloatAddKeepsItsAtomic) {
  ir::Module m = rowScatter(ElementType::F32, 100, 16, 32, OpKind::Add);
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kScatter);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(count(k[1].ttir, "tt.atomic_rmw fadd"), 1);
  EXPECT_EQ(count(k[1].ttir, "scf.for"), 0);
  EXPECT_EQ(k[1].tile, "1024 updates");
}

// 32 rows of 16: one program owns the 16 window offsets (lanes 16.. masked)
// and walks the 32 rows in order: per row its index, its updates and the
// current values loaded, added and stored back; nothing atomic.
TEST(EmitScatterOrder, FloatAddWalksTheRowsInOrderPerWindowOffset) {
  ir::Module m = rowScatter(ElementType::F32, 100, 16, 32, OpKind::Add);
  const std::vector<TtirKernel> off = emitWholeStages(m, Family::kScatter);
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kScatter, deterministic());
  ASSERT_EQ(k.size(), 2u);
  ASSERT_EQ(off.size(), 2u);
  EXPECT_EQ(k[0].ttir, off[0].ttir);  // the copy is unchanged
  EXPECT_EQ(k[1].name, "fusion_0_test_updates");
  EXPECT_EQ(k[1].tile, "1024 updates in order");
  EXPECT_EQ(k[1].grid, (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(count(k[1].ttir, "tt.atomic"), 0);
  EXPECT_EQ(count(k[1].ttir, "scf.while"), 0);
  EXPECT_EQ(count(k[1].ttir, "scf.for"), 1);
  EXPECT_NE(k[1].ttir.find("arith.constant 32 : i32"), std::string::npos);  // rows
  EXPECT_EQ(count(k[1].ttir, "tt.load "), 3);  // index, update, current
  EXPECT_EQ(count(k[1].ttir, "tt.store "), 1);
  EXPECT_EQ(count(k[1].ttir, "arith.addf"), 1);
  EXPECT_EQ(count(k[1].ttir, "gpu.barrier"), 1);  // closes each row
  EXPECT_NE(k[1].ttir.find("dense<16> : tensor<1024xi32>"), std::string::npos);
  // The row's index still checked against [0, 100 - 1].
  EXPECT_NE(k[1].ttir.find("dense<99> : tensor<1024xi32>"), std::string::npos);
  // The load, the store, then the barrier, inside the loop.
  const size_t loop = k[1].ttir.find("scf.for");
  EXPECT_GT(k[1].ttir.find("tt.store "), loop);
  EXPECT_GT(k[1].ttir.find("gpu.barrier"), k[1].ttir.find("tt.store "));
}

// A window of 3000 offsets: three programs of 1024, each walking all rows.
TEST(EmitScatterOrder, WideWindowsSpreadOverPrograms) {
  ir::Module m = rowScatter(ElementType::F32, 4, 3000, 5, OpKind::Add);
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kScatter, deterministic());
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[1].grid, (std::array<uint32_t, 3>{3, 1, 1}));
  EXPECT_NE(k[1].ttir.find("dense<3000> : tensor<1024xi32>"), std::string::npos);
  EXPECT_NE(k[1].ttir.find("arith.constant 5 : i32"), std::string::npos);
}

TEST(EmitScatterOrder, MultiplyAndSetRunInOrderWithoutCasOrAtomics) {
  ir::Module mul = rowScatter(ElementType::F32, 10, 4, 3, OpKind::Multiply);
  const std::vector<TtirKernel> k =
      emitWholeStages(mul, Family::kScatter, deterministic());
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(count(k[1].ttir, "tt.atomic"), 0);
  EXPECT_EQ(count(k[1].ttir, "scf.while"), 0);
  EXPECT_EQ(count(k[1].ttir, "scf.for"), 1);
  EXPECT_EQ(count(k[1].ttir, "arith.mulf"), 1);

  // Set: the last update in order wins; nothing to load but index and update.
  ir::Module set = rowScatter(ElementType::BF16, 10, 4, 3, std::nullopt);
  const std::vector<TtirKernel> s =
      emitWholeStages(set, Family::kScatter, deterministic());
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(count(s[1].ttir, "scf.for"), 1);
  EXPECT_EQ(count(s[1].ttir, "tt.load "), 2);
  EXPECT_EQ(count(s[1].ttir, "tt.store "), 1);
  EXPECT_EQ(s[1].tile, "1024 updates in order");
}

// Complex add: each part loaded, added and stored, at 2i and 2i + 1.
TEST(EmitScatterOrder, ComplexAddRunsPartByPartInOrder) {
  ir::Module m = rowScatter(ElementType::C64, 10, 4, 3, OpKind::Add);
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kScatter, deterministic());
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(count(k[1].ttir, "tt.atomic"), 0);
  EXPECT_EQ(count(k[1].ttir, "arith.addf"), 2);
  EXPECT_EQ(count(k[1].ttir, "tt.store "), 2);
}

// Integer add/max/min and float max/min give one result in any order: the
// flag leaves their kernels exactly as they were.
TEST(EmitScatterOrder, OrderIndependentCombinersKeepTheirAtomics) {
  const std::pair<ElementType, OpKind> cases[] = {
      {ElementType::I32, OpKind::Add},     {ElementType::I32, OpKind::Maximum},
      {ElementType::U32, OpKind::Minimum}, {ElementType::F32, OpKind::Maximum},
      {ElementType::F32, OpKind::Minimum}, {ElementType::I64, OpKind::Add}};
  for (const auto& [element, kind] : cases) {
    ir::Module m = rowScatter(element, 10, 4, 3, kind);
    const std::vector<TtirKernel> off = emitWholeStages(m, Family::kScatter);
    const std::vector<TtirKernel> on =
        emitWholeStages(m, Family::kScatter, deterministic());
    ASSERT_EQ(off.size(), 2u);
    ASSERT_EQ(on.size(), 2u);
    EXPECT_EQ(on[1].ttir, off[1].ttir) << ir::elementTypeName(element);
    EXPECT_EQ(on[1].tile, "1024 updates");
    EXPECT_EQ(count(on[1].ttir, "tt.atomic_rmw"),
              kind == OpKind::Add ? 1 : 2 - ir::isInteger(element));
  }
}

// Overlapping windows: one program of one lane (one warp) walks the 4 rows
// x 3 offsets = 12 updates in order, row = k / 3, offset = k % 3.
TEST(EmitScatterOrder, OverlappingWindowsWalkEveryUpdateInOneProgram) {
  ir::Module m = overlapping(4);
  // Without the flag: the usual atomics.
  const std::vector<TtirKernel> off = emitWholeStages(m, Family::kScatter);
  ASSERT_EQ(off.size(), 2u);
  EXPECT_EQ(count(off[1].ttir, "tt.atomic_rmw fadd"), 1);
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kScatter, deterministic());
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[1].grid, (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(k[1].num_warps, 1);
  EXPECT_EQ(k[1].tile, "1 updates in order");
  EXPECT_EQ(count(k[1].ttir, "tt.atomic"), 0);
  EXPECT_EQ(count(k[1].ttir, "scf.for"), 1);
  EXPECT_NE(k[1].ttir.find("arith.constant 12 : i32"), std::string::npos);
  EXPECT_NE(k[1].ttir.find("arith.divsi"), std::string::npos);
  EXPECT_NE(k[1].ttir.find("arith.remsi"), std::string::npos);
  EXPECT_NE(k[1].ttir.find("tensor<1xf32>"), std::string::npos);
  EXPECT_EQ(count(k[1].ttir, "gpu.barrier"), 1);
  // Window start in [0, 10 - 3].
  EXPECT_NE(k[1].ttir.find("dense<7> : tensor<1xi32>"), std::string::npos);
}

TEST(ScatterOrderPredicates, OrderDependenceFollowsTheCombiner) {
  auto dependent = [](ElementType e, std::optional<OpKind> kind) {
    ir::Module m = rowScatter(e, 10, 4, 3, kind);
    return fusion::scatterOrderDependent(m, scatterOp(m));
  };
  EXPECT_TRUE(dependent(ElementType::F32, OpKind::Add));
  EXPECT_TRUE(dependent(ElementType::BF16, OpKind::Add));
  EXPECT_TRUE(dependent(ElementType::C64, OpKind::Add));
  EXPECT_TRUE(dependent(ElementType::F32, OpKind::Multiply));
  EXPECT_TRUE(dependent(ElementType::I32, OpKind::Multiply));
  EXPECT_TRUE(dependent(ElementType::I32, std::nullopt));  // set
  EXPECT_TRUE(dependent(ElementType::F32, OpKind::Subtract));
  EXPECT_FALSE(dependent(ElementType::I32, OpKind::Add));
  EXPECT_FALSE(dependent(ElementType::U8, OpKind::Add));
  EXPECT_FALSE(dependent(ElementType::I64, OpKind::Maximum));
  EXPECT_FALSE(dependent(ElementType::F32, OpKind::Maximum));
  EXPECT_FALSE(dependent(ElementType::F64, OpKind::Minimum));
}

TEST(ScatterOrderPredicates, WindowsAreDisjointUnlessAPartialWindowIsIndexed) {
  // Whole rows: the indexed dim has a window of 1.
  ir::Module r = rowScatter(ElementType::F32, 10, 4, 3, OpKind::Add);
  EXPECT_TRUE(fusion::scatterWindowsDisjoint(r, scatterOp(r)));
  // Windows of 3 along an indexed dim of 10 overlap (element 1 above).
  ir::Module o = overlapping(2);
  EXPECT_FALSE(fusion::scatterWindowsDisjoint(o, scatterOp(o)));
  // operand [6, 8], windows [2, 8]: indexed along dim 1, whose window is the
  // whole dim (start 0 or dropped), dim 0 is not indexed (start 0): two
  // updates reach one element only at one window offset.
  ir::ScatterDimensionNumbers dn;
  dn.update_window_dims = {1, 2};
  dn.scatter_dims_to_operand_dims = {1};
  dn.index_vector_dim = 1;
  ir::Module full =
      scatterOf(ElementType::F32, {6, 8}, {5, 1}, {5, 2, 8}, dn, OpKind::Add);
  EXPECT_TRUE(fusion::scatterWindowsDisjoint(full, scatterOp(full)));
  // The same windows indexed along dim 0 (window 2 of 6): rows at 0 and 1
  // both reach row 1 of the operand, at window rows 1 and 0.
  dn.scatter_dims_to_operand_dims = {0};
  ir::Module part =
      scatterOf(ElementType::F32, {6, 8}, {5, 1}, {5, 2, 8}, dn, OpKind::Add);
  EXPECT_FALSE(fusion::scatterWindowsDisjoint(part, scatterOp(part)));
  const std::vector<TtirKernel> k =
      emitWholeStages(part, Family::kScatter, deterministic());
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[1].tile, "1 updates in order");
  const std::vector<TtirKernel> f =
      emitWholeStages(full, Family::kScatter, deterministic());
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1].tile, "1024 updates in order");
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
