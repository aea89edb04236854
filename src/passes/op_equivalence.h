// When two ops compute the same values, for common subexpression
// elimination: same kind, same operands, same attributes (compared as a set
// of names and values, so their order does not matter), same result types,
// and regions equal up to a renaming of the values they define themselves.
// Locations are ignored.
#pragma once

#include <cstddef>

#include "ir/module.h"

namespace jft::passes {

bool equivalentOps(const ir::Module& module, const ir::Op& a, const ir::Op& b);

// A hash that equal ops share (kind, operands, result types, attribute names,
// the bytes of small literals).
size_t opHash(const ir::Module& module, const ir::Op& op);

}  // namespace jft::passes
