// complex_sort: a stablehlo.sort with complex operands becomes a sort of
// their real and imaginary parts, so the sort family (which keeps one real
// lane per operand) can run it.
//
// Each complex operand x becomes two operands, real(x) then imag(x), in its
// place; the comparator gets their four arguments (lhs and rhs of the real
// part, then of the imaginary part) and rebuilds the complex arguments it
// had with `complex`, so its ops are untouched; each complex result is
// `complex` of the two sorted parts. Every operand follows the same swap
// decisions, so the parts stay paired. JAX's comparators read complex keys
// only through real and imag (lexicographic order), which simplify then
// folds to the part arguments; a comparator that still needs complex
// arithmetic keeps it and is judged by the sort family as before.
//
// Before: the IR verifies. After: it verifies, no sort has a complex
// operand, and every sort computes the same results.
#pragma once

#include "ir/module.h"

namespace jft::passes {

// Returns true when any sort was rewritten.
bool splitComplexSorts(ir::Module& module);

}  // namespace jft::passes
