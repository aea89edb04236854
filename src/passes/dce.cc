#include "passes/dce.h"

#include <vector>

#include "passes/side_effects.h"

namespace jft::passes {
namespace {

class DeadCodeEliminator {
 public:
  explicit DeadCodeEliminator(const ir::Module& module)
      : module_(module), used_(module.numValues(), false) {}

  bool run(ir::Module& module) {
    for (ir::Function& function : module.functions) region(function.body);
    return changed_;
  }

 private:
  void region(ir::Region& region) {
    std::vector<bool> keep(region.ops.size(), false);
    for (size_t i = region.ops.size(); i-- > 0;) {
      ir::Op& op = region.ops[i];
      if (!isLive(op)) {
        changed_ = true;
        continue;
      }
      keep[i] = true;
      // Nested regions are walked before the operands are marked: both only
      // mark values defined above this op.
      for (ir::Region& nested : op.regions) this->region(nested);
      for (ir::ValueId operand : op.operands) used_[operand] = true;
    }
    std::vector<ir::Op> kept;
    kept.reserve(region.ops.size());
    for (size_t i = 0; i < region.ops.size(); ++i)
      if (keep[i]) kept.push_back(std::move(region.ops[i]));
    region.ops = std::move(kept);
  }

  bool isLive(const ir::Op& op) const {
    if (op.kind == ir::OpKind::Return) return true;
    for (ir::ValueId result : op.results)
      if (used_[result]) return true;
    return hasSideEffect(module_, op);
  }

  const ir::Module& module_;
  std::vector<bool> used_;  // by ValueId
  bool changed_ = false;
};

}  // namespace

bool eliminateDeadCode(ir::Module& module) {
  return DeadCodeEliminator(module).run(module);
}

}  // namespace jft::passes
