// The fusion search: assigns every op of a region to groups, walking from the
// last op to the first so that each producer meets its consumers' groups
// already formed. A group's first op (its root) is thus its last in program
// order. Other ops of a group may have readers in other groups too (the group
// stores them as extra outputs: multi-output fusion); a join that would close
// a cycle in the group graph is refused, and plan.cc orders the groups
// topologically. Attention groups (attention_form.h) are formed before the
// walk, whole, and the walk leaves their ops where they are.
#pragma once

#include <optional>
#include <vector>

#include "fusion/fusion.h"
#include "fusion/reduction_space.h"
#include "fusion/use_graph.h"

namespace jft::fusion {

struct DraftGroup {
  Route route = Route::kTtir;
  Family family = Family::kNone;
  size_t root = 0;
  std::vector<size_t> ops;              // the ops computed here for everyone (root first)
  std::vector<size_t> copies;           // cheap ops recomputed here for local use only
  std::optional<ReductionSpace> space;  // reduction groups
  // Product groups (matmul, conv): the dot_general or convolution, and the
  // converts the kernel applies to its loaded operand tiles (every other op
  // is epilogue, computed on the accumulator tile).
  long dot = -1;
  std::vector<size_t> operand_converts;
};

struct Grouping {
  std::vector<DraftGroup> groups;             // in creation order
  std::vector<int> home;                      // per op: its group, or -1 (only copies)
  std::vector<std::vector<int>> copied_into;  // per op: groups holding a copy
  std::vector<UnsupportedOp> unsupported;     // program order
};

Grouping groupOps(const ir::Module& module, const ir::Region& region,
                  const UseGraph& uses, const PlanOptions& options);

}  // namespace jft::fusion
