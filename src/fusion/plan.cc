// planFusions: the search (grouping.h), then each group's ops in program
// order, its inputs and outputs, its name, in execution order (a topological
// order of the group graph).
#include <algorithm>
#include <unordered_set>

#include "fusion/fusion.h"
#include "fusion/group_graph.h"
#include "fusion/grouping.h"
#include "fusion/sibling_merge.h"
#include "fusion/ttir_support.h"
#include "fusion/use_graph.h"

namespace jft::fusion {
namespace {

// Whether a reader of `value` sits outside group `g`.
bool readOutside(const Grouping& grouping, const UseGraph& uses, ir::ValueId value,
                 int g) {
  if (uses.isReturned(value)) return true;
  for (size_t user : uses.users(value)) {
    if (grouping.home[user] >= 0 && grouping.home[user] != g) return true;
    for (int other : grouping.copied_into[user])
      if (other != g) return true;
  }
  return false;
}

std::string sanitize(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    out += ok ? c : '_';
  }
  return out;
}

// "fusion_3_loop_exponential_add": the first distinct kinds of the group's
// work, constants and re-indexing ops only when there is nothing else.
std::string groupName(const ir::Region& region, const Fusion& fusion,
                      const std::vector<size_t>& home_ops) {
  constexpr size_t kMaxNames = 3;
  std::vector<std::string> names;
  for (bool minor : {false, true}) {
    for (size_t i : home_ops) {
      const ir::Op& op = region.ops[i];
      const bool is_minor = op.kind == ir::OpKind::Constant ||
                            op.kind == ir::OpKind::BroadcastInDim ||
                            op.kind == ir::OpKind::Reshape;
      if (is_minor != minor || names.size() == kMaxNames) continue;
      std::string name(ir::opKindName(op.kind));
      if (std::find(names.begin(), names.end(), name) == names.end())
        names.push_back(name);
    }
    if (!names.empty()) break;
  }
  std::string out =
      "fusion_" + std::to_string(fusion.id) + "_" + familyName(fusion.family);
  for (const std::string& name : names) out += "_" + name;
  return sanitize(out);
}

Fusion makeFusion(const ir::Region& region, const UseGraph& uses,
                  const Grouping& grouping, int g, int id) {
  const DraftGroup& draft = grouping.groups[g];
  Fusion fusion;
  fusion.id = id;
  fusion.route = draft.route;
  fusion.family = draft.family;
  std::vector<size_t> home_ops = draft.ops;
  std::sort(home_ops.begin(), home_ops.end());
  fusion.ops = home_ops;
  fusion.ops.insert(fusion.ops.end(), draft.copies.begin(), draft.copies.end());
  std::sort(fusion.ops.begin(), fusion.ops.end());
  fusion.ops.erase(std::unique(fusion.ops.begin(), fusion.ops.end()), fusion.ops.end());

  std::unordered_set<ir::ValueId> seen;
  for (size_t i : fusion.ops)
    for (ir::ValueId value : uses.reads(i)) {
      const long def = uses.definingOp(value);
      if (def >= 0 && holdsOp(grouping, static_cast<size_t>(def), g)) continue;
      if (seen.insert(value).second) fusion.inputs.push_back(value);
    }
  for (size_t i : home_ops)
    for (ir::ValueId value : region.ops[i].results)
      // A Pallas kernel writes every result, read or not.
      if (draft.family == Family::kPallas || readOutside(grouping, uses, value, g))
        fusion.outputs.push_back(value);

  if (draft.space) {
    fusion.reduce_shape = draft.space->full;
    fusion.reduced_dims = draft.space->reduced;
  }
  fusion.name = groupName(region, fusion, home_ops);
  return fusion;
}

}  // namespace

Plan planFusions(const ir::Module& module, const ir::Region& region,
                 const PlanOptions& options) {
  const UseGraph uses(region);
  Grouping grouping = groupOps(module, region, uses, options);
  if (options.fuse) mergeSiblings(module, region, uses, grouping);
  std::optional<std::vector<int>> order = executionOrder(grouping, uses);
  if (!order) {
    // The grouping refuses every join that would close a cycle, so this is a
    // planner bug; one group per op always has an order (program order).
    PlanOptions unfused = options;
    unfused.fuse = false;
    grouping = groupOps(module, region, uses, unfused);
    order = executionOrder(grouping, uses);
  }
  Plan plan;
  for (size_t k = 0; k < order->size(); ++k)
    plan.fusions.push_back(
        makeFusion(region, uses, grouping, (*order)[k], static_cast<int>(k)));
  plan.unsupported = std::move(grouping.unsupported);
  return plan;
}

Plan planFusions(const ir::Module& module, const ir::Function& function,
                 const PlanOptions& options) {
  return planFusions(module, function.body, options);
}

}  // namespace jft::fusion
