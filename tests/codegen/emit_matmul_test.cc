// The matmul family's TTIR: tile loop, operand loads through index maps, the
// tt.dot form Triton 3.6 accepts (tests/codegen/reference/mm.ttir), masks,
// and the epilogue's rounding. Set JFT_TTIR_DUMP_DIR to keep the kernels.
//
// tests/codegen/matmul_ttir holds each kernel emitted here with its launch
// (<suite>_<test>.ttir and .json), all but the huge i64 one; those tests
// check that their kernel is still the committed one, so that
// tests/codegen/run_matmul_ttir.py (run by ctest: it interprets them on random
// inputs against the products computed by definition) and the GPU compile
// check (tests/gpu/compile_ttir_dir.py) see what the emitter writes today.
#include <gtest/gtest.h>

#include "codegen/ttir/capability.h"
#include "committed_sample.h"
#include "emit_test_util.h"
#include "fusion/fusion.h"
#include "fusion/matmul_form.h"
#include "ir/builder.h"
#include "launch_dump.h"

namespace jft::codegen::ttir {
namespace {

using namespace testing;

Type f16(std::vector<int64_t> dims) {
  return Type::tensor(ElementType::F16, dims);
}

ir::DotDimensionNumbers numbers(std::vector<int64_t> lb, std::vector<int64_t> rb,
                                std::vector<int64_t> lc, std::vector<int64_t> rc) {
  ir::DotDimensionNumbers dn;
  dn.lhs_batching_dims = std::move(lb);
  dn.rhs_batching_dims = std::move(rb);
  dn.lhs_contracting_dims = std::move(lc);
  dn.rhs_contracting_dims = std::move(rc);
  return dn;
}

ValueId dot(ir::Builder& b, ValueId lhs, ValueId rhs, const Type& result,
            ir::DotDimensionNumbers dn, bool highest = false) {
  ir::NamedAttrs attrs{{"dot_dimension_numbers", dn}};
  if (highest)
    attrs.emplace_back(
        "precision_config",
        std::vector<ir::Precision>{ir::Precision::HIGHEST, ir::Precision::HIGHEST});
  return b.op1(OpKind::DotGeneral, {lhs, rhs}, result, attrs);
}

void expectMatmulCommitted(const TtirKernel& k) {
  testing::expectCommitted(JFT_MATMUL_SAMPLES, k);
}

// [64, 32] x [32, 48] f32 -> [64, 48]: one 64x64 tile (N masked), K in one
// 32-wide step, tf32 under DEFAULT precision.
TEST(EmitMatmul, PlainF32) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({64, 32}), f32({32, 48})}, {f32({64, 48})});
  b.ret({dot(b, a[0], a[1], f32({64, 48}), numbers({}, {}, {1}, {0}))});
  b.endFunction();
  const TtirKernel k = emitWhole(m, fusion::Family::kMatmul);
  dumpLaunch(k);
  expectMatmulCommitted(k);
  const std::string& t = k.ttir;
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(k.tile, "64x64x32");
  EXPECT_EQ(count(t, "scf.for"), 1);
  EXPECT_EQ(count(t, "tt.dot "), 1);
  EXPECT_NE(t.find("inputPrecision = tf32 : tensor<64x32xf32> * tensor<32x64xf32> -> "
                   "tensor<64x64xf32>"),
            std::string::npos)
      << t;
  // Both loads inside the loop, the store after it.
  const size_t loop = at(t, "scf.for"), end = at(t, "scf.yield", loop);
  EXPECT_EQ(count(t.substr(loop, end - loop), "tt.load"), 2);
  EXPECT_GT(at(t, "tt.store"), end);
  // The rhs tile is masked past N = 48 (with zeros); the lhs is not (M and K
  // are multiples of the tile).
  EXPECT_EQ(count(t, "arith.constant dense<0.000000e+00> : tensor<32x64xf32>"), 1) << t;
  EXPECT_EQ(count(t, "arith.constant dense<0.000000e+00> : tensor<64x32xf32>"), 0) << t;
  // Row-major strides: lhs offset m * 32 + k, rhs offset k * 48 + n.
  EXPECT_NE(t.find("arith.constant dense<32> : tensor<64x1xi32>"), std::string::npos);
  EXPECT_NE(t.find("arith.constant dense<48> : tensor<32x1xi32>"), std::string::npos);
  EXPECT_EQ(k.num_stages, 1);  // one K step: nothing to pipeline
}

