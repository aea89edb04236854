#include "codegen/ttir/complex_emitter.h"

#include <limits>

#include "codegen/ttir/elementwise_internal.h"
#include "codegen/ttir/elementwise_ops.h"

namespace jft::codegen::ttir {

namespace {

using ir::ElementType;
using ir::OpKind;

bool isComplexValue(const ir::Module& module, ir::ValueId v) {
  const ir::Type& t = module.typeOf(v);
  return t.isTensor() && ir::isComplex(t.element);
}

std::string opName(const ir::Op& op) {
  return "stablehlo." + std::string(ir::opKindName(op.kind));
}

// Arithmetic on parts (f32 or f64 tiles of one shape).
class Parts {
 public:
  explicit Parts(TtirWriter& w) : w_(w) {}
  Value add(const Value& a, const Value& b) { return ew::binary(w_, "arith.addf", a, b); }
  Value sub(const Value& a, const Value& b) { return ew::binary(w_, "arith.subf", a, b); }
  Value mul(const Value& a, const Value& b) { return ew::binary(w_, "arith.mulf", a, b); }
  Value div(const Value& a, const Value& b) {
    return ew::binary(w_, a.scalar == "f64" ? "arith.divf" : "tt.precise_divf", a, b);
  }
  Value abs(const Value& a) { return ew::unary(w_, "math.absf", a); }
  // Triton 3.6 rejects arith.negf; times -1 keeps the sign rules (-0, NaN).
  Value neg(const Value& a) { return mul(a, constant(a, -1.0)); }
  Value sqrt(const Value& a) {
    return ew::unary(w_, a.scalar == "f64" ? "math.sqrt" : "tt.precise_sqrt", a);
  }
  Value call(std::string_view fn, const std::vector<Value>& args) {
    return ew::callMath(w_, fn, args);
  }
  Value constant(const Value& like, double v) {
    return ew::constFloat(w_, like, like.scalar, v);
  }
  Value cmp(std::string_view pred, const Value& a, const Value& b) {
    return ew::cmpf(w_, pred, a, b);
  }
  Value select(const Value& c, const Value& a, const Value& b) {
    return ew::select(w_, c, a, b);
  }

