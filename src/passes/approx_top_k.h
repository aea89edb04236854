// approx_top_k: JAX's `ApproxTopK` custom call (lax.approx_max_k /
// approx_min_k) becomes a sort and slices, which is how XLA computes it on
// every platform but TPU (its "fallback": an exact top-k).
//
// The call: operands x_0..x_{n-1} (the inputs, one shape) then n scalar
// init values; n results, each an input's shape with the reduction dim cut
// to the output size; called_computations names the comparator, a function
// of 2n scalars (lhs and rhs of each input, in input order) returning i1;
// the dictionary in backend_config or mhlo.backend_config holds
// `reduction_dim`. The output size is read from the result types (JAX and
// XLA derive it alike from top_k, recall_target, aggregate_to_topk and
// reduction_input_size_override), so those need no reading here.
//
// The rewrite: a stable sort of the inputs along reduction_dim whose
// comparator is a copy of the called function's body, then each result is
// its sorted input's leading output-size slice along that dim. The init
// values only pad inputs shorter than the output, which the result types
// rule out. A comparator function nothing else calls is removed.
//
// A call that does not match this signature is INVALID_ARGUMENT naming the
// call, its location and what is wrong; nothing is rewritten then.
//
// Before: the IR verifies. After: it verifies and holds no ApproxTopK call.
#pragma once

#include "ir/module.h"
#include "support/status.h"

namespace jft::passes {

// Returns whether any call was rewritten.
StatusOr<bool> expandApproxTopK(ir::Module& module);

}  // namespace jft::passes
