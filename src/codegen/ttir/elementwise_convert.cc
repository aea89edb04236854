// convert and bitcast_convert.
//
// convert follows XLA's GPU backend where StableHLO leaves the result to the
// implementation: float -> integer truncates toward zero and saturates (NaN
// gives 0, values past the range give its ends; negative values give 0 for
// unsigned types), as llvm.fpto[su]i.sat does. Floats narrow with one
// rounding to nearest even, except f64 -> f8, which rounds through f32 (no
// direct conversion exists). Integers widen by the source's signedness and
// narrow by truncation; x -> pred is x != 0 (NaN gives true).
#include <cmath>

#include "codegen/ttir/elementwise_internal.h"
#include "codegen/ttir/elementwise_ops.h"

namespace jft::codegen::ttir::ew {

using ir::ElementType;

namespace {

bool isF8(ElementType t) {
  return t == ElementType::F8E4M3FN || t == ElementType::F8E5M2;
}

Value floatToFloat(TtirWriter& w, ElementType from, ElementType to, const Value& v) {
  const std::string target = registerType(to);
  if (isF8(to)) return toF8(w, to, toCompute(w, from, v));
  // f64 narrows to f16/bf16 in one rounding; the rest pass exactly through f32.
  Value x = from == ElementType::F64 ? v : toCompute(w, from, v);
  if (x.scalar == target) return x;
  if (to == ElementType::F64) return cast(w, "arith.extf", x, target);
  return cast(w, "arith.truncf", x, target);
}

Value floatToInt(TtirWriter& w, ElementType from, ElementType to, const Value& v) {
  Value x = toCompute(w, from, v);
  const int bits = ir::bitWidth(to);
  const std::string target = registerType(to);
  const bool is_signed = ir::isSignedInteger(to);
  Value r = cast(w, is_signed ? "arith.fptosi" : "arith.fptoui", x, target);
  // Out-of-range conversions are poison in LLVM: each is replaced by select.
  const double top =
      std::ldexp(1.0, is_signed ? bits - 1 : bits);  // first value past MAX
  Value too_big = cmpf(w, "oge", x, constFloat(w, x, x.scalar, top));
  r = select(
      w, too_big,
      constInt(
          w, r, target,
          is_signed ? (bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1) : -1),
      r);
  if (is_signed) {
    Value too_small = cmpf(w, "olt", x, constFloat(w, x, x.scalar, -top));
    const int64_t min = bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
    r = select(w, too_small, constInt(w, r, target, min), r);
    return select(w, cmpf(w, "uno", x, x), constInt(w, r, target, 0), r);
  }
  // Unordered-or-not-positive: NaN and everything at or below zero.
  return select(w, cmpf(w, "ule", x, constFloat(w, x, x.scalar, 0.0)),
                constInt(w, r, target, 0), r);
}

Value intToFloat(TtirWriter& w, ElementType from, ElementType to, const Value& v) {
  const std::string op = ir::isSignedInteger(from) ? "arith.sitofp" : "arith.uitofp";
  // One rounding straight into the target; f8 has no integer conversion.
  if (!isF8(to)) return cast(w, op, v, registerType(to));
  return toF8(w, to, cast(w, op, v, "f32"));
}

Value intToInt(TtirWriter& w, ElementType from, ElementType to, const Value& v) {
  const int a = ir::bitWidth(from), b = ir::bitWidth(to);
  if (a == b) return v;
  if (a > b) return cast(w, "arith.trunci", v, registerType(to));
  return cast(w, ir::isSignedInteger(from) ? "arith.extsi" : "arith.extui", v,
              registerType(to));
}

}  // namespace

Value emitConvert(TtirWriter& w, ElementType from, ElementType to, const Value& v) {
  if (from == to) return v;
  if (ir::isPred(to)) {
    if (ir::isFloat(from)) {
      Value x = toCompute(w, from, v);
      return cmpf(w, "une", x, constFloat(w, x, x.scalar, 0.0));
    }
    return cmpi(w, "ne", v, constInt(w, v, v.scalar, 0));
  }
  if (ir::isPred(from)) {
    if (ir::isInteger(to)) return cast(w, "arith.extui", v, registerType(to));
    const std::string c = computeType(to);
    Value one = constFloat(w, v, c, 1.0), zero = constFloat(w, v, c, 0.0);
    return fromCompute(w, to, select(w, v, one, zero));
  }
  if (ir::isFloat(from)) {
    if (ir::isFloat(to)) return floatToFloat(w, from, to, v);
    return floatToInt(w, from, to, v);
  }
  if (ir::isFloat(to)) return intToFloat(w, from, to, v);
  return intToInt(w, from, to, v);
}

Value emitBitcastConvert(TtirWriter& w, ElementType, ElementType to, const Value& v) {
  const std::string target = registerType(to);
  if (v.scalar == target) return v;
  return bitcast(w, v, target);
}

}  // namespace jft::codegen::ttir::ew
