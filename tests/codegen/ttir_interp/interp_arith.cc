// Elementwise semantics. Integers follow MLIR's signless two's complement at
// their width (the op carries the signedness); floats are computed in double
// and rounded once to their type, which is the IEEE result for + - * / and
// sqrt of f16/bf16/f32 (double has more than twice their precision). The
// math library calls are computed in double: close to libdevice, not
// bit-equal, so tests compare their results with a tolerance.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "interp_internal.h"

namespace jft::codegen::ttir::testing::interp {
namespace {

using IntBinary = std::function<int64_t(int64_t, int64_t, Elem)>;
using FloatBinary = double (*)(double, double);
using FloatUnary = double (*)(double);

// The high `bits` bits of the 2*bits-bit product of a and b (< 2^bits each).
uint64_t mulHigh(uint64_t a, uint64_t b, int bits) {
  if (bits <= 32) return (a * b) >> bits;
  const uint64_t al = a & 0xFFFFFFFF, ah = a >> 32, bl = b & 0xFFFFFFFF, bh = b >> 32;
  const uint64_t low = al * bl, mid1 = ah * bl, mid2 = al * bh;
  const uint64_t carry = ((low >> 32) + (mid1 & 0xFFFFFFFF) + (mid2 & 0xFFFFFFFF)) >> 32;
  return ah * bh + (mid1 >> 32) + (mid2 >> 32) + carry;
}

const std::map<std::string, IntBinary>& intBinary() {
  auto u = [](int64_t v, Elem e) { return unsignedOf(v, e); };
  auto w = [](uint64_t v, Elem e) { return wrapInt(v, e); };
  static const std::map<std::string, IntBinary> table = {
      {"arith.addi",
       [=](int64_t a, int64_t b, Elem e) { return w(u(a, e) + u(b, e), e); }},
      {"arith.subi",
       [=](int64_t a, int64_t b, Elem e) { return w(u(a, e) - u(b, e), e); }},
      {"arith.muli",
       [=](int64_t a, int64_t b, Elem e) { return w(u(a, e) * u(b, e), e); }},
      {"arith.andi",
       [=](int64_t a, int64_t b, Elem e) { return w(u(a, e) & u(b, e), e); }},
      {"arith.ori",
       [=](int64_t a, int64_t b, Elem e) { return w(u(a, e) | u(b, e), e); }},
      {"arith.xori",
       [=](int64_t a, int64_t b, Elem e) { return w(u(a, e) ^ u(b, e), e); }},
      // Division: C's truncation; b == 0 and INT_MIN / -1 are refused first.
      {"arith.divsi",
       [=](int64_t a, int64_t b, Elem e) { return w(static_cast<uint64_t>(a / b), e); }},
      {"arith.remsi",
       [=](int64_t a, int64_t b, Elem e) { return w(static_cast<uint64_t>(a % b), e); }},
      {"arith.divui",
       [=](int64_t a, int64_t b, Elem e) { return w(u(a, e) / u(b, e), e); }},
      {"arith.remui",
       [=](int64_t a, int64_t b, Elem e) { return w(u(a, e) % u(b, e), e); }},
      {"arith.maxsi", [](int64_t a, int64_t b, Elem) { return std::max(a, b); }},
      {"arith.minsi", [](int64_t a, int64_t b, Elem) { return std::min(a, b); }},
      {"arith.maxui",
       [=](int64_t a, int64_t b, Elem e) { return u(a, e) >= u(b, e) ? a : b; }},
      {"arith.minui",
       [=](int64_t a, int64_t b, Elem e) { return u(a, e) <= u(b, e) ? a : b; }},
      // Shift amounts of the width or more are refused first (poison in MLIR).
      {"arith.shli", [=](int64_t a, int64_t b, Elem e) { return w(u(a, e) << b, e); }},
      {"arith.shrui", [=](int64_t a, int64_t b, Elem e) { return w(u(a, e) >> b, e); }},
      {"arith.shrsi",
       [=](int64_t a, int64_t b, Elem e) { return w(static_cast<uint64_t>(a >> b), e); }},
      {"tt.mulhiui", [=](int64_t a, int64_t b,
                         Elem e) { return w(mulHigh(u(a, e), u(b, e), bitsOf(e)), e); }},
  };
  return table;
}

double maximumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  if (a == b) return std::signbit(a) ? b : a;  // +0 over -0
  return std::max(a, b);
}
double minimumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  if (a == b) return std::signbit(a) ? a : b;
  return std::min(a, b);
}

