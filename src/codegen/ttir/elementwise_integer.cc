// Integer and pred arithmetic with StableHLO's defined results where LLVM's
// would be undefined: x / 0 = -1 (all ones), INT_MIN / -1 = INT_MIN,
// x % 0 = x, INT_MIN % -1 = 0, a shift by >= the bit width gives 0 (sign
// fill for the arithmetic right shift). Pred add/multiply/max/min are
// or/and/or/and.
#include "codegen/ttir/elementwise_internal.h"
#include "codegen/ttir/elementwise_ops.h"
#include "support/status.h"

namespace jft::codegen::ttir::ew {

using ir::ElementType;
using ir::OpKind;

namespace {

struct Int {
  TtirWriter& w;
  bool is_signed;
  int bits;

  Value c(const Value& like, int64_t v) const {
    return constInt(w, like, like.scalar, v);
  }
  int64_t minValue() const {
    return bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
  }

  // The divisor made safe for LLVM (1 where the result is fixed up later).
  Value safeDivisor(const Value& a, const Value& b, Value* zero_divisor) const {
    *zero_divisor = cmpi(w, "eq", b, c(b, 0));
    Value bad = *zero_divisor;
    if (is_signed) {
      Value overflow = binary(w, "arith.andi", cmpi(w, "eq", a, c(a, minValue())),
                              cmpi(w, "eq", b, c(b, -1)));
      bad = binary(w, "arith.ori", bad, overflow);
    }
    return select(w, bad, c(b, 1), b);
  }

  Value divide(const Value& a, const Value& b) const {
    Value zero;
    Value d = safeDivisor(a, b, &zero);
    Value q = binary(w, is_signed ? "arith.divsi" : "arith.divui", a, d);
    return select(w, zero, c(a, -1), q);
  }

  Value remainder(const Value& a, const Value& b) const {
    Value zero;
    Value d = safeDivisor(a, b, &zero);
    Value r = binary(w, is_signed ? "arith.remsi" : "arith.remui", a, d);
    return select(w, zero, a, r);
  }

  Value shift(OpKind kind, const Value& a, const Value& b) const {
    // The count is read as unsigned: a negative count is out of range too.
    Value in_range = cmpi(w, "ult", b, c(b, bits));
    if (kind == OpKind::ShiftRightArithmetic)
      return binary(w, "arith.shrsi", a, select(w, in_range, b, c(b, bits - 1)));
    Value count = select(w, in_range, b, c(b, 0));
    Value s =
        binary(w, kind == OpKind::ShiftLeft ? "arith.shli" : "arith.shrui", a, count);
    return select(w, in_range, s, c(a, 0));
  }

  Value sign(const Value& x) const {
    Value zero = c(x, 0), one = c(x, 1);
    if (!is_signed) return select(w, cmpi(w, "ne", x, zero), one, zero);
    Value negative = select(w, cmpi(w, "slt", x, zero), c(x, -1), zero);
    return select(w, cmpi(w, "sgt", x, zero), one, negative);
  }

  // Exponentiation by squaring over every bit of the exponent, in an scf.for
  // (the trip count is the bit width). A negative exponent gives the integer
  // quotient 1 / x^-n: 1 for x = 1, +-1 for x = -1, 0 otherwise.
  Value power(const Value& x, const Value& y) const {
    Value lo = constInt(w, Value{}, "i32", 0);
    Value hi = constInt(w, Value{}, "i32", bits);
    Value step = constInt(w, Value{}, "i32", 1);
    Value one = c(x, 1);
    const std::string t = x.type;
    const std::string loop = w.freshName(), iv = w.freshName();
    const std::string acc = w.freshName(), base = w.freshName(), exp = w.freshName();
    w.open(loop + ":3 = scf.for " + iv + " = " + lo.name + " to " + hi.name + " step " +
           step.name + " iter_args(" + acc + " = " + one.name + ", " + base + " = " +
           x.name + ", " + exp + " = " + y.name + ") -> (" + t + ", " + t + ", " + t +
           ") : i32 {");
    auto arg = [&](const std::string& name) { return Value{name, t, x.shape, x.scalar}; };
    Value odd = cmpi(w, "ne", binary(w, "arith.andi", arg(exp), c(x, 1)), c(x, 0));
    Value next_acc =
        select(w, odd, binary(w, "arith.muli", arg(acc), arg(base)), arg(acc));
    Value next_base = binary(w, "arith.muli", arg(base), arg(base));
    Value next_exp = binary(w, "arith.shrui", arg(exp), c(x, 1));
    w.line("scf.yield " + next_acc.name + ", " + next_base.name + ", " + next_exp.name +
           " : " + t + ", " + t + ", " + t);
    w.close("}");
    Value result = arg(loop + "#0");
    if (!is_signed) return result;
    Value y_odd = cmpi(w, "ne", binary(w, "arith.andi", y, c(y, 1)), c(y, 0));
    Value minus_one = c(x, -1);
    Value of_minus_one = select(w, y_odd, minus_one, one);
    Value negative =
        select(w, cmpi(w, "eq", x, one), one,
               select(w, cmpi(w, "eq", x, minus_one), of_minus_one, c(x, 0)));
    return select(w, cmpi(w, "slt", y, c(y, 0)), negative, result);
  }

