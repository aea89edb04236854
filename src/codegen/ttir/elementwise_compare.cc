// compare, select, clamp, maximum and minimum.
//
// Float compares are IEEE (FLOAT): every direction is ordered except NE,
// which is true when either side is NaN ("une"), as in StableHLO and C.
// TOTALORDER compares the bit patterns mapped to integers whose signed order
// is -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN. Float maximum/minimum
// propagate NaN and order -0 below +0 (arith.maximumf/minimumf).
#include "codegen/ttir/elementwise_internal.h"
#include "codegen/ttir/elementwise_ops.h"

namespace jft::codegen::ttir::ew {

using ir::ComparisonDirection;
using ir::ComparisonType;
using ir::ElementType;

namespace {

const char* floatPredicate(ComparisonDirection d) {
  switch (d) {
    case ComparisonDirection::EQ:
      return "oeq";
    case ComparisonDirection::NE:
      return "une";
    case ComparisonDirection::GE:
      return "oge";
    case ComparisonDirection::GT:
      return "ogt";
    case ComparisonDirection::LE:
      return "ole";
    case ComparisonDirection::LT:
      return "olt";
  }
  return "oeq";
}

const char* intPredicate(ComparisonDirection d, bool is_signed) {
  switch (d) {
    case ComparisonDirection::EQ:
      return "eq";
    case ComparisonDirection::NE:
      return "ne";
    case ComparisonDirection::GE:
      return is_signed ? "sge" : "uge";
    case ComparisonDirection::GT:
      return is_signed ? "sgt" : "ugt";
    case ComparisonDirection::LE:
      return is_signed ? "sle" : "ule";
    case ComparisonDirection::LT:
      return is_signed ? "slt" : "ult";
  }
  return "eq";
}

// Sign-magnitude bits to a two's complement key: negative floats have their
// magnitude bits flipped so larger magnitudes sort lower.
Value totalOrderKey(TtirWriter& w, ElementType element, const Value& x) {
  const int bits = ir::bitWidth(element);
  std::string int_type = "i";  // (built in two steps: GCC 12 warns on "i" + to_string)
  int_type += std::to_string(bits);
  Value i = bitcast(w, x, int_type);
  Value sign_fill = binary(w, "arith.shrsi", i, constInt(w, i, int_type, bits - 1));
  Value magnitude_mask = binary(w, "arith.shrui", sign_fill, constInt(w, i, int_type, 1));
  return binary(w, "arith.xori", i, magnitude_mask);
}

}  // namespace

Value emitCompare(TtirWriter& w, ComparisonDirection direction, ComparisonType type,
                  ElementType element, const Value& a, const Value& b) {
  if (ir::isFloat(element)) {
    if (type == ComparisonType::TOTALORDER)
      return cmpi(w, intPredicate(direction, true), totalOrderKey(w, element, a),
                  totalOrderKey(w, element, b));
    return cmpf(w, floatPredicate(direction), toCompute(w, element, a),
                toCompute(w, element, b));
  }
  // pred orders false < true, as an unsigned bit.
  const bool is_signed =
      type == ComparisonType::SIGNED ||
      (type != ComparisonType::UNSIGNED && ir::isSignedInteger(element));
  return cmpi(w, intPredicate(direction, is_signed), a, b);
}

Value emitMaxMin(TtirWriter& w, bool maximum, ElementType element, const Value& a,
                 const Value& b) {
  if (ir::isFloat(element)) {
    Value r = binary(w, maximum ? "arith.maximumf" : "arith.minimumf",
                     toCompute(w, element, a), toCompute(w, element, b));
    return fromCompute(w, element, r);
  }
  return emitIntegerOp(w, maximum ? ir::OpKind::Maximum : ir::OpKind::Minimum, element,
                       {a, b});
}

Value emitClamp(TtirWriter& w, ElementType element, const Value& lo, const Value& x,
                const Value& hi) {
  // min(max(x, lo), hi): a NaN anywhere gives NaN; lo > hi gives hi.
  Value low = splatTo(w, lo, x.shape), high = splatTo(w, hi, x.shape);
  return emitMaxMin(w, false, element, emitMaxMin(w, true, element, x, low), high);
}

Value emitSelect(TtirWriter& w, const Value& pred, const Value& a, const Value& b) {
  return select(w, splatTo(w, pred, a.shape), a, b);
}

}  // namespace jft::codegen::ttir::ew
