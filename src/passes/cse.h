// cse: common subexpression elimination. An op equivalent (op_equivalence.h)
// to an earlier op visible from it — earlier in the same region, or earlier
// in an enclosing region — is erased and its uses take the earlier op's
// results. Ops in sibling regions never share: a value defined in one
// region is out of scope in another.
//
// Never merged: ops with side effects (side_effects.h; two rng ops draw
// different numbers), optimization_barrier (it exists to keep values apart),
// ops without results.
//
// Before: the IR verifies. After: it verifies, computes the same values, and
// no two mergeable ops in one scope are equivalent.
#pragma once

#include "ir/module.h"

namespace jft::passes {

// Returns true when an op was merged away.
bool eliminateCommonSubexpressions(ir::Module& module);

}  // namespace jft::passes
