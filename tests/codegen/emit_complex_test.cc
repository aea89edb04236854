// Complex values in the loop family (complex_emitter.h): each complex value
// is two real tiles, read and written as the interleaved (re, im) pairs of
// memory (component 2i + part). Checks the addressing, the part arithmetic
// written against the textbook formulas, a splat complex constant, and which
// complex ops the planner still refuses. The numbers are checked on a GPU by
// tests/codegen/run_complex_check.py against numpy.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>

#include "codegen/ttir/capability.h"
#include "emit_test_util.h"
#include "fusion/ttir_support.h"
#include "launch_dump.h"
#include "scatter_modules.h"

namespace jft::codegen::ttir::testing {
namespace {

using fusion::Family;

Type c64(std::vector<int64_t> dims = {}) {
  return Type::tensor(ElementType::C64, dims);
}
Type c128(std::vector<int64_t> dims = {}) {
  return Type::tensor(ElementType::C128, dims);
}

TEST(EmitComplex, MultiplyReadsEachPartOnceAndWritesBoth) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {c64({8, 32}), c64({8, 32})}, {c64({8, 32})});
  b.ret({b.op1(OpKind::Multiply, {a[0], a[1]}, c64({8, 32}))});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kLoop);
  dumpLaunch(k);
  // Three f32 pointers: the pairs are f32 components.
  EXPECT_EQ(count(k.ttir, "!tt.ptr<f32> {tt.divisibility"), 3);
  EXPECT_EQ(count(k.ttir, "tt.load "), 4);   // re and im of each input
  EXPECT_EQ(count(k.ttir, "tt.store "), 2);  // re and im of the product
  // (a + bi)(c + di) = (ac - bd) + (ad + bc)i: four products, one of each.
  EXPECT_EQ(count(k.ttir, "arith.mulf"), 4);
  EXPECT_EQ(count(k.ttir, "arith.subf"), 1);
  EXPECT_EQ(count(k.ttir, "arith.addf"), 1);
  // Element i's parts sit at 2i and 2i + 1.
  EXPECT_NE(k.ttir.find("arith.constant dense<2> : "), std::string::npos);
  EXPECT_NE(k.ttir.find("arith.constant dense<1> : "), std::string::npos);
}

// Every complex op the emitter claims must be TTIR Triton 3.6 accepts (the
// syntax check emitWhole runs): a negate once came out as arith.negf, which
// Triton's TTGIR conversion rejects.
TEST(EmitComplex, EveryUnaryOpIsTtirTritonAccepts) {
  for (ElementType element : {ElementType::C64, ElementType::C128})
    for (OpKind kind :
         {OpKind::Negate, OpKind::Exponential, OpKind::ExponentialMinusOne, OpKind::Log,
          OpKind::LogPlusOne, OpKind::Sqrt, OpKind::Rsqrt, OpKind::Cbrt, OpKind::Sign,
          OpKind::Sine, OpKind::Cosine, OpKind::Tan, OpKind::Tanh, OpKind::Logistic}) {
      ir::Module m;
      ir::Builder b(m);
      const Type t = Type::tensor(element, {16});
      auto a = b.beginFunction("main", {t}, {t});
      b.ret({b.op1(kind, {a[0]}, t)});
      b.endFunction();
      TtirKernel k = emitWhole(m, Family::kLoop);
      EXPECT_EQ(k.ttir.find("arith.negf"), std::string::npos) << ir::opKindName(kind);
      // Signs of zeros are read from the bits (complex_math.h, copysign).
      EXPECT_EQ(k.ttir.find("copysign"), std::string::npos) << ir::opKindName(kind);
      EXPECT_EQ(count(k.ttir, "tt.store "), 2) << ir::opKindName(kind);
    }
}

// Unary complex ops of complex_math.h, each in a kernel of its own for
// tests/codegen/run_complex_check.py: z -> op(z) on complex64 [64].
TtirKernel unaryKernel(OpKind kind, ElementType element = ElementType::C64) {
  ir::Module m;
  ir::Builder b(m);
  const Type t = Type::tensor(element, {64});
  auto a = b.beginFunction("main", {t}, {t});
  b.ret({b.op1(kind, {a[0]}, t)});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kLoop);
  dumpLaunch(k);
  return k;
}

// Both parts of a complex function come from one evaluation of its formula
// (the other part is remembered): each library call appears once.
TEST(EmitComplex, SqrtKeepsTheSignOfAZeroImaginaryPart) {
  TtirKernel k = unaryKernel(OpKind::Sqrt);
  // x < 0: the imaginary part is +-t by the sign bit of y's bits (-0
  // included), so -1 - 0i gives -i; read from the bits, not through a
  // library call (complex_math.h, copysign).
  EXPECT_EQ(count(k.ttir, "copysign"), 0);
  EXPECT_EQ(count(k.ttir, "tt.bitcast "), 1);
  EXPECT_NE(k.ttir.find(": tensor<64xf32> -> tensor<64xi32>"), std::string::npos);
  EXPECT_EQ(count(k.ttir, "arith.cmpi slt"), 1);
  // hypot of (x, y) and of (x/4, y/4) near the top of the range.
  EXPECT_EQ(count(k.ttir, "symbol = \"__nv_hypotf\""), 2);
  EXPECT_EQ(count(k.ttir, "tt.precise_sqrt"), 2);
  EXPECT_EQ(count(k.ttir, "tt.load "), 2);
  EXPECT_EQ(count(k.ttir, "tt.store "), 2);
}