TEST(EmitMatmul, HighestPrecisionIsIeee) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({8, 200}), f32({200, 8})}, {f32({8, 8})});
  b.ret({dot(b, a[0], a[1], f32({8, 8}), numbers({}, {}, {1}, {0}), true)});
  b.endFunction();
  const TtirKernel k = emitWhole(m, fusion::Family::kMatmul);
  dumpLaunch(k);
  expectMatmulCommitted(k);
  EXPECT_EQ(count(k.ttir, "inputPrecision = ieee"), 1) << k.ttir;
  EXPECT_EQ(count(k.ttir, "inputPrecision = tf32"), 0);
  // 200 = 12 x 16 + 8: the K tail is masked on both operands, zeros loaded.
  EXPECT_EQ(k.tile, "16x16x16");
  EXPECT_EQ(count(k.ttir, "arith.constant 200 : i32"), 1) << k.ttir;  // the loop's end
  const size_t loop = at(k.ttir, "scf.for");
  const std::string body = k.ttir.substr(loop);
  EXPECT_EQ(count(body, "arith.cmpi slt"), 2);  // k < 200, as [1, BK] and [BK, 1]
  EXPECT_EQ(count(body, "arith.constant dense<0.000000e+00> : tensor<16x16xf32>"), 2);
  EXPECT_EQ(k.num_stages, 3);
}

// Batched, both operands transposed (lhs [b, k, m], rhs [b, n, k]), bf16 with
// a bf16 result, bias + relu fused: the accumulator is rounded to bf16 after
// the loop, and the bias add computes in f32 and rounds again before the max.
TEST(EmitMatmul, BatchedTransposedBf16BiasRelu) {
  ir::Module m;
  ir::Builder b(m);
  const Type out = bf16({3, 20, 24});
  auto a =
      b.beginFunction("main", {bf16({3, 40, 20}), bf16({3, 24, 40}), bf16({24})}, {out});
  ValueId d = dot(b, a[0], a[1], out, numbers({0}, {0}, {1}, {2}));
  ValueId bias = b.op1(OpKind::BroadcastInDim, {a[2]}, out,
                       {{"broadcast_dimensions", std::vector<int64_t>{2}}});
  ValueId sum = b.op1(OpKind::Add, {d, bias}, out);
  // bf16 zero: two zero bytes.
  ValueId zero = b.constant(ir::DenseElements::makeSplat(out, {0, 0}));
  b.ret({b.op1(OpKind::Maximum, {sum, zero}, out)});
  b.endFunction();
  const TtirKernel k = emitWhole(m, fusion::Family::kMatmul);
  dumpLaunch(k);
  expectMatmulCommitted(k);
  const std::string& t = k.ttir;
  EXPECT_EQ(k.grid[0], 3u);  // one 32x32 tile per batch item
  EXPECT_EQ(k.tile, "32x32x64");
  EXPECT_NE(t.find("tt.dot"), std::string::npos);
  EXPECT_NE(t.find(": tensor<32x64xbf16> * tensor<64x32xbf16> -> tensor<32x32xf32>"),
            std::string::npos)
      << t;
  // The batch item from the program id, and the operands' batch strides
  // (40 * 20 and 24 * 40 elements).
  EXPECT_NE(t.find("arith.constant 800 : i32"), std::string::npos);
  EXPECT_NE(t.find("arith.constant 960 : i32"), std::string::npos);
  const size_t loop_end = at(t, "scf.yield");
  const size_t round = at(t, "arith.truncf", loop_end);
  EXPECT_NE(t.substr(round, 80).find("tensor<32x32xf32> to tensor<32x32xbf16>"),
            std::string::npos)
      << t.substr(round, 120);
  const size_t add = at(t, "arith.addf", round);
  const size_t widen = at(t, "arith.extf", round);
  EXPECT_LT(widen, add);                                // the rounded dot, widened
  const size_t round_sum = at(t, "arith.truncf", add);  // the sum rounded to bf16
  const size_t store = at(t, "tt.store", round_sum);
  const size_t relu = t.find("max", round_sum);
  EXPECT_LT(relu, store);
  // The bias is loaded with the tile's columns only ([1, 32]).
  EXPECT_NE(t.find("tt.load", loop_end), std::string::npos);
  EXPECT_NE(t.find("tensor<1x32x!tt.ptr<bf16>>", loop_end), std::string::npos) << t;
}

