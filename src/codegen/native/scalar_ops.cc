// What the scalar emitter accepts, float and integer arithmetic, literals.
#include "codegen/native/scalar_ops.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>

#include "codegen/common/elementwise_form.h"
#include "codegen/common/math_functions.h"
#include "codegen/native/c_types.h"
#include "ir/elementwise_spec.h"
#include "ir/op_kind.h"

namespace jft::codegen::native {

using ir::ElementType;
using ir::OpKind;

namespace {

// The spec's elementwise ops the native emitter writes (reduce_precision
// is not among them yet).
std::optional<ir::ElementwiseSpec> nativeSpecOf(OpKind kind) {
  if (kind == OpKind::ReducePrecision) return std::nullopt;
  return ir::elementwiseSpec(kind);
}

// The C math function of a float op, or null; `f` suffix for float. Exact
// ops that C writes as a function are called too.
const char* mathFunction(OpKind kind) {
  switch (kind) {
    case OpKind::Sqrt:
      return "sqrt";
    case OpKind::Floor:
      return "floor";
    case OpKind::Ceil:
      return "ceil";
    case OpKind::Abs:
      return "fabs";
    default:
      return common::cMathFunction(kind);
  }
}

std::string call(const std::string& fn, const std::vector<std::string>& args) {
  std::string text = fn + "(";
  for (size_t i = 0; i < args.size(); ++i) text += (i ? ", " : "") + args[i];
  return text + ")";
}

std::string emitFloatOp(CudaWriter& w, OpKind kind, ElementType element,
                        const std::vector<std::string>& x) {
  const std::string compute = computeType(element);
  const std::string& a = x[0];
  std::string r;
  if (const char* fn = mathFunction(kind)) {
    r = call(std::string(fn) + (compute == "float" ? "f" : ""), x);
  } else {
    switch (kind) {
      case OpKind::Add:
        r = a + " + " + x[1];
        break;
      case OpKind::Subtract:
        r = a + " - " + x[1];
        break;
      case OpKind::Multiply:
        r = a + " * " + x[1];
        break;
      case OpKind::Divide:  // IEEE division (NVRTC's default -prec-div=true)
        r = a + " / " + x[1];
        break;
      case OpKind::Negate:
        r = "-" + a;
        break;
      case OpKind::Maximum:
        r = "jft_max(" + a + ", " + x[1] + ")";
        break;
      case OpKind::Minimum:
        r = "jft_min(" + a + ", " + x[1] + ")";
        break;
      case OpKind::Sign:
        r = "jft_sign(" + a + ")";
        break;
      case OpKind::Rsqrt:
        r = "jft_rsqrt(" + a + ")";
        break;
      case OpKind::Logistic:
        r = "jft_logistic(" + a + ")";
        break;
      default:
        return {};
    }
  }
  return w.let(registerType(element), roundTo(element, r));
}

std::string emitPredOp(CudaWriter& w, OpKind kind, const std::vector<std::string>& x) {
  switch (kind) {
    case OpKind::Add:
    case OpKind::Or:
    case OpKind::Maximum:
      return w.let("bool", x[0] + " || " + x[1]);
    case OpKind::Multiply:
    case OpKind::And:
    case OpKind::Minimum:
      return w.let("bool", x[0] + " && " + x[1]);
    case OpKind::Xor:
      return w.let("bool", x[0] + " != " + x[1]);
    case OpKind::Not:
      return w.let("bool", "!" + x[0]);
    default:
      return {};
  }
}

std::string emitIntegerOp(CudaWriter& w, OpKind kind, ElementType element,
                          const std::vector<std::string>& x) {
  if (ir::isPred(element)) return emitPredOp(w, kind, x);
  const std::string t = registerType(element);
  const int bits = ir::bitWidth(element);
  const bool is_signed = ir::isSignedInteger(element);
  // Wrapping arithmetic in an unsigned type at least as wide as int, so that
  // narrow operands are not promoted to (overflowing) int.
  const std::string u = bits == 64 ? "jft_u64" : "jft_u32";
  const std::string twin_u = unsignedTwin(element);
  auto wrap = [&](const std::string& op) {
    return w.let(
        t, "(" + t + ")((" + u + ")" + x[0] + " " + op + " (" + u + ")" + x[1] + ")");
  };
  const std::string shift_args = "<" + t + ", " + twin_u + ", " + std::to_string(bits) +
                                 ">(" + x[0] + ", " + (x.size() > 1 ? x[1] : "") + ")";
  switch (kind) {
    case OpKind::Add:
      return wrap("+");
    case OpKind::Subtract:
      return wrap("-");
    case OpKind::Multiply:
      return wrap("*");
    case OpKind::Divide:
      return w.let(t, "jft_div<" + t + ">(" + x[0] + ", " + x[1] + ")");
    case OpKind::Remainder:
      return w.let(t, "jft_rem<" + t + ">(" + x[0] + ", " + x[1] + ")");
    case OpKind::Maximum:
      return w.let(t, x[0] + " > " + x[1] + " ? " + x[0] + " : " + x[1]);
    case OpKind::Minimum:
      return w.let(t, x[0] + " < " + x[1] + " ? " + x[0] + " : " + x[1]);
    case OpKind::Power:
      return w.let(t, "jft_ipow<" + t + ">(" + x[0] + ", " + x[1] + ")");
    case OpKind::Abs:  // |INT_MIN| wraps to INT_MIN, as StableHLO says
      if (!is_signed) return x[0];
      return w.let(t, "(" + t + ")(" + x[0] + " < 0 ? (" + u + ")0 - (" + u + ")" + x[0] +
                          " : (" + u + ")" + x[0] + ")");
    case OpKind::Negate:
      return w.let(t, "(" + t + ")((" + u + ")0 - (" + u + ")" + x[0] + ")");
    case OpKind::Sign:
      if (!is_signed) return w.let(t, "(" + t + ")(" + x[0] + " != 0 ? 1 : 0)");
      return w.let(t, "(" + t + ")(" + x[0] + " > 0 ? 1 : (" + x[0] + " < 0 ? -1 : 0))");
    case OpKind::And:
      return w.let(t, "(" + t + ")(" + x[0] + " & " + x[1] + ")");
    case OpKind::Or:
      return w.let(t, "(" + t + ")(" + x[0] + " | " + x[1] + ")");
    case OpKind::Xor:
      return w.let(t, "(" + t + ")(" + x[0] + " ^ " + x[1] + ")");
    case OpKind::Not:
      return w.let(t, "(" + t + ")~" + x[0]);
    case OpKind::ShiftLeft:
      return w.let(t, "jft_shl" + shift_args);
    case OpKind::ShiftRightLogical:
      return w.let(t, "jft_shr_logical" + shift_args);
    case OpKind::ShiftRightArithmetic: {
      const std::string s = signedTwin(element);
      return w.let(t, "(" + t + ")jft_shr_arithmetic<" + s + ", " + twin_u + ", " +
                          std::to_string(bits) + ">((" + s + ")" + x[0] + ", (" + s +
                          ")" + x[1] + ")");
    }
    case OpKind::Popcnt:
      return w.let(t, "(" + t + ")" + (bits == 64 ? "jft_popc64(" : "jft_popc32(") + "(" +
                          twin_u + ")" + x[0] + ")");
    case OpKind::CountLeadingZeros:
      if (bits == 64) return w.let(t, "(" + t + ")jft_clz64((jft_u64)" + x[0] + ")");
      return w.let(t, "(" + t + ")(jft_clz32((jft_u32)(" + twin_u + ")" + x[0] + ") - " +
                          std::to_string(32 - bits) + ")");
    default:
      return {};
  }
}

std::string hexBits(uint64_t bits, const char* suffix) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx%s", static_cast<unsigned long long>(bits),
                suffix);
  return text;
}

