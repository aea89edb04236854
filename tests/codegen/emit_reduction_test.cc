// The reduction family on hand-built functions: softmax in registers, a long
// row in chunks, a column reduction, a two-operand reduce (argmax).
#include <gtest/gtest.h>

#include <limits>

#include "emit_test_util.h"

namespace jft::codegen::ttir::testing {
namespace {

using fusion::Family;

ValueId reduce(ir::Builder& b, ValueId x, ValueId init, std::vector<int64_t> dims,
               const Type& result, OpKind combine) {
  const Type scalar = Type::scalar(b.typeOf(x).element);
  auto args = b.beginRegion({scalar, scalar});
  b.ret({b.op1(combine, {args[0], args[1]}, scalar)});
  ir::Region body = b.endRegion();
  return b.op1(OpKind::Reduce, {x, init}, result, {{"dimensions", dims}},
               {std::move(body)});
}

ValueId rowBroadcast(ir::Builder& b, ValueId v, const Type& to) {
  return b.op1(OpKind::BroadcastInDim, {v}, to,
               {{"broadcast_dimensions", std::vector<int64_t>{0}}});
}

// softmax over the rows of [rows, cols].
ir::Module softmax(int64_t rows, int64_t cols) {
  ir::Module m;
  ir::Builder b(m);
  const Type full = f32({rows, cols}), kept = f32({rows});
  auto a = b.beginFunction("main", {full}, {full});
  ValueId ninf = scalarConstant(b, f32(), -std::numeric_limits<double>::infinity());
  ValueId zero = scalarConstant(b, f32(), 0);
  ValueId mx = reduce(b, a[0], ninf, {1}, kept, OpKind::Maximum);
  ValueId e =
      b.op1(OpKind::Exponential,
            {b.op1(OpKind::Subtract, {a[0], rowBroadcast(b, mx, full)}, full)}, full);
  ValueId sum = reduce(b, e, zero, {1}, kept, OpKind::Add);
  b.ret({b.op1(OpKind::Divide, {e, rowBroadcast(b, sum, full)}, full)});
  b.endFunction();
  return m;
}

TEST(EmitReduction, SoftmaxIsOneKernelWithOneTtReducePerReduce) {
  ir::Module m = softmax(32, 128);
  TtirKernel k = emitWhole(m, Family::kReduction);
  // 128 columns in one tile; 2048/128 = 16 rows per program: 2 programs.
  EXPECT_EQ(k.tile, "16x128");
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{2, 1, 1}));
  EXPECT_EQ(count(k.ttir, "\"tt.reduce\""), 2);
  EXPECT_EQ(count(k.ttir, "scf.for"), 0);
  EXPECT_EQ(count(k.ttir, "tt.load "), 1);  // x is read once, reused by both reduces
  EXPECT_EQ(count(k.ttir, "tt.store "), 1);
  // The max combiner: one scalar max op in the first tt.reduce's body.
  EXPECT_EQ(count(k.ttir, "arith.maxnumf") + count(k.ttir, "arith.maximumf"), 1);
  EXPECT_NE(k.ttir.find("tensor<16x128x!tt.ptr<f32>>"), std::string::npos);
  EXPECT_EQ(count(k.ttir, "arith.divsi"), 0);
  EXPECT_EQ(count(k.ttir, "arith.remsi"), 0);
}

TEST(EmitReduction, RaggedRowsAreMaskedAndFilledWithInit) {
  ir::Module m = softmax(10, 100);
  TtirKernel k = emitWhole(m, Family::kReduction);
  EXPECT_EQ(k.tile, "16x128");  // 2048/128 = 16 rows, capped to 16 (10 -> 16)
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_GE(count(k.ttir, "arith.cmpi slt"), 2);            // row and column bounds
  EXPECT_GE(count(k.ttir, "arith.select"), 2);              // masked lanes take each init
  EXPECT_NE(k.ttir.find("0xFF800000"), std::string::npos);  // -inf init of the max
}

