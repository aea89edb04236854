// The control route: while/case/if ops become WhileThunk/ConditionalThunk
// (runtime/program.h) whose bodies are planned, emitted and assembled like
// the function itself, over the program's one slot table.
//
// Where values live: a loop's carried values in fixed slots for the whole
// loop (an output slot when the function returns that result), filled by
// copies before the loop; the body computes next values into temps and ends
// with copies into the carried slots (through a temp when one carried slot is
// copied into another, so that the copies act at once). A case's results in
// fixed slots, each branch ending with copies into them. Temps are packed on
// one timeline through every nested list; a temp defined before a loop and
// read inside it stays live until the loop ends.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "compiler/program_assembly.h"
#include "fusion/fusion.h"
#include "ir/module.h"
#include "runtime/program.h"
#include "support/status.h"

namespace jft::compiler {

// A function body or a control op's region, with its plan and kernels.
struct RegionCode {
  ir::Function scope;  // the region as a function: emitters index its ops
  fusion::Plan plan;
  // Its kTtir groups' kernels in plan order; the caller fills these.
  std::vector<KernelLaunch> launches;
  // Per kControl group (index into plan.fusions): its op's regions, in order
  // (while: cond, body; case: branches; if: true, false).
  std::map<size_t, std::vector<RegionCode>> nested;
};

bool hasControl(const fusion::Plan& plan);

// Plans the regions of every control op of `code.plan`, recursively. Group
// names get their op's prefix ("while_3_body_fusion_0_loop_sine") so kernel
// names stay unique. Unsupported ops inside are appended to `unsupported`
// under `top_op` (the enclosing op of the function body), described with
// their own types and location.
void planControlRegions(const ir::Module& module, RegionCode& code,
                        const fusion::PlanOptions& options,
                        std::vector<fusion::UnsupportedOp>& unsupported,
                        long top_op = -1);

// Every nested region's code, parents before children.
std::vector<RegionCode*> nestedRegions(RegionCode& code);

// As assembleProgram for a function whose plan has control groups (kTtir,
// kNone and kControl groups at any depth). UNIMPLEMENTED for other routes
// and for tuple-typed values.
Status assembleControlProgram(const ir::Module& module, const ir::Function& function,
                              const RegionCode& top, runtime::Program& program);

}  // namespace jft::compiler
