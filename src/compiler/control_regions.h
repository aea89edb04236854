// The control route's planning: the regions of while/case/if ops are planned
// like the function itself (recursively), each as a RegionCode that the
// compiler fills with its kernels and library calls and the assembler turns
// into nested thunk lists (program_assembly.h says where values live).
#pragma once

#include <vector>

#include "compiler/backends.h"
#include "compiler/program_assembly.h"
#include "fusion/fusion.h"
#include "ir/module.h"

namespace jft::compiler {

bool hasControl(const fusion::Plan& plan);

// Plans the regions of every control op of `code.plan`, recursively. Group
// names get their op's prefix ("while_3_body_fusion_0_loop_sine") so kernel
// names stay unique; each region is routed as the mode says, like the
// function (Backends::routeNative). Unsupported ops inside (including those
// the backends reject, Backends::rejects) are appended to `unsupported` under
// `top_op` (the enclosing op of the function body), described with their own
// types and location.
void planControlRegions(const ir::Module& module, RegionCode& code,
                        const fusion::PlanOptions& options, const Backends& backends,
                        std::vector<fusion::UnsupportedOp>& unsupported,
                        long top_op = -1);

// Every nested region's code, parents before children.
std::vector<RegionCode*> nestedRegions(RegionCode& code);

}  // namespace jft::compiler
