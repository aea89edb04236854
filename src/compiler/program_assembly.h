// From a fusion plan and its kernels and library calls to the runtime's
// slots and thunks: one assembler for the function body and, at any depth,
// the regions of its while/case/if ops (control_regions.h plans those), over
// one slot table with one liveness timeline (slot_table.h).
//
// Where each value lives: a parameter in its kParameter slot; a constant
// that some thunk reads in a kConstant slot (its literal bytes, pred one
// byte per element); a value the function returns, when a kernel, a library
// call or a control op of the body computes it, in that result's kOutput
// slot (written there directly; the first result naming it claims it); any
// other computed value in a kTemp slot of the arena, packed by liveness
// (buffer_assignment.h). Tokens and zero-size values take no memory (a slot
// of 0 bytes). tuple / get_tuple_element / optimization_barrier do no work
// (value_forwarding.h), also across region boundaries; tuple-typed
// parameters, results and carried values have no buffer form. A result that
// is a parameter, a constant, or a value already returned under an earlier
// index is filled by a CopyThunk after everything else.
//
// Order: groups in plan order; a library group runs its kernels (operand
// permutations), then its call, then the kernels marked after_library; a
// collective group is its one CollectiveThunk or ParticipantIdThunk (a
// collective reads its input and writes its output at one point of the
// timeline, so the two never share arena bytes, and an output computed by a
// collective is written in place like a kernel's).
//
// Control flow: while becomes a WhileThunk, case/if a ConditionalThunk, whose
// lists (Program::lists) hold their regions' thunks, assembled by the same
// rules. A loop's carried values sit in fixed slots for the whole loop (an
// output slot when the function returns that result), filled by copies
// before the loop; the body computes next values into temps and ends with
// copies into the carried slots (through a temp when one carried slot is
// copied into another, so that the copies act at once). A case's results sit
// in fixed slots, each branch ending with copies into them. Temps are packed
// on one timeline through every nested list; a temp defined before a loop
// and read inside it stays live until the loop ends.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "codegen/library/collective_call.h"
#include "codegen/library/ffi_call.h"
#include "codegen/library/library_calls.h"
#include "fusion/fusion.h"
#include "ir/module.h"
#include "runtime/program.h"
#include "support/status.h"

namespace jft::compiler {

using codegen::library::CollectiveCall;
using codegen::library::FfiCall;
using codegen::library::LibraryOpCall;

// One kernel launch: a kTtir group of the plan and its kernel's contract, or
// a kernel of a kLibrary group.
// A group that runs as several kernels has consecutive launches, stage 0
// first; they share the group's scratch buffers (temps no IR value owns,
// passed after the outputs and live from the first stage to the last).
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
// set, another library operation (LibraryThunk, its workspace a temp live for
// the call only). Kernels that feed it (e.g. permute its operands) are
// KernelLaunches of the same group; `a`/`b` are then their outputs.
struct GemmCall {
  size_t fusion = 0;  // index into plan.fusions
  runtime::GemmDesc gemm;
  ir::ValueId a = 0, b = 0;  // read as the product's A and B
  ir::ValueId d = 0;         // written as its D
  std::optional<LibraryOpCall> op;
  std::optional<ir::ValueId> bias;  // read as the bias vector when gemm.bias
};

// A function body or a control op's region, with its plan, kernels and
// library calls.
struct RegionCode {
  ir::Function scope;  // the region as a function: emitters index its ops
  fusion::Plan plan;
  // Its kTtir groups' kernels and its library groups' kernels, in plan order.
  std::vector<KernelLaunch> launches;
  // One per kLibrary group, in plan order.
  std::vector<GemmCall> calls;
  // One per kCollective group, in plan order.
  std::vector<CollectiveCall> collectives;
  // One per kCustomCall group, in plan order.
  std::vector<FfiCall> ffi_calls;
  // Per kControl group (index into plan.fusions): its op's regions, in order
  // (while: cond, body; case: branches; if: true, false).
  std::map<size_t, std::vector<RegionCode>> nested;
};

// Fills program.slots, thunks, lists, temp_bytes, parameter_bytes and
// output_slots (kernels, name and output_aliases are left to the caller) for
// `function`, whose body is `top` (top.scope is not read: `function` is).
// Groups of route kNone may hold only constants, token ops and the
// forwarding ops. UNIMPLEMENTED for what has no buffer form yet (tuple
// parameters, results or carried values; other routes), naming it; INTERNAL
// for a plan without its launches, calls or regions.
Status assembleProgram(const ir::Module& module, const ir::Function& function,
                       const RegionCode& top, runtime::Program& program);

// The same for a body without control flow: `launches` are its groups'
// kernels in plan order, `gemms` its library calls.
Status assembleProgram(const ir::Module& module, const ir::Function& function,
                       const fusion::Plan& plan,
                       const std::vector<KernelLaunch>& launches,
                       runtime::Program& program,
                       const std::vector<GemmCall>& gemms = {});

}  // namespace jft::compiler
