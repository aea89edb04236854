// The route report: one row per fusion group (RouteReport in compiler.h),
// its table and summary, and the per-kernel log line of XLA_FLAGTREE_LOG.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/program_assembly.h"
#include "fusion/fusion.h"
#include "ir/module.h"
#include "kernel_compiler/compile_types.h"

namespace jft::compiler {

// Name, route, family, ops (distinct kinds in program order, ", "-joined)
// and shapes (the group's output types) of one group; the caller adds the
// tile and compile facts.
RouteEntry routeEntry(const ir::Module& module, const ir::Function& function,
                      const fusion::Fusion& group);

// "7 kernels: ttir 5, none 2" (routes in the order of fusion::Route).
std::string routeSummary(const RouteReport& report);

// "jax-flagtree: fusion_3_loop_tanh_add ttir/loop tanh,add tensor<256xf32>
//  tile=256 0.41s (cache miss)", without a newline; a group the mode sent to
// the native route ends with why: " [native: TTIR cannot run it: ...]".
std::string logLine(const RouteEntry& entry);

// The report of a lowered program, read from its groups' code: one row per
// group of `function` (whose body is `top`), then of each nested region,
// parents before children. A call's row shows its text; a group of kernels
// their tiles (" + "-joined), compile times summed and whether every one was
// a cache hit, from `compiled` (by Program::kernels index; empty when no
// binaries were built). `autotune_notes` are the autotuner's notes by dot
// signature (matmul_autotune.h). With `log`, each lowered group's log line
// goes to stderr.
RouteReport programReport(const ir::Module& module, const ir::Function& function,
                          RegionCode& top,
                          const std::vector<kernel_compiler::CompiledKernel>& compiled,
                          const std::map<std::string, std::string>& autotune_notes,
                          bool log);

}  // namespace jft::compiler
