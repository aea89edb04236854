// Def-use facts of one region (a function body or a while/case body) at the
// granularity fusion works at: the region's own ops. A use inside an op's
// nested regions (a while body capturing a value) counts as a use by that op.
#pragma once

#include <cstddef>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/module.h"

namespace jft::fusion {

class UseGraph {
 public:
  explicit UseGraph(const ir::Region& region);

  // Ops other than the terminator (a trailing return).
  size_t numOps() const { return num_ops_; }
  // The op defining `value`, or -1 for region arguments and captured values.
  long definingOp(ir::ValueId value) const;
  // Ops reading `value` (the terminator excluded), in program order, once each.
  const std::vector<size_t>& users(ir::ValueId value) const;
  // Ops reading any result of op `op`, in program order, once each.
  const std::vector<size_t>& opUsers(size_t op) const { return op_users_[op]; }
  // Operands of op `op` followed by the values its nested regions capture,
  // first use first, once each.
  const std::vector<ir::ValueId>& reads(size_t op) const { return reads_[op]; }
  bool isReturned(ir::ValueId value) const { return returned_.contains(value); }
  bool anyResultReturned(size_t op) const;

 private:
  const ir::Region& region_;
  size_t num_ops_ = 0;
  std::unordered_map<ir::ValueId, size_t> def_;
  std::unordered_map<ir::ValueId, std::vector<size_t>> users_;
  std::vector<std::vector<size_t>> op_users_;
  std::vector<std::vector<ir::ValueId>> reads_;
  std::unordered_set<ir::ValueId> returned_;
};

}  // namespace jft::fusion
