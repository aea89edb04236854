// convert, bitcast_convert and compare.
//
// convert follows XLA's GPU backend where StableHLO leaves the result to the
// implementation (as the TTIR route does): float -> integer truncates toward
// zero and saturates (NaN gives 0, values past the range its ends, negative
// values 0 for unsigned types); floats narrow with one rounding to nearest
// even; integers widen by the source's signedness and narrow by truncation;
// x -> pred is x != 0 (NaN gives true).
// Float compares are IEEE: every direction ordered except NE; TOTALORDER
// compares the bit patterns mapped to integers ordered -NaN < -inf < ... <
// -0 < +0 < ... < +inf < +NaN.
#include <cmath>

#include "codegen/native/c_types.h"
#include "codegen/native/scalar_ops.h"

namespace jft::codegen::native::scalar {

using ir::ElementType;

namespace {

bool isNarrowFloat(ElementType t) {
  return t == ElementType::F16 || t == ElementType::BF16;
}

std::string floatToInt(CudaWriter& w, ElementType from, ElementType to,
                       const std::string& x) {
  const std::string t = registerType(to);
  const std::string c = computeType(from);
  const int bits = ir::bitWidth(to);
  const bool is_signed = ir::isSignedInteger(to);
  // The first value past the type's maximum, exact in float and double.
  const std::string top =
      "(" + c + ")" + std::to_string(std::ldexp(1.0, is_signed ? bits - 1 : bits));
  const std::string max =
      is_signed
          ? "(" + t + ")(" +
                std::to_string(bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1) +
                "ll)"
          : "(" + t + ")~(" + t + ")0";
  if (!is_signed)
    return w.let(t, "!(" + x + " > (" + c + ")0) ? (" + t + ")0 : (" + x + " >= " + top +
                        " ? " + max + " : (" + t + ")" + x + ")");
  const std::string min =
      bits == 64 ? "(jft_i64)(-9223372036854775807ll - 1)"
                 : "(" + t + ")(" + std::to_string(-(int64_t{1} << (bits - 1))) + "ll)";
  return w.let(t, x + " != " + x + " ? (" + t + ")0 : (" + x + " >= " + top + " ? " +
                      max + " : (" + x + " < -" + top + " ? " + min + " : (" + t + ")" +
                      x + "))");
}

std::string intToFloat(CudaWriter& w, ElementType from, ElementType to,
                       const std::string& x) {
  const std::string t = registerType(to);
  if (!isNarrowFloat(to)) return w.let(t, "(" + t + ")" + x);
  // Through f32 rounded to odd: one rounding to the narrow type.
  const std::string odd = ir::isUnsignedInteger(from)
                              ? "jft_u64_to_f32_odd((jft_u64)" + x + ")"
                              : "jft_i64_to_f32_odd((jft_i64)" + x + ")";
  return w.let(t, roundTo(to, odd));
}

std::string floatToFloat(CudaWriter& w, ElementType from, ElementType to,
                         const std::string& x) {
  const std::string t = registerType(to);
  if (to == ElementType::F64) return w.let(t, "(double)" + x);
  if (from == ElementType::F64) {
    if (to == ElementType::F32) return w.let(t, "(float)" + x);
    return w.let(t, roundTo(to, "jft_f64_to_f32_odd(" + x + ")"));
  }
  // From a float register (exact for f16/bf16): one rounding.
  return w.let(t, roundTo(to, x));
}

// The bits of a register value as its same-width integer type.
std::string bitsOf(ElementType element, const std::string& x) {
  switch (element) {
    case ElementType::F16:
      return "(jft_i16)jft_f32_to_f16(" + x + ")";
    case ElementType::BF16:
      return "(jft_i16)jft_f32_to_bf16(" + x + ")";
    case ElementType::F32:
      return "(jft_i32)jft_f32_bits(" + x + ")";
    case ElementType::F64:
      return "(jft_i64)jft_f64_bits(" + x + ")";
    default:
      return "(" + signedTwin(element) + ")" + x;
  }
}

const char* cOperator(ir::ComparisonDirection d) {
  switch (d) {
    case ir::ComparisonDirection::EQ:
      return "==";
    case ir::ComparisonDirection::NE:
      return "!=";
    case ir::ComparisonDirection::GE:
      return ">=";
    case ir::ComparisonDirection::GT:
      return ">";
    case ir::ComparisonDirection::LE:
      return "<=";
    case ir::ComparisonDirection::LT:
      return "<";
  }
  return "==";
}

}  // namespace

std::string emitConvert(CudaWriter& w, ElementType from, ElementType to,
                        const std::string& x) {
  const std::string t = registerType(to);
  if (from == to) return x;
  if (ir::isComplex(from) || ir::isComplex(to)) return emitComplexConvert(w, from, to, x);
  if (ir::isPred(to)) return w.let("bool", x + " != 0");
  if (ir::isPred(from)) {
    if (ir::isInteger(to)) return w.let(t, "(" + t + ")(" + x + " ? 1 : 0)");
    return w.let(t, x + " ? (" + t + ")1 : (" + t + ")0");
  }
  if (ir::isFloat(from)) {
    if (ir::isFloat(to)) return floatToFloat(w, from, to, x);
    return floatToInt(w, from, to, x);
  }
  if (ir::isFloat(to)) return intToFloat(w, from, to, x);
  // Integer to integer: C's conversions widen by the source's signedness and
  // narrow modulo 2^bits.
  return w.let(t, "(" + t + ")" + x);
}

std::string emitBitcast(CudaWriter& w, ElementType from, ElementType to,
                        const std::string& x) {
  if (from == to) return x;
  const std::string t = registerType(to);
  const std::string bits = w.let(signedTwin(from), bitsOf(from, x));
  switch (to) {
    case ElementType::F16:
      return w.let(t, "jft_f16_to_f32((jft_u16)" + bits + ")");
    case ElementType::BF16:
      return w.let(t, "jft_bf16_to_f32((jft_u16)" + bits + ")");
    case ElementType::F32:
      return w.let(t, "jft_f32_from_bits((jft_u32)" + bits + ")");
    case ElementType::F64:
      return w.let(t, "jft_f64_from_bits((jft_u64)" + bits + ")");
    default:
      return w.let(t, "(" + t + ")" + bits);
  }
}

std::string emitCompare(CudaWriter& w, const ir::Op& op, ElementType element,
                        const std::string& a, const std::string& b) {
  const auto direction =
      *ir::findAttrAs<ir::ComparisonDirection>(op.attrs, "comparison_direction");
  const auto* type_attr = ir::findAttrAs<ir::ComparisonType>(op.attrs, "compare_type");
  const ir::ComparisonType type = type_attr ? *type_attr : ir::ComparisonType::NOTYPE;
  const std::string c = cOperator(direction);
  if (ir::isFloat(element)) {
    if (type != ir::ComparisonType::TOTALORDER)
      return w.let("bool", a + " " + c + " " + b);
    // Sign-magnitude bits to two's complement keys: negative values have their
    // magnitude bits flipped so larger magnitudes order lower.
    const std::string s = signedTwin(element);
    const int bits = ir::bitWidth(element);
    auto key = [&](const std::string& x) {
      const std::string i = w.let(s, bitsOf(element, x));
      return w.let(s, "(" + s + ")(" + i + " ^ (" + s + ")((" + unsignedTwin(element) +
                          ")(" + i + " >> " + std::to_string(bits - 1) + ") >> 1))");
    };
    const std::string ka = key(a), kb = key(b);
    return w.let("bool", ka + " " + c + " " + kb);
  }
  if (ir::isPred(element)) return w.let("bool", a + " " + c + " " + b);
  // An explicit compare_type may read the bits with the other signedness.
  std::string as;
  if (type == ir::ComparisonType::SIGNED && ir::isUnsignedInteger(element))
    as = "(" + signedTwin(element) + ")";
  if (type == ir::ComparisonType::UNSIGNED && ir::isSignedInteger(element))
    as = "(" + unsignedTwin(element) + ")";
  return w.let("bool", as + a + " " + c + " " + as + b);
}

}  // namespace jft::codegen::native::scalar