  // popcnt / count_leading_zeros through the library's 32- and 64-bit
  // functions (math.ctpop / math.ctlz are not accepted by Triton).
  Value count(bool leading_zeros, const Value& x) const {
    const bool wide = bits == 64;
    Value arg = bits < 32 ? cast(w, "arith.extui", x, "i32") : x;
    std::string symbol;
    if (w.target() == Target::kCuda)
      symbol =
          std::string("__nv_") + (leading_zeros ? "clz" : "popc") + (wide ? "ll" : "");
    else
      symbol = std::string("__ockl_") + (leading_zeros ? "clz" : "popcount") +
               (wide ? "_u64" : "_u32");
    Value r =
        externCall(w, symbol, {arg}, wide && w.target() == Target::kHip ? "i64" : "i32");
    if (leading_zeros && bits < 32)
      r = binary(w, "arith.subi", r, constInt(w, r, "i32", 32 - bits));
    if (r.scalar == x.scalar) return r;
    return cast(w, bits < 32 ? "arith.trunci" : "arith.extui", r, x.scalar);
  }
};

Value emitPredOp(TtirWriter& w, OpKind kind, const std::vector<Value>& x) {
  switch (kind) {
    case OpKind::Add:
    case OpKind::Or:
    case OpKind::Maximum:
      return binary(w, "arith.ori", x[0], x[1]);
    case OpKind::Multiply:
    case OpKind::And:
    case OpKind::Minimum:
      return binary(w, "arith.andi", x[0], x[1]);
    case OpKind::Xor:
      return binary(w, "arith.xori", x[0], x[1]);
    case OpKind::Not:
      return binary(w, "arith.xori", x[0], constBool(w, x[0], true));
    default:
      JFT_CHECK(false,
                "emitIntegerOp: no pred form of " + std::string(ir::opKindName(kind)));
  }
  return x[0];
}

}  // namespace

Value emitIntegerOp(TtirWriter& w, OpKind kind, ElementType element,
                    const std::vector<Value>& x) {
  if (ir::isPred(element)) return emitPredOp(w, kind, x);
  const Int in{w, ir::isSignedInteger(element), ir::bitWidth(element)};
  const bool s = in.is_signed;
  switch (kind) {
    case OpKind::Add:
      return binary(w, "arith.addi", x[0], x[1]);
    case OpKind::Subtract:
      return binary(w, "arith.subi", x[0], x[1]);
    case OpKind::Multiply:
      return binary(w, "arith.muli", x[0], x[1]);
    case OpKind::Divide:
      return in.divide(x[0], x[1]);
    case OpKind::Remainder:
      return in.remainder(x[0], x[1]);
    case OpKind::Maximum:
      return binary(w, s ? "arith.maxsi" : "arith.maxui", x[0], x[1]);
    case OpKind::Minimum:
      return binary(w, s ? "arith.minsi" : "arith.minui", x[0], x[1]);
    case OpKind::Power:
      return in.power(x[0], x[1]);
    // |INT_MIN| wraps to INT_MIN, as StableHLO says; unsigned values are their own.
    case OpKind::Abs:
      return s ? unary(w, "math.absi", x[0]) : x[0];
    case OpKind::Negate:
      return binary(w, "arith.subi", in.c(x[0], 0), x[0]);
    case OpKind::Sign:
      return in.sign(x[0]);
    case OpKind::And:
      return binary(w, "arith.andi", x[0], x[1]);
    case OpKind::Or:
      return binary(w, "arith.ori", x[0], x[1]);
    case OpKind::Xor:
      return binary(w, "arith.xori", x[0], x[1]);
    case OpKind::Not:
      return binary(w, "arith.xori", x[0], in.c(x[0], -1));
    case OpKind::ShiftLeft:
    case OpKind::ShiftRightArithmetic:
    case OpKind::ShiftRightLogical:
      return in.shift(kind, x[0], x[1]);
    case OpKind::Popcnt:
      return in.count(false, x[0]);
    case OpKind::CountLeadingZeros:
      return in.count(true, x[0]);
    default:
      JFT_CHECK(false,
                "emitIntegerOp: not an integer op: " + std::string(ir::opKindName(kind)));
  }
  return x[0];
}

}  // namespace jft::codegen::ttir::ew
