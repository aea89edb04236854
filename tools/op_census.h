// The op census of a module: each op kind used (ops in nested regions
// included), how many times, and where it is first used, in preorder over
// the functions in module order. Printed by `jft inspect`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/module.h"

namespace jft::tools {

struct OpKindUse {
  ir::OpKind kind;
  int64_t count = 0;
  ir::LocId first_loc = ir::kUnknownLoc;
};

// One entry per kind used, ordered by kind name.
std::vector<OpKindUse> takeOpCensus(const ir::Module& module);

// A table: a heading line with totals, then `kind  count  first use` rows.
std::string formatOpCensus(const ir::Module& module,
                           const std::vector<OpKindUse>& census);

}  // namespace jft::tools