// complex128 sqrt for run_complex_check.py: f64 parts (1e308 + 1e308i takes
// the scaled form), the sign of y read from its 64 bits.
TEST(EmitComplex, SqrtOfComplex128ScalesNearTheTopOfTheRange) {
  TtirKernel k = unaryKernel(OpKind::Sqrt, ElementType::C128);
  EXPECT_EQ(count(k.ttir, "symbol = \"__nv_hypot\""), 2);
  EXPECT_NE(k.ttir.find(": tensor<64xf64> -> tensor<64xi64>"), std::string::npos);
  EXPECT_NE(k.ttir.find("0x7FB0000000000000"), std::string::npos) << k.ttir;  // 2^1020
}

// log for run_complex_check.py: an infinite part gives log|z| = +inf whatever
// the other part (no library hypot of (inf, NaN) decides it).
TEST(EmitComplex, LogOfAnInfinitePartIsInfinite) {
  TtirKernel k = unaryKernel(OpKind::Log);
  EXPECT_EQ(count(k.ttir, "symbol = \"__nv_atan2f\""), 1);
  EXPECT_EQ(count(k.ttir, "symbol = \"__nv_hypotf\""), 1);
  EXPECT_NE(k.ttir.find("0x7F800000"), std::string::npos);  // +inf
}

TEST(EmitComplex, TanhIsKahansFormulaWithItsLargeArgumentForm) {
  TtirKernel k = unaryKernel(OpKind::Tanh);
  EXPECT_EQ(count(k.ttir, "symbol = \"__nv_tanf\""), 1);
  EXPECT_EQ(count(k.ttir, "symbol = \"__nv_sinhf\""), 1);
  EXPECT_EQ(count(k.ttir, "symbol = \"__nv_expf\""), 1);  // e^(-2|x|)
  // |x| > 11 (float) takes the +-1 form: 11.0f = 0x41300000.
  EXPECT_NE(k.ttir.find("0x41300000"), std::string::npos);
}

// A test of its own: the dump of each test holds its last kernel, and
// run_complex_check.py runs the one above on complex64 data.
TEST(EmitComplex, TanhOfComplex128TakesTheLargeArgumentFormPast22) {
  TtirKernel d = unaryKernel(OpKind::Tanh, ElementType::C128);
  EXPECT_EQ(count(d.ttir, "symbol = \"__nv_tan\""), 1);
  EXPECT_NE(d.ttir.find("0x4036000000000000"), std::string::npos);  // 22.0
}

TEST(EmitComplex, Expm1AndLog1pUseTheRealLibraryFunctions) {
  TtirKernel e = unaryKernel(OpKind::ExponentialMinusOne);
  EXPECT_EQ(count(e.ttir, "symbol = \"__nv_expm1f\""), 1);
  EXPECT_EQ(count(e.ttir, "symbol = \"__nv_expf\""), 1);
  TtirKernel l = unaryKernel(OpKind::LogPlusOne);
  EXPECT_EQ(count(l.ttir, "symbol = \"__nv_log1pf\""), 1);
  EXPECT_EQ(count(l.ttir, "symbol = \"__nv_atan2f\""), 1);
}

TEST(EmitComplex, OtherFunctionsEmitOnce) {
  struct Want {
    OpKind kind;
    const char* symbol;
  };
  for (Want want :
       {Want{OpKind::Sine, "__nv_coshf"}, Want{OpKind::Cosine, "__nv_sinhf"},
        Want{OpKind::Tan, "__nv_tanf"}, Want{OpKind::Rsqrt, "__nv_hypotf"},
        Want{OpKind::Cbrt, "__nv_powf"}, Want{OpKind::Logistic, "__nv_expf"}}) {
    TtirKernel k = unaryKernel(want.kind);
    EXPECT_GE(count(k.ttir, std::string("symbol = \"") + want.symbol + "\""), 1)
        << ir::opKindName(want.kind);
  }
  // sign(z) = z / |z|: one hypot for both parts.
  TtirKernel s = unaryKernel(OpKind::Sign);
  EXPECT_EQ(count(s.ttir, "symbol = \"__nv_hypotf\""), 1);
  EXPECT_EQ(count(s.ttir, "tt.precise_divf"), 2);
}

TEST(EmitComplex, PowerOfComplexValues) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {c64({64}), c64({64})}, {c64({64})});
  b.ret({b.op1(OpKind::Power, {a[0], a[1]}, c64({64}))});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kLoop);
  dumpLaunch(k);
  // r^c e^(-d theta) (cos q + i sin q): one pow, atan2, cos and sin.
  EXPECT_EQ(count(k.ttir, "symbol = \"__nv_powf\""), 1);
  EXPECT_EQ(count(k.ttir, "symbol = \"__nv_atan2f\""), 1);
  EXPECT_EQ(count(k.ttir, "symbol = \"__nv_cosf\""), 1);
  EXPECT_EQ(count(k.ttir, "symbol = \"__nv_sinf\""), 1);
  EXPECT_EQ(count(k.ttir, "tt.load "), 4);
  EXPECT_EQ(count(k.ttir, "tt.store "), 2);
}