const std::map<std::string, FloatBinary>& floatBinary() {
  static const std::map<std::string, FloatBinary> table = {
      {"arith.addf", [](double a, double b) { return a + b; }},
      {"arith.subf", [](double a, double b) { return a - b; }},
      {"arith.mulf", [](double a, double b) { return a * b; }},
      {"arith.divf", [](double a, double b) { return a / b; }},
      {"tt.precise_divf", [](double a, double b) { return a / b; }},
      {"arith.remf", [](double a, double b) { return std::fmod(a, b); }},
      {"arith.maximumf", maximumF},
      {"arith.minimumf", minimumF},
      {"arith.maxnumf",
       [](double a, double b) {
         return std::isnan(a) ? b : std::isnan(b) ? a : maximumF(a, b);
       }},
      {"arith.minnumf",
       [](double a, double b) {
         return std::isnan(a) ? b : std::isnan(b) ? a : minimumF(a, b);
       }},
  };
  return table;
}

const std::map<std::string, FloatUnary>& floatUnary() {
  static const std::map<std::string, FloatUnary> table = {
      {"arith.negf", [](double a) { return -a; }},
      {"math.absf", [](double a) { return std::fabs(a); }},
      {"math.sqrt", [](double a) { return std::sqrt(a); }},
      {"tt.precise_sqrt", [](double a) { return std::sqrt(a); }},
      {"math.rsqrt", [](double a) { return 1 / std::sqrt(a); }},
      {"math.exp", [](double a) { return std::exp(a); }},
      {"math.exp2", [](double a) { return std::exp2(a); }},
      {"math.log", [](double a) { return std::log(a); }},
      {"math.log2", [](double a) { return std::log2(a); }},
      {"math.sin", [](double a) { return std::sin(a); }},
      {"math.cos", [](double a) { return std::cos(a); }},
      {"math.erf", [](double a) { return std::erf(a); }},
      {"math.floor", [](double a) { return std::floor(a); }},
      {"math.ceil", [](double a) { return std::ceil(a); }},
  };
  return table;
}

// libdevice functions by their name without "__nv_" and the "f" of f32.
const std::map<std::string, FloatUnary>& libraryUnary() {
  static const std::map<std::string, FloatUnary> table = {
      {"exp", [](double a) { return std::exp(a); }},
      {"exp2", [](double a) { return std::exp2(a); }},
      {"expm1", [](double a) { return std::expm1(a); }},
      {"log", [](double a) { return std::log(a); }},
      {"log1p", [](double a) { return std::log1p(a); }},
      {"tanh", [](double a) { return std::tanh(a); }},
      {"sin", [](double a) { return std::sin(a); }},
      {"cos", [](double a) { return std::cos(a); }},
      {"tan", [](double a) { return std::tan(a); }},
      {"sinh", [](double a) { return std::sinh(a); }},
      {"cosh", [](double a) { return std::cosh(a); }},
      {"sqrt", [](double a) { return std::sqrt(a); }},
      {"rsqrt", [](double a) { return 1 / std::sqrt(a); }},
      {"erf", [](double a) { return std::erf(a); }},
  };
  return table;
}
const std::map<std::string, FloatBinary>& libraryBinary() {
  static const std::map<std::string, FloatBinary> table = {
      {"pow", [](double a, double b) { return std::pow(a, b); }},
      {"atan2", [](double a, double b) { return std::atan2(a, b); }},
      {"hypot", [](double a, double b) { return std::hypot(a, b); }},
  };
  return table;
}

