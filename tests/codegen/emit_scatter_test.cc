// The scatter family: x.at[idx].add (an embedding gradient), .set, .max on
// f32 (through the bits) and on i32, as two grid-parallel kernels (the
// operand copied into the result, then the updates), the window bounds check
// that drops out-of-range updates, the compare-and-swap loop for combiners
// with no atomic (multiply, custom regions, f64 max), and the planner's
// refusals (4-bit elements); 8/16-bit elements swap the 32-bit word holding them.
#include <gtest/gtest.h>

#include "codegen/ttir/capability.h"
#include "emit_test_util.h"
#include "scatter_modules.h"

namespace jft::codegen::ttir::testing {
namespace {

using fusion::Family;

TEST(EmitScatter, AddCopiesThenWaitsThenAddsAtomicallyInsideTheTable) {
  ir::Module m = rowScatter(ElementType::F32, 100, 16, 32, OpKind::Add);
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
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
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
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

// x.at[i].multiply on f32: no atomic multiply, so each lane loops on
// tt.atomic_cas over the element's bits until its swap lands.
TEST(EmitScatter, MultiplyIsACompareAndSwapLoop) {
  ir::Module m = rowScatter(ElementType::F32, 10, 4, 3, OpKind::Multiply);
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_TRUE(plan.unsupported.empty()) << plan.unsupported[0].reason;
  ASSERT_EQ(plan.fusions.size(), 1u);
  EXPECT_EQ(plan.fusions[0].family, Family::kScatter);
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kScatter);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(count(k[0].ttir, "tt.atomic_cas"), 0);  // the copy is unchanged
  const std::string& u = k[1].ttir;
  EXPECT_EQ(count(u, "tt.atomic_rmw"), 0);
  EXPECT_EQ(count(u, "tt.store "), 0);
  EXPECT_EQ(count(u, "tt.atomic_cas acq_rel, gpu, "), 1);
  EXPECT_NE(u.find("(tensor<1024x!tt.ptr<i32>>, tensor<1024xi32>, tensor<1024xi32>) -> "
                   "tensor<1024xi32>"),
            std::string::npos);
  // The retry loop: while any lane is pending, combine what was seen with
  // the update (as floats) and swap the bits in.
  EXPECT_EQ(count(u, "scf.while ("), 1);
  EXPECT_EQ(count(u, "scf.condition("), 1);
  EXPECT_EQ(count(u, "} do {"), 1);
  EXPECT_EQ(count(u, "arith.mulf "), 1);
  EXPECT_EQ(count(u, "\"tt.reduce\""), 1);
  EXPECT_EQ(count(u, "tt.bitcast "), 3);  // the pointers, old bits in, new bits out
  // One plain load of the table (masked), before the loop: the swap returns
  // the next value to try from.
  EXPECT_EQ(count(u, "tt.load "), 3);  // indices, updates, the table
  EXPECT_LT(u.find("tt.load"), u.find("scf.while"));
  // A lane still pending after a swap: its compare differed from memory.
  EXPECT_NE(u.find("arith.cmpi ne, "), std::string::npos);
  EXPECT_NE(u.find("scf.yield "), std::string::npos);
}

// lax.scatter_apply-like regions: any elementwise ops and constants of
// (current, update); here current - update + 1 on i64, swapped as i64
// directly (no bitcasts).
TEST(EmitScatter, CustomRegionOnI64IsACompareAndSwapLoop) {
  ir::Module m;
  ir::Builder b(m);
  const Type table = Type::tensor(ElementType::I64, {10, 4});
  const Type upd = Type::tensor(ElementType::I64, {3, 4});
  auto a = b.beginFunction("main", {table, i32({3, 1}), upd}, {table});
  const Type scalar = Type::scalar(ElementType::I64);
  auto args = b.beginRegion({scalar, scalar});
  const ValueId diff = b.op1(OpKind::Subtract, {args[0], args[1]}, scalar);
  const ValueId one = scalarConstant(b, scalar, 1);
  b.ret({b.op1(OpKind::Add, {diff, one}, scalar)});
  ir::Region body = b.endRegion();
  ir::ScatterDimensionNumbers dn;
  dn.update_window_dims = {1};
  dn.inserted_window_dims = {0};
  dn.scatter_dims_to_operand_dims = {0};
  dn.index_vector_dim = 1;
  b.ret({b.op1(OpKind::Scatter, {a[0], a[1], a[2]}, table,
               {{"scatter_dimension_numbers", dn}}, {std::move(body)})});
  b.endFunction();
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_TRUE(plan.unsupported.empty()) << plan.unsupported[0].reason;
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kScatter);
  ASSERT_EQ(k.size(), 2u);
  const std::string& u = k[1].ttir;
  EXPECT_EQ(count(u, "tt.atomic_cas acq_rel, gpu, "), 1);
  EXPECT_NE(u.find("(tensor<1024x!tt.ptr<i64>>, tensor<1024xi64>, tensor<1024xi64>) -> "
                   "tensor<1024xi64>"),
            std::string::npos);
  EXPECT_EQ(count(u, "arith.subi "), 1);
  EXPECT_EQ(count(u, "arith.addi ") >= 1, true);
  EXPECT_NE(u.find("dense<1> : tensor<1024xi64>"), std::string::npos);
  EXPECT_EQ(count(u, "tt.bitcast "), 0);
  EXPECT_EQ(count(u, "tt.atomic_rmw"), 0);
}

// f64 max has no atomic: the CAS loop with the float max; f32 max keeps
// its atomics (faster), and so does add.
TEST(EmitScatter, F64MaxIsACompareAndSwapLoopF32MaxIsNot) {
  ir::Module d = rowScatter(ElementType::F64, 10, 4, 3, OpKind::Maximum);
  const std::vector<TtirKernel> k = emitWholeStages(d, Family::kScatter);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(count(k[1].ttir, "tt.atomic_cas acq_rel, gpu, "), 1);
  EXPECT_NE(k[1].ttir.find("-> tensor<1024x!tt.ptr<i64>>"), std::string::npos);
  EXPECT_EQ(count(k[1].ttir, "tt.atomic_rmw"), 0);
  ir::Module f = rowScatter(ElementType::F32, 10, 4, 3, OpKind::Maximum);
  const std::vector<TtirKernel> kf = emitWholeStages(f, Family::kScatter);
  ASSERT_EQ(kf.size(), 2u);
  EXPECT_EQ(count(kf[1].ttir, "tt.atomic_cas"), 0);
  EXPECT_EQ(count(kf[1].ttir, "scf.while"), 0);
}

// 8/16-bit elements have no compare-and-swap of their own: the loop swaps the
// aligned 32-bit word holding the element, found from the element's byte
// address (address & -4), with the element at bit 8 * (address & 3)
// (little-endian); the word's other bits are kept.
bool hasLineWith(const std::string& text, const std::string& a, const std::string& b) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    if (line.find(a) != std::string::npos && line.find(b) != std::string::npos)
      return true;
    start = end + 1;
  }
  return false;
}

