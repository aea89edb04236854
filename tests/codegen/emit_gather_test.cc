// stablehlo.gather in the loop family, in the forms JAX emits: an embedding
// lookup (x[idx] on the leading dim), jnp.take along a minor axis with an
// implicit index vector dim and i64 indices, and a batched gather
// (operand_batching_dims, as vmap of x[idx] makes). Each checks the clamp
// StableHLO prescribes (to [0, dim - slice_size], in the index's own type)
// and that the start indices and the operand are both read through the
// elemental emitter (so index arithmetic fuses).
#include <gtest/gtest.h>

#include "codegen/ttir/capability.h"
#include "emit_test_util.h"
#include "launch_dump.h"

namespace jft::codegen::ttir::testing {
namespace {

using fusion::Family;

Type i64(std::vector<int64_t> dims = {}) {
  return Type::tensor(ElementType::I64, dims);
}

ValueId gather(ir::Builder& b, ValueId operand, ValueId indices, const Type& result,
               ir::GatherDimensionNumbers dn, std::vector<int64_t> slice_sizes) {
  return b.op1(OpKind::Gather, {operand, indices}, result,
               {{"dimension_numbers", dn}, {"slice_sizes", slice_sizes}});
}

TEST(EmitGather, EmbeddingLookupClampsRowsAndFusesTheIndexArithmetic) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({100, 16}), i32({32})}, {f32({32, 16})});
  // jnp's negative-index wrap: idx < 0 ? idx + 100 : idx, fused in.
  ValueId zero = b.op1(OpKind::BroadcastInDim, {scalarConstant(b, i32(), 0)}, i32({32}),
                       {{"broadcast_dimensions", std::vector<int64_t>{}}});
  ValueId hundred = b.op1(OpKind::BroadcastInDim, {scalarConstant(b, i32(), 100)},
                          i32({32}), {{"broadcast_dimensions", std::vector<int64_t>{}}});
  ValueId neg = b.op1(OpKind::Compare, {a[1], zero}, pred({32}),
                      {{"comparison_direction", ir::ComparisonDirection::LT}});
  ValueId wrapped =
      b.op1(OpKind::Select, {neg, b.op1(OpKind::Add, {a[1], hundred}, i32({32})), a[1]},
            i32({32}));
  ValueId idx = b.op1(OpKind::BroadcastInDim, {wrapped}, i32({32, 1}),
                      {{"broadcast_dimensions", std::vector<int64_t>{0}}});
  ir::GatherDimensionNumbers dn;
  dn.offset_dims = {1};
  dn.collapsed_slice_dims = {0};
  dn.start_index_map = {0};
  dn.index_vector_dim = 1;
  b.ret({gather(b, a[0], idx, f32({32, 16}), dn, {1, 16})});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kLoop);
  dumpLaunch(k);
  EXPECT_EQ(k.inputs.size(), 2u);  // the table and the raw indices
  EXPECT_EQ(count(k.ttir, "tt.load "), 2);
  EXPECT_EQ(count(k.ttir, "tt.store "), 1);
  // Clamp to [0, 100 - 1] after the wrap.
  EXPECT_EQ(count(k.ttir, "arith.minsi"), 1);
  EXPECT_EQ(count(k.ttir, "arith.maxsi"), 1);
  EXPECT_NE(k.ttir.find("arith.constant dense<99> : "), std::string::npos);
  EXPECT_LT(k.ttir.find("arith.select"), k.ttir.find("arith.minsi"));
  // The indices are read once per row ([BR, 1]), the table along the row.
  EXPECT_NE(
      k.ttir.find("tensor<" + std::to_string(std::stoi(k.tile)) + "x1x!tt.ptr<i32>>"),
      std::string::npos)
      << k.ttir;
}

TEST(EmitGather, TakeAlongMinorAxisWithI64IndicesClampsBeforeTruncating) {
  ir::Module m;
  ir::Builder b(m);
  // jnp.take(x, idx, axis=1) with x [8, 50], idx [6] int64: index_vector_dim
  // = 1 = rank(indices) (an implicit trailing index vector).
  auto a = b.beginFunction("main", {f32({8, 50}), i64({6})}, {f32({8, 6})});
  ir::GatherDimensionNumbers dn;
  dn.offset_dims = {0};
  dn.collapsed_slice_dims = {1};
  dn.start_index_map = {1};
  dn.index_vector_dim = 1;
  b.ret({gather(b, a[0], a[1], f32({8, 6}), dn, {8, 1})});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kLoop);
  dumpLaunch(k);
  const size_t clamp = k.ttir.find("arith.minsi");
  ASSERT_NE(clamp, std::string::npos);
  EXPECT_NE(k.ttir.find("arith.constant dense<49> : tensor<1x"), std::string::npos);
  EXPECT_NE(k.ttir.find("xi64>"), std::string::npos);
  const size_t trunc = k.ttir.find("arith.trunci");
  ASSERT_NE(trunc, std::string::npos);  // i64 index -> i32 index type
  EXPECT_LT(clamp, trunc);
  EXPECT_EQ(count(k.ttir, "tt.load "), 2);
}

TEST(EmitGather, BatchingDimsFollowTheBatchIndex) {
  ir::Module m;
  ir::Builder b(m);
  // vmap(lambda x, i: x[i])(x [4, 10, 3], i [4, 5]): batch dim 0 of both.
  auto a = b.beginFunction("main", {f32({4, 10, 3}), i32({4, 5, 1})}, {f32({4, 5, 3})});
  ir::GatherDimensionNumbers dn;
  dn.offset_dims = {2};
  dn.collapsed_slice_dims = {1};
  dn.operand_batching_dims = {0};
  dn.start_indices_batching_dims = {0};
  dn.start_index_map = {1};
  dn.index_vector_dim = 2;
  b.ret({gather(b, a[0], a[1], f32({4, 5, 3}), dn, {1, 1, 3})});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kLoop);
  dumpLaunch(k);
  EXPECT_EQ(count(k.ttir, "tt.load "), 2);
  // Only the gathered dim is clamped (to 10 - 1); the batching dim is not.
  EXPECT_EQ(count(k.ttir, "arith.minsi"), 1);
  EXPECT_NE(k.ttir.find("arith.constant dense<9> : "), std::string::npos);
  // operand index = b * 30 + clamp(i) * 3 + offset.
  EXPECT_NE(k.ttir.find("arith.constant dense<30> : "), std::string::npos);
}

TEST(EmitGather, NonIntegerIndicesAreNotTtir) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({10, 3}), f32({4, 1})}, {f32({4, 3})});
  ir::GatherDimensionNumbers dn;
  dn.offset_dims = {1};
  dn.collapsed_slice_dims = {0};
  dn.start_index_map = {0};
  dn.index_vector_dim = 1;
  b.ret({gather(b, a[0], a[1], f32({4, 3}), dn, {1, 3})});
  b.endFunction();
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_EQ(plan.unsupported.size(), 1u);
  EXPECT_NE(plan.unsupported[0].reason.find("non-integer"), std::string::npos);
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