// A finite float or double as a decimal literal that reads back exactly.
std::string decimal(double value, bool is_float) {
  char text[64];
  std::snprintf(text, sizeof text, is_float ? "%.9g" : "%.17g", value);
  std::string s = text;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return is_float ? s + "f" : s;
}

}  // namespace

bool isNativeElementwise(const ir::Module& module, const ir::Op& op, std::string* why) {
  auto no = [&](std::string reason) {
    if (why) *why = std::move(reason);
    return false;
  };
  const std::string name = "stablehlo." + std::string(ir::opKindName(op.kind));
  const std::optional<ir::ElementwiseSpec> spec = nativeSpecOf(op.kind);
  if (!spec) return no(name + " is not an elementwise op of the native emitter");
  if (std::string form = common::elementwiseFormProblem(module, op, *spec, name);
      !form.empty())
    return no(std::move(form));
  std::string type_why;
  for (ir::ValueId v : op.operands)
    if (!isNativeType(module.typeOf(v).element, &type_why))
      return no(name + " of " + type_why);
  const ElementType data = module.typeOf(op.operands[spec->data_operand]).element;
  const ElementType result = module.typeOf(op.results[0]).element;
  if (!isNativeType(result, &type_why)) return no(name + " producing " + type_why);
  if (ir::isComplex(data) || ir::isComplex(result)) {
    std::string complex_why;
    if (!scalar::complexTakes(op, &complex_why)) return no(name + ": " + complex_why);
    return true;
  }
  if (!ir::specAccepts(*spec, data))
    return no(name + " of " + std::string(ir::elementTypeName(data)));
  if (op.kind == OpKind::BitcastConvert && ir::bitWidth(data) != ir::bitWidth(result))
    return no(name + " between element types of different widths (" +
              std::string(ir::elementTypeName(data)) + " -> " +
              std::string(ir::elementTypeName(result)) + ")");
  if (op.kind == OpKind::Compare &&
      !ir::findAttrAs<ir::ComparisonDirection>(op.attrs, "comparison_direction"))
    return no(name + " without comparison_direction");
  return true;
}

