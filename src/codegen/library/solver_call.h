// The linear-algebra ops as one library operation each (runtime/solver.h):
// the custom calls JAX's GPU lowering emits (cusolver_*_ffi,
// cu_lu_pivots_to_permutation) and stablehlo.triangular_solve / cholesky.
// solver_plan.h says how each maps onto the column-major library; where the
// data must move (getrf's matrix, eigenvectors, U and V), TTIR transpose
// kernels run around the call.
#pragma once

#include "codegen/library/library_calls.h"
#include "fusion/fusion.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::codegen::library {

// Whether `op` is one of the ops this file lowers (whether or not it can).
bool isSolverOp(const ir::Op& op);

// OK when lowerSolverCall handles `op`; else why not (UNIMPLEMENTED naming
// the op and what stands in the way: target, element type, layout).
Status checkSolverCall(const ir::Module& module, const ir::Op& op);

// The call for `op` of library group `group` (checkSolverCall passed): the
// library operation, and its transposes before (call.transposes) and after
// (call.after). Adds the values of the column-major copies to `module`.
StatusOr<LibraryCall> lowerSolverCall(ir::Module& module, const fusion::Fusion& group,
                                      const ir::Op& op);

}  // namespace jft::codegen::library