TEST(EmitComplex, AbsIsHypotOfThePartsAndStoresARealValue) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {c64({100})}, {f32({100})});
  b.ret({b.op1(OpKind::Abs, {a[0]}, f32({100}))});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kLoop);
  dumpLaunch(k);
  EXPECT_EQ(count(k.ttir, "tt.load "), 2);
  EXPECT_EQ(count(k.ttir, "tt.store "), 1);
  EXPECT_NE(k.ttir.find("__nv_hypotf"), std::string::npos);
}

TEST(EmitComplex, PartsOfADoubleComplexRoundTripThroughComplex) {
  // complex(real(z) * 2, imag(z)) on complex128: f64 components.
  ir::Module m;
  ir::Builder b(m);
  const Type f64 = Type::tensor(ElementType::F64, {16});
  auto a = b.beginFunction("main", {c128({16})}, {c128({16})});
  ValueId re = b.op1(OpKind::Real, {a[0]}, f64);
  ValueId two =
      b.op1(OpKind::BroadcastInDim,
            {b.constant(ir::denseFromValues(Type::scalar(ElementType::F64), {2}))}, f64,
            {{"broadcast_dimensions", std::vector<int64_t>{}}});
  ValueId im = b.op1(OpKind::Imag, {a[0]}, f64);
  b.ret({b.op1(OpKind::Complex, {b.op1(OpKind::Multiply, {re, two}, f64), im},
               c128({16}))});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kLoop);
  dumpLaunch(k);
  EXPECT_EQ(count(k.ttir, "!tt.ptr<f64> {tt.divisibility"), 2);
  EXPECT_EQ(count(k.ttir, "tt.load "), 2);
  EXPECT_EQ(count(k.ttir, "tt.store "), 2);
  EXPECT_EQ(count(k.ttir, "arith.mulf"), 1);  // only the real part is scaled
}

TEST(EmitComplex, SplatComplexConstantGivesEachPartItsHalf) {
  // z + (1 + 2i): the constant's bytes are (1.0f, 2.0f).
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {c64({64})}, {c64({64})});
  ir::DenseElements lit;
  lit.type = c64();
  const float parts[2] = {1.0f, 2.0f};
  const auto* bytes = reinterpret_cast<const uint8_t*>(parts);
  lit.bytes.assign(bytes, bytes + sizeof(parts));
  ValueId c = b.op1(OpKind::BroadcastInDim, {b.constant(lit)}, c64({64}),
                    {{"broadcast_dimensions", std::vector<int64_t>{}}});
  b.ret({b.op1(OpKind::Add, {a[0], c}, c64({64}))});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kLoop);
  dumpLaunch(k);
  EXPECT_NE(k.ttir.find("0x3F800000"), std::string::npos) << k.ttir;  // 1.0f
  EXPECT_NE(k.ttir.find("0x40000000"), std::string::npos) << k.ttir;  // 2.0f
  EXPECT_EQ(count(k.ttir, "arith.addf"), 2);
}

// ---------------------------------------------------------------- reduce

ValueId complexConstant(ir::Builder& b, const Type& type, double re, double im) {
  ir::DenseElements lit;
  lit.type = type;
  if (type.element == ElementType::C64) {
    const float parts[2] = {static_cast<float>(re), static_cast<float>(im)};
    const auto* bytes = reinterpret_cast<const uint8_t*>(parts);
    lit.bytes.assign(bytes, bytes + sizeof(parts));
  } else {
    const double parts[2] = {re, im};
    const auto* bytes = reinterpret_cast<const uint8_t*>(parts);
    lit.bytes.assign(bytes, bytes + sizeof(parts));
  }
  return b.constant(lit);
}

// reduce(x, init) over `dims` with a complex add or multiply combiner.
ValueId complexReduce(ir::Builder& b, ValueId x, std::vector<int64_t> dims,
                      const Type& result, OpKind combine) {
  const Type scalar = Type::scalar(b.typeOf(x).element);
  const ValueId init = complexConstant(b, scalar, combine == OpKind::Add ? 0 : 1, 0);
  auto args = b.beginRegion({scalar, scalar});
  b.ret({b.op1(combine, {args[0], args[1]}, scalar)});
  ir::Region body = b.endRegion();
  return b.op1(OpKind::Reduce, {x, init}, result, {{"dimensions", dims}},
               {std::move(body)});
}

ir::Module rowReduce(OpKind combine, ElementType element, std::vector<int64_t> full) {
  ir::Module m;
  ir::Builder b(m);
  const Type in = Type::tensor(element, full), out = Type::tensor(element, {full[0]});
  auto a = b.beginFunction("main", {in}, {out});
  b.ret({complexReduce(b, a[0], {1}, out, combine)});
  b.endFunction();
  return m;
}

