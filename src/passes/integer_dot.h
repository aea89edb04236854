// integer_dot: rewrites integer matrix products that no library GEMM
// computes (every integer combination except s8 x s8 -> s32 whose m, n and k
// are multiples of 4, which goes to cuBLASLt: its int8 kernels refuse
// leading dimensions that are not) into elementwise ops and one reduction
// that the TTIR route runs.
//
//   dot_general(lhs, rhs)  batch B, lhs free M, rhs free N, contracting K
//     => a = broadcast_in_dim(convert(lhs))  to [B..., M..., N..., K...]
//        b = broadcast_in_dim(convert(rhs))  to the same shape
//        reduce(multiply(a, b), 0) over the K dims with an add combiner
// Operands are converted to the result element type first: StableHLO's
// integer dot_general multiplies and sums in the result type, wrapping; a pred
// result multiplies with `and` and sums with `or`, as XLA does.
// The broadcasts' dimension maps carry any reordering (no transpose is
// materialised), so the planner loads both operands straight into one
// reduction. `dot` is read as dot_general contracting lhs's last dim with rhs's first.
// A float product asked for an integer result (einsum's
// preferred_element_type=int32) is XLA's result caster: the dot in the
// operands' float type (f32 when they differ), then a convert.
// The result keeps the dot's result id and location; new ops carry the
// dot's location. Ops whose broadcast shape exceeds 2^31 elements, float or
// complex products, and the library's s8 x s8 -> s32 are left alone.
//
// Before: the IR verifies. After: it verifies, and no dot with integer (or
// pred) operands and an integer or pred result other than the library's
// s8 x s8 -> s32 remains unless its broadcast shape is over the limit, and no
// dot of float operands has an integer result.
#pragma once

#include "ir/module.h"

namespace jft::passes {

// True for the integer products left to the library GEMM: s8 x s8 -> s32
// with m (lhs free), n (rhs free) and k (contracting) extents multiples of 4.
bool libraryComputes(ir::ElementType lhs, ir::ElementType rhs, ir::ElementType result,
                     int64_t m, int64_t n, int64_t k);

// Returns true when a dot was rewritten.
bool lowerIntegerDots(ir::Module& module);

}  // namespace jft::passes
