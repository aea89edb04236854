// Which custom calls are typed XLA FFI calls, and their attribute dictionary.
//
// JAX's FFI lowering (every jax.ffi.ffi_call, the host callbacks behind
// jax.debug.print / pure_callback / io_callback, Pallas) asks for api_version
// 4 with a dictionary backend_config; since StableHLO's backend_config is a
// string, the op it writes has api_version 1 and the dictionary in the
// discardable `mhlo.backend_config`. XLA's translation reads that as a typed
// FFI call with that dictionary, and so do we.
#pragma once

#include "ir/module.h"

namespace jft::ir {

// The call's attribute dictionary when it is a typed FFI call: api_version 4
// with a dictionary (or empty) backend_config, or api_version 1 with an empty
// backend_config and a dictionary mhlo.backend_config. `empty` answers for an
// FFI call without attributes. Null when the call is not a typed FFI call.
const NamedAttrs* typedFfiConfig(const Op& op, const NamedAttrs& empty);

bool isTypedFfiCall(const Op& op);

}  // namespace jft::ir