// jnp.sum(z, axis=1): the accumulator is two real lanes, reduced by one
// two-operand tt.reduce whose combiner adds them part by part.
TEST(EmitComplex, SumOfRowsIsOneTwoLaneReduce) {
  ir::Module m = rowReduce(OpKind::Add, ElementType::C64, {8, 32});
  TtirKernel k = emitWhole(m, Family::kReduction);
  dumpLaunch(k);
  EXPECT_EQ(count(k.ttir, "\"tt.reduce\""), 1);
  EXPECT_NE(k.ttir.find(":2 = \"tt.reduce\""), std::string::npos) << k.ttir;
  EXPECT_EQ(count(k.ttir, "arith.addf"), 2);
  EXPECT_EQ(count(k.ttir, "arith.mulf"), 0);
  EXPECT_EQ(count(k.ttir, "tt.load "), 2);   // re and im of z
  EXPECT_EQ(count(k.ttir, "tt.store "), 2);  // re and im of the sum
  EXPECT_EQ(count(k.ttir, "!tt.ptr<f32> {tt.divisibility"), 2);
  EXPECT_EQ(count(k.ttir, "scf.for"), 0);
}

// jnp.prod: the combiner is (a + bi)(c + di) = (ac - bd) + (ad + bc)i on the
// lanes inside tt.reduce's region.
TEST(EmitComplex, ProductCombinesTheLanesAsAComplexMultiply) {
  ir::Module m = rowReduce(OpKind::Multiply, ElementType::C128, {8, 32});
  TtirKernel k = emitWhole(m, Family::kReduction);
  dumpLaunch(k);
  EXPECT_EQ(count(k.ttir, "\"tt.reduce\""), 1);
  EXPECT_EQ(count(k.ttir, "arith.mulf"), 4);
  EXPECT_EQ(count(k.ttir, "arith.subf"), 1);
  EXPECT_EQ(count(k.ttir, "arith.addf"), 1);
  EXPECT_EQ(count(k.ttir, "tt.reduce.return"), 1);
  EXPECT_NE(k.ttir.find(": f64, %"), std::string::npos);  // f64 region arguments
  EXPECT_EQ(count(k.ttir, "tt.store "), 2);
}

// A long row: two per-lane accumulators carried by the loop, folded with
// the complex combiner each step, then reduced after it.
TEST(EmitComplex, LongComplexSumLoopsWithTwoAccumulators) {
  ir::Module m = rowReduce(OpKind::Add, ElementType::C64, {8, 100000});
  TtirKernel k = emitWhole(m, Family::kReduction);
  EXPECT_EQ(k.tile, "1x2048 looped");
  EXPECT_EQ(count(k.ttir, "scf.for"), 1);
  EXPECT_NE(k.ttir.find(":2 = scf.for"), std::string::npos);
  EXPECT_EQ(count(k.ttir, "arith.addf"), 4);  // 2 in the loop, 2 in tt.reduce
  EXPECT_EQ(count(k.ttir, "tt.store "), 2);
}

TEST(EmitComplex, LongComplexProductFoldsEachStepAsAComplexMultiply) {
  ir::Module m = rowReduce(OpKind::Multiply, ElementType::C64, {8, 100000});
  TtirKernel k = emitWhole(m, Family::kReduction);
  EXPECT_EQ(count(k.ttir, "arith.mulf"), 8);  // 4 in the loop, 4 in tt.reduce
  EXPECT_EQ(count(k.ttir, "arith.subf"), 2);
}

// A long column of complex values split into partials: each part of the
// accumulator has its own f32 scratch buffer.
TEST(EmitComplex, SplitComplexSumKeepsAScratchBufferPerPart) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {c64({65536, 64})}, {c64({64})});
  b.ret({complexReduce(b, a[0], {0}, c64({64}), OpKind::Add)});
  b.endFunction();
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kReduction);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].tile, "64x64 looped, 256 chunks of 256");
  EXPECT_EQ(k[0].scratch, (std::vector<uint64_t>{256 * 64 * 4, 256 * 64 * 4}));
  EXPECT_NE(k[0].ttir.find("%tmp1: !tt.ptr<f32>"), std::string::npos);
  EXPECT_EQ(count(k[0].ttir, "tt.load "), 2);
  EXPECT_EQ(count(k[0].ttir, "tt.store "), 2);  // one partial per part
  EXPECT_EQ(count(k[1].ttir, "tt.load "), 2);   // both partials read back
  EXPECT_EQ(count(k[1].ttir, "tt.store "), 2);  // re and im of the result
  EXPECT_NE(k[1].ttir.find(":2 = \"tt.reduce\""), std::string::npos);
}

// jnp.sum(z) of a whole vector: a complex scalar stored as its two parts.
TEST(EmitComplex, FullSumStoresAComplexScalar) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {c128({1000})}, {c128()});
  b.ret({complexReduce(b, a[0], {0}, c128(), OpKind::Add)});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kReduction);
  dumpLaunch(k);
  EXPECT_EQ(count(k.ttir, "\"tt.reduce\""), 1);
  EXPECT_EQ(count(k.ttir, "tt.store "), 2);
  EXPECT_EQ(count(k.ttir, "!tt.ptr<f64> {tt.divisibility"), 2);
}

