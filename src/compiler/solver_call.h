// The linear-algebra ops as one library operation each (runtime/solver.h):
// the custom calls JAX's GPU lowering emits (cusolver_*_ffi,
// cu_lu_pivots_to_permutation) and stablehlo.triangular_solve / cholesky.
#pragma once

#include "compiler/library_calls.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::compiler {

// Whether `op` is one of the ops this file lowers (whether or not it can).
bool isSolverOp(const ir::Op& op);

// The call for `op`, or why no library operation computes it.
StatusOr<LibraryOpCall> lowerSolverCall(const ir::Module& module, const ir::Op& op);

}  // namespace jft::compiler
