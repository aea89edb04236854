// The trip count of a while loop when it is provable from the IR alone, so
// the runtime can run the body that many times without reading a predicate.
//
// The form recognised is JAX's fori_loop/scan: the condition returns
// `compare(counter, C)` (either operand order) with C a constant, the body
// returns `add(counter, S)` (either order) in the counter's position with S a
// non-zero constant, and the counter's initial value is a constant; the type
// is a signed or unsigned integer scalar. SSA guarantees nothing else writes
// the counter. A count whose counter would overflow its type on the way is
// not proven.
#pragma once

#include <cstdint>
#include <functional>

#include "ir/module.h"

namespace jft::compiler {

// The constant op defining a value (in any enclosing region), or null.
using ConstantLookup = std::function<const ir::Op*(ir::ValueId)>;

// -1 when not provable.
int64_t knownTripCount(const ir::Module& module, const ir::Op& loop,
                       const ConstantLookup& constant);

}  // namespace jft::compiler
