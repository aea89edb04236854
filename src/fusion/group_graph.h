// The group graph of a grouping: an edge from group A to group B when B reads
// a value whose home is A (B holds no copy of its op). Multi-output fusion
// lets any op of a group have readers elsewhere, so the order groups run in
// is a topological order of this graph, not the order of their roots.
#pragma once

#include <optional>
#include <vector>

#include "fusion/grouping.h"
#include "fusion/use_graph.h"

namespace jft::fusion {

// Whether group `g` holds op `op` (as its home or as a copy).
bool holdsOp(const Grouping& grouping, size_t op, int g);

// Per group: the groups reading a value it stores, ascending, once each.
std::vector<std::vector<int>> groupReaders(const Grouping& grouping,
                                           const UseGraph& uses);

// Whether a path leads from group `from` to group `to` (from != to).
bool reaches(const std::vector<std::vector<int>>& readers, int from, int to);

// A topological order, ties broken by root (the group's last op in program
// order) so that plans are deterministic and stay close to program order;
// nullopt when the graph has a cycle.
std::optional<std::vector<int>> executionOrder(const Grouping& grouping,
                                               const UseGraph& uses);

}  // namespace jft::fusion
