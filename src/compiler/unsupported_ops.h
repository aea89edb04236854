// The one error for a program with ops no route can run: every such op is
// listed once (kind, types, source line, reason), with what the mode would
// have done about them.
#pragma once

#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "fusion/fusion.h"
#include "ir/module.h"

namespace jft::compiler {

// "stablehlo.sine (tensor<8xf32>) -> tensor<8xf32>"
std::string describeOp(const ir::Module& module, const ir::Op& op);

// UNIMPLEMENTED, one line per op in body order, each op once (ops inside a
// control op's regions come under that op's index, told apart by `what` and
// `location`).
Status unsupportedOpsError(const ir::Module& module, const ir::Function& function,
                           Mode mode, std::vector<fusion::UnsupportedOp> ops);

}  // namespace jft::compiler
