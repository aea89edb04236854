// The loop and reduction kernel families on hand-built functions: parameter
// lists, grids and tiles computed by hand, and the structure the design
// promises (masks where a tile overhangs, make_range along both axes of a
// transpose, one tt.reduce per reduce, i64 indices for huge buffers, bf16
// rounding after each op).
#include <gtest/gtest.h>

#include "emit_test_util.h"

namespace jft::codegen::ttir::testing {
namespace {

using fusion::Family;

ir::Module addExp(int64_t n) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({n}), f32({n})}, {f32({n})});
  ValueId e = b.op1(OpKind::Exponential, {a[0]}, f32({n}));
  b.ret({b.op1(OpKind::Add, {e, a[1]}, f32({n}))});
  b.endFunction();
  return m;
}

TEST(EmitLoop, FlatElementwiseSignatureGridAndMask) {
  ir::Module m = addExp(1000);
  TtirKernel k = emitWhole(m, Family::kLoop);
  EXPECT_EQ(k.name, "fusion_0_test");
  EXPECT_EQ(count(k.ttir, "!tt.ptr<f32> {tt.divisibility = 16 : i32}"), 3);
  EXPECT_NE(k.ttir.find("tt.func public @fusion_0_test(%in0: !tt.ptr<f32>"),
            std::string::npos);
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{1, 1, 1}));  // 1000 <= 1024
  EXPECT_EQ(k.tile, "1024");
  EXPECT_EQ(count(k.ttir, "tt.make_range {end = 1024 : i32, start = 0 : i32}"), 1);
  EXPECT_EQ(count(k.ttir, "tt.load "), 2);
  EXPECT_EQ(count(k.ttir, "tt.store "), 1);
  // 1000 is not a multiple of the tile: loads and store are masked.
  EXPECT_EQ(count(k.ttir, "arith.cmpi slt"), 1);
  EXPECT_NE(k.ttir.find("tt.store %"), std::string::npos);
  EXPECT_EQ(count(k.ttir, "arith.divsi"), 0);
  EXPECT_EQ(count(k.ttir, "arith.remsi"), 0);
  EXPECT_EQ(k.inputs.size(), 2u);
  EXPECT_EQ(k.outputs.size(), 1u);
}

TEST(EmitLoop, ExactTilesNeedNoMask) {
  ir::Module m = addExp(4096);
  TtirKernel k = emitWhole(m, Family::kLoop);
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{4, 1, 1}));
  EXPECT_EQ(count(k.ttir, "arith.cmpi"), 0);
  EXPECT_EQ(count(k.ttir, "tt.get_program_id x"), 1);
}

// A chain of math library calls (each inlined by the backend) gets fewer
// elements per thread, so the unrolled kernel stays small enough to compile
// quickly; a light body keeps the wide tile.
ir::Module tanhChain(int64_t n, int length) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({n})}, {f32({n})});
  ValueId v = a[0];
  for (int i = 0; i < length; ++i) v = b.op1(OpKind::Tanh, {v}, f32({n}));
  b.ret({v});
  b.endFunction();
  return m;
}

TEST(EmitLoop, HeavyBodiesHoldFewerElementsPerThread) {
  // One call (weight 8 + the add): 8 elements per thread, the wide tile.
  const ir::Module light_module = addExp(4096);
  TtirKernel light = emitWhole(light_module, Family::kLoop);
  EXPECT_EQ(light.tile, "1024");
  EXPECT_EQ(light.num_warps, 4);
  // 8 calls (weight 64): 4 per thread, 8 warps of 32 threads.
  const ir::Module medium_module = tanhChain(4096, 8);
  TtirKernel medium = emitWhole(medium_module, Family::kLoop);
  EXPECT_EQ(medium.tile, "1024");
  EXPECT_EQ(medium.num_warps, 8);
  // 40 calls: one element per thread.
  const ir::Module heavy_module = tanhChain(4096, 40);
  TtirKernel heavy = emitWhole(heavy_module, Family::kLoop);
  EXPECT_EQ(heavy.tile, "256");
  EXPECT_EQ(heavy.num_warps, 8);
  EXPECT_EQ(heavy.grid, (std::array<uint32_t, 3>{16, 1, 1}));
  EXPECT_EQ(count(heavy.ttir, "tt.make_range {end = 256 : i32, start = 0 : i32}"), 1);
}

TEST(EmitLoop, HugeBufferIndexesInI64) {
  const int64_t n = (int64_t{1} << 31) + 8;
  ir::Module m = addExp(n);
  TtirKernel k = emitWhole(m, Family::kLoop);
  EXPECT_EQ(k.grid[0], static_cast<uint32_t>((n + 1023) / 1024));
  EXPECT_NE(k.ttir.find("tensor<1024xi64>"), std::string::npos);
  EXPECT_NE(k.ttir.find("arith.extsi"), std::string::npos);
  // Small buffers stay in i32.
  ir::Module small = addExp(4096);
  EXPECT_EQ(emitWhole(small, Family::kLoop).ttir.find("i64"), std::string::npos);
}

TEST(EmitLoop, TransposeUsesMakeRangeOnBothAxesWithoutDivRem) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({64, 96})}, {f32({96, 64})});
  b.ret({b.op1(OpKind::Transpose, {a[0]}, f32({96, 64}),
               {{"permutation", std::vector<int64_t>{1, 0}}})});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kLoop);
  EXPECT_EQ(k.tile, "64x64");
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{2, 1, 1}));  // 96/64 rounded up, times 64/64
  EXPECT_NE(k.ttir.find("{axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>"),
            std::string::npos);
  EXPECT_NE(k.ttir.find("{axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>"),
            std::string::npos);
  // One column of tiles: the program id is the row tile, no div/rem anywhere.
  EXPECT_EQ(count(k.ttir, "arith.divsi"), 0);
  EXPECT_EQ(count(k.ttir, "arith.remsi"), 0);
  EXPECT_EQ(count(k.ttir, "tt.load "), 1);
  EXPECT_EQ(count(k.ttir, "tt.store "), 1);
}

