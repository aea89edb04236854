// Complex values (complex64, complex128) in the elemental emitter. TTIR has
// no complex type: a complex value is carried as its two parts, each an
// ordinary f32/f64 tile (Elemental::emitPart; memory holds them interleaved,
// (re, im) per element). Index ops move both parts alike, so they need
// nothing here; this file computes the ops that mix the parts:
//   complex, real, imag; add, subtract, negate, select (part by part);
//   multiply; divide (Smith's algorithm, scaled by the larger divisor part);
//   abs (hypot); exponential, log (log|z| + i atan2(im, re)); sqrt (the
//   principal root from sqrt((|z| + |re|) / 2), no cancellation); compare
//   EQ/NE; convert between complex types, from real (imaginary part 0) and
//   to real (the real part).
#pragma once

#include "codegen/ttir/elemental.h"

namespace jft::codegen::ttir {

// Whether `op` is one of the complex ops above, and (for the planner's
// contract) whether `op` touches complex values at all.
bool isEmittableComplexOp(const ir::Module& module, const ir::Op& op, std::string* why);
bool touchesComplex(const ir::Module& module, const ir::Op& op);

// `op`'s result at `space`: part `part` (0 real, 1 imaginary) when the
// result is complex, the value itself otherwise.
StatusOr<Value> emitComplexOp(Elemental& elemental, const ir::Op& op, int space,
                              int part);

}  // namespace jft::codegen::ttir
