// Float arithmetic and math. Exact ops (add, multiply, divide, sqrt, floor,
// min/max) are IEEE ops; fmod and transcendental functions are the backend's
// math library, as XLA's GPU backend calls them, because Triton's TTIR -> TTGIR
// conversion accepts only a few math ops (exp, log, sin, cos, sqrt, rsqrt,
// erf, floor, ceil, absf, fma...) and lowers some of those approximately
// (math.exp is ex2.approx on f32, arith.divf div.full).
#include "codegen/common/math_functions.h"
#include "codegen/ttir/elementwise.h"
#include "codegen/ttir/elementwise_internal.h"
#include "codegen/ttir/elementwise_ops.h"
#include "support/status.h"

namespace jft::codegen::ttir::ew {

using ir::ElementType;
using ir::OpKind;

// fmod is exact; LLVM's NVPTX lowering of frem (x - y * trunc(x / y)) is not.
// rsqrt is libdevice's too (C's library has none).
const char* libraryFunctionOf(OpKind kind) {
  return kind == OpKind::Rsqrt ? "rsqrt" : common::cMathFunction(kind);
}

namespace {

// Correctly rounded division: Triton lowers f32 arith.divf to the
// approximate div.full; tt.precise_divf exists for f32 only.
Value divide(TtirWriter& w, const Value& a, const Value& b) {
  return binary(w, a.scalar == "f64" ? "arith.divf" : "tt.precise_divf", a, b);
}

Value sign(TtirWriter& w, const Value& x) {
  // +-0 and NaN are their own sign, so the fallback is x itself.
  Value zero = constFloat(w, x, x.scalar, 0.0);
  Value negative =
      select(w, cmpf(w, "olt", x, zero), constFloat(w, x, x.scalar, -1.0), x);
  return select(w, cmpf(w, "ogt", x, zero), constFloat(w, x, x.scalar, 1.0), negative);
}

}  // namespace

Value emitFloatOp(TtirWriter& w, OpKind kind, ElementType element,
                  const std::vector<Value>& operands) {
  std::vector<Value> x;
  for (const Value& v : operands) x.push_back(toCompute(w, element, v));
  const Value& a = x.front();
  const bool f64 = a.scalar == "f64";
  Value r;
  if (const char* fn = libraryFunctionOf(kind)) {
    r = callMath(w, fn, x);
    return fromCompute(w, element, r);
  }
  switch (kind) {
    case OpKind::Add:
      r = binary(w, "arith.addf", a, x[1]);
      break;
    case OpKind::Subtract:
      r = binary(w, "arith.subf", a, x[1]);
      break;
    case OpKind::Multiply:
      r = binary(w, "arith.mulf", a, x[1]);
      break;
    case OpKind::Divide:
      r = divide(w, a, x[1]);
      break;
    case OpKind::Abs:
      r = unary(w, "math.absf", a);
      break;
    // arith.negf is not accepted by Triton; x * -1 is exact and flips zeros.
    case OpKind::Negate:
      r = binary(w, "arith.mulf", a, constFloat(w, a, a.scalar, -1.0));
      break;
    case OpKind::Sign:
      r = sign(w, a);
      break;
    case OpKind::Floor:
      r = unary(w, "math.floor", a);
      break;
    case OpKind::Ceil:
      r = unary(w, "math.ceil", a);
      break;
    case OpKind::Sqrt:
      r = unary(w, f64 ? "math.sqrt" : "tt.precise_sqrt", a);
      break;
    case OpKind::Logistic: {
      // 1 / (1 + exp(-x)): exp overflowing to inf gives exactly 0.
      Value minus = binary(w, "arith.mulf", a, constFloat(w, a, a.scalar, -1.0));
      Value one = constFloat(w, a, a.scalar, 1.0);
      r = divide(w, one, binary(w, "arith.addf", one, callMath(w, "exp", {minus})));
      break;
    }
    default:
      JFT_CHECK(false,
                "emitFloatOp: not a float op: " + std::string(ir::opKindName(kind)));
  }
  return fromCompute(w, element, r);
}

}  // namespace jft::codegen::ttir::ew

namespace jft::codegen::ttir {

bool callsMathLibrary(ir::OpKind kind) {
  return ew::libraryFunctionOf(kind) != nullptr || kind == ir::OpKind::Logistic;
}

}  // namespace jft::codegen::ttir
