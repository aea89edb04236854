// half_solvers: a triangular_solve or cholesky on f16/bf16 matrices becomes
// the same op on the matrices widened to f32, its result rounded once back.
// cuBLAS and cuSOLVER have no 16-bit solvers; XLA's GPU compiler expands
// such ops into blocked loops of 16-bit products instead. Solving in f32 is
// at least as accurate as that, and the library route then takes the op.
#pragma once

#include "ir/module.h"

namespace jft::passes {

// Returns true when an op was rewritten.
bool widenHalfSolvers(ir::Module& module);

}  // namespace jft::passes
