// Removal of functions nothing refers to.
//
// Roots are the entry function ("main", see Module::entry) and every public
// function. A function is referenced when a symbol (@name) naming it appears
// in any attribute of an op of a kept function, nested lists and
// dictionaries included: call's callee, composite's decomposition,
// custom_call's called_computations. Everything else is removed; the kept
// functions stay in their order. A module without any root is left as is.
#pragma once

#include "ir/module.h"

namespace jft::passes {

// Returns true when a function was removed.
bool removeUnusedFunctions(ir::Module& module);

}  // namespace jft::passes