bool compareI(const std::string& p, int64_t a, int64_t b, Elem e, bool* known) {
  const uint64_t ua = unsignedOf(a, e), ub = unsignedOf(b, e);
  if (p == "eq") return a == b;
  if (p == "ne") return a != b;
  if (p == "slt") return a < b;
  if (p == "sle") return a <= b;
  if (p == "sgt") return a > b;
  if (p == "sge") return a >= b;
  if (p == "ult") return ua < ub;
  if (p == "ule") return ua <= ub;
  if (p == "ugt") return ua > ub;
  if (p == "uge") return ua >= ub;
  *known = false;
  return false;
}

bool compareF(const std::string& p, double a, double b, bool* known) {
  const bool unordered = std::isnan(a) || std::isnan(b);
  if (p == "false") return false;
  if (p == "true") return true;
  if (p == "ord") return !unordered;
  if (p == "uno") return unordered;
  const std::string rel = p.substr(1);
  bool r = false;
  if (rel == "eq")
    r = a == b;
  else if (rel == "ne")
    r = a != b;
  else if (rel == "lt")
    r = a < b;
  else if (rel == "le")
    r = a <= b;
  else if (rel == "gt")
    r = a > b;
  else if (rel == "ge")
    r = a >= b;
  else
    *known = false;
  if (p[0] == 'o') return !unordered && r;
  if (p[0] == 'u') return unordered || r;
  *known = false;
  return false;
}

// Float -> integer as the GPU's cvt.rzi does: toward zero, saturating, NaN to 0
// (MLIR leaves out-of-range results undefined; the emitters target PTX).
int64_t floatToInt(double v, Elem e, bool is_unsigned) {
  if (std::isnan(v)) return 0;
  const int bits = bitsOf(e);
  const long double lo = is_unsigned ? 0.0L : -std::ldexp(1.0L, bits - 1);
  const long double hi =
      is_unsigned ? std::ldexp(1.0L, bits) - 1 : std::ldexp(1.0L, bits - 1) - 1;
  long double t = std::trunc(static_cast<long double>(v));
  t = std::clamp(t, lo, hi);
  if (is_unsigned) return wrapInt(static_cast<uint64_t>(t), e);
  return static_cast<int64_t>(t);
}

double intToFloat(int64_t v, Elem from, Elem to, bool is_unsigned) {
  // long double holds every 64-bit integer exactly: one rounding, to `to`.
  const long double x = is_unsigned ? static_cast<long double>(unsignedOf(v, from))
                                    : static_cast<long double>(v);
  if (to == Elem::kF32) return static_cast<float>(x);
  if (to == Elem::kF64) return static_cast<double>(x);
  return roundTo(static_cast<double>(x), to);  // exact below 2^53, ample for f16/bf16
}

Status shapeCheck(const Op& op, const std::vector<const Tensor*>& in, const Type& rt) {
  for (const Tensor* t : in)
    if (t->type.shape != rt.shape)
      return invalidArgument("TTIR line " + std::to_string(op.line) +
                             ": operand shape differs from the result's: " + op.text);
  return Status::ok();
}

Status opError(const Op& op, const std::string& what) {
  return invalidArgument("TTIR line " + std::to_string(op.line) + ": " + what + ": " +
                         op.text);
}

}  // namespace