 private:
  TtirWriter& w_;
};

// Both parts of every complex operand (real operands as themselves), all
// broadcast to one shape.
struct Operands {
  std::vector<Value> re, im;
};

StatusOr<Operands> operandsOf(Elemental& el, const ir::Op& op, int space) {
  IndexBuilder& ix = el.index();
  Operands out;
  std::vector<int64_t> shape = ix.ones();
  for (ir::ValueId v : op.operands) {
    if (isComplexValue(el.module(), v)) {
      JFT_ASSIGN_OR_RETURN(Value re, el.emitPart(v, space, 0));
      JFT_ASSIGN_OR_RETURN(Value im, el.emitPart(v, space, 1));
      out.re.push_back(re);
      out.im.push_back(im);
    } else {
      JFT_ASSIGN_OR_RETURN(Value x, el.emit(v, space));
      out.re.push_back(x);
      out.im.push_back(x);
    }
    shape = IndexBuilder::join(shape, out.re.back().shape);
    shape = IndexBuilder::join(shape, out.im.back().shape);
  }
  for (Value& v : out.re) v = ix.broadcast(v, shape);
  for (Value& v : out.im) v = ix.broadcast(v, shape);
  return out;
}

// (a + bi) / (c + di) by Smith's algorithm: divide by the larger of |c|, |d|
// first so that neither c^2 nor d^2 is formed (no overflow or underflow).
Value divide(Parts& p, const Value& a, const Value& b, const Value& c, const Value& d,
             int part) {
  const Value c_wins = p.cmp("oge", p.abs(c), p.abs(d));
  // |c| >= |d|: r = d / c, den = c + d r, re = (a + b r) / den, im = (b - a r) / den.
  const Value r1 = p.div(d, c);
  const Value den1 = p.add(c, p.mul(d, r1));
  const Value q1 = part == 0 ? p.div(p.add(a, p.mul(b, r1)), den1)
                             : p.div(p.sub(b, p.mul(a, r1)), den1);
  // Otherwise: r = c / d, den = c r + d, re = (a r + b) / den, im = (b r - a) / den.
  const Value r2 = p.div(c, d);
  const Value den2 = p.add(p.mul(c, r2), d);
  const Value q2 = part == 0 ? p.div(p.add(p.mul(a, r2), b), den2)
                             : p.div(p.sub(p.mul(b, r2), a), den2);
  return p.select(c_wins, q1, q2);
}

// The principal square root: t = sqrt((|z| + |re|) / 2); for re >= 0 it is
// (t, im / 2t), else (|im| / 2t, copysign(t, im)); z = 0 gives (0, im).
Value squareRoot(Parts& p, const Value& re, const Value& im, int part) {
  const Value zero = p.constant(re, 0.0), half = p.constant(re, 0.5);
  const Value t = p.sqrt(p.mul(p.add(p.call("hypot", {re, im}), p.abs(re)), half));
  const Value two_t = p.add(t, t);
  const Value is_zero = p.cmp("oeq", t, zero);
  const Value re_nonneg = p.cmp("oge", re, zero);
  Value r;
  if (part == 0) {
    r = p.select(re_nonneg, t, p.div(p.abs(im), two_t));
    return p.select(is_zero, zero, r);
  }
  r = p.select(re_nonneg, p.div(im, two_t), p.call("copysign", {t, im}));
  return p.select(is_zero, im, r);
}

}  // namespace

bool touchesComplex(const ir::Module& module, const ir::Op& op) {
  for (ir::ValueId v : op.operands)
    if (isComplexValue(module, v)) return true;
  for (ir::ValueId v : op.results)
    if (isComplexValue(module, v)) return true;
  return false;
}

bool isEmittableComplexOp(const ir::Module& module, const ir::Op& op, std::string* why) {
  auto no = [&](std::string reason) {
    if (why) *why = std::move(reason);
    return false;
  };
  const std::string name(ir::opKindName(op.kind));
  if (op.results.size() != 1) return no(name + " of complex values with several results");
  for (ir::ValueId v : op.operands)
    if (!module.typeOf(v).isTensor()) return no(name + " of a non-tensor value");
  size_t operands = 0;
  switch (op.kind) {
    case OpKind::Real:
    case OpKind::Imag:
    case OpKind::Negate:
    case OpKind::Abs:
    case OpKind::Exponential:
    case OpKind::Log:
    case OpKind::Sqrt:
    case OpKind::Convert:
      operands = 1;
      break;
    case OpKind::Complex:
    case OpKind::Add:
    case OpKind::Subtract:
    case OpKind::Multiply:
    case OpKind::Divide:
      operands = 2;
      break;
    case OpKind::Compare: {
      operands = 2;
      const auto* d =
          ir::findAttrAs<ir::ComparisonDirection>(op.attrs, "comparison_direction");
      if (!d || (*d != ir::ComparisonDirection::EQ && *d != ir::ComparisonDirection::NE))
        return no("compare of complex values other than EQ and NE");
      break;
    }
    case OpKind::Select:
      operands = 3;
      break;
    default:
      return no(name + " of complex values has no TTIR emitter");
  }
  if (op.operands.size() != operands)
    return no(name + " with " + std::to_string(op.operands.size()) + " operands");
  if (op.kind == OpKind::Convert) {
    const ElementType from = module.typeOf(op.operands[0]).element;
    const ElementType to = module.typeOf(op.results[0]).element;
    const ElementType real_side = ir::isComplex(from) ? to : from;
    if (!ir::isComplex(real_side) && !ew::isComputable(real_side))
      return no("convert between complex and " +
                std::string(ir::elementTypeName(real_side)));
  }
  return true;
}

StatusOr<Value> emitComplexOp(Elemental& el, const ir::Op& op, int space, int part) {
  std::string why;
  if (!isEmittableComplexOp(el.module(), op, &why)) return unimplemented(why);
  TtirWriter& w = el.index().writer();
  Parts p(w);
  const ir::Module& module = el.module();
  const ElementType result = module.typeOf(op.results[0]).element;
  switch (op.kind) {
    case OpKind::Real:
      return el.emitPart(op.operands[0], space, 0);
    case OpKind::Imag:
      return el.emitPart(op.operands[0], space, 1);
    case OpKind::Complex:
      return el.emit(op.operands[part == 0 ? 0 : 1], space);
    default:
      break;
  }
  JFT_ASSIGN_OR_RETURN(Operands x, operandsOf(el, op, space));
  const std::vector<Value>& re = x.re;
  const std::vector<Value>& im = x.im;
  auto partOf = [&](size_t i) { return part == 0 ? re[i] : im[i]; };
  switch (op.kind) {
    case OpKind::Add:
      return p.add(partOf(0), partOf(1));
    case OpKind::Subtract:
      return p.sub(partOf(0), partOf(1));
    case OpKind::Negate:
      return p.neg(partOf(0));
    case OpKind::Select:  // re[0] is the (real) predicate
      return p.select(re[0], partOf(1), partOf(2));
    case OpKind::Multiply:
      if (part == 0) return p.sub(p.mul(re[0], re[1]), p.mul(im[0], im[1]));
      return p.add(p.mul(re[0], im[1]), p.mul(im[0], re[1]));
    case OpKind::Divide:
      return divide(p, re[0], im[0], re[1], im[1], part);
    case OpKind::Abs:
      return p.call("hypot", {re[0], im[0]});
    case OpKind::Exponential: {
      const Value e = p.call("exp", {re[0]});
      return p.mul(e, p.call(part == 0 ? "cos" : "sin", {im[0]}));
    }
    case OpKind::Log:
      if (part == 0) return p.call("log", {p.call("hypot", {re[0], im[0]})});
      return p.call("atan2", {im[0], re[0]});
    case OpKind::Sqrt:
      return squareRoot(p, re[0], im[0], part);
    case OpKind::Compare: {
      const bool eq =
          *ir::findAttrAs<ir::ComparisonDirection>(op.attrs, "comparison_direction") ==
          ir::ComparisonDirection::EQ;
      const Value r = p.cmp(eq ? "oeq" : "une", re[0], re[1]);
      const Value i = p.cmp(eq ? "oeq" : "une", im[0], im[1]);
      return ew::binary(w, eq ? "arith.andi" : "arith.ori", r, i);
    }
    case OpKind::Convert: {
      const ElementType from = module.typeOf(op.operands[0]).element;
      if (ir::isComplex(from) && ir::isComplex(result))
        return ew::emitConvert(w, ir::complexComponent(from),
                               ir::complexComponent(result), partOf(0));
      if (ir::isComplex(from))  // to real: the real part
        return ew::emitConvert(w, ir::complexComponent(from), result, re[0]);
      const ElementType component = ir::complexComponent(result);
      const Value real = ew::emitConvert(w, from, component, re[0]);
      return part == 0 ? real : p.constant(real, 0.0);
    }
    default:
      break;
  }
  return internalError(opName(op) + ": complex op accepted but not emitted");
}

}  // namespace jft::codegen::ttir
