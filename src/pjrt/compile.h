// Compile entry points.
//
// PJRT_Client_Compile: validates the program, dumps it with its compile options
// when `--xla_dump_to` is set, runs the compiler pipeline (src/compiler) with the
// client's settings and kernel compiler, and loads the result on its device.
// Only StableHLO ("mlir") programs on one device are accepted.
// PJRT_Compile (compile without a client's devices) dumps and answers
// UNIMPLEMENTED.
#pragma once

#include "pjrt/abi.h"

namespace jft::pjrt {

PJRT_Error* clientCompile(PJRT_Client_Compile_Args* args);
PJRT_Error* compileForTopology(PJRT_Compile_Args* args);

}  // namespace jft::pjrt
