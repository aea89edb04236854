// simplify: algebraic identities that hold exactly, NaNs, infinities and
// signed zeros included, in the op's own element type.
//
// Done (x any value, c a known splat; commutative ops in both orders):
//   x * 1 -> x        integers, and floats: x * 1.0 is exact for every x
//   x + 0 -> x        integers only; for floats only x + (-0.0) -> x
//   x - 0 -> x        integers, and floats with +0.0: x - 0.0 == x + (-0.0)
//   select(c, a, b) -> a or b       a constant predicate, scalar or splat
//   select(p, a, a) -> a, select(p, true, false) -> p   (p of the result's type)
//   negate(negate(x)) -> x, not(not(x)) -> x
//   and(x, x) -> x, or(x, x) -> x
//   minimum(x, x) -> x, maximum(x, x) -> x   also floats: a NaN x stays NaN
//   maximum(x, -inf) -> x, minimum(x, +inf) -> x   floats: IEEE maximum and
//                     minimum return a NaN x, and keep the sign of a zero x
//   compare(x, x) -> true/false      integers and pred only
//   real(complex(a, b)) -> a, imag(complex(a, b)) -> b
//   real(select(p, x, y)) -> select(p, real(x), real(y)), imag alike
//
// Deliberately not done, because they are not exact:
//   x + 0.0 -> x       (-0.0) + 0.0 is +0.0
//   x - x -> 0, x * 0 -> 0  for floats: NaN and infinities give NaN
//   compare(x, x) for floats: x == x is false for NaN
//   x / 1.0 is exact but kept out to stay with the list above; (x * c) * d
//   and other reassociations change rounding; x * 2 -> x + x is left to
//   code generation.
// Identities with constants never apply to complex values (x * (1 + 0i) is
// not exact when a component of x is infinite); those without constants do.
//
// Before: the IR verifies. After: it verifies and computes the same bits;
// ops made unused are left for dce.
#pragma once

#include "ir/module.h"

namespace jft::passes {

// Returns true when anything changed.
bool simplifyAlgebra(ir::Module& module);

}  // namespace jft::passes
