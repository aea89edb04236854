// The spec's operand types of elementwise ops (see elementwise_spec.h).
#include "ir/elementwise_spec.h"

namespace jft::ir {

unsigned elementClassOf(ElementType type) {
  if (isPred(type)) return kBoolClass;
  if (isSignedInteger(type)) return kSignedClass;
  if (isUnsignedInteger(type)) return kUnsignedClass;
  if (isFloat(type)) return kFloatClass;
  return kComplexClass;
}

std::string elementClassesText(unsigned classes) {
  std::string out;
  auto add = [&](unsigned c, const char* name) {
    if ((classes & c) != c) return;
    if (!out.empty()) out += " or ";
    out += name;
  };
  add(kBoolClass, "boolean");
  if ((classes & kIntClass) == kIntClass) {
    add(kIntClass, "integer");
  } else {
    add(kSignedClass, "signed integer");
    add(kUnsignedClass, "unsigned integer");
  }
  add(kFloatClass, "floating-point");
  add(kComplexClass, "complex");
  return out;
}

std::optional<ElementwiseSpec> elementwiseSpec(OpKind kind) {
  auto unary = [](unsigned classes) { return ElementwiseSpec{1, classes, 0}; };
  auto binary = [](unsigned classes) { return ElementwiseSpec{2, classes, 0}; };
  switch (kind) {
    case OpKind::Abs:
    case OpKind::Sign:
      return unary(kSignedClass | kFloatClass | kComplexClass);
    case OpKind::Cbrt:
    case OpKind::Cosine:
    case OpKind::Sine:
    case OpKind::Tan:
    case OpKind::Tanh:
    case OpKind::Exponential:
    case OpKind::ExponentialMinusOne:
    case OpKind::Log:
    case OpKind::LogPlusOne:
    case OpKind::Logistic:
    case OpKind::Rsqrt:
    case OpKind::Sqrt:
    case OpKind::Real:
    case OpKind::Imag:
      return unary(kFloatClass | kComplexClass);
    case OpKind::Ceil:
    case OpKind::Floor:
    case OpKind::RoundNearestAfz:
    case OpKind::RoundNearestEven:
    case OpKind::ReducePrecision:
    case OpKind::IsFinite:
      return unary(kFloatClass);
    case OpKind::CountLeadingZeros:
    case OpKind::Popcnt:
      return unary(kIntClass);
    case OpKind::Negate:
      return unary(kIntClass | kFloatClass | kComplexClass);
    case OpKind::Not:
      return unary(kBoolClass | kIntClass);
    case OpKind::Convert:
    case OpKind::BitcastConvert:
      return unary(kAnyClass);
    case OpKind::Add:
    case OpKind::Multiply:
    case OpKind::Maximum:
    case OpKind::Minimum:
    case OpKind::Compare:
      return binary(kAnyClass);
    case OpKind::Subtract:
    case OpKind::Divide:
    case OpKind::Remainder:
    case OpKind::Power:
      return binary(kIntClass | kFloatClass | kComplexClass);
    case OpKind::Atan2:
      return binary(kFloatClass | kComplexClass);
    case OpKind::And:
    case OpKind::Or:
    case OpKind::Xor:
      return binary(kBoolClass | kIntClass);
    case OpKind::ShiftLeft:
    case OpKind::ShiftRightArithmetic:
    case OpKind::ShiftRightLogical:
      return binary(kIntClass);
    case OpKind::Complex:
      return binary(kFloatClass);
    case OpKind::Select:
    case OpKind::Clamp:
      return ElementwiseSpec{3, kAnyClass, 1};
    default:
      return std::nullopt;
  }
}

}  // namespace jft::ir
