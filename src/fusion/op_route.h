// The route of one op before fusion: which kind of group it can live in, or
// why none of the available routes can run it.
#pragma once

#include <string>

#include "fusion/fusion.h"

namespace jft::fusion {

struct OpRoute {
  Route route = Route::kNative;  // kNative when unsupported
  bool supported = false;
  std::string reason;  // when !supported: "no library route for dot_general yet"
};

// kNone: tuple, get_tuple_element, after_all, create_token,
// optimization_barrier, sharding custom calls, non-splat constants.
// kControl: while/case/if. kLibrary: dot, dot_general, convolution, fft,
// triangular_solve, cholesky, cuSOLVER/cuBLAS custom calls. kCollective:
// all_reduce, all_gather, reduce_scatter, all_to_all, collective_permute,
// collective_broadcast, cross-replica-sum, replica_id, partition_id (one op
// per group, a runtime collective or participant id thunk; legal in every
// mode, fl_only included, since it is data exchange, not numeric work
// escaping TTIR). kCustomCall: a custom call for an XLA FFI handler
// (api_version 4) that no other route claims (a library target the library
// cannot plan included: PlanOptions::library_takes_call), run by the runtime through the
// handler registered for its target (also legal in every mode: a host
// callback or the user's own kernel, not our numeric work); other custom
// calls are refused with what the user can do. kTtir: what PlanOptions::ttir supports.
OpRoute routeOf(const ir::Module& module, const ir::Op& op, const PlanOptions& options);

// "custom_call @<call_target_name>" for a custom call, the op's name
// otherwise: how route messages name an op.
std::string opNameWithTarget(const ir::Op& op);

}  // namespace jft::fusion
