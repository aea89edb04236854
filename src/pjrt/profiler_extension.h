// The PJRT profiler extension (PJRT_Extension_Type_Profiler), last in the
// extension chain: the PLUGIN_Profiler_Api through which jaxlib's plugin
// tracer runs a ProfilerSession (profiler_session.h) at every
// jax.profiler.trace / start_trace, and collects its XSpace.
#pragma once

#include "pjrt/abi.h"
#include "pjrt/abi_profiler.h"

namespace jft::pjrt {

// The extension; `next` follows it in the chain. Lives for the process.
PJRT_Extension_Base* profilerExtension(PJRT_Extension_Base* next);

// The table the extension points at (tests call it directly).
const PLUGIN_Profiler_Api& pluginProfilerApi();

}  // namespace jft::pjrt
