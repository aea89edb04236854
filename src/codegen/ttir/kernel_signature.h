// The tt.func header of a fusion's kernel and the module text around a body.
//
// One `!tt.ptr<T> {tt.divisibility = 16 : i32}` parameter per fusion input,
// then one per output, then one per scratch buffer of a group that runs as
// several kernels (kernel.h's contract; pred is stored as i8). The
// divisibility hint is what lets Triton vectorise loads and stores: every
// buffer the runtime passes is at least 16-byte aligned.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "fusion/fusion.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::codegen::ttir {

struct KernelSignature {
  std::string name;                  // the tt.func symbol
  std::vector<std::string> inputs;   // parameter SSA names: "%in0", ...
  std::vector<std::string> outputs;  // "%out0", ...
  std::vector<std::string> scratch;  // "%tmp0", ...
  std::string header;                // "tt.func public @name(...) attributes {...}"
};

// What a family emitter decides besides the body: how the kernel is launched.
struct Launch {
  std::array<uint32_t, 3> grid{1, 1, 1};
  int num_warps = 4;
  int num_stages = 1;  // Triton's software pipelining depth (loops only)
  std::string tile;    // for logs: "1024", "32x128"
};

// A buffer the kernels of one group share (partial results, positions), not
// an IR value: `bytes` of `memory_type` elements ("f32", "i32").
struct ScratchBuffer {
  uint64_t bytes = 0;
  std::string memory_type;
};

// One kernel of a group that runs as several, in launch order: its own
// signature (name and scratch parameters included), body and launch.
struct StageKernel {
  KernelSignature signature;
  std::string body;
  Launch launch;
};

struct StagedKernels {
  std::vector<StageKernel> stages;
  std::vector<ScratchBuffer> scratch;  // parameters of every stage, after outputs
};

// UNIMPLEMENTED for a parameter that is not a tensor of a TTIR element type
// (complex, tokens, tuples). A stage of a several-kernel group passes its
// name suffix ("_copy") and the scratch buffers of the group.
StatusOr<KernelSignature> kernelSignature(const ir::Module& module,
                                          const fusion::Fusion& fusion,
                                          const std::string& suffix = "",
                                          const std::vector<ScratchBuffer>& scratch = {});

// "module {\n  <header> {\n<body>    tt.return\n  }\n}\n".
std::string kernelModule(const KernelSignature& signature, const std::string& body);

}  // namespace jft::codegen::ttir
