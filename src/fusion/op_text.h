// Short texts naming an op in reports: its StableHLO name with types, and the
// user's source line.
#pragma once

#include <string>

#include "ir/module.h"

namespace jft::fusion {

// "stablehlo.sort (tensor<8xf32>) -> tensor<8xf32>"; custom calls name their
// target: "stablehlo.custom_call @cusolver_getrf_ffi (...) -> (...)".
std::string opSignature(const ir::Module& module, const ir::Op& op);

// "model.py:12:4", or empty when the op has no file position.
std::string opUserFrame(const ir::Module& module, const ir::Op& op);

}  // namespace jft::fusion