void expectWordCas(const std::string& u, const std::string& element_type) {
  EXPECT_EQ(count(u, "tt.atomic_cas acq_rel, gpu, "), 1);
  EXPECT_NE(u.find("(tensor<1024x!tt.ptr<i32>>, tensor<1024xi32>, tensor<1024xi32>) -> "
                   "tensor<1024xi32>"),
            std::string::npos);
  EXPECT_NE(u.find("tt.ptr_to_int "), std::string::npos);
  EXPECT_NE(u.find("-> tensor<1024x!tt.ptr<" + element_type + ">>"), std::string::npos)
      << "the element's own address first";
  EXPECT_NE(u.find("dense<-4> : tensor<1024xi64>"), std::string::npos);
  EXPECT_NE(u.find("dense<3> : tensor<1024xi64>"), std::string::npos);
  EXPECT_NE(u.find("tt.int_to_ptr "), std::string::npos);
  EXPECT_NE(u.find("dense<8> : tensor<1024xi32>"), std::string::npos);
  EXPECT_NE(u.find("arith.shrui "), std::string::npos);
  EXPECT_EQ(count(u, "arith.shli "), 2);  // the new element and its field mask
  EXPECT_NE(u.find("dense<-1> : tensor<1024xi32>"), std::string::npos);  // ~field
  EXPECT_EQ(count(u, "tt.atomic_rmw"), 0);
}

TEST(EmitScatter, NarrowCombinersSwapTheirWord) {
  struct Case {
    ElementType element;
    OpKind combine;
    const char* type;
    const char* field;  // the element's bit field mask
    const char* op;     // the combine as emitted
    const char* bits;   // the element's bits as an integer
  };
  const Case cases[] = {
      {ElementType::F16, OpKind::Multiply, "f16", "dense<65535>", "arith.mulf ", "i16"},
      {ElementType::BF16, OpKind::Maximum, "bf16", "dense<65535>", "arith.maximumf ",
       "i16"},
      {ElementType::I8, OpKind::Add, "i8", "dense<255>", "arith.addi ", "i8"},
      {ElementType::U16, OpKind::Minimum, "i16", "dense<65535>", "arith.minui ", "i16"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type);
    ir::Module m = rowScatter(c.element, 10, 4, 3, c.combine);
    const fusion::Plan plan =
        fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
    ASSERT_TRUE(plan.unsupported.empty()) << plan.unsupported[0].reason;
    const std::vector<TtirKernel> k = emitWholeStages(m, Family::kScatter);
    ASSERT_EQ(k.size(), 2u);
    const std::string& u = k[1].ttir;
    expectWordCas(u, c.type);
    EXPECT_NE(u.find(std::string(c.field) + " : tensor<1024xi32>"), std::string::npos);
    EXPECT_NE(u.find(c.op), std::string::npos);
    EXPECT_TRUE(
        hasLineWith(u, "arith.trunci ", std::string("to tensor<1024x") + c.bits + ">"));
  }
}

// jnp bool .at[].max is an OR of bytes: a nonzero byte reads as true, true
// writes back as 1.
TEST(EmitScatter, PredMaxSwapsItsByteAsZeroOrOne) {
  ir::Module m = rowScatter(ElementType::PRED, 10, 4, 3, OpKind::Maximum);
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_TRUE(plan.unsupported.empty()) << plan.unsupported[0].reason;
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kScatter);
  ASSERT_EQ(k.size(), 2u);
  const std::string& u = k[1].ttir;
  expectWordCas(u, "i8");
  EXPECT_NE(u.find("dense<255> : tensor<1024xi32>"), std::string::npos);
  EXPECT_TRUE(hasLineWith(u, "arith.cmpi ne, ", ": tensor<1024xi8>"));
  EXPECT_TRUE(hasLineWith(u, "arith.extui ", "tensor<1024xi1> to tensor<1024xi8>"));
}

// 4-bit elements are still refused, with the reason.
TEST(EmitScatter, FourBitCombinersAreNotTtir) {
  ir::Module m = rowScatter(ElementType::I4, 10, 4, 3, OpKind::Add);
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_EQ(plan.unsupported.size(), 1u);
  EXPECT_FALSE(plan.unsupported[0].reason.empty());
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
