// The route report: one row per fusion group (RouteReport in compiler.h),
// its table and summary, and the per-kernel log line of XLA_FLAGTREE_LOG.
#pragma once

#include <string>

#include "compiler/compiler.h"
#include "fusion/fusion.h"
#include "ir/module.h"

namespace jft::compiler {

// Name, route, family, ops (distinct kinds in program order, ", "-joined)
// and shapes (the group's output types) of one group; the caller adds the
// tile and compile facts.
RouteEntry routeEntry(const ir::Module& module, const ir::Function& function,
                      const fusion::Fusion& group);

// "7 kernels: ttir 5, none 2" (routes in the order of fusion::Route).
std::string routeSummary(const RouteReport& report);

// "jax-flagtree: fusion_3_loop_tanh_add ttir/loop tanh,add tensor<256xf32>
//  tile=256 0.41s (cache miss)", without a newline.
std::string logLine(const RouteEntry& entry);

}  // namespace jft::compiler
