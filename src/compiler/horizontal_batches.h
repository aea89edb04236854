// Horizontal fusion over one lowered body: a run of small, independent
// one-kernel loop groups becomes one launch (codegen/ttir/horizontal.h), so
// that a loop body or an optimizer update over many small parameters pays one
// launch instead of one per group.
//
// The combined kernel takes the place of the run's last group, whose code it
// becomes; the earlier groups keep no code and name the launch they joined
// (GroupCode::joined), for the assembler and the route report. Every member
// keeps its own kernel aside (GroupCode::unjoined): a combined kernel that
// fails to compile is split back (program_binaries.h). So the
// earlier members run later than planned: the run passes over other device
// work (TTIR, library, copy and native groups) only while none of it reads a
// member's output. The launch reads every member's inputs and writes every
// member's outputs at one point of the timeline, so the slot table keeps
// them apart.
#pragma once

#include <cstddef>
#include <cstdint>

#include "compiler/program_assembly.h"
#include "support/status.h"

namespace jft::compiler {

struct HorizontalLimits {
  size_t max_members = 8;          // bounds one kernel's compile time
  uint32_t max_member_grid = 256;  // programs; larger groups gain nothing
};

// Combines the runs of `code` (lowered, first_kernel not yet set). A run
// ends at a group that reads one of its outputs, at control flow, custom
// calls, collectives and groups that forward values (tuples), and at
// `max_members`. The launch takes the most warps any member asks for (a
// member's tile is the same with more threads). Changes nothing when no run
// has two members.
Status combineHorizontally(const ir::Function& scope, RegionCode& code,
                           const HorizontalLimits& limits = {});

}  // namespace jft::compiler
