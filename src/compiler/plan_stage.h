// The planning stage: the fusion plan's options for one compile, and the
// plans of the control ops' regions with the check that every op of the
// program has a route and a backend that lowers it.
#pragma once

#include "compiler/backends.h"
#include "compiler/compiler.h"
#include "compiler/matmul_autotune.h"
#include "compiler/program_assembly.h"
#include "fusion/fusion.h"
#include "ir/module.h"

namespace jft::compiler {

// The routes, the matmul and conv choices (the library for both under
// XLA_MODE=native unless set), the autotuner's decisions and the
// convolution library's answers for fusion::planFusions.
fusion::PlanOptions planOptions(const ir::Module& module, const Options& options,
                                const AutotuneResult& tuned);

// Routes `top` (the plan of `function`) and the regions it plans as the
// mode says (Backends::routeNative: each body alike), and fails listing
// every op that nothing runs: the plan's unsupported ops left after that and
// those the backends reject (unsupported_ops.h says how they are described).
Status planRegionsAndCheck(const ir::Module& module, const ir::Function& function,
                           RegionCode& top, const fusion::PlanOptions& plan_options,
                           const Options& options, const Backends& backends);

}  // namespace jft::compiler
