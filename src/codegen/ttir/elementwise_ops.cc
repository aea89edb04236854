#include "codegen/ttir/elementwise_ops.h"

#include <bit>
#include <cstdio>

#include "codegen/ttir/capability.h"

namespace jft::codegen::ttir::ew {

using ir::ElementType;

std::string retyped(const Value& v, std::string_view scalar) {
  return tensorType(v.shape, scalar);
}

Value unary(TtirWriter& w, std::string_view op, const Value& a) {
  return w.op(std::string(op) + " " + a.name + " : " + a.type, a.shape, a.scalar);
}

Value binary(TtirWriter& w, std::string_view op, const Value& a, const Value& b) {
  return w.op(std::string(op) + " " + a.name + ", " + b.name + " : " + a.type, a.shape,
              a.scalar);
}

Value ternary(TtirWriter& w, std::string_view op, const Value& a, const Value& b,
              const Value& c) {
  return w.op(
      std::string(op) + " " + a.name + ", " + b.name + ", " + c.name + " : " + a.type,
      a.shape, a.scalar);
}

namespace {
Value compare(TtirWriter& w, std::string_view op, std::string_view predicate,
              const Value& a, const Value& b) {
  return w.op(std::string(op) + " " + std::string(predicate) + ", " + a.name + ", " +
                  b.name + " : " + a.type,
              a.shape, "i1");
}
}  // namespace

Value cmpf(TtirWriter& w, std::string_view predicate, const Value& a, const Value& b) {
  return compare(w, "arith.cmpf", predicate, a, b);
}

Value cmpi(TtirWriter& w, std::string_view predicate, const Value& a, const Value& b) {
  return compare(w, "arith.cmpi", predicate, a, b);
}

Value select(TtirWriter& w, const Value& cond, const Value& a, const Value& b) {
  // A tensor condition spells both types; a scalar one only the result's.
  std::string types = cond.shape.empty() ? a.type : cond.type + ", " + a.type;
  return w.op("arith.select " + cond.name + ", " + a.name + ", " + b.name + " : " + types,
              a.shape, a.scalar);
}

Value cast(TtirWriter& w, std::string_view op, const Value& a, std::string_view scalar) {
  return w.op(
      std::string(op) + " " + a.name + " : " + a.type + " to " + retyped(a, scalar),
      a.shape, std::string(scalar));
}

Value bitcast(TtirWriter& w, const Value& a, std::string_view scalar) {
  return w.op("tt.bitcast " + a.name + " : " + a.type + " -> " + retyped(a, scalar),
              a.shape, std::string(scalar));
}

Value fpToFp(TtirWriter& w, const Value& a, std::string_view scalar) {
  auto width = [](std::string_view s) {
    if (s == "f64") return 64;
    if (s == "f32") return 32;
    if (s == "f16" || s == "bf16") return 16;
    return 8;
  };
  // Triton requires a rounding mode exactly when the conversion narrows.
  const std::string rounding = width(scalar) < width(a.scalar) ? ", rounding = rtne" : "";
  return w.op(
      "tt.fp_to_fp " + a.name + rounding + " : " + a.type + " -> " + retyped(a, scalar),
      a.shape, std::string(scalar));
}

Value externCall(TtirWriter& w, std::string_view symbol, const std::vector<Value>& args,
                 std::string_view result_scalar) {
  std::string names, types;
  for (const Value& a : args) {
    names += (names.empty() ? "" : ", ") + a.name;
    types += (types.empty() ? "" : ", ") + a.type;
  }
  const std::vector<int64_t>& shape = args.front().shape;
  return w.op("tt.extern_elementwise " + names +
                  " {libname = \"\", libpath = \"\", pure = true, symbol = \"" +
                  std::string(symbol) + "\"} : (" + types + ") -> " +
                  tensorType(shape, result_scalar),
              shape, std::string(result_scalar));
}

namespace {
Value constant(TtirWriter& w, const Value& like, std::string_view scalar,
               const std::string& literal) {
  const std::string type = retyped(like, scalar);
  const std::string attr = like.shape.empty() ? literal : "dense<" + literal + ">";
  return w.op("arith.constant " + attr + " : " + type, like.shape, std::string(scalar));
}
}  // namespace

Value constInt(TtirWriter& w, const Value& like, std::string_view scalar, int64_t value) {
  return constant(w, like, scalar, std::to_string(value));
}

Value constBool(TtirWriter& w, const Value& like, bool value) {
  // A scalar bool is spelled without a type (its attribute is typed i1).
  if (like.shape.empty())
    return w.op(std::string("arith.constant ") + (value ? "true" : "false"), {}, "i1");
  return constant(w, like, "i1", value ? "true" : "false");
}

Value constBits(TtirWriter& w, const Value& like, std::string_view scalar,
                uint64_t bits) {
  char buf[32];
  int digits = 2;
  if (scalar == "f64")
    digits = 16;
  else if (scalar == "f32")
    digits = 8;
  else if (scalar == "f16" || scalar == "bf16")
    digits = 4;
  std::snprintf(buf, sizeof buf, "0x%0*llX", digits,
                static_cast<unsigned long long>(bits));
  return constant(w, like, scalar, buf);
}

Value constFloat(TtirWriter& w, const Value& like, std::string_view scalar,
                 double value) {
  if (scalar == "f64") return constBits(w, like, scalar, std::bit_cast<uint64_t>(value));
  return constBits(w, like, "f32", std::bit_cast<uint32_t>(static_cast<float>(value)));
}

Value splatTo(TtirWriter& w, const Value& v, const std::vector<int64_t>& shape) {
  if (!v.shape.empty() || shape.empty()) return v;
  return w.op(
      "tt.splat " + v.name + " : " + v.type + " -> " + tensorType(shape, v.scalar), shape,
      v.scalar);
}

std::string computeType(ElementType element) {
  return element == ElementType::F64 ? "f64" : "f32";
}

Value toCompute(TtirWriter& w, ElementType element, const Value& v) {
  const std::string to = computeType(element);
  if (v.scalar == to) return v;
  if (element == ElementType::F8E4M3FN || element == ElementType::F8E5M2)
    return fpToFp(w, v, to);
  return cast(w, "arith.extf", v, to);
}

Value toF8(TtirWriter& w, ElementType f8, const Value& v) {
  // Round through f32: tt.fp_to_fp has no f64 source.
  Value x = v.scalar == "f64" ? cast(w, "arith.truncf", v, "f32") : v;
  const std::string target = registerType(f8);
  Value r = fpToFp(w, x, target);
  // |x| at or past the midpoint above the largest finite value rounds out of
  // range (ties go to the even neighbour, which is the out-of-range one for
  // E5M2 and the finite 448 for E4M3FN).
  const bool e5m2 = f8 == ElementType::F8E5M2;
  Value mag = unary(w, "math.absf", x);
  Value limit = constFloat(w, x, "f32", e5m2 ? 61440.0 : 464.0);
  Value over = cmpf(w, e5m2 ? "oge" : "ogt", mag, limit);
  Value bits = bitcast(w, r, "i8");
  Value replacement;
  if (e5m2) {
    Value negative = cmpf(w, "olt", x, constFloat(w, x, "f32", 0.0));
    replacement = select(w, negative, constInt(w, bits, "i8", -4 /*0xFC*/),
                         constInt(w, bits, "i8", 0x7C));
  } else {
    replacement = constInt(w, bits, "i8", 0x7F);
  }
  return bitcast(w, select(w, over, replacement, bits), target);
}

Value fromCompute(TtirWriter& w, ElementType element, const Value& v) {
  const std::string to = registerType(element);
  if (v.scalar == to) return v;
  if (element == ElementType::F8E4M3FN || element == ElementType::F8E5M2)
    return toF8(w, element, v);
  return cast(w, "arith.truncf", v, to);
}

Value callMath(TtirWriter& w, std::string_view function, const std::vector<Value>& args) {
  const Value& a = args.front();
  return externCall(w, mathSymbol(w.target(), function, a.scalar), args, a.scalar);
}

}  // namespace jft::codegen::ttir::ew
