// What a program costs to run, as XLA's cost analysis counts it (JAX's
// `compiled.cost_analysis()`): floating-point operations and transcendental
// calls of the program after our passes. dot_general and convolution count
// a multiply and an add per product term (2*M*N*K for a matmul); an
// elementwise op one operation per output element, a transcendental one
// (exp, log, tanh, ...) one transcendental instead; reduce and
// reduce_window one per element combined. Loop bodies and branches count
// once (the trip count is not known here). Bytes accessed come from the
// loaded program's buffers (pjrt/executable_cost.h).
#pragma once

#include "ir/module.h"

namespace jft::compiler {

struct ProgramCost {
  double flops = 0;
  double transcendentals = 0;
};

ProgramCost programCost(const ir::Module& module, const ir::Function& function);

}  // namespace jft::compiler
