// Elementwise rules of the StableHLO spec: a valid and an invalid module each.
#include "verifier_test_util.h"

namespace jft::ir {
namespace {

using namespace jft::ir::testing;

TEST(VerifyElementwise, AddNeedsEqualShapes) {
  EXPECT_VALID(verifyMain({f32({4}), f32({4})}, oneOp(OpKind::Add, f32({4}))));
  EXPECT_INVALID(verifyMain({f32({4}), f32({8})}, oneOp(OpKind::Add, f32({4}))),
                 "stablehlo.add at zoo.py:17:20: operand shapes differ: tensor<4xf32> vs "
                 "tensor<8xf32>");
}

TEST(VerifyElementwise, BinaryResultMustMatchOperands) {
  EXPECT_INVALID(verifyMain({f32({4}), f32({4})}, oneOp(OpKind::Multiply, i32({4}))),
                 "result type tensor<4xi32> differs from operand type tensor<4xf32>");
  EXPECT_INVALID(verifyMain({f32({4}), i32({4})}, oneOp(OpKind::Maximum, f32({4}))),
                 "operand types differ: tensor<4xf32> vs tensor<4xi32>");
}

TEST(VerifyElementwise, LogicalOpsTakeBooleansOrIntegers) {
  EXPECT_VALID(verifyMain({pred({3}), pred({3})}, oneOp(OpKind::And, pred({3}))));
  EXPECT_VALID(verifyMain({i32({3}), i32({3})}, oneOp(OpKind::Xor, i32({3}))));
  EXPECT_INVALID(
      verifyMain({f32({3}), f32({3})}, oneOp(OpKind::And, f32({3}))),
      "stablehlo.and at zoo.py:17:20: operand element type f32 is not allowed: "
      "expects boolean or integer");
}

TEST(VerifyElementwise, ShiftsTakeIntegersOnly) {
  EXPECT_VALID(verifyMain({i32({2}), i32({2})}, oneOp(OpKind::ShiftLeft, i32({2}))));
  EXPECT_INVALID(
      verifyMain({pred({2}), pred({2})}, oneOp(OpKind::ShiftRightLogical, pred({2}))),
      "element type i1 is not allowed: expects integer");
}

TEST(VerifyElementwise, SubtractRejectsBooleans) {
  EXPECT_INVALID(verifyMain({pred({2}), pred({2})}, oneOp(OpKind::Subtract, pred({2}))),
                 "expects integer or floating-point or complex");
}

TEST(VerifyElementwise, SqrtTakesFloatOrComplex) {
  EXPECT_VALID(verifyMain({f32({5})}, oneOp(OpKind::Sqrt, f32({5}))));
  EXPECT_VALID(verifyMain({c64({5})}, oneOp(OpKind::Sqrt, c64({5}))));
  EXPECT_INVALID(
      verifyMain({i32({5})}, oneOp(OpKind::Sqrt, i32({5}))),
      "stablehlo.sqrt at zoo.py:17:20: operand element type i32 is not allowed: "
      "expects floating-point or complex");
}

TEST(VerifyElementwise, UnaryKeepsShape) {
  EXPECT_INVALID(verifyMain({f32({5})}, oneOp(OpKind::Tanh, f32({6}))),
                 "operand and result shapes differ: tensor<5xf32> vs tensor<6xf32>");
}

TEST(VerifyElementwise, AbsOfComplexIsItsComponentType) {
  EXPECT_VALID(verifyMain({c64({2})}, oneOp(OpKind::Abs, f32({2}))));
  EXPECT_INVALID(verifyMain({c64({2})}, oneOp(OpKind::Abs, c64({2}))),
                 "result element type complex<f32> should be f32");
  EXPECT_INVALID(verifyMain({tensorOf(ElementType::U8, {2})},
                            oneOp(OpKind::Abs, tensorOf(ElementType::U8, {2}))),
                 "expects signed integer or floating-point or complex");
}

TEST(VerifyElementwise, RealAndImagGiveComponents) {
  EXPECT_VALID(verifyMain({c64({2})}, oneOp(OpKind::Real, f32({2}))));
  EXPECT_INVALID(verifyMain({c64({2})}, oneOp(OpKind::Imag, f64({2}))),
                 "result element type f64 should be f32");
}

TEST(VerifyElementwise, IsFiniteGivesBooleans) {
  EXPECT_VALID(verifyMain({f32({3})}, oneOp(OpKind::IsFinite, pred({3}))));
  EXPECT_INVALID(verifyMain({f32({3})}, oneOp(OpKind::IsFinite, f32({3}))),
                 "result element type f32 should be i1");
}

TEST(VerifyElementwise, NotTakesBooleansOrIntegers) {
  EXPECT_VALID(verifyMain({pred({3})}, oneOp(OpKind::Not, pred({3}))));
  EXPECT_INVALID(verifyMain({f32({3})}, oneOp(OpKind::Not, f32({3}))),
                 "expects boolean or integer");
}

TEST(VerifyElementwise, CompareGivesBooleansOfTheOperandShape) {
  NamedAttrs attrs = {{"comparison_direction", ComparisonDirection::LT},
                      {"compare_type", ComparisonType::SIGNED}};
  EXPECT_VALID(
      verifyMain({i32({4}), i32({4})}, oneOp(OpKind::Compare, pred({4}), attrs)));
  EXPECT_INVALID(
      verifyMain({i32({4}), i32({4})}, oneOp(OpKind::Compare, i32({4}), attrs)),
      "stablehlo.compare at zoo.py:17:20: result must be a tensor of i1, got "
      "tensor<4xi32>");
  EXPECT_INVALID(
      verifyMain({f32({4}), f32({4})}, oneOp(OpKind::Compare, pred({4}), attrs)),
      "compare_type SIGNED does not fit operand element type f32");
  EXPECT_INVALID(verifyMain({i32({4}), i32({4})}, oneOp(OpKind::Compare, pred({4}))),
                 "missing attribute 'comparison_direction'");
}

TEST(VerifyElementwise, CompareOnComplexIsEqualityOnly) {
  NamedAttrs eq = {{"comparison_direction", ComparisonDirection::EQ}};
  NamedAttrs gt = {{"comparison_direction", ComparisonDirection::GT}};
  EXPECT_VALID(verifyMain({c64({2}), c64({2})}, oneOp(OpKind::Compare, pred({2}), eq)));
  EXPECT_INVALID(verifyMain({c64({2}), c64({2})}, oneOp(OpKind::Compare, pred({2}), gt)),
                 "comparison direction GT is not defined on complex operands");
}

TEST(VerifyElementwise, SelectPredicateIsScalarOrSameShape) {
  EXPECT_VALID(
      verifyMain({pred({}), f32({3}), f32({3})}, oneOp(OpKind::Select, f32({3}))));
  EXPECT_VALID(
      verifyMain({pred({3}), f32({3}), f32({3})}, oneOp(OpKind::Select, f32({3}))));
  EXPECT_INVALID(
      verifyMain({pred({2}), f32({3}), f32({3})}, oneOp(OpKind::Select, f32({3}))),
      "predicate shape tensor<2xi1> must be a scalar or match the operands' "
      "tensor<3xf32>");
  EXPECT_INVALID(
      verifyMain({i32({3}), f32({3}), f32({3})}, oneOp(OpKind::Select, f32({3}))),
      "predicate must be a tensor of i1");
  EXPECT_INVALID(
      verifyMain({pred({3}), f32({3}), i32({3})}, oneOp(OpKind::Select, f32({3}))),
      "operand types differ: tensor<3xf32> vs tensor<3xi32>");
}

TEST(VerifyElementwise, ClampBoundsAreScalarsOrSameShape) {
  EXPECT_VALID(verifyMain({f32({}), f32({4}), f32({4})}, oneOp(OpKind::Clamp, f32({4}))));
  EXPECT_INVALID(
      verifyMain({f32({2}), f32({4}), f32({})}, oneOp(OpKind::Clamp, f32({4}))),
      "min tensor<2xf32> must be a scalar or have the operand's shape");
  EXPECT_INVALID(verifyMain({f32({}), f32({4}), i32({})}, oneOp(OpKind::Clamp, f32({4}))),
                 "max element type differs from the operand's");
}

TEST(VerifyElementwise, ConvertKeepsShape) {
  EXPECT_VALID(verifyMain({f32({2, 3})}, oneOp(OpKind::Convert, i8({2, 3}))));
  EXPECT_INVALID(verifyMain({f32({2, 3})}, oneOp(OpKind::Convert, i8({6}))),
                 "operand and result shapes differ");
}

TEST(VerifyElementwise, BitcastConvertFollowsBitWidths) {
  EXPECT_VALID(verifyMain({f32({4})}, oneOp(OpKind::BitcastConvert, i32({4}))));
  EXPECT_VALID(verifyMain({f32({4})}, oneOp(OpKind::BitcastConvert, i8({4, 4}))));
  EXPECT_VALID(verifyMain({i8({4, 4})}, oneOp(OpKind::BitcastConvert, f32({4}))));
  EXPECT_INVALID(verifyMain({f32({4})}, oneOp(OpKind::BitcastConvert, i8({4}))),
                 "result shape [4] should be [4, 4]");
  EXPECT_INVALID(verifyMain({i8({4, 2})}, oneOp(OpKind::BitcastConvert, f32({4}))),
                 "operand tensor<4x2xi8> must end in a dimension of 4");
  EXPECT_INVALID(verifyMain({c64({4})}, oneOp(OpKind::BitcastConvert, f64({4}))),
                 "cannot bitcast between complex and non-complex types");
}

TEST(VerifyElementwise, ComplexBuildsFromTwoFloats) {
  EXPECT_VALID(verifyMain({f32({2}), f32({2})}, oneOp(OpKind::Complex, c64({2}))));
  EXPECT_INVALID(verifyMain({f32({2}), f32({2})},
                            oneOp(OpKind::Complex, tensorOf(ElementType::C128, {2}))),
                 "should be tensor<2xcomplex<f32>>");
  EXPECT_INVALID(verifyMain({i32({2}), i32({2})}, oneOp(OpKind::Complex, c64({2}))),
                 "operands must be f32 or f64");
}

TEST(VerifyElementwise, OperandCountIsChecked) {
  EXPECT_INVALID(verifyMain({f32({2})}, oneOp(OpKind::Add, f32({2}))),
                 "expects 2 operands, got 1");
}

}  // namespace
}  // namespace jft::ir