// jnp.mean(z, axis=1): the sum divided by n (a complex constant) in the
// epilogue of the same kernel, stored part by part.
TEST(EmitComplex, MeanDividesTheComplexSumInTheEpilogue) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {c64({8, 32})}, {c64({8})});
  ValueId sum = complexReduce(b, a[0], {1}, c64({8}), OpKind::Add);
  ValueId n = b.op1(OpKind::BroadcastInDim, {complexConstant(b, c64(), 32, 0)}, c64({8}),
                    {{"broadcast_dimensions", std::vector<int64_t>{}}});
  b.ret({b.op1(OpKind::Divide, {sum, n}, c64({8}))});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kReduction);
  dumpLaunch(k);
  EXPECT_EQ(count(k.ttir, "\"tt.reduce\""), 1);
  EXPECT_NE(k.ttir.find("0x42000000"), std::string::npos);  // 32.0f
  EXPECT_EQ(count(k.ttir, "tt.store "), 2);

  // The planner puts the reduce and the divide in one reduction group.
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  EXPECT_TRUE(plan.unsupported.empty());
  int reductions = 0;
  for (const fusion::Fusion& f : plan.fusions)
    reductions += f.route == fusion::Route::kTtir && f.family == Family::kReduction;
  EXPECT_EQ(reductions, 1);
}

// ---------------------------------------------------------------- scan

// jnp.cumsum / cumprod of complex values: the reduce_window form over the
// whole of `axis` (padding (n-1, 0)).
ir::Module complexCumulative(std::vector<int64_t> dims, size_t axis, OpKind combine,
                             ElementType element) {
  ir::Module m;
  ir::Builder b(m);
  const Type t = Type::tensor(element, dims), scalar = Type::scalar(element);
  auto a = b.beginFunction("main", {t}, {t});
  const ValueId init = complexConstant(b, scalar, combine == OpKind::Add ? 0 : 1, 0);
  std::vector<int64_t> window(dims.size(), 1), ones(dims.size(), 1),
      padding(2 * dims.size(), 0);
  window[axis] = dims[axis];
  padding[2 * axis] = dims[axis] - 1;
  auto args = b.beginRegion({scalar, scalar});
  b.ret({b.op1(combine, {args[0], args[1]}, scalar)});
  ir::Region body = b.endRegion();
  b.ret({b.op1(OpKind::ReduceWindow, {a[0], init}, t,
               {{"window_dimensions", window},
                {"window_strides", ones},
                {"base_dilations", ones},
                {"window_dilations", ones},
                {"padding", padding}},
               {std::move(body)})});
  b.endFunction();
  return m;
}

// The scan carries (re, im): one two-operand tt.scan whose region adds the
// parts, the init combined into both, both parts stored.
TEST(EmitComplex, CumsumIsOneTwoOperandScan) {
  ir::Module m = complexCumulative({8, 100}, 1, OpKind::Add, ElementType::C64);
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_TRUE(plan.unsupported.empty()) << plan.unsupported[0].reason;
  bool scan = false;
  for (const fusion::Fusion& f : plan.fusions) scan = scan || f.family == Family::kScan;
  EXPECT_TRUE(scan);
  TtirKernel k = emitWhole(m, Family::kScan);
  dumpLaunch(k);
  EXPECT_NE(k.ttir.find(":2 = \"tt.scan\""), std::string::npos) << k.ttir;
  EXPECT_EQ(count(k.ttir, "tt.scan.return"), 1);
  EXPECT_EQ(count(k.ttir, "arith.addf"), 4);  // 2 in the scan, 2 for the init
  EXPECT_EQ(count(k.ttir, "tt.load "), 2);
  EXPECT_EQ(count(k.ttir, "tt.store "), 2);
}

// A long row of complex128 products: two loop-carried parts, the carry taken
// from the last lane of both by one three-operand tt.reduce (re, im, lane).
TEST(EmitComplex, LongCumprodCarriesBothParts) {
  ir::Module m = complexCumulative({4, 5000}, 1, OpKind::Multiply, ElementType::C128);
  TtirKernel k = emitWhole(m, Family::kScan);
  dumpLaunch(k);
  EXPECT_EQ(k.tile, "4x1024 looped");
  EXPECT_NE(k.ttir.find(":2 = scf.for"), std::string::npos) << k.ttir;
  EXPECT_NE(k.ttir.find(":3 = \"tt.reduce\""), std::string::npos);
  // (a + bi)(c + di): 4 products in the scan and 4 to fold the carry in.
  EXPECT_EQ(count(k.ttir, "arith.mulf"), 8);
  EXPECT_EQ(count(k.ttir, "tt.store "), 2);
}

// The chlo.scan composite over complex slices, with its final carry: four
// stores (both parts of the scan and of the carry).
TEST(EmitComplex, ChloScanOfComplexValuesStoresScanAndCarry) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {c64({8, 100}), c64({8})}, {c64({8, 100}), c64({8})});
  auto args = b.beginRegion({c64({8}), c64({8})});
  ValueId sum = b.op1(OpKind::Add, {args[0], args[1]}, c64({8}));
  b.ret({sum, sum});
  ir::Region body = b.endRegion();
  ir::NamedAttrs comp{
      {"dimension", int64_t{1}}, {"is_associative", true}, {"is_reverse", false}};
  auto r = b.op(OpKind::Composite, {a[0], a[1]}, {c64({8, 100}), c64({8})},
                {{"name", std::string("chlo.scan")},
                 {"composite_attributes", comp},
                 {"decomposition", ir::SymbolRef{"chlo.scan.impl"}}},
                {std::move(body)});
  b.ret({r[0], r[1]});
  b.endFunction();
  EXPECT_TRUE(::jft::codegen::ttir::ttirKeepsComposite(m, m.entry()->body.ops[0]));
  TtirKernel k = emitWhole(m, Family::kScan);
  EXPECT_NE(k.ttir.find(":2 = \"tt.scan\""), std::string::npos);
  EXPECT_NE(k.ttir.find(":3 = \"tt.reduce\""), std::string::npos);
  EXPECT_EQ(count(k.ttir, "tt.load "), 4);  // both parts of input and init
  EXPECT_EQ(count(k.ttir, "tt.store "), 4);
}

