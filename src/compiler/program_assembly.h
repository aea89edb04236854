// From a fusion plan and its kernels to the runtime's slots and thunks.
//
// Where each value lives: a parameter in its kParameter slot; a constant
// that some thunk reads in a kConstant slot (its literal bytes, pred one
// byte per element); a kernel output that the function returns in that
// result's kOutput slot (the kernel writes it there directly); any other
// kernel output in a kTemp slot of the arena, packed by liveness
// (buffer_assignment.h). Tokens and zero-size values take no memory (a slot
// of 0 bytes). tuple / get_tuple_element / optimization_barrier do no work
// (value_forwarding.h). A result that is a parameter, a constant, or a value
// already returned under an earlier index is filled by a CopyThunk after the
// launches.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "compiler/library_calls.h"
#include "fusion/fusion.h"
#include "ir/module.h"
#include "runtime/program.h"
#include "support/status.h"

namespace jft::compiler {

// One kernel launch: a kTtir group of the plan and its kernel's contract. A
// group that runs as several kernels has consecutive launches, stage 0 first;
// they share the group's scratch buffers (temps no IR value owns, passed
// after the outputs and live from the first stage to the last).
struct KernelLaunch {
  size_t fusion = 0;  // index into plan.fusions
  int kernel = 0;     // index into Program::kernels
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::vector<ir::ValueId> inputs;   // buffer parameters read, in order
  std::vector<ir::ValueId> outputs;  // then those written
  int stage = 0;                     // among the group's launches
  std::vector<uint64_t> scratch;     // bytes of each scratch buffer, then passed
  // A kernel of a library group that runs after the group's library call
  // (LibraryCall::after); the others of a library group run before it.
  bool after_library = false;
};

// One library call of a kLibrary group: a product (GemmThunk) or, with `op`
// set, another library operation (LibraryThunk). Kernels that feed it (e.g.
// permute its operands) are KernelLaunches of the same group, listed before
// the launches of later groups; `a`/`b` are then their outputs.
struct GemmCall {
  size_t fusion = 0;  // index into plan.fusions
  runtime::GemmDesc gemm;
  ir::ValueId a = 0, b = 0;  // read as the product's A and B
  ir::ValueId d = 0;         // written as its D
  std::optional<LibraryOpCall> op;
};

// Fills program.slots, thunks, temp_bytes, parameter_bytes and output_slots
// (kernels, name and output_aliases are left to the caller). `launches` are
// the plan's kTtir groups in plan order (one or more each); groups of route kNone may
// hold only constants, token ops and the forwarding ops; each kLibrary group has one of
// `gemms` (in plan order). UNIMPLEMENTED for what has no buffer form yet (tuple
// parameters or results, other routes), naming it.
Status assembleProgram(const ir::Module& module, const ir::Function& function,
                       const fusion::Plan& plan,
                       const std::vector<KernelLaunch>& launches,
                       runtime::Program& program,
                       const std::vector<GemmCall>& gemms = {});

}  // namespace jft::compiler
