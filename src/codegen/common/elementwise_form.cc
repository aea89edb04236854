#include "codegen/common/elementwise_form.h"

namespace jft::codegen::common {

std::string elementwiseFormProblem(const ir::Module& module, const ir::Op& op,
                                   const ir::ElementwiseSpec& spec,
                                   const std::string& name) {
  if (static_cast<int>(op.operands.size()) != spec.operands || op.results.size() != 1)
    return name + " with " + std::to_string(op.operands.size()) + " operands";
  for (ir::ValueId v : op.operands)
    if (!module.typeOf(v).isTensor()) return name + " of a non-tensor value";
  if (!module.typeOf(op.results[0]).isTensor()) return name + " with a non-tensor result";
  return {};
}

}  // namespace jft::codegen::common
