#include "fusion/sibling_merge.h"

#include <algorithm>
#include <map>
#include <optional>

#include "fusion/group_graph.h"

namespace jft::fusion {
namespace {

// What two groups must share to merge: for a loop group, the shape every
// output has (its root's); for a reduction group, its space (every output
// has shape F or K of it, and F only where a row fits a tile, which the
// other group's rows then do too). Nullopt for other groups.
struct SiblingKey {
  Family family = Family::kNone;
  std::vector<int64_t> dims;     // loop: the root's; reduction: F
  std::vector<int64_t> reduced;  // reduction: D
  friend bool operator==(const SiblingKey&, const SiblingKey&) = default;
};

std::optional<SiblingKey> siblingKey(const ir::Module& module, const ir::Region& region,
                                     const DraftGroup& group) {
  if (group.route != Route::kTtir || group.dot >= 0 || group.ops.empty())
    return std::nullopt;
  if (group.family == Family::kReduction && group.space)
    return SiblingKey{Family::kReduction, group.space->full, group.space->reduced};
  if (group.family != Family::kLoop) return std::nullopt;
  const ir::Op& root = region.ops[group.root];
  if (root.results.size() != 1 || !module.typeOf(root.results[0]).isTensor())
    return std::nullopt;
  return SiblingKey{Family::kLoop, module.typeOf(root.results[0]).dims, {}};
}

// Non-scalar values group `g` reads from outside (parameters included): a
// scalar in common (a learning rate) saves no memory traffic worth merging for.
std::vector<ir::ValueId> sharedCandidates(const ir::Module& module, const UseGraph& uses,
                                          const Grouping& grouping, int g) {
  std::vector<ir::ValueId> out;
  const DraftGroup& draft = grouping.groups[static_cast<size_t>(g)];
  for (const std::vector<size_t>* list : {&draft.ops, &draft.copies})
    for (size_t i : *list)
      for (ir::ValueId value : uses.reads(i)) {
        const long def = uses.definingOp(value);
        if (def >= 0 && holdsOp(grouping, static_cast<size_t>(def), g)) continue;
        const ir::Type& type = module.typeOf(value);
        if (type.isTensor() && type.numElements() > 1) out.push_back(value);
      }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void remove(std::vector<int>& list, int g) {
  list.erase(std::remove(list.begin(), list.end(), g), list.end());
}

// Moves group `b` into group `a` and leaves `b` empty. A cheap op copied
// into one of them whose home is the other is no longer a copy; one copied
// into both is kept once.
void merge(Grouping& grouping, int a, int b) {
  DraftGroup& into = grouping.groups[static_cast<size_t>(a)];
  DraftGroup& from = grouping.groups[static_cast<size_t>(b)];
  for (size_t op : from.ops) {
    grouping.home[op] = a;
    into.ops.push_back(op);
  }
  std::vector<size_t> copies;
  for (const std::vector<size_t>* list : {&into.copies, &from.copies})
    for (size_t op : *list) {
      if (std::find(copies.begin(), copies.end(), op) != copies.end()) continue;
      std::vector<int>& holders = grouping.copied_into[op];
      remove(holders, a);
      remove(holders, b);
      if (grouping.home[op] == a) continue;
      holders.push_back(a);
      std::sort(holders.begin(), holders.end());
      copies.push_back(op);
    }
  into.copies = std::move(copies);
  into.root = std::max(into.root, from.root);
  std::sort(into.ops.begin(), into.ops.end(), std::greater<>());  // root first
  from.ops.clear();
  from.copies.clear();
}

// Drops the emptied groups and renumbers the rest (creation order kept).
void compact(Grouping& grouping) {
  std::vector<int> renumber(grouping.groups.size(), -1);
  std::vector<DraftGroup> kept;
  for (size_t g = 0; g < grouping.groups.size(); ++g) {
    if (grouping.groups[g].ops.empty()) continue;
    renumber[g] = static_cast<int>(kept.size());
    kept.push_back(std::move(grouping.groups[g]));
  }
  grouping.groups = std::move(kept);
  for (int& home : grouping.home)
    if (home >= 0) home = renumber[static_cast<size_t>(home)];
  for (std::vector<int>& holders : grouping.copied_into)
    for (int& g : holders) g = renumber[static_cast<size_t>(g)];
}

// One merge of two siblings, the pair with the earliest roots first (a
// deterministic choice); false when no pair qualifies.
bool mergeOnePair(const ir::Module& module, const ir::Region& region,
                  const UseGraph& uses, Grouping& grouping) {
  std::vector<int> candidates;
  for (size_t g = 0; g < grouping.groups.size(); ++g)
    if (siblingKey(module, region, grouping.groups[g]))
      candidates.push_back(static_cast<int>(g));
  std::sort(candidates.begin(), candidates.end(), [&](int a, int b) {
    return grouping.groups[static_cast<size_t>(a)].root <
           grouping.groups[static_cast<size_t>(b)].root;
  });
  // Per shared value: the candidate groups reading it, earliest root first.
  std::map<ir::ValueId, std::vector<int>> readers_of;
  for (int g : candidates)
    for (ir::ValueId value : sharedCandidates(module, uses, grouping, g))
      readers_of[value].push_back(g);
  std::optional<std::vector<std::vector<int>>> graph;
  for (size_t x = 0; x < candidates.size(); ++x) {
    const int a = candidates[x];
    const SiblingKey key = *siblingKey(module, region, grouping.groups[a]);
    std::vector<int> partners;
    for (ir::ValueId value : sharedCandidates(module, uses, grouping, a))
      for (int b : readers_of[value])
        if (b != a && grouping.groups[b].root > grouping.groups[a].root)
          partners.push_back(b);
    std::sort(partners.begin(), partners.end(), [&](int p, int q) {
      return grouping.groups[static_cast<size_t>(p)].root <
             grouping.groups[static_cast<size_t>(q)].root;
    });
    partners.erase(std::unique(partners.begin(), partners.end()), partners.end());
    for (int b : partners) {
      if (*siblingKey(module, region, grouping.groups[b]) != key) continue;
      if (!graph) graph = groupReaders(grouping, uses);
      if (reaches(*graph, a, b) || reaches(*graph, b, a)) continue;
      merge(grouping, a, b);
      return true;
    }
  }
  return false;
}

}  // namespace

void mergeSiblings(const ir::Module& module, const ir::Region& region,
                   const UseGraph& uses, Grouping& grouping) {
  bool merged = false;
  while (mergeOnePair(module, region, uses, grouping)) merged = true;
  if (merged) compact(grouping);
}

}  // namespace jft::fusion
