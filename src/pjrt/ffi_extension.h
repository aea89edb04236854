// The PJRT extension chain (PJRT_Api::extension_start): the FFI extension
// (type ids, user data of an execute context, handler registration) and the
// GPU custom-call extension jaxlib's cuda plugin helper registers handlers
// through (then the stream and profiler extensions); and PJRT_ExecuteContext_Create /
// Destroy. Handlers land in the process's FFI registry (ffi/registry.h) for platform
// CUDA.
#pragma once

#include "pjrt/abi.h"
#include "pjrt/abi_ffi.h"

namespace jft::pjrt {

// The first extension of the chain; the chain lives as long as the process.
PJRT_Extension_Base* extensionChain();

}  // namespace jft::pjrt
