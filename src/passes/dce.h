// dce: removes ops whose results are all unused and that have no side
// effect (see side_effects.h), in function bodies and nested regions alike.
//
// One backward walk per region: an op is live when a later live op, the
// region's return or a nested region of a live op uses one of its results,
// or when it has a side effect; a multi-result op stays whole while any
// result is used. Function arguments, region arguments and functions
// themselves are left alone (inlining removes unused functions).
//
// Before: the IR verifies. After: it verifies, and no op without side
// effects has all its results unused.
#pragma once

#include "ir/module.h"

namespace jft::passes {

// Returns true when an op was removed.
bool eliminateDeadCode(ir::Module& module);

}  // namespace jft::passes
