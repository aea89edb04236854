// What a stablehlo.scatter's update computation does, for the scatter
// family: replace (x.at[i].set: the region returns the update), or one
// binary op of (current, update) in either order (add, max, min, mul).
// The emitter runs replace with plain stores and the others with atomics;
// scatterSupport says which (combine, element type) pairs it can run.
#pragma once

#include <string>

#include "ir/module.h"

namespace jft::fusion {

enum class ScatterCombine { kReplace, kAdd, kMax, kMin, kMul, kOther };

ScatterCombine scatterCombineOf(const ir::Op& scatter);

// Empty when the scatter family runs `scatter`; otherwise why not.
std::string scatterUnsupported(const ir::Module& module, const ir::Op& scatter);

}  // namespace jft::fusion
