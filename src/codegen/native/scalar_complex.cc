// Complex values: the arithmetic that is exact in parts (add, subtract,
// negate, multiply by the textbook formula, as XLA's GPU backend computes
// it), select, EQ/NE compares (NE is true when any part differs, NaN
// included), abs (hypot), real, imag, complex, and converts (real <->
// complex: the imaginary part is 0 or dropped; complex -> pred: either part
// nonzero). Division and the transcendental functions are refused for now.
#include "codegen/native/c_types.h"
#include "codegen/native/scalar_ops.h"
#include "ir/op_kind.h"

namespace jft::codegen::native::scalar {

using ir::ElementType;
using ir::OpKind;

bool complexTakes(const ir::Op& op, std::string* why) {
  switch (op.kind) {
    case OpKind::Add:
    case OpKind::Subtract:
    case OpKind::Multiply:
    case OpKind::Negate:
    case OpKind::Select:
    case OpKind::Convert:
    case OpKind::Real:
    case OpKind::Imag:
    case OpKind::Complex:
    case OpKind::Abs:
      return true;
    case OpKind::Compare: {
      const auto* d =
          ir::findAttrAs<ir::ComparisonDirection>(op.attrs, "comparison_direction");
      if (d && (*d == ir::ComparisonDirection::EQ || *d == ir::ComparisonDirection::NE))
        return true;
      if (why) *why = "complex values compare EQ and NE only";
      return false;
    }
    default:
      break;
  }
  if (why)
    *why =
        "complex operands are computed by the native emitter only in add, subtract, "
        "multiply, negate, select, compare EQ/NE, convert, real, imag, complex and abs";
  return false;
}

std::string emitComplexConvert(CudaWriter& w, ElementType from, ElementType to,
                               const std::string& x) {
  if (ir::isComplex(from) && ir::isComplex(to)) {
    const std::string c = computeType(to);
    return w.let(registerType(to),
                 "jft_complex((" + c + ")" + x + ".re, (" + c + ")" + x + ".im)");
  }
  if (ir::isComplex(from)) {
    if (ir::isPred(to)) return w.let("bool", x + ".re != 0 || " + x + ".im != 0");
    const std::string re = w.let(registerType(ir::complexComponent(from)), x + ".re");
    return emitConvert(w, ir::complexComponent(from), to, re);
  }
  const ElementType part = ir::complexComponent(to);
  const std::string re = emitConvert(w, from, part, x);
  return w.let(registerType(to),
               "jft_complex(" + re + ", (" + registerType(part) + ")0)");
}

std::string emitComplexOp(CudaWriter& w, const ir::Op& op, ElementType data,
                          ElementType result, const std::vector<std::string>& x) {
  const std::string t = registerType(result);
  const std::string& a = x[0];
  const std::string b = x.size() > 1 ? x[1] : "";
  switch (op.kind) {
    case OpKind::Add:
      return w.let(
          t, "jft_complex(" + a + ".re + " + b + ".re, " + a + ".im + " + b + ".im)");
    case OpKind::Subtract:
      return w.let(
          t, "jft_complex(" + a + ".re - " + b + ".re, " + a + ".im - " + b + ".im)");
    case OpKind::Multiply:
      return w.let(t, "jft_complex(" + a + ".re * " + b + ".re - " + a + ".im * " + b +
                          ".im, " + a + ".re * " + b + ".im + " + a + ".im * " + b +
                          ".re)");
    case OpKind::Negate:
      return w.let(t, "jft_complex(-" + a + ".re, -" + a + ".im)");
    case OpKind::Select:
      return w.let(t, a + " ? " + b + " : " + x[2]);
    case OpKind::Real:
      return w.let(t, a + ".re");
    case OpKind::Imag:
      return w.let(t, a + ".im");
    case OpKind::Complex:
      return w.let(t, "jft_complex(" + a + ", " + b + ")");
    case OpKind::Abs:
      return w.let(t, std::string(result == ElementType::F64 ? "hypot(" : "hypotf(") + a +
                          ".re, " + a + ".im)");
    case OpKind::Compare: {
      const bool eq =
          *ir::findAttrAs<ir::ComparisonDirection>(op.attrs, "comparison_direction") ==
          ir::ComparisonDirection::EQ;
      if (eq)
        return w.let("bool", a + ".re == " + b + ".re && " + a + ".im == " + b + ".im");
      return w.let("bool", a + ".re != " + b + ".re || " + a + ".im != " + b + ".im");
    }
    case OpKind::Convert:
      return emitComplexConvert(w, data, result, a);
    default:
      break;
  }
  return {};
}

}  // namespace jft::codegen::native::scalar
