// A kTtir group through emitKernels.
#include "codegen/ttir/backend.h"

namespace jft::codegen::ttir {

StatusOr<GroupCode> TtirBackend::lower(ir::Module& module, const ir::Function& scope,
                                       const fusion::Plan& plan, size_t g) const {
  const fusion::Fusion& group = plan.fusions.at(g);
  StatusOr<std::vector<TtirKernel>> made = emitKernels(module, scope, group, options_);
  if (!made.isOk()) return made.status().withContext(group.name + ": ");
  GroupCode code;
  code.kernels = std::move(made).value();
  code.after_call = code.kernels.size();
  return code;
}

}  // namespace jft::codegen::ttir