// 100 x 70 outputs on 64x64 tiles: four programs in grouped order (two tile
// rows per group); the rhs is [n, k] (transposed) and a residual and a
// scalar factor are fused: (x @ w^T + r) * 0.5.
TEST(EmitMatmul, GroupedTilesWithResidual) {
  ir::Module m;
  ir::Builder b(m);
  const Type out = f32({100, 70});
  auto a = b.beginFunction("main", {f32({100, 40}), f32({70, 40}), out}, {out});
  ValueId d = dot(b, a[0], a[1], out, numbers({}, {}, {1}, {1}));
  ValueId sum = b.op1(OpKind::Add, {d, a[2]}, out);
  ValueId half = b.constant(ir::denseFromValues(out, std::vector<double>(100 * 70, 0.5)));
  b.ret({b.op1(OpKind::Multiply, {sum, half}, out)});
  b.endFunction();
  const TtirKernel k = emitWhole(m, fusion::Family::kMatmul);
  dumpLaunch(k);
  expectMatmulCommitted(k);
  EXPECT_EQ(k.grid[0], 4u);
  EXPECT_EQ(k.tile, "64x64x32");
  EXPECT_EQ(count(k.ttir, "arith.minsi"), 1);  // the last group's size
  EXPECT_EQ(k.num_stages, 3);
}

// A convert feeding the dot (f32 -> bf16) is applied to the loaded tile: the
// lhs is read as f32 and rounded inside the loop, before tt.dot.
TEST(EmitMatmul, OperandConvertIsFused) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({33, 17}), bf16({17, 5})}, {f32({33, 5})});
  ValueId x = b.op1(OpKind::Convert, {a[0]}, bf16({33, 17}));
  b.ret({dot(b, x, a[1], f32({33, 5}), numbers({}, {}, {1}, {0}))});
  b.endFunction();
  const TtirKernel k = emitWhole(m, fusion::Family::kMatmul);
  dumpLaunch(k);
  expectMatmulCommitted(k);
  const std::string& t = k.ttir;
  const size_t loop = at(t, "scf.for"), d = at(t, "tt.dot", loop);
  const std::string body = t.substr(loop, d - loop);
  EXPECT_NE(body.find("tensor<64x32x!tt.ptr<f32>>"), std::string::npos) << t;
  EXPECT_NE(body.find("to tensor<64x32xbf16>"), std::string::npos) << t;
  EXPECT_EQ(k.grid[0], 1u);
  EXPECT_EQ(k.tile, "64x16x32");
}

// Contracting dims {0, 2} of lhs [4, 6, 5] are not one run of memory: k
// splits into (k / 5, k % 5) inside the loop. The result's free dim keeps
// its own index.
TEST(EmitMatmul, NonContiguousContractingDims) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({4, 6, 5}), f32({4, 5, 7})}, {f32({6, 7})});
  b.ret({dot(b, a[0], a[1], f32({6, 7}), numbers({}, {}, {0, 2}, {0, 1}))});
  b.endFunction();
  const TtirKernel k = emitWhole(m, fusion::Family::kMatmul);
  dumpLaunch(k);
  expectMatmulCommitted(k);
  const size_t loop = at(k.ttir, "scf.for"), d = at(k.ttir, "tt.dot", loop);
  const std::string body = k.ttir.substr(loop, d - loop);
  EXPECT_GE(count(body, "arith.remsi"), 1) << k.ttir;
  EXPECT_GE(count(body, "arith.divsi"), 1) << k.ttir;
}

