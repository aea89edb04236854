// The conv family's TTIR (implicit GEMM): one tt.dot in one scf.for, the lhs
// tile gathered from the input in place with masks for padding and lhs
// dilation holes, the rhs read in place, the epilogue fused, any layout.
// Set JFT_TTIR_DUMP_DIR to keep the kernels.
//
// tests/codegen/conv_ttir holds each kernel emitted here with its launch
// (<suite>_<test>.ttir and .json); those tests check that their kernel is
// still the committed one, so that tests/codegen/run_conv_ttir.py (run by
// ctest: it interprets the small ones on random inputs against the
// convolution computed by its definition) and the GPU compile check
// (tests/gpu/compile_ttir_dir.py) see what the emitter writes today.
#include <gtest/gtest.h>

#include "codegen/ttir/capability.h"
#include "committed_sample.h"
#include "conv_modules.h"
#include "emit_test_util.h"
#include "fusion/fusion.h"
#include "ir/builder.h"
#include "launch_dump.h"

namespace jft::codegen::ttir {
namespace {

using namespace testing;
using jft::testing::conv::addConv;
using jft::testing::conv::convResultType;
using jft::testing::conv::ConvSpec;

void expectConvCommitted(const TtirKernel& k) {
  testing::expectCommitted(JFT_CONV_SAMPLES, k);
}

// The K loop's body (from scf.for to its scf.yield).
std::string loopBody(const std::string& t) {
  const size_t loop = at(t, "scf.for"), end = at(t, "scf.yield", loop);
  return t.substr(loop, end - loop);
}

// Divisions and remainders of more than one lane (scalars and [1, 1]
// tensors aside) in `text`.
int laneDivisions(const std::string& text) {
  int n = 0;
  size_t from = 0;
  while (from < text.size()) {
    size_t end = text.find('\n', from);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(from, end - from);
    if ((line.find("arith.divsi") != std::string::npos ||
         line.find("arith.remsi") != std::string::npos) &&
        line.find("tensor<") != std::string::npos &&
        line.find("tensor<1x1xi") == std::string::npos)
      ++n;
    from = end + 1;
  }
  return n;
}

// main(x, w) -> conv(x, w), relu'd when `relu`.
ir::Module convModule(const ConvSpec& s, bool relu = false) {
  ir::Module m;
  ir::Builder b(m);
  const Type out = convResultType(s);
  auto a = b.beginFunction(
      "main", {Type::tensor(s.element, s.lhs), Type::tensor(s.element, s.rhs)}, {out});
  ValueId r = addConv(b, a[0], a[1], s);
  if (relu) {
    const ValueId zero = b.constant(ir::DenseElements::makeSplat(
        out, std::vector<uint8_t>(static_cast<size_t>(ir::storageBytes(s.result)), 0)));
    r = b.op1(OpKind::Maximum, {r, zero}, out);
  }
  b.ret({r});
  b.endFunction();
  return m;
}

// The benchmark's form at a small size: NHWC x HWIO bf16, SAME padding, relu.
// 16 input features: BLOCK_K = 16 divides them, so each step is one window
// position (scalar div/rem of the counter) and the lhs masks vary per row.
TEST(EmitConv, NhwcSameBf16Relu) {
  ConvSpec s;
  s.lhs = {2, 6, 5, 16};
  s.rhs = {3, 3, 16, 8};
  s.padding = {1, 1, 1, 1};
  s.element = s.result = ElementType::BF16;
  const TtirKernel k = emitWhole(convModule(s, true), fusion::Family::kConv);
  dumpLaunch(k);
  expectConvCommitted(k);
  const std::string& t = k.ttir;
  EXPECT_EQ(k.tile, "64x16x16");  // m = 60, n = 8, k = 144
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(count(t, "scf.for"), 1);
  EXPECT_EQ(count(t, "tt.dot "), 1);
  EXPECT_NE(t.find(": tensor<64x16xbf16> * tensor<16x16xbf16> -> tensor<64x16xf32>"),
            std::string::npos)
      << t;
  const std::string body = loopBody(t);
  EXPECT_EQ(count(body, "tt.load"), 2);
  // The window position from the counter: scalar arithmetic, no division
  // over lanes in the loop.
  EXPECT_NE(body.find("arith.divsi %"), std::string::npos);
  EXPECT_EQ(laneDivisions(body), 0) << body;
  // Padding on both sides of both spatial dims: p >= 0 and p <= size - 1.
  EXPECT_EQ(count(body, "arith.cmpi sge"), 2) << body;
  EXPECT_EQ(count(body, "arith.cmpi sle"), 2) << body;
  // The lhs tile is masked with zeros, by rows only ([64, 1] masks).
  EXPECT_NE(body.find("arith.constant dense<0.000000e+00> : tensor<64x16xbf16>"),
            std::string::npos);
  EXPECT_NE(body.find("arith.cmpi sge, %"), std::string::npos);
  // After the loop: rounded to bf16, then relu, then one store.
  const size_t end = at(t, "scf.yield");
  const size_t round = at(t, "arith.truncf", end);
  const size_t relu = at(t, "max", round);
  EXPECT_LT(relu, at(t, "tt.store", round));
  EXPECT_EQ(count(t, "tt.store"), 1);
  EXPECT_EQ(k.num_stages, 3);
}

// NCHW x OIHW f32 (tf32), strided, asymmetric padding, rhs dilation: 3 input
// features, so BLOCK_K = 32 lanes each split k into (window, feature) with
// div/rem, and the K tail (27 of 32) is masked on both tiles. The result's
// feature dim is neither innermost nor outermost.
TEST(EmitConv, NchwOihwStridedDilatedF32) {
  ConvSpec s;
  s.lhs = {2, 3, 9, 8};
  s.rhs = {4, 3, 3, 3};
  s.lhs_layout = "bf01";
  s.rhs_layout = "oi01";
  s.out_layout = "bf01";
  s.strides = {2, 1};
  s.padding = {1, 0, 0, 2};
  s.rhs_dilation = {1, 2};
  const TtirKernel k = emitWhole(convModule(s), fusion::Family::kConv);
  dumpLaunch(k);
  expectConvCommitted(k);
  const std::string& t = k.ttir;
  EXPECT_EQ(k.tile, "64x16x32");
  EXPECT_EQ(count(t, "inputPrecision = tf32"), 1);
  const std::string body = loopBody(t);
  EXPECT_NE(body.find("arith.constant dense<27> : tensor<1x32xi32>"), std::string::npos)
      << body;
  EXPECT_GE(count(body, "arith.remsi"), 1);
  // k < 27 on [1, 32] and [32, 1]; padding only below in dim 0 and above in
  // dim 1 (where p >= 0 always): one sge, and the upper bound in dim 1 only
  // if the last window reaches past the input. Both f32 tiles are rounded to
  // TF32 (tf32_rounding.h: a bitcast there and back, and one finite check,
  // slt, each).
  EXPECT_EQ(count(body, "tt.bitcast"), 4) << body;
  EXPECT_EQ(count(body, "arith.cmpi slt"), 2 + 2) << body;
  EXPECT_EQ(count(body, "arith.cmpi sge"), 1) << body;
  EXPECT_EQ(count(t, "tt.store"), 1);
}

// The input gradient's form: lhs dilation 2 (holes masked by p % 2 == 0,
// read at p / 2), window reversal, f16 operands with an f32 result.
TEST(EmitConv, LhsDilationWithReversalF16) {
  ConvSpec s;
  s.lhs = {1, 4, 3, 8};
  s.rhs = {3, 2, 8, 5};
  s.padding = {2, 2, 1, 1};
  s.lhs_dilation = {2, 2};
  s.reversal = {true, true};
  s.element = ElementType::F16;
  s.result = ElementType::F32;
  const TtirKernel k = emitWhole(convModule(s), fusion::Family::kConv);
  dumpLaunch(k);
  expectConvCommitted(k);
  const std::string body = loopBody(k.ttir);
  EXPECT_EQ(count(body, "arith.cmpi eq"), 2) << body;         // one hole test per dim
  EXPECT_GE(count(body, "arith.subi"), 2) << body;            // window - 1 - w, per dim
  EXPECT_EQ(k.ttir.find("arith.truncf"), std::string::npos);  // f32 result
}

// The weight gradient's form: the batch is contracted (the lhs's "feature"
// dim), the output gradient is the window, the result HWIO. f32 under
// HIGHEST: ieee, BLOCK_K 16, the K tail (60 of 64) masked.
TEST(EmitConv, WeightGradientFormIeee) {
  ConvSpec s;
  s.lhs = {2, 6, 5, 3};  // x: NHWC read as (f, 0, 1, b)
  s.lhs_layout = "f01b";
  s.rhs = {2, 6, 5, 4};  // the output gradient: (i, 0, 1, o)
  s.rhs_layout = "i01o";
  s.out_layout = "01bf";
  s.padding = {1, 1, 1, 1};
  s.highest = true;
  const TtirKernel k = emitWhole(convModule(s), fusion::Family::kConv);
  dumpLaunch(k);
  expectConvCommitted(k);
  EXPECT_EQ(count(k.ttir, "inputPrecision = ieee"), 1);
  EXPECT_EQ(k.tile, "32x16x16");  // m = 3 * 3 * 3, n = 4, k = 60
  EXPECT_EQ(k.num_stages, 3);
}

// Three spatial dims (NDHWC x DHWIO f16), no padding, stride 2 in depth.
TEST(EmitConv, Conv3dNoPadding) {
  ConvSpec s;
  s.lhs = {1, 5, 4, 6, 16};
  s.rhs = {2, 2, 3, 16, 8};
  s.lhs_layout = "b012f";
  s.rhs_layout = "012io";
  s.out_layout = "b012f";
  s.strides = {2, 1, 1};
  s.element = s.result = ElementType::F16;
  const TtirKernel k = emitWhole(convModule(s), fusion::Family::kConv);
  dumpLaunch(k);
  expectConvCommitted(k);
  const std::string body = loopBody(k.ttir);
  // No padding and every window inside the input: no coordinate checks.
  EXPECT_EQ(count(body, "arith.cmpi sge"), 0) << body;
  EXPECT_EQ(count(body, "arith.cmpi sle"), 0) << body;
}

// Several programs (grouped tile rows), ragged M and N tiles, and 20 input
// features: no BLOCK_K divides them, so lanes split k and the K tail (180 =
// 2 x 64 + 52) is masked. f16 with an f16 result.
TEST(EmitConv, MultiTileUnalignedF16) {
  ConvSpec s;
  s.lhs = {2, 9, 11, 20};
  s.rhs = {3, 3, 20, 40};
  s.padding = {1, 1, 1, 1};
  s.element = s.result = ElementType::F16;
  const TtirKernel k = emitWhole(convModule(s), fusion::Family::kConv);
  dumpLaunch(k);
  expectConvCommitted(k);
  EXPECT_EQ(k.tile, "64x64x64");  // 128 rows halved: 2 programs would idle the device
  EXPECT_EQ(k.grid[0], 4u);       // m = 198: 4 tile rows, n = 40: one column
  EXPECT_GE(laneDivisions(loopBody(k.ttir)), 1);
}

// The benchmark itself: [64, 56, 56, 64] x [3, 3, 64, 64] bf16, SAME, relu.
// 128 x 64 tiles, BLOCK_K 64 = the input features (one window position per
// step), 1568 programs; too large to interpret, compiled on the GPU.
TEST(EmitConv, BenchmarkResnetBlock) {
  ConvSpec s;
  s.lhs = {64, 56, 56, 64};
  s.rhs = {3, 3, 64, 64};
  s.padding = {1, 1, 1, 1};
  s.element = s.result = ElementType::BF16;
  const TtirKernel k = emitWhole(convModule(s, true), fusion::Family::kConv);
  dumpLaunch(k);
  expectConvCommitted(k);
  EXPECT_EQ(k.tile, "128x64x64");
  EXPECT_EQ(k.grid[0], 64u * 56 * 56 / 128);
  EXPECT_EQ(k.num_warps, 4);
  EXPECT_EQ(k.num_stages, 3);
  const std::string body = loopBody(k.ttir);
  // No division or remainder over lanes in the loop: the window position
  // is scalar arithmetic on the counter.
  EXPECT_EQ(laneDivisions(body), 0) << body;
  EXPECT_EQ(count(body, "tt.load"), 2);
}

// A result of 2^35 elements: index arithmetic in i64, the K loop included
// (emitted only, not committed).
TEST(EmitConv, HugeResultIndexesInI64) {
  ConvSpec s;
  s.lhs = {2, 32768, 32768, 1};
  s.rhs = {3, 3, 1, 16};
  s.padding = {1, 1, 1, 1};
  s.element = s.result = ElementType::F16;
  const TtirKernel k = emitWhole(convModule(s), fusion::Family::kConv);
  EXPECT_NE(k.ttir.find(": i64 {"), std::string::npos);      // the scf.for
  EXPECT_NE(k.ttir.find("arith.extsi"), std::string::npos);  // the program id
  EXPECT_EQ(k.grid[0], uint32_t{2} * 32768 * 32768 / 128);
}

// The planner's conv + bias + relu group emits as one kernel reading x, w and
// the bias vector.
TEST(EmitConv, PlannedConvBiasReluEmits) {
  ConvSpec s;
  s.lhs = {2, 6, 5, 16};
  s.rhs = {3, 3, 16, 8};
  s.padding = {1, 1, 1, 1};
  s.element = s.result = ElementType::BF16;
  ir::Module m;
  ir::Builder b(m);
  const Type out = convResultType(s);
  auto a = b.beginFunction("main",
                           {Type::tensor(s.element, s.lhs),
                            Type::tensor(s.element, s.rhs), Type::tensor(s.element, {8})},
                           {out});
  const ValueId c = addConv(b, a[0], a[1], s);
  const ValueId bias = b.op1(OpKind::BroadcastInDim, {a[2]}, out,
                             {{"broadcast_dimensions", std::vector<int64_t>{3}}});
  const ValueId sum = b.op1(OpKind::Add, {c, bias}, out);
  const ValueId zero = b.constant(ir::DenseElements::makeSplat(out, {0, 0}));
  b.ret({b.op1(OpKind::Maximum, {sum, zero}, out)});
  b.endFunction();
  fusion::PlanOptions options;
  options.library_route = true;
  options.conv = fusion::ConvRoute::kTtir;
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir(options));
  ASSERT_EQ(plan.fusions.size(), 1u) << fusion::describePlan(m, *m.entry(), plan);
  const fusion::Fusion& g = plan.fusions[0];
  EXPECT_EQ(g.family, fusion::Family::kConv);
  EXPECT_EQ(g.inputs, (std::vector<ValueId>{a[0], a[1], a[2]}));
  StatusOr<TtirKernel> k = emitKernel(m, *m.entry(), g);
  ASSERT_TRUE(k.isOk()) << k.status().toString();
  EXPECT_TRUE(checkTtirSyntax(k->ttir).isOk()) << k->ttir;
  EXPECT_EQ(count(k->ttir, "tt.dot"), 1);
  EXPECT_EQ(count(k->ttir, "tt.store"), 1);
  // The bias is loaded once per tile column ([1, 16]), after the loop.
  EXPECT_NE(k->ttir.find("tensor<1x16x!tt.ptr<bf16>>", at(k->ttir, "scf.yield")),
            std::string::npos)
      << k->ttir;
}

// A group that is not what the planner makes fails clearly: an operand
// computed by another op, and a grouped convolution.
TEST(EmitConv, UnplannedGroupsAreRefused) {
  {
    ConvSpec s;
    s.lhs = {1, 4, 4, 2};
    s.rhs = {3, 3, 2, 2};
    ir::Module m;
    ir::Builder b(m);
    auto a = b.beginFunction("main", {f32(s.lhs), f32(s.rhs)}, {convResultType(s)});
    const ValueId e = b.op1(OpKind::Exponential, {a[0]}, f32(s.lhs));
    b.ret({addConv(b, e, a[1], s)});
    b.endFunction();
    StatusOr<TtirKernel> k =
        emitKernel(m, *m.entry(), wholeFunction(m, fusion::Family::kConv));
    ASSERT_FALSE(k.isOk());
    EXPECT_NE(k.status().message().find("neither an input nor a convert"),
              std::string::npos)
        << k.status().toString();
  }
  {
    ConvSpec s;
    s.lhs = {1, 4, 4, 4};
    s.rhs = {3, 3, 2, 4};
    s.feature_groups = 2;
    const ir::Module m = convModule(s);
    StatusOr<TtirKernel> k =
        emitKernel(m, *m.entry(), wholeFunction(m, fusion::Family::kConv));
    ASSERT_FALSE(k.isOk());
    EXPECT_EQ(k.status().code(), StatusCode::kUnimplemented);
    EXPECT_NE(k.status().message().find("grouped convolutions"), std::string::npos)
        << k.status().toString();
  }
}

}  // namespace
}  // namespace jft::codegen::ttir
