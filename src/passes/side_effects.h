// Which ops may not be removed when unused, nor merged with an equal op.
//
// An op has a side effect when running it matters beyond its results: a
// custom_call marked has_side_effect, host and device transfers (send, recv,
// infeed, outfeed), collectives (every participant must run them), random
// number generation (two rng ops with equal operands still draw different
// numbers), and any op whose regions, or whose called function (call, the
// decomposition of a composite), contain one of those. The custom call
// dce_sink (jax.lax.dce_sink: no results, no work) has none, so dce drops it.
#pragma once

#include "ir/module.h"

namespace jft::passes {

bool hasSideEffect(const ir::Module& module, const ir::Op& op);

}  // namespace jft::passes
