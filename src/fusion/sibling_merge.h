// Sibling fusion, run once the search (grouping.h) has placed every op: loop
// groups that store values of one shape (or reduction groups of one space)
// that read a common input and have no path between them in the group graph
// become one kernel. The shared input is read
// once and a launch goes; since neither group feeds the other, the merged
// group can run where either could, and no cycle appears.
#pragma once

#include "fusion/grouping.h"
#include "fusion/use_graph.h"
#include "ir/module.h"

namespace jft::fusion {

void mergeSiblings(const ir::Module& module, const ir::Region& region,
                   const UseGraph& uses, Grouping& grouping);

}  // namespace jft::fusion