StatusOr<std::string> emitElementwise(CudaWriter& w, const ir::Module& module,
                                      const ir::Op& op,
                                      const std::vector<std::string>& x) {
  std::string why;
  if (!isNativeElementwise(module, op, &why)) return unimplemented(why);
  if (x.size() != op.operands.size())
    return internalError("stablehlo." + std::string(ir::opKindName(op.kind)) + ": " +
                         std::to_string(x.size()) + " operand values for " +
                         std::to_string(op.operands.size()) + " operands");
  const ElementType data =
      module.typeOf(op.operands[nativeSpecOf(op.kind)->data_operand]).element;
  const ElementType result = module.typeOf(op.results[0]).element;
  const std::string t = registerType(data);
  if (ir::isComplex(data) || ir::isComplex(result)) {
    std::string r = scalar::emitComplexOp(w, op, data, result, x);
    if (r.empty())
      return unimplemented("stablehlo." + std::string(ir::opKindName(op.kind)) +
                           " of complex values has no native form");
    return r;
  }
  switch (op.kind) {
    case OpKind::Real:  // of a real value: itself
      return x[0];
    case OpKind::Imag:  // of a real value: zero
      return w.let(t, "(" + t + ")0");
    case OpKind::Compare:
      return scalar::emitCompare(w, op, data, x[0], x[1]);
    case OpKind::Select:
      return w.let(t, x[0] + " ? " + x[1] + " : " + x[2]);
    case OpKind::Clamp: {
      // min(max(x, lo), hi) with maximum/minimum's semantics: NaN anywhere
      // gives NaN; lo > hi gives hi.
      if (ir::isFloat(data)) {
        const std::string c = computeType(data);
        return w.let(t, "(" + t + ")jft_min(jft_max((" + c + ")" + x[1] + ", (" + c +
                            ")" + x[0] + "), (" + c + ")" + x[2] + ")");
      }
      if (ir::isPred(data)) return w.let(t, "(" + x[1] + " || " + x[0] + ") && " + x[2]);
      const std::string lo = w.let(t, x[1] + " > " + x[0] + " ? " + x[1] + " : " + x[0]);
      return w.let(t, lo + " < " + x[2] + " ? " + lo + " : " + x[2]);
    }
    case OpKind::Convert:
      return scalar::emitConvert(w, data, result, x[0]);
    case OpKind::BitcastConvert:
      return scalar::emitBitcast(w, data, result, x[0]);
    case OpKind::IsFinite:
      return w.let("bool", "jft_isfinite(" + x[0] + ")");
    default:
      break;
  }
  std::string r = ir::isFloat(data) ? emitFloatOp(w, op.kind, data, x)
                                    : emitIntegerOp(w, op.kind, data, x);
  if (r.empty())
    return unimplemented("stablehlo." + std::string(ir::opKindName(op.kind)) + " of " +
                         std::string(ir::elementTypeName(data)) + " has no native form");
  return r;
}

std::string literal(ElementType element, std::span<const uint8_t> bytes) {
  if (ir::isComplex(element)) {
    const ElementType part = ir::complexComponent(element);
    const size_t half = bytes.size() / 2;
    return "jft_complex(" + literal(part, bytes.subspan(0, half)) + ", " +
           literal(part, bytes.subspan(half)) + ")";
  }
  uint64_t bits = 0;
  for (size_t b = 0; b < bytes.size() && b < 8; ++b)
    bits |= uint64_t{bytes[b]} << (8 * b);
  const int width = ir::bitWidth(element);
  if (ir::isPred(element)) return bits ? "true" : "false";
  if (ir::isUnsignedInteger(element))
    return "(" + registerType(element) + ")" + std::to_string(bits) + "ull";
  if (ir::isSignedInteger(element)) {
    if (width < 64 && (bits >> (width - 1)) & 1) bits |= ~uint64_t{0} << width;
    const auto v = static_cast<int64_t>(bits);
    if (v == INT64_MIN) return "(jft_i64)(-9223372036854775807ll - 1)";
    return "(" + registerType(element) + ")(" + std::to_string(v) + "ll)";
  }
  if (element == ElementType::F64) {
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (!std::isfinite(d)) return "jft_f64_from_bits(" + hexBits(bits, "ull") + ")";
    return decimal(d, false);
  }
  uint32_t f32_bits = static_cast<uint32_t>(bits);
  if (element == ElementType::BF16) f32_bits = static_cast<uint32_t>(bits) << 16;
  if (element == ElementType::F16) {
    // Decoded exactly as jft_f16_to_f32 does.
    const uint32_t h = static_cast<uint32_t>(bits), sign = (h & 0x8000u) << 16,
                   e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f) {
      f32_bits = sign | 0x7f800000u | (m << 13);
    } else if (e == 0) {
      float v = static_cast<float>(m) * 5.9604644775390625e-8f;
      std::memcpy(&f32_bits, &v, sizeof v);
      f32_bits |= sign;
    } else {
      f32_bits = sign | ((e + 112) << 23) | (m << 13);
    }
  }
  float f;
  std::memcpy(&f, &f32_bits, sizeof f);
  if (!std::isfinite(f)) return "jft_f32_from_bits(" + hexBits(f32_bits, "u") + ")";
  return decimal(f, true);
}

}  // namespace jft::codegen::native
