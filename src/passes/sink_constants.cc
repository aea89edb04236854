#include "passes/sink_constants.h"

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "passes/literal_elements.h"

namespace jft::passes {
namespace {

// Splat constants visible at a point of the program, by the value they define.
// Pointers into enclosing regions, which are not changed while an inner one is
// walked (copies go into the inner region before it is walked).
using VisibleConstants = std::unordered_map<ir::ValueId, const ir::Op*>;

bool isSplatConstant(const ir::Op& op) {
  if (op.kind != ir::OpKind::Constant || op.results.size() != 1) return false;
  const auto* literal = ir::findAttrAs<ir::DenseElements>(op.attrs, "value");
  return literal != nullptr && isSplat(*literal);
}

void collectDefined(const ir::Region& region, std::unordered_set<ir::ValueId>& defined) {
  defined.insert(region.args.begin(), region.args.end());
  for (const ir::Op& op : region.ops) {
    defined.insert(op.results.begin(), op.results.end());
    for (const ir::Region& inner : op.regions) collectDefined(inner, defined);
  }
}

void collectUsed(const ir::Region& region, std::vector<ir::ValueId>& used) {
  for (const ir::Op& op : region.ops) {
    used.insert(used.end(), op.operands.begin(), op.operands.end());
    for (const ir::Region& inner : op.regions) collectUsed(inner, used);
  }
}

void renameUses(ir::Region& region,
                const std::unordered_map<ir::ValueId, ir::ValueId>& to) {
  for (ir::Op& op : region.ops) {
    for (ir::ValueId& id : op.operands)
      if (auto it = to.find(id); it != to.end()) id = it->second;
    for (ir::Region& inner : op.regions) renameUses(inner, to);
  }
}

// Copies into `region` every visible splat constant it reads from outside.
bool sinkInto(ir::Module& module, ir::Region& region, const VisibleConstants& visible) {
  std::unordered_set<ir::ValueId> defined;
  collectDefined(region, defined);
  std::vector<ir::ValueId> used;
  collectUsed(region, used);
  std::unordered_map<ir::ValueId, ir::ValueId> renamed;
  std::vector<ir::Op> copies;
  for (ir::ValueId id : used) {
    if (defined.contains(id) || renamed.contains(id)) continue;
    auto constant = visible.find(id);
    if (constant == visible.end()) continue;
    ir::Op copy = *constant->second;
    copy.results = {module.newValue(module.typeOf(id))};
    renamed[id] = copy.results[0];
    copies.push_back(std::move(copy));
  }
  if (copies.empty()) return false;
  renameUses(region, renamed);
  region.ops.insert(region.ops.begin(), copies.begin(), copies.end());
  return true;
}

bool sinkInRegion(ir::Module& module, ir::Region& region, VisibleConstants visible) {
  bool changed = false;
  for (ir::Op& op : region.ops) {
    if (isSplatConstant(op)) visible[op.results[0]] = &op;
    const bool closed = isClosedRegionOwner(op);
    for (ir::Region& inner : op.regions) {
      if (closed) changed |= sinkInto(module, inner, visible);
      changed |= sinkInRegion(module, inner, visible);
    }
  }
  return changed;
}

}  // namespace

bool isClosedRegionOwner(const ir::Op& op) {
  if (op.regions.empty()) return false;
  return op.kind != ir::OpKind::While && op.kind != ir::OpKind::Case &&
         op.kind != ir::OpKind::If;
}

bool sinkConstantsIntoClosedRegions(ir::Module& module) {
  bool changed = false;
  for (ir::Function& function : module.functions)
    changed |= sinkInRegion(module, function.body, {});
  return changed;
}

}  // namespace jft::passes
