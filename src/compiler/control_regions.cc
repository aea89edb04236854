// Planning the regions of control ops (see control_regions.h).
#include "compiler/control_regions.h"

#include <algorithm>
#include <string>

#include "compiler/unsupported_ops.h"

namespace jft::compiler {
namespace {

bool isControlOp(ir::OpKind kind) {
  return kind == ir::OpKind::While || kind == ir::OpKind::Case || kind == ir::OpKind::If;
}

// The control op of a kControl group (single-op groups).
const ir::Op* controlOpOf(const ir::Function& scope, const fusion::Fusion& group) {
  for (size_t index : group.ops)
    if (index < scope.body.ops.size() && isControlOp(scope.body.ops[index].kind))
      return &scope.body.ops[index];
  return nullptr;
}

std::string regionName(const ir::Op& op, size_t r) {
  if (op.kind == ir::OpKind::While) return r == 0 ? "cond" : "body";
  if (op.kind == ir::OpKind::If) return r == 0 ? "true" : "false";
  return "branch" + std::to_string(r);
}

void planRegions(const ir::Module& module, RegionCode& code,
                 const fusion::PlanOptions& options, const Backends& backends,
                 std::vector<fusion::UnsupportedOp>& unsupported, long top_op,
                 const std::string& outer) {
  for (size_t g = 0; g < code.plan.fusions.size(); ++g) {
    const fusion::Fusion& group = code.plan.fusions[g];
    if (group.route != fusion::Route::kControl) continue;
    const ir::Op* op = controlOpOf(code.scope, group);
    if (op == nullptr) continue;
    const size_t at = static_cast<size_t>(op - code.scope.body.ops.data());
    const long top = top_op >= 0 ? top_op : static_cast<long>(at);
    std::vector<RegionCode>& regions = code.nested[g];
    for (size_t r = 0; r < op->regions.size(); ++r) {
      RegionCode& region = regions.emplace_back();
      region.scope.name = code.scope.name;
      region.scope.body = op->regions[r];
      region.plan = fusion::planFusions(module, region.scope, options);
      // The enclosing regions' prefix too: op indices repeat across regions.
      const std::string prefix = outer + std::string(ir::opKindName(op->kind)) + "_" +
                                 std::to_string(at) + "_" + regionName(*op, r) + "_";
      for (fusion::Fusion& inner : region.plan.fusions) inner.name = prefix + inner.name;
      region.native_reasons = backends.routeNative(module, region.scope, region.plan);
      std::vector<fusion::UnsupportedOp> inside = region.plan.unsupported;
      for (fusion::UnsupportedOp& u : backends.rejects(module, region.scope, region.plan))
        inside.push_back(std::move(u));
      for (fusion::UnsupportedOp u : inside) {
        const ir::Op& bad = region.scope.body.ops[u.op];
        u.what = describeOp(module, bad);
        u.location = module.locations.describe(bad.loc);
        u.op = static_cast<size_t>(top);
        unsupported.push_back(std::move(u));
      }
      planRegions(module, region, options, backends, unsupported, top, prefix);
    }
  }
}

}  // namespace

bool hasControl(const fusion::Plan& plan) {
  return std::any_of(plan.fusions.begin(), plan.fusions.end(), [](const auto& group) {
    return group.route == fusion::Route::kControl;
  });
}

void planControlRegions(const ir::Module& module, RegionCode& code,
                        const fusion::PlanOptions& options, const Backends& backends,
                        std::vector<fusion::UnsupportedOp>& unsupported, long top_op) {
  planRegions(module, code, options, backends, unsupported, top_op, "");
}

std::vector<RegionCode*> nestedRegions(RegionCode& code) {
  std::vector<RegionCode*> out;
  for (auto& [group, regions] : code.nested)
    for (RegionCode& region : regions) {
      out.push_back(&region);
      for (RegionCode* inner : nestedRegions(region)) out.push_back(inner);
    }
  return out;
}

}  // namespace jft::compiler
