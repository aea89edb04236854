// The form every elementwise op must have before a backend looks at its
// element types: the spec's operand count, one result, tensors only.
#pragma once

#include <string>

#include "ir/elementwise_spec.h"
#include "ir/module.h"

namespace jft::codegen::common {

// Empty when `op` has that form for `spec`; otherwise why not, naming the op
// as `name`.
std::string elementwiseFormProblem(const ir::Module& module, const ir::Op& op,
                                   const ir::ElementwiseSpec& spec,
                                   const std::string& name);

}  // namespace jft::codegen::common