// f32 operands under DEFAULT precision: each loaded tile is rounded to TF32
// to nearest (src/codegen/ttir/tf32_rounding.h) before tt.dot, with the
// constants of that rounding: bias 0x1000, mask ~0x1FFF, the exponent field
// 0x7F800000 (finite below it, NaN above), the quiet bit 0x00400000.
// [24, 1] x [1, 100]: run_matmul_ttir.py drives the rows through a table of
// hand-rounded bit patterns (ties, carries into the exponent, the largest
// finite value rounding to infinity, subnormals, infinities, NaN). 100
// columns: XLA computes products under (m + n) k = 100 exactly, and so do we.
TEST(EmitMatmul, Tf32RoundsOperands) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({24, 1}), f32({1, 100})}, {f32({24, 100})});
  b.ret({dot(b, a[0], a[1], f32({24, 100}), numbers({}, {}, {1}, {0}))});
  b.endFunction();
  const TtirKernel k = emitWhole(m, fusion::Family::kMatmul);
  dumpLaunch(k);
  expectMatmulCommitted(k);
  const std::string& t = k.ttir;
  const size_t loop = at(t, "scf.for"), d = at(t, "tt.dot", loop);
  const std::string body = t.substr(loop, d - loop);
  // Two bitcasts (to i32 and back) per operand, all before the dot.
  EXPECT_EQ(count(body, "tt.bitcast"), 4) << t;
  EXPECT_EQ(count(t, "tt.bitcast"), 4) << t;
  for (const char* c : {"dense<4096>", "dense<-8192>", "dense<2147483647>",
                        "dense<2139095040>", "dense<4194304>"})
    EXPECT_EQ(count(body, c), 2) << c << "\n" << t;
  EXPECT_EQ(count(body, "arith.cmpi sgt"), 2) << t;  // NaN: magnitude > 0x7F800000
  EXPECT_EQ(count(body, "arith.select"), 4) << t;
  EXPECT_EQ(count(t, "inputPrecision = tf32"), 1);
}

// No TF32 rounding where the MMA does not truncate f32: HIGHEST ("ieee"),
// 16-bit operands, and f32 operands converted from f16 (exact in TF32).
TEST(EmitMatmul, Tf32RoundingOnlyUnderTf32F32) {
  auto kernel = [](Type lhs, Type rhs, Type out, bool highest, bool widen) {
    ir::Module m;
    ir::Builder b(m);
    auto a = b.beginFunction("main", {lhs, rhs}, {out});
    ValueId x = a[0];
    if (widen) x = b.op1(OpKind::Convert, {a[0]}, f32(lhs.dims));
    b.ret({dot(b, x, a[1], out, numbers({}, {}, {1}, {0}), highest)});
    b.endFunction();
    return emitWhole(m, fusion::Family::kMatmul).ttir;
  };
  const std::string ieee = kernel(f32({8, 16}), f32({16, 8}), f32({8, 8}), true, false);
  EXPECT_EQ(count(ieee, "tt.bitcast"), 0) << ieee;
  const std::string half = kernel(f16({8, 16}), f16({16, 8}), f32({8, 8}), false, false);
  EXPECT_EQ(count(half, "tt.bitcast"), 0) << half;
  // The f16 lhs widened to f32 is exact; the f32 rhs is still rounded.
  const std::string widened =
      kernel(f16({8, 16}), f32({16, 8}), f32({8, 8}), false, true);
  EXPECT_EQ(count(widened, "tt.bitcast"), 2) << widened;
}

