// A kNative group through emitNativeKernel.
#include "codegen/native/backend.h"

#include <algorithm>

namespace jft::codegen::native {
namespace {

bool holdsUnsupportedOp(const fusion::Plan& plan, const fusion::Fusion& group) {
  return std::any_of(plan.unsupported.begin(), plan.unsupported.end(),
                     [&](const fusion::UnsupportedOp& u) {
                       return std::find(group.ops.begin(), group.ops.end(), u.op) !=
                              group.ops.end();
                     });
}

// "grid 32, 128 threads": the launch, for the route report's tile column.
std::string launchText(const NativeEntry& entry, int warp_size) {
  return "grid " + std::to_string(entry.grid[0]) + ", " +
         std::to_string(entry.num_warps * warp_size) + " threads";
}

}  // namespace

Status NativeBackend::accepts(const ir::Module& module, const ir::Function& scope,
                              const fusion::Fusion& group) const {
  return emitNativeKernel(module, scope, group, options_).status();
}

std::vector<fusion::UnsupportedOp> NativeBackend::rejects(
    const ir::Module& module, const ir::Function& scope, const fusion::Plan& plan) const {
  std::vector<fusion::UnsupportedOp> rejected;
  for (const fusion::Fusion& group : plan.fusions) {
    if (group.route != fusion::Route::kNative || holdsUnsupportedOp(plan, group))
      continue;
    const Status refusal = accepts(module, scope, group);
    if (refusal.isOk()) continue;
    for (size_t index : group.ops) {
      if (index >= scope.body.ops.size()) continue;
      if (scope.body.ops[index].kind == ir::OpKind::Constant) continue;  // data
      rejected.push_back(
          {index, "", "", "the native route cannot run it: " + refusal.message()});
    }
  }
  return rejected;
}

StatusOr<GroupCode> NativeBackend::lower(ir::Module& module, const ir::Function& scope,
                                         const fusion::Plan& plan, size_t g) const {
  const fusion::Fusion& group = plan.fusions.at(g);
  StatusOr<NativeKernel> made = emitNativeKernel(module, scope, group, options_);
  if (!made.isOk()) return made.status();
  // Every entry point is a kernel record of its own over the same source.
  std::vector<NativeEntry> entries{{made->name, made->grid, made->num_warps}};
  entries.insert(entries.end(), made->later.begin(), made->later.end());
  GroupCode code;
  for (const NativeEntry& entry : entries) {
    ttir::TtirKernel kernel;
    kernel.name = entry.name;
    kernel.cuda = made->source;
    kernel.inputs = made->inputs;
    kernel.outputs = made->outputs;
    kernel.grid = entry.grid;
    kernel.num_warps = entry.num_warps;
    kernel.tile = launchText(entry, options_.warp_size);
    kernel.stage = static_cast<int>(code.kernels.size());
    code.kernels.push_back(std::move(kernel));
  }
  code.after_call = code.kernels.size();
  return code;
}

}  // namespace jft::codegen::native
