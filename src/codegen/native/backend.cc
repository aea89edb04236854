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
std::string launchText(const NativeKernel& kernel, int warp_size) {
  return "grid " + std::to_string(kernel.grid[0]) + ", " +
         std::to_string(kernel.num_warps * warp_size) + " threads";
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
  ttir::TtirKernel kernel;
  kernel.name = made->name;
  kernel.cuda = std::move(made->source);
  kernel.inputs = made->inputs;
  kernel.outputs = made->outputs;
  kernel.grid = made->grid;
  kernel.num_warps = made->num_warps;
  kernel.tile = launchText(*made, options_.warp_size);
  GroupCode code;
  code.kernels.push_back(std::move(kernel));
  code.after_call = code.kernels.size();
  return code;
}

}  // namespace jft::codegen::native