TEST(EmitReduction, LongRowLoopsInChunks) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({8, 100000})}, {f32({8})});
  ValueId zero = scalarConstant(b, f32(), 0);
  ValueId sq = b.op1(OpKind::Multiply, {a[0], a[0]}, f32({8, 100000}));
  b.ret({reduce(b, sq, zero, {1}, f32({8}), OpKind::Add)});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kReduction);
  EXPECT_EQ(k.tile, "1x2048 looped");
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{8, 1, 1}));
  EXPECT_EQ(count(k.ttir, "scf.for"), 1);
  EXPECT_EQ(count(k.ttir, "scf.yield"), 1);
  // Each step folds the chunk into per-lane accumulators with the combiner;
  // one tt.reduce after the loop reduces the lanes.
  EXPECT_EQ(count(k.ttir, "\"tt.reduce\""), 1);
  EXPECT_EQ(count(k.ttir, "arith.addf"), 2);
  EXPECT_NE(k.ttir.find("arith.constant 100000 : i32"), std::string::npos);
}

TEST(EmitReduction, ColumnReductionReadsAlongTheKeptAxis) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({1000, 64})}, {f32({64})});
  ValueId zero = scalarConstant(b, f32(), 0);
  b.ret({reduce(b, a[0], zero, {0}, f32({64}), OpKind::Add)});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kReduction);
  EXPECT_EQ(k.tile, "64x64 looped");  // 64 kept lanes, 4096/64 rows of 1000 per step
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{1, 1, 1}));
  // The address is k*64 + o: o (contiguous) comes from the axis-0 range.
  EXPECT_NE(k.ttir.find("arith.constant dense<64> : tensor<1x64xi32>"),
            std::string::npos);
  EXPECT_EQ(count(k.ttir, "scf.for"), 1);
}

TEST(EmitReduction, ArgmaxIsOneTwoOperandReduce) {
  ir::Module m;
  ir::Builder b(m);
  const Type full = f32({16, 256});
  auto a = b.beginFunction("main", {full}, {i32({16})});
  ValueId iota =
      b.op1(OpKind::Iota, {}, i32({16, 256}), {{"iota_dimension", int64_t{1}}});
  ValueId ninf = scalarConstant(b, f32(), -std::numeric_limits<double>::infinity());
  ValueId izero = scalarConstant(b, i32(), 0);
  const Type fs = f32(), is = i32();
  auto args = b.beginRegion({fs, is, fs, is});
  ValueId gt = b.op1(OpKind::Compare, {args[0], args[2]}, pred(),
                     {{"comparison_direction", ir::ComparisonDirection::GE}});
  ValueId v = b.op1(OpKind::Select, {gt, args[0], args[2]}, fs);
  ValueId i = b.op1(OpKind::Select, {gt, args[1], args[3]}, is);
  b.ret({v, i});
  ir::Region body = b.endRegion();
  auto r = b.op(OpKind::Reduce, {a[0], iota, ninf, izero}, {f32({16}), i32({16})},
                {{"dimensions", std::vector<int64_t>{1}}}, {std::move(body)});
  b.ret({r[1]});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kReduction);
  EXPECT_EQ(count(k.ttir, "\"tt.reduce\""), 1);
  EXPECT_NE(k.ttir.find(":2 = \"tt.reduce\""), std::string::npos);
  EXPECT_NE(k.ttir.find("-> (tensor<8xf32>, tensor<8xi32>)"), std::string::npos);
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{2, 1, 1}));  // 2048/256 = 8 rows per program
}

TEST(EmitReduction, FullReductionToAScalar) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({3000})}, {f32()});
  ValueId zero = scalarConstant(b, f32(), 0);
  b.ret({reduce(b, a[0], zero, {0}, f32(), OpKind::Add)});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kReduction);
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(k.tile, "1x4096");
  EXPECT_EQ(count(k.ttir, "tt.store "), 1);
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