StatusOr<bool> runElementwise(const Op& op, const std::vector<const Tensor*>& in,
                              Tensor& out) {
  const std::string& n = op.name;
  if (op.types.empty()) return false;
  const Type& rt = op.types[0];
  const int64_t size = rt.size();
  auto need = [&](size_t count) -> Status {
    if (in.size() != count)
      return opError(op, "expected " + std::to_string(count) + " operands");
    return shapeCheck(op, in, rt);
  };

  if (auto it = intBinary().find(n); it != intBinary().end()) {
    JFT_RETURN_IF_ERROR(need(2));
    const Elem e = rt.elem;
    const auto &a = in[0]->ints, &b = in[1]->ints;
    const bool divides = n == "arith.divsi" || n == "arith.remsi" || n == "arith.divui" ||
                         n == "arith.remui";
    const bool signed_divides = n == "arith.divsi" || n == "arith.remsi";
    const bool shifts = n == "arith.shli" || n == "arith.shrui" || n == "arith.shrsi";
    for (int64_t i = 0; i < size && (divides || shifts); ++i) {
      if (divides && b[i] == 0) return opError(op, "division by zero");
      if (signed_divides && b[i] == -1 && a[i] == std::numeric_limits<int64_t>::min())
        return opError(op, "signed division overflow");
      if (shifts && (b[i] < 0 || b[i] >= bitsOf(e)))
        return opError(op, "shift by " + std::to_string(b[i]) + " (poison)");
    }
    out = makeTensor(rt);
    for (int64_t i = 0; i < size; ++i) out.ints[i] = it->second(a[i], b[i], e);
    return true;
  }
  if (auto it = floatBinary().find(n); it != floatBinary().end()) {
    JFT_RETURN_IF_ERROR(need(2));
    out = makeTensor(rt);
    for (int64_t i = 0; i < size; ++i)
      out.floats[i] = roundTo(it->second(in[0]->floats[i], in[1]->floats[i]), rt.elem);
    return true;
  }
  if (auto it = floatUnary().find(n); it != floatUnary().end()) {
    JFT_RETURN_IF_ERROR(need(1));
    out = makeTensor(rt);
    for (int64_t i = 0; i < size; ++i)
      out.floats[i] = roundTo(it->second(in[0]->floats[i]), rt.elem);
    return true;
  }
  if (n == "math.fma") {
    JFT_RETURN_IF_ERROR(need(3));
    out = makeTensor(rt);
    for (int64_t i = 0; i < size; ++i)
      out.floats[i] = roundTo(
          std::fma(in[0]->floats[i], in[1]->floats[i], in[2]->floats[i]), rt.elem);
    return true;
  }
  if (n == "math.absi") {
    JFT_RETURN_IF_ERROR(need(1));
    out = makeTensor(rt);
    for (int64_t i = 0; i < size; ++i)
      out.ints[i] = wrapInt(in[0]->ints[i] < 0 ? 0 - unsignedOf(in[0]->ints[i], rt.elem)
                                               : unsignedOf(in[0]->ints[i], rt.elem),
                            rt.elem);
    return true;
  }
  if (n == "tt.extern_elementwise") {
    std::string fn = op.attr;
    if (!fn.starts_with("__nv_"))
      return unimplemented("library function " + fn + ": " + op.text);
    fn = fn.substr(5);
    if (rt.elem == Elem::kF32 && !fn.empty() && fn.back() == 'f') fn.pop_back();
    JFT_RETURN_IF_ERROR(shapeCheck(op, in, rt));
    out = makeTensor(rt);
    if (auto u = libraryUnary().find(fn); u != libraryUnary().end() && in.size() == 1) {
      for (int64_t i = 0; i < size; ++i)
        out.floats[i] = roundTo(u->second(in[0]->floats[i]), rt.elem);
      return true;
    }
    if (auto b = libraryBinary().find(fn); b != libraryBinary().end() && in.size() == 2) {
      for (int64_t i = 0; i < size; ++i)
        out.floats[i] = roundTo(b->second(in[0]->floats[i], in[1]->floats[i]), rt.elem);
      return true;
    }
    return unimplemented("TTIR line " + std::to_string(op.line) +
                         ": the interpreter does not support library function " +
                         op.attr);
  }
  if (n == "arith.cmpi" || n == "arith.cmpf") {
    JFT_RETURN_IF_ERROR(need(2));
    out = makeTensor(rt);
    bool known = true;
    for (int64_t i = 0; i < size; ++i)
      out.ints[i] = n == "arith.cmpi"
                        ? compareI(op.attr, in[0]->ints[i], in[1]->ints[i],
                                   in[0]->type.elem, &known)
                        : compareF(op.attr, in[0]->floats[i], in[1]->floats[i], &known);
    if (!known) return unimplemented("predicate '" + op.attr + "': " + op.text);
    return true;
  }
  if (n == "arith.select") {
    if (in.size() != 3) return opError(op, "select takes 3 operands");
    JFT_RETURN_IF_ERROR(shapeCheck(op, {in[1], in[2]}, rt));
    const bool scalar_cond = in[0]->type.shape.empty();
    if (!scalar_cond && in[0]->type.shape != rt.shape)
      return opError(op, "condition shape");
    out = makeTensor(rt);
    for (int64_t i = 0; i < size; ++i) {
      const bool c = in[0]->ints[scalar_cond ? 0 : i] != 0;
      if (isFloat(rt.elem))
        out.floats[i] = c ? in[1]->floats[i] : in[2]->floats[i];
      else
        out.ints[i] = c ? in[1]->ints[i] : in[2]->ints[i];
    }
    return true;
  }
  // Casts: one operand of the result's shape.
  static const char* casts[] = {
      "arith.extsi",   "arith.extui",  "arith.trunci",  "arith.sitofp", "arith.uitofp",
      "arith.fptosi",  "arith.fptoui", "arith.extf",    "arith.truncf", "tt.fp_to_fp",
      "arith.bitcast", "tt.bitcast",   "tt.int_to_ptr", "tt.ptr_to_int"};
  if (std::find(std::begin(casts), std::end(casts), n) == std::end(casts)) return false;
  JFT_RETURN_IF_ERROR(need(1));
  const Tensor& x = *in[0];
  const Elem from = x.type.elem, to = rt.elem;
  out = makeTensor(rt);
  for (int64_t i = 0; i < size; ++i) {
    if (n == "arith.extsi" || n == "arith.trunci" || n == "tt.int_to_ptr" ||
        n == "tt.ptr_to_int") {
      // i1 is held as 0/1; sign-extending it gives 0/-1.
      const int64_t v = from == Elem::kI1 && n == "arith.extsi" ? -x.ints[i] : x.ints[i];
      out.ints[i] = wrapInt(static_cast<uint64_t>(v), to == Elem::kPtr ? Elem::kI64 : to);
    } else if (n == "arith.extui") {
      out.ints[i] = wrapInt(unsignedOf(x.ints[i], from), to);
    } else if (n == "arith.sitofp" || n == "arith.uitofp") {
      const int64_t v = from == Elem::kI1 && n == "arith.sitofp" ? -x.ints[i] : x.ints[i];
      out.floats[i] = intToFloat(v, from, to, n == "arith.uitofp");
    } else if (n == "arith.fptosi" || n == "arith.fptoui") {
      out.ints[i] = floatToInt(x.floats[i], to, n == "arith.fptoui");
    } else if (n == "arith.extf" || n == "arith.truncf" || n == "tt.fp_to_fp") {
      out.floats[i] = roundTo(x.floats[i], to);
    } else {  // bitcast between types of one width
      if (bitsOf(from) != bitsOf(to)) return opError(op, "bitcast between widths");
      const uint64_t bits =
          isFloat(from) ? floatBits(x.floats[i], from) : unsignedOf(x.ints[i], from);
      if (isFloat(to))
        out.floats[i] = floatFromBits(bits, to);
      else
        out.ints[i] = wrapInt(bits, to);
    }
  }
  return true;
}

}  // namespace jft::codegen::ttir::testing::interp