// A complex pooling window and a cumulative max (no order) stay refused.
TEST(EmitComplex, ComplexWindowsOtherThanCumulativeSumsAreRefused) {
  ir::Module cummax = complexCumulative({8, 100}, 1, OpKind::Maximum, ElementType::C64);
  fusion::Plan plan =
      fusion::planFusions(cummax, *cummax.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_EQ(plan.unsupported.size(), 1u);
  EXPECT_EQ(plan.unsupported[0].reason,
            "complex maximum combiner (add and multiply are run)");

  ir::Module pool;
  ir::Builder b(pool);
  const Type s = c64();
  auto a = b.beginFunction("main", {c64({8, 100})}, {c64({8, 99})});
  auto args = b.beginRegion({s, s});
  b.ret({b.op1(OpKind::Add, {args[0], args[1]}, s)});
  ir::Region body = b.endRegion();
  b.ret({b.op1(OpKind::ReduceWindow, {a[0], complexConstant(b, s, 0, 0)}, c64({8, 99}),
               {{"window_dimensions", std::vector<int64_t>{1, 2}},
                {"window_strides", std::vector<int64_t>{1, 1}}},
               {std::move(body)})});
  b.endFunction();
  plan = fusion::planFusions(pool, *pool.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_EQ(plan.unsupported.size(), 1u);
  EXPECT_EQ(plan.unsupported[0].reason,
            "reduce_window of complex values other than a cumulative sum or product");
}

// ---------------------------------------------------------------- scatter

// table.at[idx].add / .set / .multiply on complex rows: scatter(operand
// [100, 16], idx [32, 1], upd [32, 16]) along dim 0.
ir::Module complexScatter(ElementType element, std::optional<OpKind> combine) {
  return rowScatter(element, 100, 16, 32, combine);
}

// Complex addition is per part: two relaxed atomic adds per element, at 2i
// and 2i + 1, after a copy kernel that moves both parts.
TEST(EmitComplex, ScatterAddIsAnAtomicAddPerPart) {
  ir::Module m = complexScatter(ElementType::C64, OpKind::Add);
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_TRUE(plan.unsupported.empty()) << plan.unsupported[0].reason;
  ASSERT_EQ(plan.fusions.size(), 1u);
  EXPECT_EQ(plan.fusions[0].family, Family::kScatter);
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kScatter);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(count(k[0].ttir, "tt.load "), 2);
  EXPECT_EQ(count(k[0].ttir, "tt.store "), 2);
  EXPECT_EQ(count(k[1].ttir, "tt.atomic_rmw fadd, relaxed, gpu, "), 2);
  EXPECT_EQ(count(k[1].ttir, "tt.load "), 3);  // indices, both parts of the updates
  EXPECT_EQ(count(k[1].ttir, "tt.store "), 0);
  EXPECT_NE(k[1].ttir.find("tensor<1024x!tt.ptr<f32>>"), std::string::npos);
  EXPECT_NE(k[1].ttir.find("arith.constant dense<2> : tensor<1024xi32>"),
            std::string::npos);
}

TEST(EmitComplex, ScatterSetStoresBothParts) {
  ir::Module m = complexScatter(ElementType::C128, std::nullopt);
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kScatter);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(count(k[1].ttir, "tt.store "), 2);
  EXPECT_EQ(count(k[1].ttir, "tt.atomic"), 0);
  EXPECT_NE(k[1].ttir.find("tensor<1024x!tt.ptr<f64>>"), std::string::npos);
}

// A complex multiply needs both parts of an element at once: refused.
TEST(EmitComplex, ScatterMultiplyOfComplexValuesIsRefused) {
  ir::Module m = complexScatter(ElementType::C64, OpKind::Multiply);
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_EQ(plan.unsupported.size(), 1u);
  EXPECT_EQ(plan.unsupported[0].reason,
            "scatter of complex values other than set and add (a complex combine needs "
            "both parts of an element at once)");
}

