// Solver ops -> SolverDesc.
#include "compiler/solver_call.h"

namespace jft::compiler {

bool isSolverOp(const ir::Op& op) {
  return op.kind == ir::OpKind::TriangularSolve || op.kind == ir::OpKind::Cholesky ||
         op.kind == ir::OpKind::CustomCall;
}

StatusOr<LibraryOpCall> lowerSolverCall(const ir::Module&, const ir::Op& op) {
  std::string name(ir::opKindName(op.kind));
  if (const auto* target = ir::findAttrAs<std::string>(op.attrs, "call_target_name"))
    name += " @" + *target;
  return unimplemented("no library route for " + name + " yet");
}

}  // namespace jft::compiler
