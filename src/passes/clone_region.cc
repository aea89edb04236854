#include "passes/clone_region.h"

namespace jft::passes {
namespace {

ir::ValueId freshCopy(ir::Module& module, ir::ValueId value, ValueRenaming& renaming) {
  const ir::Type type = module.typeOf(value);  // newValue may move the table
  const ir::ValueId copy = module.newValue(type);
  renaming[value] = copy;
  return copy;
}

ir::Op cloneOp(ir::Module& module, const ir::Op& op, ValueRenaming& renaming) {
  ir::Op copy;
  copy.kind = op.kind;
  copy.attrs = op.attrs;
  copy.loc = op.loc;
  for (ir::ValueId operand : op.operands) {
    auto it = renaming.find(operand);
    copy.operands.push_back(it == renaming.end() ? operand : it->second);
  }
  for (const ir::Region& region : op.regions) {
    ir::Region nested;
    for (ir::ValueId arg : region.args)
      nested.args.push_back(freshCopy(module, arg, renaming));
    nested.ops = cloneOps(module, region, renaming);
    copy.regions.push_back(std::move(nested));
  }
  for (ir::ValueId result : op.results)
    copy.results.push_back(freshCopy(module, result, renaming));
  return copy;
}

}  // namespace

std::vector<ir::Op> cloneOps(ir::Module& module, const ir::Region& source,
                             ValueRenaming& renaming) {
  std::vector<ir::Op> ops;
  ops.reserve(source.ops.size());
  for (const ir::Op& op : source.ops) ops.push_back(cloneOp(module, op, renaming));
  return ops;
}

}  // namespace jft::passes
