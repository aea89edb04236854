// canonicalize: cheap local rewrites that keep every value bit for bit.
//
// Ops that do nothing are replaced by their operand:
//   reshape to the operand's own type, transpose by the identity permutation,
//   broadcast_in_dim to the operand's type with dims 0..r-1, convert to the
//   operand's type, slice of the full range with unit strides, concatenate of
//   one operand, pad with all-zero padding, reverse of no dims (or of dims of
//   size one or zero); get_tuple_element of a tuple op by the element; a sort
//   along a dimension of size one or zero by its operands.
// Chains are shortened: reshape(reshape(x)) becomes reshape(x),
// transpose(transpose(x)) one transpose by the composed permutation and
// broadcast_in_dim(broadcast_in_dim(x)) one broadcast by the composed
// dimensions (each removed when the result does nothing).
// get_dimension_size becomes its (static) extent, an i32 constant.
// Elementwise integer and pred ops whose operands are all known literals of at
// most kMaxFoldedElements elements become constants (see integer_fold.h for
// what is folded exactly and what is left alone). Floats are never folded.
//
// Before: the IR verifies. After: it verifies, computes the same values, and
// ops made unused are left for dce.
#pragma once

#include <cstdint>

#include "ir/module.h"

namespace jft::passes {

inline constexpr int64_t kMaxFoldedElements = 64;

// Returns true when anything changed.
bool canonicalize(ir::Module& module);

}  // namespace jft::passes
