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

// In native mode there is no TTIR: every op of a TTIR group is unsupported
// too (constants excepted; they are data). No mode rejects library, control
// or collective groups: fl_only forbids numeric work escaping TTIR, and a
// library call, control flow or a collective (NCCL moving and combining data
// between participants, replica_id / partition_id) is none of that.
std::vector<fusion::UnsupportedOp> nativeModeRejects(const ir::Module& module,
                                                     const ir::Function& function,
                                                     const fusion::Plan& plan);

// UNIMPLEMENTED, one line per op in body order, each op once (ops inside a
// control op's regions come under that op's index, told apart by `what` and
// `location`).
Status unsupportedOpsError(const ir::Module& module, const ir::Function& function,
                           Mode mode, std::vector<fusion::UnsupportedOp> ops);

}  // namespace jft::compiler
