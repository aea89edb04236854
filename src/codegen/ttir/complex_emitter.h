// Complex values (complex64, complex128) in the elemental emitter. TTIR has
// no complex type: a complex value is carried as its two parts, each an
// ordinary f32/f64 tile (Elemental::emitPart; memory holds them interleaved,
// (re, im) per element). Index ops move both parts alike, so they need
// nothing here; this file computes the ops that mix the parts:
//   complex, real, imag; add, subtract, negate, select (part by part);
//   compare EQ/NE; convert between complex types, from real (imaginary part
//   0) and to real (the real part); and the functions of complex_math.h
//   (their formulas and edge values are documented there): multiply,
//   divide, power, abs, sign, exponential, exponential_minus_one, log,
//   log_plus_one, sqrt, rsqrt, cbrt, sine, cosine, tan, tanh, logistic.
// Ordered compares (LT, LE, GT, GE) are refused: complex numbers have no
// order.
//
// It also writes the combiner of a reduce over complex values (the
// reduction family carries such an accumulator as two real lanes).
#pragma once

#include "codegen/ttir/elemental.h"

namespace jft::codegen::ttir {

// The operand count of the elementwise ops above (compare: EQ and NE only);
// 0 for any other kind.
size_t complexOperandCount(ir::OpKind kind);

// Whether `op` is one of the complex ops above, and (for the planner's
// contract) whether `op` touches complex values at all.
bool isEmittableComplexOp(const ir::Module& module, const ir::Op& op, std::string* why);
bool touchesComplex(const ir::Module& module, const ir::Op& op);

// `op`'s result at `space`: part `part` (0 real, 1 imaginary) when the
// result is complex, the value itself otherwise.
StatusOr<Value> emitComplexOp(Elemental& elemental, const ir::Op& op, int space,
                              int part);

// The combiner of a reduce over complex values (a complex add or multiply,
// fusion::complexReduceCombiner) applied to (re, im) of the accumulator and of the value
// (scalars or tiles of one shape): the combined (re, im).
StatusOr<std::vector<Value>> emitComplexCombiner(TtirWriter& writer,
                                                 const ir::Module& module,
                                                 const ir::Region& region,
                                                 const std::vector<Value>& acc,
                                                 const std::vector<Value>& value);

}  // namespace jft::codegen::ttir