// A result of 2^32 elements: index arithmetic in i64, the K loop included.
TEST(EmitMatmul, HugeResultIndexesInI64) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f16({65536, 32}), f16({32, 65536})},
                           {f16({65536, 65536})});
  b.ret({dot(b, a[0], a[1], f16({65536, 65536}), numbers({}, {}, {1}, {0}))});
  b.endFunction();
  const TtirKernel k = emitWhole(m, fusion::Family::kMatmul);
  EXPECT_NE(k.ttir.find(": i64 {"), std::string::npos) << k.ttir;  // the scf.for
  EXPECT_NE(k.ttir.find("arith.extsi"), std::string::npos);        // the program id
  EXPECT_EQ(k.grid[0], 512u * 512u);
}

// A vector dot vector is a scalar: one lane of the tile is stored.
TEST(EmitMatmul, VectorDotIsOneMaskedLane) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f16({100}), f16({100})}, {f16({})});
  b.ret({dot(b, a[0], a[1], f16({}), numbers({}, {}, {0}, {0}))});
  b.endFunction();
  const TtirKernel k = emitWhole(m, fusion::Family::kMatmul);
  dumpLaunch(k);
  expectMatmulCommitted(k);
  EXPECT_EQ(k.tile, "16x16x64");
  EXPECT_EQ(count(k.ttir, "tt.store"), 1);
  EXPECT_NE(k.ttir.find("arith.truncf"), std::string::npos);  // f32 -> f16
}

// Grouping to kernel: the planner's dot + bias + relu group emits as one
// kernel whose inputs are x, w and the bias vector.
TEST(EmitMatmul, PlannedGroupEmits) {
  ir::Module m;
  ir::Builder b(m);
  const Type out = f32({50, 70});
  auto a = b.beginFunction("main", {f32({50, 30}), f32({30, 70}), f32({70})}, {out});
  ValueId d = dot(b, a[0], a[1], out, numbers({}, {}, {1}, {0}));
  ValueId bias = b.op1(OpKind::BroadcastInDim, {a[2]}, out,
                       {{"broadcast_dimensions", std::vector<int64_t>{1}}});
  ValueId sum = b.op1(OpKind::Add, {d, bias}, out);
  ValueId zero = b.constant(ir::denseFromValues(out, std::vector<double>(50 * 70, 0)));
  b.ret({b.op1(OpKind::Maximum, {sum, zero}, out)});
  b.endFunction();
  fusion::PlanOptions options;
  options.library_route = true;
  options.matmul = fusion::MatmulRoute::kTtir;
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir(options));
  ASSERT_EQ(plan.fusions.size(), 1u) << fusion::describePlan(m, *m.entry(), plan);
  const fusion::Fusion& g = plan.fusions[0];
  EXPECT_EQ(g.family, fusion::Family::kMatmul);
  EXPECT_EQ(g.inputs, (std::vector<ValueId>{a[0], a[1], a[2]}));
  StatusOr<TtirKernel> k = emitKernel(m, *m.entry(), g);
  ASSERT_TRUE(k.isOk()) << k.status().toString();
  EXPECT_TRUE(checkTtirSyntax(k->ttir).isOk()) << k->ttir;
  EXPECT_EQ(count(k->ttir, "tt.dot"), 1);
  EXPECT_EQ(count(k->ttir, "tt.store"), 1);
}

// A group that is not what the planner makes fails clearly.
TEST(EmitMatmul, DotOfAnotherOpIsRefused) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({16, 16}), f32({16, 16})}, {f32({16, 16})});
  ValueId e = b.op1(OpKind::Exponential, {a[0]}, f32({16, 16}));
  b.ret({dot(b, e, a[1], f32({16, 16}), numbers({}, {}, {1}, {0}))});
  b.endFunction();
  const fusion::Fusion g = wholeFunction(m, fusion::Family::kMatmul);
  StatusOr<TtirKernel> k = emitKernel(m, *m.entry(), g);
  ASSERT_FALSE(k.isOk());
  EXPECT_NE(k.status().message().find("neither an input nor a convert"),
            std::string::npos)
      << k.status().toString();
}

}  // namespace
}  // namespace jft::codegen::ttir
