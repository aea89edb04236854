#include "fusion/use_graph.h"

#include <algorithm>

namespace jft::fusion {
namespace {

void collectDefs(const ir::Region& region, std::unordered_set<ir::ValueId>& defs) {
  defs.insert(region.args.begin(), region.args.end());
  for (const ir::Op& op : region.ops) {
    defs.insert(op.results.begin(), op.results.end());
    for (const ir::Region& nested : op.regions) collectDefs(nested, defs);
  }
}

void collectUses(const ir::Region& region, const std::unordered_set<ir::ValueId>& inner,
                 std::vector<ir::ValueId>& out) {
  for (const ir::Op& op : region.ops) {
    for (ir::ValueId id : op.operands)
      if (!inner.contains(id)) out.push_back(id);
    for (const ir::Region& nested : op.regions) collectUses(nested, inner, out);
  }
}

// Operands first, then captures, without repeats.
std::vector<ir::ValueId> readsOf(const ir::Op& op) {
  std::vector<ir::ValueId> reads = op.operands;
  if (!op.regions.empty()) {
    std::unordered_set<ir::ValueId> inner;
    for (const ir::Region& nested : op.regions) collectDefs(nested, inner);
    for (const ir::Region& nested : op.regions) collectUses(nested, inner, reads);
  }
  std::vector<ir::ValueId> unique;
  std::unordered_set<ir::ValueId> seen;
  for (ir::ValueId id : reads)
    if (seen.insert(id).second) unique.push_back(id);
  return unique;
}

const std::vector<size_t> kNoUsers;

}  // namespace

UseGraph::UseGraph(const ir::Region& region) : region_(region) {
  num_ops_ = region.ops.size();
  if (num_ops_ > 0 && region.ops.back().kind == ir::OpKind::Return) {
    --num_ops_;
    returned_.insert(region.ops.back().operands.begin(),
                     region.ops.back().operands.end());
  }
  op_users_.resize(num_ops_);
  reads_.resize(num_ops_);
  for (size_t i = 0; i < num_ops_; ++i) {
    const ir::Op& op = region.ops[i];
    reads_[i] = readsOf(op);
    for (ir::ValueId id : reads_[i]) {
      users_[id].push_back(i);
      auto def = def_.find(id);
      if (def != def_.end()) {
        std::vector<size_t>& users = op_users_[def->second];
        if (users.empty() || users.back() != i) users.push_back(i);
      }
    }
    for (ir::ValueId id : op.results) def_[id] = i;
  }
}

long UseGraph::definingOp(ir::ValueId value) const {
  auto it = def_.find(value);
  return it == def_.end() ? -1 : static_cast<long>(it->second);
}

const std::vector<size_t>& UseGraph::users(ir::ValueId value) const {
  auto it = users_.find(value);
  return it == users_.end() ? kNoUsers : it->second;
}

bool UseGraph::anyResultReturned(size_t op) const {
  const auto& results = region_.ops[op].results;
  return std::any_of(results.begin(), results.end(),
                     [&](ir::ValueId id) { return returned_.contains(id); });
}

}  // namespace jft::fusion
