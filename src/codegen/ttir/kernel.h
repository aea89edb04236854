// The TTIR route's product for one fusion: a TTIR module with one kernel, its
// parameter contract and its grid.
//
// Parameter contract (what the runtime passes, in order): one pointer per
// fusion input, then one per fusion output, each the dense row-major buffer of
// that value (pred stored as one byte per element). Every pointer is at least
// 16-byte aligned. Sizes are static and baked into the TTIR; there are no
// scalar parameters. FlagTree/Triton may append scratch pointers after these;
// src/kernels reports them.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "fusion/fusion.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::codegen::ttir {

struct EmitOptions {
  int warp_size = 32;  // 64 on most AMD parts
};

struct TtirKernel {
  std::string name;                  // the tt.func's name, also the binary's entry point
  std::string ttir;                  // "module { tt.func public @name(...) {...} }"
  std::vector<ir::ValueId> inputs;   // pointer parameters, = fusion.inputs
  std::vector<ir::ValueId> outputs;  // then these, = fusion.outputs
  std::array<uint32_t, 3> grid{1, 1, 1};  // a grid with a 0 is never launched
  int num_warps = 4;
  int num_stages = 1;
  std::string tile;  // the tile chosen, for logs: "1024", "32x128"
};

// UNIMPLEMENTED names the op and why when the group holds something the
// emitters cannot express (the planner's support table and the emitters must
// agree; this is the backstop).
StatusOr<TtirKernel> emitKernel(const ir::Module& module, const ir::Function& function,
                                const fusion::Fusion& fusion,
                                const EmitOptions& options = {});

}  // namespace jft::codegen::ttir
