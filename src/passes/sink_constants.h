// sink_constants: a reduction's, sort's, scatter's or scan's region that
// reads a splat constant defined outside it (JAX hoists a function's
// constants to its top, so a sort comparator inside a `case` branch reads the
// function's 0.0 and NaN) gets its own copy of that constant, as StableHLO's
// closed `body` computations are meant to be read: the emitters inline such a
// region as a function of its arguments and its own constants.
//
// Before: the IR verifies. After: it verifies, and no closed region
// (isClosedRegionOwner) reads a splat constant from outside itself.
#pragma once

#include "ir/module.h"

namespace jft::passes {

// Ops whose regions are functions of their arguments (reduce, sort, scatter,
// reduce_window, select_and_scatter, chlo.scan, ...), as opposed to control
// flow (while, case, if), whose regions read enclosing values by design.
bool isClosedRegionOwner(const ir::Op& op);

// Returns true when any constant was copied into a region.
bool sinkConstantsIntoClosedRegions(ir::Module& module);

}  // namespace jft::passes
