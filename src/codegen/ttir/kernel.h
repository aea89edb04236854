// The TTIR route's product for one fusion: a TTIR module with one kernel, its
// parameter contract and its grid.
//
// Parameter contract (what the runtime passes, in order): one pointer per
// fusion input, then one per fusion output, each the dense row-major buffer of
// that value (pred stored as one byte per element), then one per scratch
// buffer of the group (`scratch`: temporary memory no IR value owns, shared by
// the group's kernels, uninitialised). Every pointer is at least 16-byte
// aligned.
//
// Most groups are one kernel. Some run as several launched in order on the
// same buffers (a scatter: the operand copied into the result by one grid,
// then the updates combined into it by another; a split reduction: partial
// results into scratch, then their reduction and the epilogue); each later
// kernel sees everything the earlier ones wrote. Sizes are static and baked into the
// TTIR; there are no scalar parameters. FlagTree/Triton may append scratch pointers after
// these; src/kernels reports them.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "codegen/ttir/tile_choice.h"
#include "fusion/fusion.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::codegen::ttir {

struct EmitOptions {
  int warp_size = 32;  // 64 on most AMD parts
  // --xla_gpu_exclude_nondeterministic_ops: kernels whose result could vary
  // with the order of atomics run in a fixed order instead (scatter:
  // scatter_emitter.h).
  bool deterministic = false;
  // Tiles fixed for dots by their fusion::matmulSignature (the autotuner's
  // candidates and winners) instead of chooseMatmulTile's heuristic. Each
  // extent a power of two >= 16 (as chooseMatmulTile's).
  std::map<std::string, MatmulTile> matmul_tiles;
  // Sorts do their partner distances below kRegisterDistances in registers
  // (sort_emitter.h) instead of through scratch.
  bool sort_register_steps = false;
};

struct TtirKernel {
  std::string name;                  // the tt.func's name, also the binary's entry point
  std::string ttir;                  // "module { tt.func public @name(...) {...} }"
  std::vector<ir::ValueId> inputs;   // pointer parameters, = fusion.inputs
  std::vector<ir::ValueId> outputs;  // then these, = fusion.outputs
  std::array<uint32_t, 3> grid{1, 1, 1};  // a grid with a 0 is never launched
  int num_warps = 4;
  int num_stages = 1;
  std::string tile;               // the tile chosen, for logs: "1024", "32x128"
  int stage = 0;                  // its place among the group's kernels (0: the first)
  std::vector<uint64_t> scratch;  // bytes of each scratch buffer of the group
  // The native route's kernels (codegen/native/backend.h) travel in this
  // record too, so that every route's kernels share one list and one launch
  // contract: then `cuda` holds the CUDA C translation unit whose entry is
  // `name`, `ttir` is empty, there is no scratch, and the compiler's native
  // compiler (compiler/native_compiler.h) makes the binary, not the kernel
  // compiler.
  std::string cuda;

  bool isNative() const { return !cuda.empty(); }
};

// UNIMPLEMENTED names the op and why when the group holds something the
// emitters cannot express (the planner's support table and the emitters must
// agree; this is the backstop).
// The group's kernels in launch order (at least one).
StatusOr<std::vector<TtirKernel>> emitKernels(const ir::Module& module,
                                              const ir::Function& function,
                                              const fusion::Fusion& fusion,
                                              const EmitOptions& options = {});
// For groups known to be one kernel (loop groups, operand transposes):
// INTERNAL when the group needs several.
StatusOr<TtirKernel> emitKernel(const ir::Module& module, const ir::Function& function,
                                const fusion::Fusion& fusion,
                                const EmitOptions& options = {});

}  // namespace jft::codegen::ttir
