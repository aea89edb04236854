// Complex values in the loop family (complex_emitter.h): each complex value
// is two real tiles, read and written as the interleaved (re, im) pairs of
// memory (component 2i + part). Checks the addressing, the part arithmetic
// written against the textbook formulas, a splat complex constant, and which
// complex ops the planner still refuses. The numbers are checked on a GPU by
// tests/codegen/run_complex_check.py against numpy.
#include <gtest/gtest.h>

#include "emit_test_util.h"
#include "fusion/ttir_support.h"
#include "launch_dump.h"

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
  for (OpKind kind : {OpKind::Negate, OpKind::Exponential, OpKind::Log, OpKind::Sqrt}) {
    ir::Module m;
    ir::Builder b(m);
    auto a = b.beginFunction("main", {c64({16})}, {c64({16})});
    b.ret({b.op1(kind, {a[0]}, c64({16}))});
    b.endFunction();
    TtirKernel k = emitWhole(m, Family::kLoop);
    EXPECT_EQ(k.ttir.find("arith.negf"), std::string::npos) << ir::opKindName(kind);
  }
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

TEST(EmitComplex, PlannerRoutesComplexLoopsAndNamesWhatItRefuses) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {c64({4, 8}), c64({4, 8})}, {c64({4, 8}), c64({4})});
  ValueId q = b.op1(OpKind::Divide, {a[0], a[1]}, c64({4, 8}));
  ir::Region body;
  {
    auto r = b.beginRegion({c64(), c64()});
    b.ret({b.op1(OpKind::Add, {r[0], r[1]}, c64())});
    body = b.endRegion();
  }
  ir::DenseElements zero;
  zero.type = c64();
  zero.bytes.assign(8, 0);
  ValueId sum = b.op1(OpKind::Reduce, {q, b.constant(zero)}, c64({4}),
                      {{"dimensions", std::vector<int64_t>{1}}}, {std::move(body)});
  b.ret({q, sum});
  b.endFunction();
  const fusion::Plan plan = fusion::planFusions(m, *m.entry());
  ASSERT_EQ(plan.unsupported.size(), 1u);
  EXPECT_EQ(plan.unsupported[0].reason,
            "no TTIR emitter for reduce of complex values yet");
  bool loop = false;
  for (const fusion::Fusion& f : plan.fusions)
    loop = loop || (f.route == fusion::Route::kTtir && f.family == Family::kLoop);
  EXPECT_TRUE(loop);
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
