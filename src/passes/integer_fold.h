// Evaluation of elementwise integer and pred ops on literals, for constant
// folding.
//
// Exact by construction: values wrap in their element width, as StableHLO's
// integers do. Folded: add, subtract, multiply, divide, remainder, negate,
// abs (signed), and, or, xor, not, minimum, maximum, compare, shift_left,
// shift_right_logical, shift_right_arithmetic (signed), and convert between
// integer and pred types when every value is representable in the result.
// Cases the specification leaves to the implementation are not folded:
// division or remainder by zero, INT_MIN / -1, shift amounts outside
// [0, bit width), out-of-range conversions. Floats and complex are never
// folded here (exact folding would need each op rounded bit-exactly in each
// float type), nor are sub-byte integers (their storage is not fixed).
#pragma once

#include <optional>
#include <vector>

#include "ir/module.h"

namespace jft::passes {

// Element types foldIntegerOp computes in: pred and 8- to 64-bit integers.
bool isFoldableIntegerType(ir::ElementType element);

// The literal `op` would produce from `operands` (one literal per operand,
// each of its operand's type), or nullopt when the op or a value is not
// folded (see above).
std::optional<ir::DenseElements> foldIntegerOp(
    const ir::Op& op, const std::vector<ir::DenseElements>& operands,
    const ir::Type& result_type);

}  // namespace jft::passes