// A program mixing every complex family, planned as the compiler plans it:
// every group the planner gives the TTIR route emits (the planner's and the
// emitters' contracts agree): tanh(z) - mean(tanh(z)) per row (a whole-row
// reduction), prod(expm1(z)) per row, cumsum(z) along the rows.
TEST(EmitComplex, EveryPlannedComplexGroupEmits) {
  ir::Module m;
  ir::Builder b(m);
  const Type full = c64({16, 64}), kept = c64({16});
  auto a = b.beginFunction("main", {full}, {full, kept, full});
  ValueId t = b.op1(OpKind::Tanh, {a[0]}, full);
  ValueId sum = complexReduce(b, t, {1}, kept, OpKind::Add);
  ValueId n = b.op1(OpKind::BroadcastInDim, {complexConstant(b, c64(), 64, 0)}, kept,
                    {{"broadcast_dimensions", std::vector<int64_t>{}}});
  ValueId mean = b.op1(OpKind::Divide, {sum, n}, kept);
  ValueId back = b.op1(OpKind::BroadcastInDim, {mean}, full,
                       {{"broadcast_dimensions", std::vector<int64_t>{0}}});
  ValueId centred = b.op1(OpKind::Subtract, {t, back}, full);
  ValueId prod = complexReduce(b, b.op1(OpKind::ExponentialMinusOne, {a[0]}, full), {1},
                               kept, OpKind::Multiply);
  const Type s = c64();
  auto args = b.beginRegion({s, s});
  b.ret({b.op1(OpKind::Add, {args[0], args[1]}, s)});
  ir::Region body = b.endRegion();
  ValueId cumsum = b.op1(OpKind::ReduceWindow, {a[0], complexConstant(b, s, 0, 0)}, full,
                         {{"window_dimensions", std::vector<int64_t>{1, 64}},
                          {"window_strides", std::vector<int64_t>{1, 1}},
                          {"padding", std::vector<int64_t>{0, 0, 63, 0}}},
                         {std::move(body)});
  b.ret({centred, prod, cumsum});
  b.endFunction();
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  EXPECT_TRUE(plan.unsupported.empty()) << plan.unsupported[0].reason;
  std::set<Family> families;
  for (const fusion::Fusion& f : plan.fusions) {
    if (f.route != fusion::Route::kTtir) continue;
    families.insert(f.family);
    StatusOr<std::vector<TtirKernel>> k = emitKernels(m, *m.entry(), f);
    ASSERT_TRUE(k.isOk()) << f.name << ": " << k.status().toString();
    for (const TtirKernel& kernel : *k) {
      const Status syntax = checkTtirSyntax(kernel.ttir);
      EXPECT_TRUE(syntax.isOk()) << syntax.toString();
    }
  }
  EXPECT_EQ(families, (std::set<Family>{Family::kReduction, Family::kScan}));
}

// The solver route's column-major copies (codegen/library/solver_call.cc): a one-op
// loop kernel swapping the last two dims of a batch of complex matrices
// moves both parts of each element, read from and written to (re, im) pairs.
TEST(EmitComplex, TransposeOfComplexMatricesMovesBothParts) {
  for (Type t : {c64({2, 3, 5}), c128({2, 3, 5})}) {
    ir::Module m;
    ir::Builder b(m);
    const Type swapped = Type::tensor(t.element, {2, 5, 3});
    auto a = b.beginFunction("main", {t}, {swapped});
    b.ret({b.op1(OpKind::Transpose, {a[0]}, swapped,
                 {{"permutation", std::vector<int64_t>{0, 2, 1}}})});
    b.endFunction();
    TtirKernel k = emitWhole(m, Family::kLoop);
    const std::string part = t.element == ElementType::C64 ? "f32" : "f64";
    EXPECT_EQ(count(k.ttir, "!tt.ptr<" + part + "> {tt.divisibility"), 2) << part;
    EXPECT_EQ(count(k.ttir, "tt.load "), 2) << part;
    EXPECT_EQ(count(k.ttir, "tt.store "), 2) << part;
  }
}

TEST(EmitComplex, PlannerRoutesComplexLoopsAndNamesWhatItRefuses) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {c64({4, 8}), c64({4, 8})},
                           {c64({4, 8}), c64({4}), pred({4, 8})});
  ValueId q = b.op1(OpKind::Divide, {a[0], a[1]}, c64({4, 8}));
  ir::Region body;
  {
    auto r = b.beginRegion({c64(), c64()});
    b.ret({b.op1(OpKind::Subtract, {r[0], r[1]}, c64())});
    body = b.endRegion();
  }
  ValueId diff = b.op1(OpKind::Reduce, {q, complexConstant(b, c64(), 0, 0)}, c64({4}),
                       {{"dimensions", std::vector<int64_t>{1}}}, {std::move(body)});
  ValueId lt = b.op1(OpKind::Compare, {a[0], a[1]}, pred({4, 8}),
                     {{"comparison_direction", ir::ComparisonDirection::LT}});
  b.ret({q, diff, lt});
  b.endFunction();
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_EQ(plan.unsupported.size(), 2u);
  std::vector<std::string> reasons;
  for (const auto& u : plan.unsupported) reasons.push_back(u.reason);
  std::sort(reasons.begin(), reasons.end());
  EXPECT_EQ(
      reasons[0],
      "compare of complex values other than EQ and NE: complex numbers have no order");
  EXPECT_EQ(reasons[1], "complex subtract combiner (add and multiply are run)");
  bool loop = false;
  for (const fusion::Fusion& f : plan.fusions)
    loop = loop || (f.route == fusion::Route::kTtir && f.family == Family::kLoop);
  EXPECT_TRUE(loop);
}

// ---------------------------------------------------------------- complex128

