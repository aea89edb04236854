// The choices that carry StableHLO's semantics, checked in the emitted ops:
// signed vs unsigned integer ops, rounding after each narrow-float op, the
// cmpf predicate of each direction, saturating float -> int conversion,
// defined results of division by zero and of oversized shifts.
#include <gtest/gtest.h>

#include "elementwise_kernel.h"
#include "ttir_syntax.h"

namespace jft::codegen::ttir::testing {
namespace {

using ir::ComparisonDirection;
using ir::ComparisonType;
using ir::ElementType;
using ir::OpKind;
using ir::Type;

std::string emitted(OpKind kind, std::vector<ElementType> in, ElementType out,
                    ir::NamedAttrs attrs = {}) {
  OpCase c{kind, {}, tile(out), std::move(attrs), "k"};
  for (ElementType e : in) c.operands.push_back(tile(e));
  StatusOr<Kernel> k = elementwiseKernel(c);
  EXPECT_TRUE(k.isOk()) << k.status().message();
  if (!k.isOk()) return "";
  Status s = checkTtirSyntax(k->ttir);
  EXPECT_TRUE(s.isOk()) << s.message();
  return k->op;
}

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}
int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(ElementwiseChoices, SignednessPicksTheOp) {
  EXPECT_TRUE(
      has(emitted(OpKind::Divide, {ElementType::I32, ElementType::I32}, ElementType::I32),
          "arith.divsi"));
  EXPECT_TRUE(
      has(emitted(OpKind::Divide, {ElementType::U32, ElementType::U32}, ElementType::U32),
          "arith.divui"));
  EXPECT_TRUE(
      has(emitted(OpKind::Remainder, {ElementType::U8, ElementType::U8}, ElementType::U8),
          "arith.remui"));
  EXPECT_TRUE(has(
      emitted(OpKind::Maximum, {ElementType::I16, ElementType::I16}, ElementType::I16),
      "arith.maxsi"));
  EXPECT_TRUE(has(
      emitted(OpKind::Minimum, {ElementType::U64, ElementType::U64}, ElementType::U64),
      "arith.minui"));
  // Widening follows the source's signedness.
  EXPECT_TRUE(
      has(emitted(OpKind::Convert, {ElementType::I8}, ElementType::I32), "arith.extsi"));
  EXPECT_TRUE(
      has(emitted(OpKind::Convert, {ElementType::U8}, ElementType::I32), "arith.extui"));
  EXPECT_TRUE(has(emitted(OpKind::Convert, {ElementType::U32}, ElementType::F32),
                  "arith.uitofp"));
  EXPECT_TRUE(has(emitted(OpKind::Convert, {ElementType::I32}, ElementType::F32),
                  "arith.sitofp"));
  ir::NamedAttrs lt = {{"comparison_direction", ComparisonDirection::LT},
                       {"compare_type", ComparisonType::UNSIGNED}};
  EXPECT_TRUE(has(emitted(OpKind::Compare, {ElementType::U32, ElementType::U32},
                          ElementType::PRED, lt),
                  "arith.cmpi ult"));
  lt[1].second = ComparisonType::SIGNED;
  EXPECT_TRUE(has(emitted(OpKind::Compare, {ElementType::I32, ElementType::I32},
                          ElementType::PRED, lt),
                  "arith.cmpi slt"));
}

TEST(ElementwiseChoices, NarrowFloatsComputeInF32AndRoundAfterEachOp) {
  const std::string add =
      emitted(OpKind::Add, {ElementType::BF16, ElementType::BF16}, ElementType::BF16);
  EXPECT_EQ(count(add, "arith.extf"), 2) << add;
  EXPECT_TRUE(has(add, "arith.addf")) << add;
  EXPECT_TRUE(has(add, ": tensor<128xf32> to tensor<128xbf16>")) << add;
  const std::string exp =
      emitted(OpKind::Exponential, {ElementType::F16}, ElementType::F16);
  EXPECT_TRUE(has(exp, "symbol = \"__nv_expf\"")) << exp;
  EXPECT_TRUE(has(exp, "arith.truncf")) << exp;
  // f64 stays f64 and calls the double function.
  const std::string tanh = emitted(OpKind::Tanh, {ElementType::F64}, ElementType::F64);
  EXPECT_TRUE(has(tanh, "symbol = \"__nv_tanh\"")) << tanh;
  EXPECT_FALSE(has(tanh, "arith.truncf")) << tanh;
  // f8 goes through tt.fp_to_fp, rounding to nearest even.
  const std::string f8 =
      emitted(OpKind::Multiply, {ElementType::F8E4M3FN, ElementType::F8E4M3FN},
              ElementType::F8E4M3FN);
  EXPECT_TRUE(has(f8, "tt.fp_to_fp")) << f8;
  EXPECT_TRUE(has(f8, "rounding = rtne")) << f8;
}

TEST(ElementwiseChoices, ExactF32DivisionAndSqrt) {
  EXPECT_TRUE(
      has(emitted(OpKind::Divide, {ElementType::F32, ElementType::F32}, ElementType::F32),
          "tt.precise_divf"));
  EXPECT_TRUE(
      has(emitted(OpKind::Divide, {ElementType::F64, ElementType::F64}, ElementType::F64),
          "arith.divf"));
  EXPECT_TRUE(has(emitted(OpKind::Sqrt, {ElementType::F32}, ElementType::F32),
                  "tt.precise_sqrt"));
  EXPECT_TRUE(has(
      emitted(OpKind::Remainder, {ElementType::F32, ElementType::F32}, ElementType::F32),
      "symbol = \"__nv_fmodf\""));
  // NaN-propagating min/max.
  EXPECT_TRUE(has(
      emitted(OpKind::Maximum, {ElementType::F32, ElementType::F32}, ElementType::F32),
      "arith.maximumf"));
}

TEST(ElementwiseChoices, CmpfPredicatePerDirection) {
  const std::pair<ComparisonDirection, const char*> expected[] = {
      {ComparisonDirection::EQ, "arith.cmpf oeq"},
      {ComparisonDirection::NE, "arith.cmpf une"},
      {ComparisonDirection::GE, "arith.cmpf oge"},
      {ComparisonDirection::GT, "arith.cmpf ogt"},
      {ComparisonDirection::LE, "arith.cmpf ole"},
      {ComparisonDirection::LT, "arith.cmpf olt"}};
  for (auto [d, op] : expected) {
    ir::NamedAttrs attrs = {{"comparison_direction", d},
                            {"compare_type", ComparisonType::FLOAT}};
    EXPECT_TRUE(has(emitted(OpKind::Compare, {ElementType::F32, ElementType::F32},
                            ElementType::PRED, attrs),
                    op))
        << op;
  }
  // TOTALORDER compares integer keys, signed.
  ir::NamedAttrs total = {{"comparison_direction", ComparisonDirection::LT},
                          {"compare_type", ComparisonType::TOTALORDER}};
  const std::string t = emitted(OpKind::Compare, {ElementType::BF16, ElementType::BF16},
                                ElementType::PRED, total);
  EXPECT_TRUE(has(t, "tt.bitcast")) << t;
  EXPECT_TRUE(has(t, "arith.cmpi slt")) << t;
  EXPECT_FALSE(has(t, "arith.cmpf")) << t;
}

TEST(ElementwiseChoices, FloatToIntSaturates) {
  const std::string s = emitted(OpKind::Convert, {ElementType::F32}, ElementType::I8);
  EXPECT_TRUE(has(s, "arith.fptosi")) << s;
  EXPECT_TRUE(has(s, "dense<127>")) << s;         // past the top: INT8_MAX
  EXPECT_TRUE(has(s, "dense<-128>")) << s;        // past the bottom: INT8_MIN
  EXPECT_TRUE(has(s, "arith.cmpf uno")) << s;     // NaN: 0
  EXPECT_TRUE(has(s, "dense<0x43000000>")) << s;  // 128.0f, the first value past INT8_MAX
  const std::string u = emitted(OpKind::Convert, {ElementType::F64}, ElementType::U16);
  EXPECT_TRUE(has(u, "arith.fptoui")) << u;
  EXPECT_TRUE(has(u, "arith.cmpf ule")) << u;  // NaN and <= 0: 0
  EXPECT_TRUE(has(u, "dense<-1>")) << u;       // all ones: UINT16_MAX
  // x -> pred is x != 0, true for NaN.
  EXPECT_TRUE(has(emitted(OpKind::Convert, {ElementType::F32}, ElementType::PRED),
                  "arith.cmpf une"));
  EXPECT_TRUE(has(emitted(OpKind::Convert, {ElementType::I64}, ElementType::PRED),
                  "arith.cmpi ne"));
}

TEST(ElementwiseChoices, DefinedResultsForDivisionByZeroAndShifts) {
  const std::string d =
      emitted(OpKind::Divide, {ElementType::I32, ElementType::I32}, ElementType::I32);
  EXPECT_TRUE(has(d, "dense<-2147483648>")) << d;  // INT_MIN / -1 is guarded
  EXPECT_TRUE(has(d, "arith.select")) << d;
  const std::string shl =
      emitted(OpKind::ShiftLeft, {ElementType::U16, ElementType::U16}, ElementType::U16);
  EXPECT_TRUE(has(shl, "arith.cmpi ult")) << shl;  // count < 16, as unsigned
  EXPECT_TRUE(has(shl, "dense<16>")) << shl;
  const std::string sra = emitted(OpKind::ShiftRightArithmetic,
                                  {ElementType::I8, ElementType::I8}, ElementType::I8);
  EXPECT_TRUE(has(sra, "arith.shrsi")) << sra;
  EXPECT_TRUE(has(sra, "dense<7>")) << sra;  // oversized: shift by 7, the sign fill
  const std::string pow =
      emitted(OpKind::Power, {ElementType::I32, ElementType::I32}, ElementType::I32);
  EXPECT_TRUE(has(pow, "scf.for")) << pow;
}

TEST(ElementwiseChoices, NoOpsTritonRejects) {
  // Negation without arith.negf, bit casts without arith.bitcast, counts and
  // tanh without math.ctpop/ctlz/tanh.
  for (const std::string& s :
       {emitted(OpKind::Negate, {ElementType::F32}, ElementType::F32),
        emitted(OpKind::BitcastConvert, {ElementType::F32}, ElementType::I32),
        emitted(OpKind::Popcnt, {ElementType::I16}, ElementType::I16),
        emitted(OpKind::CountLeadingZeros, {ElementType::I64}, ElementType::I64),
        emitted(OpKind::Tanh, {ElementType::F32}, ElementType::F32)}) {
    EXPECT_FALSE(has(s, "arith.negf")) << s;
    EXPECT_FALSE(has(s, "arith.bitcast")) << s;
    EXPECT_FALSE(has(s, "math.ctpop")) << s;
    EXPECT_FALSE(has(s, "math.ctlz")) << s;
    EXPECT_FALSE(has(s, "math.tanh")) << s;
  }
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
