#include "fusion/group_graph.h"

#include <algorithm>
#include <queue>

namespace jft::fusion {

bool holdsOp(const Grouping& grouping, size_t op, int g) {
  const auto& copies = grouping.copied_into[op];
  return grouping.home[op] == g ||
         std::find(copies.begin(), copies.end(), g) != copies.end();
}

std::vector<std::vector<int>> groupReaders(const Grouping& grouping,
                                           const UseGraph& uses) {
  std::vector<std::vector<int>> readers(grouping.groups.size());
  for (size_t g = 0; g < grouping.groups.size(); ++g) {
    const DraftGroup& draft = grouping.groups[g];
    for (const std::vector<size_t>* list : {&draft.ops, &draft.copies})
      for (size_t i : *list)
        for (ir::ValueId value : uses.reads(i)) {
          const long def = uses.definingOp(value);
          if (def < 0 || holdsOp(grouping, static_cast<size_t>(def), static_cast<int>(g)))
            continue;
          const int from = grouping.home[static_cast<size_t>(def)];
          if (from >= 0)
            readers[static_cast<size_t>(from)].push_back(static_cast<int>(g));
        }
  }
  for (std::vector<int>& list : readers) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return readers;
}

bool reaches(const std::vector<std::vector<int>>& readers, int from, int to) {
  std::vector<char> seen(readers.size(), 0);
  std::vector<int> stack{from};
  while (!stack.empty()) {
    const int at = stack.back();
    stack.pop_back();
    if (at == to) return true;
    if (seen[static_cast<size_t>(at)]) continue;
    seen[static_cast<size_t>(at)] = 1;
    for (int next : readers[static_cast<size_t>(at)]) stack.push_back(next);
  }
  return false;
}

std::optional<std::vector<int>> executionOrder(const Grouping& grouping,
                                               const UseGraph& uses) {
  const std::vector<std::vector<int>> readers = groupReaders(grouping, uses);
  std::vector<int> pending(readers.size(), 0);  // per group: groups it waits for
  for (const std::vector<int>& list : readers)
    for (int reader : list) ++pending[static_cast<size_t>(reader)];
  auto later = [&](int a, int b) {
    return grouping.groups[static_cast<size_t>(a)].root >
           grouping.groups[static_cast<size_t>(b)].root;
  };
  std::priority_queue<int, std::vector<int>, decltype(later)> ready(later);
  for (size_t g = 0; g < readers.size(); ++g)
    if (pending[g] == 0) ready.push(static_cast<int>(g));
  std::vector<int> order;
  while (!ready.empty()) {
    const int g = ready.top();
    ready.pop();
    order.push_back(g);
    for (int reader : readers[static_cast<size_t>(g)])
      if (--pending[static_cast<size_t>(reader)] == 0) ready.push(reader);
  }
  if (order.size() != readers.size()) return std::nullopt;
  return order;
}

}  // namespace jft::fusion