// A complex128 kernel computes and stores f64 parts only: an f32 anywhere
// (a pointer, an accumulator lane, a scratch buffer, a constant, a combine
// region, a library symbol such as __nv_hypotf) would round the parts to
// float. (test_ops.py's complex128 sums once came back with float32 errors:
// JAX had truncated the data to complex64, the kernels were not at fault;
// this keeps them so.)
::testing::AssertionResult noF32(const std::vector<TtirKernel>& kernels,
                                 std::string_view what) {
  if (kernels.empty()) return ::testing::AssertionFailure() << what << ": no kernel";
  for (const TtirKernel& k : kernels) {
    if (k.ttir.find("f32") != std::string::npos)
      return ::testing::AssertionFailure() << what << " has f32:\n" << k.ttir;
    // Library calls by their f64 names (__nv_hypot, not __nv_hypotf).
    for (size_t at = k.ttir.find("symbol = \"__nv_"); at != std::string::npos;
         at = k.ttir.find("symbol = \"__nv_", at + 1)) {
      const size_t end = k.ttir.find('"', at + 10);
      const std::string symbol = k.ttir.substr(at + 10, end - at - 10);
      if (symbol.back() == 'f')
        return ::testing::AssertionFailure() << what << " calls " << symbol;
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(EmitComplex, Complex128FunctionsAreF64Throughout) {
  for (OpKind kind :
       {OpKind::Negate, OpKind::Exponential, OpKind::ExponentialMinusOne, OpKind::Log,
        OpKind::LogPlusOne, OpKind::Sqrt, OpKind::Rsqrt, OpKind::Cbrt, OpKind::Sign,
        OpKind::Sine, OpKind::Cosine, OpKind::Tan, OpKind::Tanh, OpKind::Logistic}) {
    ir::Module m;
    ir::Builder b(m);
    auto a = b.beginFunction("main", {c128({64})}, {c128({64})});
    b.ret({b.op1(kind, {a[0]}, c128({64}))});
    b.endFunction();
    EXPECT_TRUE(noF32({emitWhole(m, Family::kLoop)}, ir::opKindName(kind)));
  }
  for (OpKind kind : {OpKind::Multiply, OpKind::Divide, OpKind::Power}) {
    ir::Module m;
    ir::Builder b(m);
    auto a = b.beginFunction("main", {c128({64}), c128({64})}, {c128({64})});
    b.ret({b.op1(kind, {a[0], a[1]}, c128({64}))});
    b.endFunction();
    EXPECT_TRUE(noF32({emitWhole(m, Family::kLoop)}, ir::opKindName(kind)));
  }
  ir::Module m;
  ir::Builder b(m);
  const Type f64 = Type::tensor(ElementType::F64, {64});
  auto a = b.beginFunction("main", {c128({64})}, {f64});
  b.ret({b.op1(OpKind::Abs, {a[0]}, f64)});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kLoop);
  EXPECT_TRUE(noF32({k}, "abs"));
  EXPECT_EQ(count(k.ttir, "symbol = \"__nv_hypot\""), 1);
}

TEST(EmitComplex, Complex128ReductionsAreF64Throughout) {
  for (OpKind combine : {OpKind::Add, OpKind::Multiply}) {
    const std::string name(ir::opKindName(combine));
    // Whole rows (one tt.reduce) and long rows (loop-carried lanes).
    EXPECT_TRUE(noF32(
        {emitWhole(rowReduce(combine, ElementType::C128, {8, 32}), Family::kReduction)},
        name + " of rows"));
    EXPECT_TRUE(noF32({emitWhole(rowReduce(combine, ElementType::C128, {4, 100000}),
                                 Family::kReduction)},
                      name + " of long rows"));
  }
  // A long column split into partials: f64 scratch, 8 bytes per part.
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {c128({65536, 64})}, {c128({64})});
  b.ret({complexReduce(b, a[0], {0}, c128({64}), OpKind::Add)});
  b.endFunction();
  const std::vector<TtirKernel> split = emitWholeStages(m, Family::kReduction);
  ASSERT_EQ(split.size(), 2u);
  EXPECT_TRUE(noF32(split, "split column sum"));
  EXPECT_EQ(split[0].scratch, (std::vector<uint64_t>{256 * 64 * 8, 256 * 64 * 8}));
  EXPECT_NE(split[0].ttir.find("%tmp1: !tt.ptr<f64>"), std::string::npos);
  // The whole vector to a scalar.
  ir::Module full;
  ir::Builder fb(full);
  auto v = fb.beginFunction("main", {c128({1000})}, {c128()});
  fb.ret({complexReduce(fb, v[0], {0}, c128(), OpKind::Add)});
  fb.endFunction();
  EXPECT_TRUE(noF32({emitWhole(full, Family::kReduction)}, "full sum"));
}

TEST(EmitComplex, Complex128ScansAndScattersAreF64Throughout) {
  for (OpKind combine : {OpKind::Add, OpKind::Multiply}) {
    const std::string name(ir::opKindName(combine));
    EXPECT_TRUE(
        noF32({emitWhole(complexCumulative({6, 40}, 1, combine, ElementType::C128),
                         Family::kScan)},
              "cumulative " + name));
    EXPECT_TRUE(
        noF32({emitWhole(complexCumulative({3, 5000}, 1, combine, ElementType::C128),
                         Family::kScan)},
              "long cumulative " + name));
    EXPECT_TRUE(
        noF32({emitWhole(complexCumulative({40, 6}, 0, combine, ElementType::C128),
                         Family::kScan)},
              "cumulative " + name + " down columns"));
  }
  EXPECT_TRUE(noF32(
      emitWholeStages(complexScatter(ElementType::C128, OpKind::Add), Family::kScatter),
      "scatter add"));
  EXPECT_TRUE(noF32(
      emitWholeStages(complexScatter(ElementType::C128, std::nullopt), Family::kScatter),
      "scatter set"));
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
