// complex_scatter: a scatter of complex values whose update computation is
// one binary op other than add (x.at[i].multiply(y) on a complex array),
// and whose updates cannot collide, becomes a gather of the windows, the op
// on whole tensors and a scatter that sets the results. The scatter family
// runs complex set and add part by part; any other complex combine needs
// both parts of an element at once, which its per-part atomics cannot give.
//
// Updates cannot collide when the scatter has one index row (the indices'
// dims but index_vector_dim multiply to 1: JAX's x.at[..., a:b] slices) or
// says unique_indices. The gather reads what the scatter would combine:
// offset_dims = update_window_dims, collapsed_slice_dims =
// inserted_window_dims, start_index_map = scatter_dims_to_operand_dims,
// the batching dims and index_vector_dim alike, slice sizes the window's
// extent per operand dim; its result has the updates' shape. A window out of
// bounds is clamped by the gather but dropped by the setting scatter, as by
// the original.
//
// Before: the IR verifies. After: it verifies and computes the same values.
#pragma once

#include "ir/module.h"

namespace jft::passes {

// Returns true when any scatter was rewritten.
bool expandComplexScatters(ir::Module& module);

}  // namespace jft::passes
