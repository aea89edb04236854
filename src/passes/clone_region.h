// Copies of regions with fresh values, for inlining a function body at each
// of its call sites (every value of a module is defined once).
//
// `renaming` maps values of the source to values of the copy. It comes in
// with the source region's arguments mapped to the values that replace them
// (the call's operands); every value the source defines — op results,
// arguments of nested regions — gets a fresh value of the same type and an
// entry. Values found in neither (captured from an enclosing scope) are
// used as they are.
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/module.h"

namespace jft::passes {

using ValueRenaming = std::unordered_map<ir::ValueId, ir::ValueId>;

// The ops of `source` (its arguments must be in `renaming`), copied.
std::vector<ir::Op> cloneOps(ir::Module& module, const ir::Region& source,
                             ValueRenaming& renaming);

}  // namespace jft::passes
