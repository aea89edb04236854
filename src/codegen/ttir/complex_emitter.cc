#include "codegen/ttir/complex_emitter.h"

#include "codegen/ttir/capability.h"
#include "codegen/ttir/complex_math.h"
#include "codegen/ttir/elementwise_internal.h"
#include "codegen/ttir/elementwise_ops.h"
#include "fusion/ttir_support.h"

namespace jft::codegen::ttir {

namespace {

using ir::ElementType;
using ir::OpKind;

bool isComplexValue(const ir::Module& module, ir::ValueId v) {
  const ir::Type& t = module.typeOf(v);
  return t.isTensor() && ir::isComplex(t.element);
}

// Arithmetic on parts (f32 or f64 tiles of one shape): what complex_math.h
// asks of its `A`.
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
  // The sign bit: the value's bits as a signed integer are negative.
  Value signbit(const Value& a) {
    const std::string bits = a.scalar == "f64" ? "i64" : "i32";
    const Value i = ew::bitcast(w_, a, bits);
    return ew::cmpi(w_, "slt", i, ew::constInt(w_, i, bits, 0));
  }
  Value select(const Value& c, const Value& a, const Value& b) {
    return ew::select(w_, c, a, b);
  }
  Value both(const Value& a, const Value& b) {
    return ew::binary(w_, "arith.andi", a, b);
  }
  Value either(const Value& a, const Value& b) {
    return ew::binary(w_, "arith.ori", a, b);
  }
  bool wide(const Value& like) const { return like.scalar == "f64"; }

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

}  // namespace

bool touchesComplex(const ir::Module& module, const ir::Op& op) {
  for (ir::ValueId v : op.operands)
    if (isComplexValue(module, v)) return true;
  for (ir::ValueId v : op.results)
    if (isComplexValue(module, v)) return true;
  return false;
}

size_t complexOperandCount(OpKind kind) {
  switch (kind) {
    case OpKind::Real:
    case OpKind::Imag:
    case OpKind::Negate:
    case OpKind::Abs:
    case OpKind::Exponential:
    case OpKind::ExponentialMinusOne:
    case OpKind::Log:
    case OpKind::LogPlusOne:
    case OpKind::Sqrt:
    case OpKind::Rsqrt:
    case OpKind::Cbrt:
    case OpKind::Sign:
    case OpKind::Sine:
    case OpKind::Cosine:
    case OpKind::Tan:
    case OpKind::Tanh:
    case OpKind::Logistic:
    case OpKind::Convert:
      return 1;
    case OpKind::Complex:
    case OpKind::Add:
    case OpKind::Subtract:
    case OpKind::Multiply:
    case OpKind::Divide:
    case OpKind::Power:
    case OpKind::Compare:
      return 2;
    case OpKind::Select:
      return 3;
    default:
      return 0;
  }
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
  const size_t operands = complexOperandCount(op.kind);
  if (operands == 0) return no(name + " of complex values has no TTIR emitter");
  if (op.kind == OpKind::Compare) {
    const auto* d =
        ir::findAttrAs<ir::ComparisonDirection>(op.attrs, "comparison_direction");
    if (!d || (*d != ir::ComparisonDirection::EQ && *d != ir::ComparisonDirection::NE))
      return no(
          "compare of complex values other than EQ and NE: complex numbers "
          "have no order");
  }
  if (op.operands.size() != operands)
    return no(name + " with " + std::to_string(op.operands.size()) + " operands");
  if (op.kind == OpKind::Convert) {
    const ElementType from = module.typeOf(op.operands[0]).element;
    const ElementType to = module.typeOf(op.results[0]).element;
    const ElementType real_side = ir::isComplex(from) ? to : from;
    if (!ir::isComplex(real_side) && !ttirHoldsElementType(real_side))
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
  auto z = [&](size_t i) { return cmath::Cx<Value>{re[i], im[i]}; };
  // An op of complex_math.h gives both parts at once: the one asked for is
  // returned, the other remembered for the other part's emission.
  auto both = [&](const cmath::Cx<Value>& c) {
    el.remember(op.results[0], space, 1 - part, part == 0 ? c.im : c.re);
    return part == 0 ? c.re : c.im;
  };
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
      return both(cmath::multiply(p, z(0), z(1)));
    case OpKind::Divide:
      return both(cmath::divide(p, z(0), z(1)));
    case OpKind::Power:
      return both(cmath::power(p, z(0), z(1)));
    case OpKind::Abs:
      return cmath::absolute(p, z(0));
    case OpKind::Exponential:
      return both(cmath::exp(p, z(0)));
    case OpKind::ExponentialMinusOne:
      return both(cmath::expm1(p, z(0)));
    case OpKind::Log:
      return both(cmath::log(p, z(0)));
    case OpKind::LogPlusOne:
      return both(cmath::log1p(p, z(0)));
    case OpKind::Sqrt:
      return both(cmath::sqrt(p, z(0)));
    case OpKind::Rsqrt:
      return both(cmath::rsqrt(p, z(0)));
    case OpKind::Cbrt:
      return both(cmath::cbrt(p, z(0)));
    case OpKind::Sign:
      return both(cmath::sign(p, z(0)));
    case OpKind::Sine:
      return both(cmath::sin(p, z(0)));
    case OpKind::Cosine:
      return both(cmath::cos(p, z(0)));
    case OpKind::Tan:
      return both(cmath::tan(p, z(0)));
    case OpKind::Tanh:
      return both(cmath::tanh(p, z(0)));
    case OpKind::Logistic:
      return both(cmath::logistic(p, z(0)));
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

StatusOr<std::vector<Value>> emitComplexCombiner(TtirWriter& writer,
                                                 const ir::Module& module,
                                                 const ir::Region& region,
                                                 const std::vector<Value>& acc,
                                                 const std::vector<Value>& value) {
  std::string why;
  const ir::Op* op = fusion::complexReduceCombiner(module, region, &why);
  if (!op) return unimplemented(why);
  if (acc.size() != 2 || value.size() != 2)
    return internalError("complex combiner without two parts per side");
  Parts p(writer);
  if (op->kind == OpKind::Add)
    return std::vector<Value>{p.add(acc[0], value[0]), p.add(acc[1], value[1])};
  const cmath::Cx<Value> c = cmath::multiply(p, cmath::Cx<Value>{acc[0], acc[1]},
                                             cmath::Cx<Value>{value[0], value[1]});
  return std::vector<Value>{c.re, c.im};
}

}  // namespace jft::codegen::ttir
