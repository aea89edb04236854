// Compile entry points. The compiler route is not wired into the plugin yet:
// each call validates its input, dumps it when `--xla_dump_to` is set, and
// answers UNIMPLEMENTED with a message saying so.
#pragma once

#include "pjrt/abi.h"

namespace jft::pjrt {

PJRT_Error* clientCompile(PJRT_Client_Compile_Args* args);
PJRT_Error* compileForTopology(PJRT_Compile_Args* args);

}  // namespace jft::pjrt
