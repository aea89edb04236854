// complex_reduce: a stablehlo.reduce with complex operands whose combiner
// only takes complex values apart, builds them and selects among them (JAX's
// complex max and min compare real parts, then imaginary parts, and select)
// becomes a reduce of their real and imaginary parts, which the reduction
// family runs as real lanes.
//
// Each complex input and init x becomes two operands, real(x) then imag(x),
// in its place. The combiner gets the parts as arguments (accumulators
// first, then values, as StableHLO orders them), rebuilds the complex
// arguments it had with `complex`, keeps its ops, and returns real and imag
// of each complex value it returned; simplify then folds real/imag through
// `complex` and `select` so the combiner is left with real ops. Each complex
// result is `complex` of its two reduced parts. A combiner with complex
// arithmetic (the reduction family's complex add and multiply lanes, or what
// the native route takes) is left alone.
//
// Before: the IR verifies. After: it verifies, and every rewritten reduce
// computes the same results.
#pragma once

#include "ir/module.h"

namespace jft::passes {

// Returns true when any reduce was rewritten.
bool splitComplexReduces(ir::Module& module);

}  // namespace jft::passes
