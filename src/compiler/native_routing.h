// XLA_MODE's say over the native route, for one planned body: the entry
// function's or a control op's region (both call this, so nested bodies are
// routed like the top level).
//
//   back_unsupported, back_fail: an op the planner could not place because
//     the TTIR backend refuses it (a single-op kNative group, the op in
//     plan.unsupported) becomes a native kernel when the native emitter
//     takes it (family scan, scatter or sort for those ops, reduction over
//     a reduce's space, else loop); the op
//     then leaves plan.unsupported. Otherwise it stays listed, its reason
//     followed by the emitter's.
//   native: the same, and every kTtir group moves to kNative except a Pallas
//     kernel (the user's own TTIR, which stays as a custom call would);
//     NativeBackend::rejects then names the groups the emitter cannot express.
//   fl_only: nothing moves (strict mode fails on every unsupported op).
//
// back_fail's other half, a TTIR kernel that fails to compile, is decided
// once binaries are built (program_binaries.h).
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "codegen/native/backend.h"
#include "compiler/compiler.h"
#include "fusion/fusion.h"
#include "ir/module.h"

namespace jft::compiler {

// Why each moved group (by index into plan.fusions) went native: the TTIR
// refusal, or the mode.
using NativeReasons = std::map<size_t, std::string>;

NativeReasons routeNative(const ir::Module& module, const ir::Function& scope,
                          fusion::Plan& plan, Mode mode,
                          const codegen::native::NativeBackend& native);

// `group` as the native route runs it: route kNative, the family a kernel of
// its ops has (a group the planner left unplaced has none), and the name
// saying so ("fusion_4_none_sort" becomes "fusion_4_loop_sort").
fusion::Fusion asNativeGroup(const ir::Module& module, const ir::Function& scope,
                             fusion::Fusion group);

}  // namespace jft::compiler
