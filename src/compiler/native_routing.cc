// The mode's moves to the native route (see native_routing.h).
#include "compiler/native_routing.h"

#include <algorithm>
#include <vector>

#include "fusion/reduction_space.h"
#include "fusion/ttir_support.h"

namespace jft::compiler {
namespace {

// The family of a group whose ops no TTIR family took: scan, scatter or
// sort when it holds such an op (as the planner would have named it), a
// reduction when it holds a reduce (over that reduce's space), else a loop.
void giveFamily(const ir::Module& module, const ir::Function& scope,
                fusion::Fusion& group) {
  group.family = fusion::Family::kLoop;
  for (size_t at : group.ops) {
    if (at >= scope.body.ops.size()) continue;
    const ir::Op& op = scope.body.ops[at];
    const fusion::Family family = fusion::ttirFamilyOf(module, op);
    if (family == fusion::Family::kScan || family == fusion::Family::kScatter ||
        family == fusion::Family::kSort) {
      group.family = family;
      return;
    }
    if (op.kind != ir::OpKind::Reduce) continue;
    if (std::optional<fusion::ReductionSpace> space =
            fusion::reductionSpaceOf(module, op)) {
      group.family = fusion::Family::kReduction;
      group.reduce_shape = space->full;
      group.reduced_dims = space->reduced;
    }
    return;
  }
}

// "fusion_4_none" -> "fusion_4_loop" inside the name (after any region
// prefix), so the kernel's name says what it is.
void renameFamily(fusion::Fusion& group, fusion::Family was) {
  const std::string id = "fusion_" + std::to_string(group.id) + "_";
  const std::string from = id + fusion::familyName(was);
  const size_t at = group.name.find(from);
  if (at != std::string::npos)
    group.name.replace(at, from.size(), id + fusion::familyName(group.family));
}

bool isCustomCall(const ir::Function& scope, size_t at) {
  return at < scope.body.ops.size() && scope.body.ops[at].kind == ir::OpKind::CustomCall;
}

// The group the planner made for unplaced op `at`: single-op, kNative.
fusion::Fusion* unplacedGroup(fusion::Plan& plan, size_t at, size_t& index) {
  for (size_t g = 0; g < plan.fusions.size(); ++g) {
    fusion::Fusion& group = plan.fusions[g];
    if (group.route == fusion::Route::kNative && group.ops.size() == 1 &&
        group.ops[0] == at) {
      index = g;
      return &group;
    }
  }
  return nullptr;
}

// back_unsupported / back_fail / native: the unplaced ops the native emitter
// takes leave plan.unsupported; the others keep their entry, with the
// emitter's reason after the planner's.
void placeUnsupportedOps(const ir::Module& module, const ir::Function& scope,
                         fusion::Plan& plan, const codegen::native::NativeBackend& native,
                         NativeReasons& reasons) {
  std::vector<fusion::UnsupportedOp> still;
  for (fusion::UnsupportedOp& u : plan.unsupported) {
    size_t g = 0;
    fusion::Fusion* group = unplacedGroup(plan, u.op, g);
    // A custom call is never a kernel: its own reason says what to do.
    if (group == nullptr || isCustomCall(scope, u.op)) {
      still.push_back(std::move(u));
      continue;
    }
    fusion::Fusion candidate = asNativeGroup(module, scope, *group);
    const Status refusal = native.accepts(module, scope, candidate);
    if (!refusal.isOk()) {
      u.reason += "; the native route cannot run it either: " + refusal.message();
      still.push_back(std::move(u));
      continue;
    }
    reasons[g] = "TTIR cannot run it: " + u.reason;
    *group = std::move(candidate);
  }
  plan.unsupported = std::move(still);
}

}  // namespace

fusion::Fusion asNativeGroup(const ir::Module& module, const ir::Function& scope,
                             fusion::Fusion group) {
  group.route = fusion::Route::kNative;
  if (group.family == fusion::Family::kNone) {
    giveFamily(module, scope, group);
    renameFamily(group, fusion::Family::kNone);
  }
  return group;
}

NativeReasons routeNative(const ir::Module& module, const ir::Function& scope,
                          fusion::Plan& plan, Mode mode,
                          const codegen::native::NativeBackend& native) {
  NativeReasons reasons;
  if (mode == Mode::kFlOnly) return reasons;
  placeUnsupportedOps(module, scope, plan, native, reasons);
  if (mode != Mode::kNative) return reasons;
  for (size_t g = 0; g < plan.fusions.size(); ++g) {
    fusion::Fusion& group = plan.fusions[g];
    if (group.route != fusion::Route::kTtir || group.family == fusion::Family::kPallas)
      continue;
    group.route = fusion::Route::kNative;
    reasons[g] = "XLA_MODE=native";
  }
  return reasons;
}

}  // namespace jft::compiler
