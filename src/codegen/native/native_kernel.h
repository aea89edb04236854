// The native route's product for one fusion: a CUDA C translation unit with
// one kernel, its parameter list and its launch.
//
// Parameter contract: the TTIR route's (codegen/ttir/kernel.h), so the same
// runtime kernel thunk launches either: one pointer per fusion input, then
// one per output, each the dense row-major buffer of that value (pred one
// byte per element, f16/bf16 their 16-bit patterns), no scalar parameters,
// no scratch. Launched on `grid` (x only; a 0 means never launched) with
// num_warps * warp_size threads per block and no dynamic shared memory.
// Sizes are baked into the source; the kernel loops over what the grid
// does not cover, so any grid size is correct.
//
// Families: loop (every output at every index, one element per thread),
// reduction (one block per row of the kept shape: each reduce of the group
// combined over the reduced elements by a strided loop per thread and a
// shared-memory tree with the reduce's own combiner, in program order, so
// softmax's max then sum is one kernel; kept-shaped outputs written by
// thread 0, full-shaped outputs by a last loop over the row), scan
// (scan_kernel.cc), sort (sort_kernel.cc) and scatter (scatter_kernel.cc:
// the one family of two kernels, the operand's copy then the updates, both
// entry points of the same source, launched in order on the same buffers).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "fusion/fusion.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::codegen::native {

struct NativeParam {
  std::string name;  // "in0", "out0"
  ir::ValueId value = 0;
  ir::ElementType element = ir::ElementType::F32;
  std::vector<int64_t> dims;
  bool is_output = false;
  std::string c_type;  // the pointer's C type: "const float*", "jft_u16*"
};

// A further entry point of a kernel's source, launched after the first.
struct NativeEntry {
  std::string name;
  std::array<uint32_t, 3> grid{1, 1, 1};
  int num_warps = 4;
};

struct NativeKernel {
  std::string name;    // the extern "C" entry point, = the TTIR kernel's name
  std::string source;  // complete: prelude and kernel, no includes needed under NVRTC
  std::vector<ir::ValueId> inputs;   // = fusion.inputs
  std::vector<ir::ValueId> outputs;  // = fusion.outputs
  std::vector<NativeParam> params;   // inputs, then outputs
  std::array<uint32_t, 3> grid{1, 1, 1};
  int num_warps = 4;
  uint32_t shared_mem = 0;  // dynamic shared memory (the kernels use static only)
  std::string family;       // "loop", "reduction", "scan", "sort", "scatter"
  std::string index_type;   // "jft_i32" or "jft_i64"
  // Entry points of `source` launched after this one, in order, each seeing
  // what the earlier ones wrote (a scatter's updates after its copy).
  std::vector<NativeEntry> later;
};

struct NativeOptions {
  int warp_size = 32;
  // Upper bound of the grid (the kernels loop over the rest).
  uint32_t max_blocks = uint32_t{1} << 20;
};

// UNIMPLEMENTED naming the op and why when the group holds something the
// native emitter cannot express (other families, complex or f8 types,
// gathers, ...); never a crash.
StatusOr<NativeKernel> emitNativeKernel(const ir::Module& module,
                                        const ir::Function& function,
                                        const fusion::Fusion& fusion,
                                        const NativeOptions& options = {});

}  // namespace jft::codegen::native
