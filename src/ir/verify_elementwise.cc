// Elementwise ops: unary and binary arithmetic, compare, select, clamp,
// convert, bitcast_convert, complex/real/imag (spec sections of those ops).
#include <string>

#include "ir/elementwise_spec.h"
#include "ir/verify_op.h"

namespace jft::ir {
namespace {

// How a unary op's result element type follows from its operand's.
enum class ResultElement { Same, ComplexComponent, Bool };

ResultElement unaryResult(OpKind kind) {
  switch (kind) {
    case OpKind::Abs:
    case OpKind::Real:
    case OpKind::Imag:
      return ResultElement::ComplexComponent;
    case OpKind::IsFinite:
      return ResultElement::Bool;
    default:
      return ResultElement::Same;
  }
}

bool checkClass(OpVerifier& v, const Type& type, unsigned classes,
                std::string_view what) {
  if (elementClassOf(type.element) & classes) return true;
  return v.fail(std::string(what) + " element type " +
                std::string(elementTypeName(type.element)) + " is not allowed: expects " +
                elementClassesText(classes));
}

bool checkSameShape(OpVerifier& v, const Type& a, const Type& b, std::string_view what) {
  if (a.dims == b.dims) return true;
  return v.fail(std::string(what) + " shapes differ: " + a.str() + " vs " + b.str());
}

void verifyUnary(OpVerifier& v, unsigned classes) {
  if (!v.expectCounts(1, 1) || !v.expectTensors()) return;
  const Type& in = v.operand(0);
  const Type& out = v.result(0);
  if (!checkClass(v, in, classes, "operand")) return;
  if (!checkSameShape(v, in, out, "operand and result")) return;
  ElementType expected = in.element;
  const ResultElement result = unaryResult(v.op().kind);
  if (result == ResultElement::ComplexComponent) expected = complexComponent(in.element);
  if (result == ResultElement::Bool) expected = ElementType::PRED;
  if (out.element != expected)
    v.fail("result element type " + std::string(elementTypeName(out.element)) +
           " should be " + std::string(elementTypeName(expected)));
  if (v.op().kind == OpKind::ReducePrecision) {
    if (auto e = v.intAttr("exponent_bits", false); e && *e < 1)
      v.fail("exponent_bits must be at least 1, got " + std::to_string(*e));
    if (auto m = v.intAttr("mantissa_bits", false); m && *m < 0)
      v.fail("mantissa_bits must not be negative, got " + std::to_string(*m));
  }
}

void verifyBinary(OpVerifier& v, unsigned classes) {
  if (!v.expectCounts(2, 1) || !v.expectTensors()) return;
  const Type& lhs = v.operand(0);
  const Type& rhs = v.operand(1);
  if (!checkSameShape(v, lhs, rhs, "operand")) return;
  if (lhs != rhs) {
    v.fail("operand types differ: " + lhs.str() + " vs " + rhs.str());
    return;
  }
  if (!checkClass(v, lhs, classes, "operand")) return;
  checkResultIsOperandType(v, lhs);
}

void verifyCompare(OpVerifier& v) {
  if (!v.expectCounts(2, 1) || !v.expectTensors()) return;
  const Type& lhs = v.operand(0);
  const Type& rhs = v.operand(1);
  const Type& out = v.result(0);
  if (!checkSameShape(v, lhs, rhs, "operand")) return;
  if (lhs.element != rhs.element)
    return (void)v.fail("operand types differ: " + lhs.str() + " vs " + rhs.str());
  if (!checkSameShape(v, lhs, out, "operand and result")) return;
  if (out.element != ElementType::PRED)
    return (void)v.fail("result must be a tensor of i1, got " + out.str());
  const auto* direction = v.requiredAttr<ComparisonDirection>("comparison_direction");
  if (direction && isComplex(lhs.element) && *direction != ComparisonDirection::EQ &&
      *direction != ComparisonDirection::NE)
    v.fail("comparison direction " + std::string(comparisonDirectionName(*direction)) +
           " is not defined on complex operands");
  const auto* type = v.optionalAttr<ComparisonType>("compare_type");
  if (!type || *type == ComparisonType::NOTYPE) return;
  const unsigned cls = elementClassOf(lhs.element);
  bool ok = false;
  switch (*type) {
    case ComparisonType::SIGNED:
      ok = cls == kSignedClass;
      break;
    case ComparisonType::UNSIGNED:
      ok = cls == kUnsignedClass || cls == kBoolClass;
      break;
    case ComparisonType::FLOAT:
      ok = cls == kFloatClass || cls == kComplexClass;
      break;
    case ComparisonType::TOTALORDER:
      ok = cls == kFloatClass;
      break;
    case ComparisonType::NOTYPE:
      ok = true;
      break;
  }
  if (!ok)
    v.fail("compare_type " + std::string(comparisonTypeName(*type)) +
           " does not fit operand element type " +
           std::string(elementTypeName(lhs.element)));
}

void verifySelect(OpVerifier& v) {
  if (!v.expectCounts(3, 1) || !v.expectTensors()) return;
  const Type& pred = v.operand(0);
  const Type& on_true = v.operand(1);
  const Type& on_false = v.operand(2);
  if (pred.element != ElementType::PRED)
    return (void)v.fail("predicate must be a tensor of i1, got " + pred.str());
  if (pred.rank() != 0 && pred.dims != on_true.dims)
    return (void)v.fail("predicate shape " + pred.str() +
                        " must be a scalar or match the operands' " + on_true.str());
  if (on_true != on_false)
    return (void)v.fail("operand types differ: " + on_true.str() + " vs " +
                        on_false.str());
  checkResultIsOperandType(v, on_true);
}

void verifyClamp(OpVerifier& v) {
  if (!v.expectCounts(3, 1) || !v.expectTensors()) return;
  const Type& min = v.operand(0);
  const Type& operand = v.operand(1);
  const Type& max = v.operand(2);
  for (const Type* bound : {&min, &max}) {
    const char* name = bound == &min ? "min" : "max";
    if (bound->rank() != 0 && bound->dims != operand.dims)
      return (void)v.fail(std::string(name) + " " + bound->str() +
                          " must be a scalar or have the operand's shape " +
                          operand.str());
    if (bound->element != operand.element)
      return (void)v.fail(std::string(name) +
                          " element type differs from the operand's: " + bound->str() +
                          " vs " + operand.str());
  }
  checkResultIsOperandType(v, operand);
}

void verifyConvert(OpVerifier& v) {
  if (!v.expectCounts(1, 1) || !v.expectTensors()) return;
  checkSameShape(v, v.operand(0), v.result(0), "operand and result");
}

void verifyBitcastConvert(OpVerifier& v) {
  if (!v.expectCounts(1, 1) || !v.expectTensors()) return;
  const Type& in = v.operand(0);
  const Type& out = v.result(0);
  if (isComplex(in.element) != isComplex(out.element))
    return (void)v.fail("cannot bitcast between complex and non-complex types: " +
                        in.str() + " -> " + out.str());
  const int in_bits = bitWidth(in.element);
  const int out_bits = bitWidth(out.element);
  std::vector<int64_t> expected = in.dims;
  if (out_bits < in_bits) {
    if (in_bits % out_bits != 0)
      return (void)v.fail("bit width " + std::to_string(in_bits) +
                          " is not a multiple of " + std::to_string(out_bits));
    expected.push_back(in_bits / out_bits);
  } else if (out_bits > in_bits) {
    if (in.dims.empty() || out_bits % in_bits != 0 ||
        in.dims.back() != out_bits / in_bits)
      return (void)v.fail("operand " + in.str() + " must end in a dimension of " +
                          std::to_string(out_bits / in_bits) + " to bitcast to " +
                          std::string(elementTypeName(out.element)));
    expected.pop_back();
  }
  if (out.dims != expected)
    v.fail("result shape " + shapeText(out.dims) + " should be " + shapeText(expected) +
           " for " + in.str() + " -> " + std::string(elementTypeName(out.element)));
}

void verifyComplex(OpVerifier& v) {
  if (!v.expectCounts(2, 1) || !v.expectTensors()) return;
  const Type& lhs = v.operand(0);
  if (lhs != v.operand(1))
    return (void)v.fail("operand types differ: " + lhs.str() + " vs " +
                        v.operand(1).str());
  if (lhs.element != ElementType::F32 && lhs.element != ElementType::F64)
    return (void)v.fail("operands must be f32 or f64, got " + lhs.str());
  const ElementType expected =
      lhs.element == ElementType::F32 ? ElementType::C64 : ElementType::C128;
  if (v.result(0) != Type::tensor(expected, lhs.dims))
    v.fail("result type " + v.result(0).str() + " should be " +
           Type::tensor(expected, lhs.dims).str());
}

}  // namespace

void verifyElementwise(OpVerifier& v) {
  const OpKind kind = v.op().kind;
  switch (kind) {
    case OpKind::Compare:
      return verifyCompare(v);
    case OpKind::Select:
      return verifySelect(v);
    case OpKind::Clamp:
      return verifyClamp(v);
    case OpKind::Convert:
      return verifyConvert(v);
    case OpKind::BitcastConvert:
      return verifyBitcastConvert(v);
    case OpKind::Complex:
      return verifyComplex(v);
    default:
      break;
  }
  const std::optional<ElementwiseSpec> spec = elementwiseSpec(kind);
  if (!spec) return;
  if (spec->operands == 1) return verifyUnary(v, spec->classes);
  verifyBinary(v, spec->classes);
}

}  // namespace jft::ir