TEST(EmitLoop, BroadcastOfARowVectorLoadsPerColumn) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({32, 128}), f32({128})}, {f32({32, 128})});
  ValueId row = b.op1(OpKind::BroadcastInDim, {a[1]}, f32({32, 128}),
                      {{"broadcast_dimensions", std::vector<int64_t>{1}}});
  b.ret({b.op1(OpKind::Add, {a[0], row}, f32({32, 128}))});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kLoop);
  // 128 columns, 2048/128 = 16 rows per tile: 2 programs, no overhang.
  EXPECT_EQ(k.tile, "16x128");
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{2, 1, 1}));
  // The bias is loaded as a [1, 128] row, never through a div/rem.
  EXPECT_NE(k.ttir.find("tt.load %"), std::string::npos);
  EXPECT_NE(k.ttir.find(": tensor<1x128x!tt.ptr<f32>>"), std::string::npos);
  EXPECT_EQ(count(k.ttir, "arith.remsi"), 0);
}

TEST(EmitLoop, Bf16RoundsAfterEachOpAndPredStoresBytes) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {bf16({64}), bf16({64})}, {bf16({64}), pred({64})});
  ValueId p = b.op1(OpKind::Multiply, {a[0], a[1]}, bf16({64}));
  ValueId q = b.op1(OpKind::Add, {p, a[1]}, bf16({64}));
  ValueId c = b.op1(OpKind::Compare, {q, a[0]}, pred({64}),
                    {{"comparison_direction", ir::ComparisonDirection::GT}});
  b.ret({q, c});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kLoop);
  EXPECT_NE(k.ttir.find("%out1: !tt.ptr<i8> {tt.divisibility = 16 : i32}"),
            std::string::npos);
  EXPECT_GE(count(k.ttir, "arith.truncf"), 2);  // multiply, then add
  EXPECT_EQ(count(k.ttir, "tt.store "), 2);
  EXPECT_NE(k.ttir.find("tensor<64x!tt.ptr<i8>>"), std::string::npos);
}

TEST(EmitLoop, PadSliceConcatenateIotaAreMaskedAndSelected) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({24, 4}), f32({24, 4})}, {f32({50, 6})});
  ValueId cat =
      b.op1(OpKind::Concatenate, {a[0], a[1]}, f32({48, 4}), {{"dimension", int64_t{0}}});
  ValueId zero = scalarConstant(b, f32(), 0);
  ValueId pad = b.op1(OpKind::Pad, {cat, zero}, f32({50, 6}),
                      {{"edge_padding_low", std::vector<int64_t>{1, 0}},
                       {"edge_padding_high", std::vector<int64_t>{1, 2}},
                       {"interior_padding", std::vector<int64_t>{0, 0}}});
  ValueId iota = b.op1(OpKind::Iota, {}, f32({50, 6}), {{"iota_dimension", int64_t{1}}});
  b.ret({b.op1(OpKind::Add, {pad, iota}, f32({50, 6}))});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kLoop);
  EXPECT_EQ(k.tile, "64x8");  // 6 columns -> 8, 2048/8 = 256 rows capped at 64
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(count(k.ttir, "tt.load "), 2);      // one per concatenated operand
  EXPECT_GE(count(k.ttir, "arith.select"), 2);  // concatenate, then padding
  EXPECT_GE(count(k.ttir, "arith.cmpi ult"), 2);
  EXPECT_EQ(count(k.ttir, "arith.sitofp"), 1);
}

TEST(EmitLoop, DynamicSliceClampsStartIndices) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({26, 6}), i32()}, {f32({8, 3})});
  ValueId one = scalarConstant(b, i32(), 1);
  b.ret({b.op1(OpKind::DynamicSlice, {a[0], a[1], one}, f32({8, 3}),
               {{"slice_sizes", std::vector<int64_t>{8, 3}}})});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kLoop);
  EXPECT_EQ(count(k.ttir, "arith.minsi"), 2);
  EXPECT_EQ(count(k.ttir, "arith.maxsi"), 2);
  EXPECT_NE(k.ttir.find("arith.constant dense<18> : tensor<1x1xi32>"),
            std::string::npos);  // 26-8
  EXPECT_NE(k.ttir.find("tt.load %in1 : !tt.ptr<i32>"), std::string::npos);
}

TEST(EmitLoop, UnsupportedOpIsNamed) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({4, 4}), f32({4, 4})}, {f32({4, 4})});
  ir::DotDimensionNumbers dn;
  dn.lhs_contracting_dims = {1};
  dn.rhs_contracting_dims = {0};
  b.ret({b.op1(OpKind::DotGeneral, {a[0], a[1]}, f32({4, 4}),
               {{"dot_dimension_numbers", dn}})});
  b.endFunction();
  StatusOr<TtirKernel> k = emitKernel(m, *m.entry(), wholeFunction(m, Family::kLoop));
  ASSERT_FALSE(k.isOk());
  EXPECT_EQ(k.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(k.status().message().find("dot_general"), std::string::npos)
      << k.status().message();
}

TEST(EmitLoop, EmptyOutputIsNeverLaunched) {
  ir::Module m = addExp(0);
  TtirKernel k = emitWhole(m, Family::kLoop);
  EXPECT_EQ(k.grid[0], 0u);
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
