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
// Order: groups in plan order; a group runs its kernels before its call,
// then its call (codegen::Call: its reads and writes get slots, written into
// the thunk's buffer fields), then its kernels after the call. A call reads
// and writes at one point of the timeline, so a collective's input and
// output never share arena bytes, and an output a call computes is written
// in place like a kernel's.
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

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "codegen/backend.h"
#include "fusion/fusion.h"
#include "ir/module.h"
#include "runtime/program.h"
#include "support/status.h"

namespace jft::compiler {

// A function body or a control op's region, with its plan and the code the
// backends made of its groups.
struct RegionCode {
  ir::Function scope;  // the region as a function: emitters index its ops
  fusion::Plan plan;
  // Per group of plan.fusions, in order: what its route's backend made of
  // it; empty for the groups the assembler runs itself (kNone, kControl).
  // A group of several kernels launches them in order, stage 0 first; they
  // share the group's scratch buffers (temps no IR value owns, passed after
  // the outputs and live from the first stage to the last).
  std::vector<codegen::GroupCode> groups;
  // Per kControl group (index into plan.fusions): its op's regions, in order
  // (while: cond, body; case: branches; if: true, false).
  std::map<size_t, std::vector<RegionCode>> nested;
  // Per group the mode moved to the native route (native_routing.h): why
  // (the TTIR refusal or failure, or XLA_MODE=native), for the log.
  std::map<size_t, std::string> native_reasons;
};

// Fills program.slots, thunks, lists, temp_bytes, parameter_bytes and
// output_slots (kernels, name and output_aliases are left to the caller) for
// `function`, whose body is `top` (top.scope is not read: `function` is).
// Groups of route kNone may hold only constants, token ops and the
// forwarding ops. UNIMPLEMENTED for what has no buffer form yet (tuple
// parameters, results or carried values; other routes), naming it; INTERNAL
// for a plan without its groups' code or regions.
Status assembleProgram(const ir::Module& module, const ir::Function& function,
                       const RegionCode& top, runtime::Program& program);

// The same for a body without control flow: `groups` per group of `plan`.
Status assembleProgram(const ir::Module& module, const ir::Function& function,
                       const fusion::Plan& plan, std::vector<codegen::GroupCode> groups,
                       runtime::Program& program);

}  // namespace jft::compiler
